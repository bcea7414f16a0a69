// AVX2 + FMA build of the SIMD kernels; compiled with -mavx2 -mfma, used only when the CPU has both.
#define OSSA_KERNEL_NS avx2
#define OSSA_KERNEL_TABLE kAvx2Kernels
#include "kernels_simd.inl"
