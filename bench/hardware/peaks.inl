// Throughput microbenchmarks (peaks.h), written once with SSE intrinsics; with -mavx2 -mfma the compiler
// emits VEX forms and madd() fuses. The including file names the function (PEAKS_FUNCTION).
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <utility>

#include "peaks.h"

namespace ossa::bench {
namespace {

using Clock = std::chrono::steady_clock;

inline __m128 madd(__m128 a, __m128 b, __m128 c) {
#ifdef __FMA__
  return _mm_fmadd_ps(a, b, c);
#else
  (void)c;
  return _mm_mul_ps(a, b);  // the multiply pipe alone: SSE2 has no fused form (its add is measured apart)
#endif
}
inline __m128 broadcast(const float* p) {
#ifdef __AVX__
  return _mm_broadcast_ss(p);
#else
  return _mm_load1_ps(p);
#endif
}

// Keeps the compiler from folding a result away or from hoisting loads out of the loop.
template <typename T>
inline void keep(T& value) {
  asm volatile("" : "+x"(value));
}
inline void touch(void* p) {
  asm volatile("" : : "r"(p) : "memory");
}

// Best nanoseconds per operation of `work(iterations)`, which performs `ops_per_iteration` operations each.
template <typename Work>
double best_ns(Work work, double ops_per_iteration) {
  constexpr long kIterations = 200000;
  double best = 1e30;
  for (int run = 0; run < 15; ++run) {
    const auto start = Clock::now();
    work(kIterations);
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    best = std::min(best, ns / (kIterations * ops_per_iteration));
  }
  return best;
}

// Twelve independent registers (more than latency x pipes on current x86 cores), named one by one: an array
// would live on the stack and measure store-to-load forwarding instead.
#define OSSA_EACH12(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define OSSA_EACH8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
constexpr int kChains = 12;

alignas(64) float g_buffer[4096];  // 16 KB: in L1
alignas(64) float g_out[4096];

double multiply_ns() {
  return best_ns(
      [](long n) {
        __m128 m = _mm_set1_ps(1.f), c = _mm_set1_ps(1e-3f);  // values stay normal: no denormal stalls
        keep(m);  // unknown to the compiler: x * 1 is not folded away
#define DECLARE(k) __m128 a##k = _mm_set1_ps(1.f + k);
#define STEP(k) a##k = madd(a##k, m, c), keep(a##k);
#define SAVE(k) _mm_store_ps(g_out + 4 * k, a##k);
        OSSA_EACH12(DECLARE)
        for (long i = 0; i < n; ++i) {
          OSSA_EACH12(STEP)
        }
        OSSA_EACH12(SAVE)
#undef STEP
      },
      kChains);
}

double add_ns() {
  return best_ns(
      [](long n) {
        const __m128 c = _mm_set1_ps(1e-3f);
#define STEP(k) a##k = _mm_add_ps(a##k, c), keep(a##k);
        OSSA_EACH12(DECLARE)
        for (long i = 0; i < n; ++i) {
          OSSA_EACH12(STEP)
        }
        OSSA_EACH12(SAVE)
#undef STEP
      },
      kChains);
}

// Multiplies (FMAs) and adds interleaved, `kMultiplies` of the 12 registers multiplied, the others added: the
// kind of each register's operation is a compile-time constant, so the loop holds nothing but the operations.
template <int kMultiplies>
void fp_mix_loop(long n) {
  __m128 m = _mm_set1_ps(1.f), c = _mm_set1_ps(1e-3f);
  keep(m);
#define STEP(k) a##k = (k < kMultiplies) ? madd(a##k, m, c) : _mm_add_ps(a##k, c), keep(a##k);
  OSSA_EACH12(DECLARE)
  for (long i = 0; i < n; ++i) {
    OSSA_EACH12(STEP)
  }
  OSSA_EACH12(SAVE)
#undef STEP
}

// One loop per count 0-12, indexed by the count.
template <template <int> class Loop, std::size_t... K>
constexpr std::array<void (*)(long), sizeof...(K)> loops_by_count(std::index_sequence<K...>) {
  return {&Loop<static_cast<int>(K)>::run...};
}
template <int K>
struct FpMixLoop {
  static void run(long n) { fp_mix_loop<K>(n); }
};

// In the proportion `share` : 1 - share (rounded to 12 operations a round).
double fp_mix_ns(double share) {
  static constexpr auto kLoops = loops_by_count<FpMixLoop>(std::make_index_sequence<kChains + 1>());
  return best_ns(kLoops[static_cast<int>(share * kChains + 0.5)], kChains);
}

double load_ns() {
  return best_ns(
      [](long n) {
#define DECLARE_I(k) __m128i a##k = _mm_setzero_si128();
#define STEP(k) a##k = _mm_xor_si128(a##k, _mm_load_si128(p + k)), keep(a##k);
#define SAVE_I(k) _mm_store_si128(reinterpret_cast<__m128i*>(g_out) + k, a##k);
        OSSA_EACH8(DECLARE_I)
        for (long i = 0; i < n; ++i) {
          const __m128i* p = reinterpret_cast<const __m128i*>(g_buffer) + (i & 127) * 8;
          OSSA_EACH8(STEP)
        }
        OSSA_EACH8(SAVE_I)
#undef STEP
      },
      8);
}

double broadcast_ns() {
  return best_ns(
      [](long n) {
#define STEP(k)                             \
  {                                         \
    __m128 b = broadcast(p + 3 * k);        \
    keep(b);                                \
    a##k = _mm_xor_ps(a##k, b), keep(a##k); \
  }
        OSSA_EACH8(DECLARE)
        for (long i = 0; i < n; ++i) {
          const float* p = g_buffer + (i & 127) * 32;
          OSSA_EACH8(STEP)
        }
        OSSA_EACH8(SAVE)
#undef STEP
      },
      8);
}

double store_ns() {
  return best_ns(
      [](long n) {
        __m128 v = _mm_set1_ps(1.f);
#define STEP(k) _mm_store_ps(p + 4 * k, v);
        for (long i = 0; i < n; ++i) {
          float* p = g_out + (i & 63) * 64;
          OSSA_EACH8(STEP)
          keep(v);
          touch(p);
        }
#undef STEP
      },
      8);
}

// Loads and stores interleaved, `kLoads` of 12 memory operations a round loads, the others stores.
template <int kLoads>
void memory_mix_loop(long n) {
  const __m128i v = _mm_set1_epi32(7);
#define STEP(k)                                                     \
  if (k < kLoads) {                                                 \
    a##k = _mm_xor_si128(a##k, _mm_load_si128(in + k)), keep(a##k); \
  } else {                                                          \
    _mm_store_si128(out + k, v);                                    \
  }
  OSSA_EACH12(DECLARE_I)
  for (long i = 0; i < n; ++i) {
    const __m128i* in = reinterpret_cast<const __m128i*>(g_buffer) + (i & 63) * 16;
    __m128i* out = reinterpret_cast<__m128i*>(g_out) + (i & 63) * 16;
    OSSA_EACH12(STEP)
    touch(out);
  }
  OSSA_EACH12(SAVE_I)
#undef STEP
}
template <int K>
struct MemoryMixLoop {
  static void run(long n) { memory_mix_loop<K>(n); }
};

// In the proportion `share` : 1 - share (rounded to 12 operations a round).
double memory_mix_ns(double share) {
  static constexpr auto kLoops = loops_by_count<MemoryMixLoop>(std::make_index_sequence<13>());
  return best_ns(kLoops[static_cast<int>(share * 12 + 0.5)], 12);
}

double shuffle_ns() {
  return best_ns(
      [](long n) {
#define STEP(k) a##k = _mm_shuffle_ps(a##k, a##k, 0x39), keep(a##k);
        OSSA_EACH12(DECLARE)
        for (long i = 0; i < n; ++i) {
          OSSA_EACH12(STEP)
        }
        OSSA_EACH12(SAVE)
#undef STEP
      },
      kChains);
}
#undef DECLARE
#undef SAVE
#undef DECLARE_I
#undef SAVE_I

}  // namespace

Peaks PEAKS_FUNCTION(double multiply_share, double load_share) {
  for (int i = 0; i < 4096; ++i) g_buffer[i] = 1.f + i * 1e-4f;
  Peaks p;
  p.multiply = multiply_ns();
  p.add = add_ns();
  p.fp_mix = fp_mix_ns(multiply_share);
  p.load = load_ns();
  p.broadcast = broadcast_ns();
  p.store = store_ns();
  p.memory_mix = memory_mix_ns(load_share);
  p.shuffle = shuffle_ns();
  return p;
}

}  // namespace ossa::bench
