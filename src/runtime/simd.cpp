#include "ossa/runtime/simd.h"

#include <atomic>

#include "kernels/kernels.h"

namespace ossa {
namespace {
SimdLevel detect() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SimdLevel::kAvx2;
  return SimdLevel::kSse2;
#else
  return SimdLevel::kScalar;
#endif
}
const SimdLevel kBest = detect();
// Atomic so that set_simd_level may run while jobs read it (relaxed: a plain load on x86).
std::atomic<SimdLevel> g_level{kBest};
}  // namespace

SimdLevel simd_level() {
  return g_level.load(std::memory_order_relaxed);
}
SimdLevel best_simd_level() {
  return kBest;
}
void set_simd_level(SimdLevel level) {
  g_level.store(static_cast<int>(level) > static_cast<int>(kBest) ? kBest : level, std::memory_order_relaxed);
}
const char* to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return "scalar";
    case SimdLevel::kSse2:
      return "sse2";
    case SimdLevel::kAvx2:
      return "avx2+fma";
  }
  return "?";
}

namespace detail {
const Kernels& active_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  switch (g_level.load(std::memory_order_relaxed)) {
    case SimdLevel::kAvx2:
      return kAvx2Kernels;
    case SimdLevel::kSse2:
      return kSse2Kernels;
    default:
      return kScalarKernels;
  }
#else
  return kScalarKernels;
#endif
}
}  // namespace detail

}  // namespace ossa
