// ossa/runtime/simd.h — which instruction set the runtime's inner loops use.
//
// The best level the CPU supports is chosen at start-up (AVX2 + FMA, else SSE2, which every x86-64 has).
// Tests and benchmarks may force a lower level to compare paths; results agree within float rounding.
// Not thread-safe to change while jobs run.
#pragma once

namespace ossa {

enum class SimdLevel { kScalar, kSse2, kAvx2 };

SimdLevel simd_level();
SimdLevel best_simd_level();
void set_simd_level(SimdLevel level);  // clamped to best_simd_level()
const char* to_string(SimdLevel level);

}  // namespace ossa
