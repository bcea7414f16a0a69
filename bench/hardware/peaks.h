// The machine's throughput for the operations the fixed-rate update is made of, measured on data in L1 cache
// with enough independent chains that only throughput limits: each function returns nanoseconds per operation
// (one 4-float vector instruction, or one 16-byte load or store). Compiled twice from peaks.inl: SSE2 (the
// x86-64 baseline) and AVX2+FMA (VEX encodings, fused multiply-add, vbroadcastss), the two tables the runtime
// picks from.
#pragma once

namespace ossa::bench {

struct Peaks {
  double multiply;    // ns per FMA (AVX2) or multiply (SSE2): the multiply pipes
  double add;         // ns per add or subtract
  double fp_mix;      // ns per operation of `multiply_share` multiplies (or FMAs) mixed with adds
  double load;        // ns per 16-byte load
  double broadcast;   // ns per one-float-to-four broadcast (AVX: a load; SSE2: a load and a shuffle)
  double store;       // ns per 16-byte store
  double memory_mix;  // ns per memory operation, loads and stores mixed at `load_share`
  double shuffle;     // ns per shuffle
};

// `multiply_share` and `load_share`: the update's own proportions (hardware_bound.cpp).
Peaks measure_peaks_sse2(double multiply_share, double load_share);
Peaks measure_peaks_avx2(double multiply_share, double load_share);

}  // namespace ossa::bench
