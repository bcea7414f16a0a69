#include "ossa/runtime/simd.h"

#include <atomic>
#if defined(_MSC_VER) && !defined(__clang__)
#include <immintrin.h>  // _xgetbv
#include <intrin.h>     // __cpuid, __cpuidex
#endif

#include "kernels/kernels.h"

namespace ossa {
namespace {
SimdLevel detect() {
#if defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_IX86))
  // AVX2 and FMA in CPUID, and the OS saving the YMM registers (OSXSAVE, then XCR0 bits 1-2).
  int regs[4];
  __cpuid(regs, 1);
  const bool fma = regs[2] & (1 << 12), osxsave = regs[2] & (1 << 27);
  __cpuidex(regs, 7, 0);
  const bool avx2 = regs[1] & (1 << 5);
  if (fma && avx2 && osxsave && (_xgetbv(0) & 6) == 6) return SimdLevel::kAvx2;
  return SimdLevel::kSse2;
#elif defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return SimdLevel::kAvx2;
  return SimdLevel::kSse2;
#elif defined(__aarch64__) && defined(__ARM_NEON)
  return SimdLevel::kNeon;
#else
  return SimdLevel::kScalar;
#endif
}
const SimdLevel kBest = detect();
// Atomic so that set_simd_level may run while jobs read it (relaxed: a plain load on x86 and AArch64).
std::atomic<SimdLevel> g_level{kBest};
bool available(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return true;
    case SimdLevel::kSse2:
      return kBest == SimdLevel::kSse2 || kBest == SimdLevel::kAvx2;
    case SimdLevel::kAvx2:
    case SimdLevel::kNeon:
      return kBest == level;
  }
  return false;
}
}  // namespace

SimdLevel simd_level() {
  return g_level.load(std::memory_order_relaxed);
}
SimdLevel best_simd_level() {
  return kBest;
}
void set_simd_level(SimdLevel level) {
  g_level.store(available(level) ? level : kBest, std::memory_order_relaxed);
}
const char* to_string(SimdLevel level) {
  switch (level) {
    case SimdLevel::kScalar:
      return "scalar";
    case SimdLevel::kSse2:
      return "sse2";
    case SimdLevel::kAvx2:
      return "avx2+fma";
    case SimdLevel::kNeon:
      return "neon";
  }
  return "?";
}

namespace detail {
namespace {
// PortableKernelsScope: the thread's forced table. The counter of live scopes (any thread) keeps the common
// path to one relaxed load: the thread-local is read only while some thread holds a scope.
std::atomic<int> g_portable_scopes{0};
thread_local const Kernels* t_forced_kernels = nullptr;
}  // namespace

PortableKernelsScope::PortableKernelsScope() : saved_(t_forced_kernels) {
  t_forced_kernels = &kScalarKernels;
  g_portable_scopes.fetch_add(1, std::memory_order_relaxed);
}
PortableKernelsScope::~PortableKernelsScope() {
  g_portable_scopes.fetch_sub(1, std::memory_order_relaxed);
  t_forced_kernels = saved_;
}

const Kernels& active_kernels() {
  if (g_portable_scopes.load(std::memory_order_relaxed) != 0 && t_forced_kernels) return *t_forced_kernels;
#if defined(__x86_64__) || defined(__i386__)
  switch (g_level.load(std::memory_order_relaxed)) {
    case SimdLevel::kAvx2:
      return kAvx2Kernels;
    case SimdLevel::kSse2:
      return kSse2Kernels;
    default:
      return kScalarKernels;
  }
#elif defined(__aarch64__) && defined(__ARM_NEON)
  return g_level.load(std::memory_order_relaxed) == SimdLevel::kNeon ? kNeonKernels : kScalarKernels;
#else
  return kScalarKernels;
#endif
}
}  // namespace detail

}  // namespace ossa
