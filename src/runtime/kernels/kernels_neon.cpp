// AArch64 NEON build of the SIMD kernels (Advanced SIMD is part of every ARMv8-A core, so no flag and no
// run-time check).
#define OSSA_KERNEL_NS neon
#define OSSA_KERNEL_TABLE kNeonKernels
#include "kernels_simd.inl"
