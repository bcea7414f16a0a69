// ossa/runtime/simd.h — which instruction set the runtime's inner loops use.
//
// The best level the CPU supports is chosen at start-up: on x86-64 AVX2 + FMA, else SSE2 (which every x86-64
// has); on AArch64 NEON (part of every ARMv8-A core); elsewhere the scalar path. Tests and benchmarks may
// force another level to compare paths; results agree within float rounding, and compressed clips decode to
// the same bits at every level. The level may be changed at any time, from any thread (jobs already running
// may finish on the old level).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace ossa {

// Within this scope, denormal floats read as zero and denormal results become zero (x86 FTZ + DAZ, AArch64
// FPCR.FZ, which does both); the thread's previous mode is restored on exit. Denormal arithmetic costs ~100x
// on x86 (and traps to slow paths on many ARM cores): blend weights near 0 or 1 and tiny exported values
// produce them (measured here: crossfade updates 1.6x slower without). Setting the mode costs a few dozen
// cycles, so hold one scope around a whole frame's work (Animator::update, update_character and
// SkinningJob::run do), not around each small job.
class FlushDenormalsScope {
 public:
#if defined(__x86_64__) || defined(__i386__)
  FlushDenormalsScope() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | 0x8040);
  }  // FTZ (bit 15) | DAZ (bit 6)
  ~FlushDenormalsScope() {
    _mm_setcsr(saved_);
  }
#elif defined(__aarch64__)
  FlushDenormalsScope() {
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_ | (1ull << 24)));  // FZ (bit 24)
  }
  ~FlushDenormalsScope() {
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
  }
#else
  FlushDenormalsScope() {}  // no mode to set here (user-provided: no unused-variable warning where held)
#endif
  FlushDenormalsScope(const FlushDenormalsScope&) = delete;
  FlushDenormalsScope& operator=(const FlushDenormalsScope&) = delete;

 private:
#if defined(__x86_64__) || defined(__i386__)
  unsigned saved_;
#elif defined(__aarch64__)
  unsigned long long saved_;
#endif
};

enum class SimdLevel { kScalar, kSse2, kAvx2, kNeon };

SimdLevel simd_level();
SimdLevel best_simd_level();
// A level this machine cannot run (AVX2 on a CPU without it, NEON on x86-64, SSE2 on AArch64) selects
// best_simd_level() instead; kScalar is available everywhere.
void set_simd_level(SimdLevel level);
const char* to_string(SimdLevel level);

}  // namespace ossa
