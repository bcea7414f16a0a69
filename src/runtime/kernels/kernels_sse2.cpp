// SSE2 build of the SIMD kernels (the x86-64 baseline).
#define OSSA_KERNEL_NS sse2
#define OSSA_KERNEL_TABLE kSse2Kernels
#include "kernels_simd.inl"
