// ossa/runtime/simd.h — which instruction set the runtime's inner loops use.
//
// The best level the CPU supports is chosen at start-up (AVX2 + FMA, else SSE2, which every x86-64 has).
// Tests and benchmarks may force a lower level to compare paths; results agree within float rounding.
// The level may be changed at any time, from any thread (jobs already running may finish on the old level).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ossa {

// Within this scope, denormal floats read as zero and denormal results become zero (x86 FTZ + DAZ); the
// thread's previous mode is restored on exit. Denormal arithmetic costs ~100x on x86: blend weights near 0 or
// 1 and tiny exported values produce them (measured here: crossfade updates 1.6x slower without). Setting the
// mode costs a few dozen cycles, so hold one scope around a whole frame's work (Animator::update,
// update_character and SkinningJob::run do), not around each small job.
class FlushDenormalsScope {
 public:
#if defined(__x86_64__) || defined(__i386__)
  FlushDenormalsScope() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | 0x8040);
  }  // FTZ (bit 15) | DAZ (bit 6)
  ~FlushDenormalsScope() {
    _mm_setcsr(saved_);
  }
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
  unsigned saved_;
#endif
};

enum class SimdLevel { kScalar, kSse2, kAvx2 };

SimdLevel simd_level();
SimdLevel best_simd_level();
void set_simd_level(SimdLevel level);  // clamped to best_simd_level()
const char* to_string(SimdLevel level);

}  // namespace ossa
