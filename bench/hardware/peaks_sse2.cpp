// SSE2 build of the throughput microbenchmarks (peaks.inl).
#define PEAKS_FUNCTION measure_peaks_sse2
#include "peaks.inl"
