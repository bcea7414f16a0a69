// AVX2 + FMA build of the throughput microbenchmarks (peaks.inl): compiled with -mavx2 -mfma.
#define PEAKS_FUNCTION measure_peaks_avx2
#include "peaks.inl"
