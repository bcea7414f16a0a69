// Internal: the four-float vector operations the SIMD kernels are written in (kernels_simd.inl), for SSE2,
// AVX2 + FMA and AArch64 NEON. Each is one or two instructions; on x86 they are the intrinsics the kernels
// called before this layer existed, so the SSE2 and AVX2 builds compile to the same code.
//
// Arithmetic contract: add, sub and mul are single IEEE operations on every target. madd(a, b, c) = a * b + c
// is fused where the target has FMA (AVX2, NEON) and a separate multiply and add on SSE2: the kernels that
// must match the scalar reference bit for bit (compressed decode) never call it. rsqrt_nr() is an estimate
// refined by Newton steps, within ~2 ulp of 1 / sqrt(x) on every target (tests compare with tolerances).
#pragma once

#if defined(__SSE2__)
#include <immintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#else
#error "vec4.h: SSE2 or NEON is required (the scalar kernels need neither)"
#endif

namespace ossa::detail::vec4 {

#if defined(__SSE2__)
using F4 = __m128;

inline F4 load(const float* p) {  // 16-byte aligned
  return _mm_load_ps(p);
}
inline F4 loadu(const float* p) {
  return _mm_loadu_ps(p);
}
inline void store(float* p, F4 v) {  // 16-byte aligned
  _mm_store_ps(p, v);
}
inline void storeu(float* p, F4 v) {
  _mm_storeu_ps(p, v);
}
inline F4 set1(float x) {
  return _mm_set1_ps(x);
}
inline F4 setr(float x, float y, float z, float w) {  // lanes x, y, z, w
  return _mm_set_ps(w, z, y, x);
}
// One float from memory in every lane: a plain load with AVX (vbroadcastss), load + shuffle with SSE2.
inline F4 broadcast(const float* p) {
#ifdef __AVX__
  return _mm_broadcast_ss(p);
#else
  return _mm_load1_ps(p);
#endif
}
// Lane L of a in every lane: one shuffle, where a store and a broadcast load would wait on store forwarding.
template <int L>
inline F4 splat(F4 a) {
  return _mm_shuffle_ps(a, a, _MM_SHUFFLE(L, L, L, L));
}
template <int L>
inline float lane(F4 a) {
  return _mm_cvtss_f32(splat<L>(a));
}
inline F4 add(F4 a, F4 b) {
  return _mm_add_ps(a, b);
}
inline F4 sub(F4 a, F4 b) {
  return _mm_sub_ps(a, b);
}
inline F4 mul(F4 a, F4 b) {
  return _mm_mul_ps(a, b);
}
inline F4 madd(F4 a, F4 b, F4 c) {
#ifdef __FMA__
  return _mm_fmadd_ps(a, b, c);
#else
  return _mm_add_ps(_mm_mul_ps(a, b), c);
#endif
}
inline bool all_at_least(F4 a, F4 b) {  // a >= b in every lane
  return _mm_movemask_ps(_mm_cmpge_ps(a, b)) == 0xF;
}
inline F4 vmin(F4 a, F4 b) {
  return _mm_min_ps(a, b);
}
inline F4 vmax(F4 a, F4 b) {
  return _mm_max_ps(a, b);
}
// a with its sign flipped in every lane where s is negative (s's sign bit).
inline F4 flip_sign(F4 a, F4 s) {
  return _mm_xor_ps(a, _mm_and_ps(s, _mm_set1_ps(-0.f)));
}
// 1/sqrt(x) in every lane: the hardware estimate (12 bits) refined by one Newton step (~1e-7 relative error).
inline F4 rsqrt_nr(F4 x) {
  F4 y = _mm_rsqrt_ps(x);
  F4 yyx = _mm_mul_ps(_mm_mul_ps(y, y), x);
  return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), yyx));
}
inline F4 dot4(F4 a, F4 b) {  // a.b in every lane
  F4 p = _mm_mul_ps(a, b);
  F4 s = _mm_add_ps(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}
inline F4 dot4_all(F4 a) {  // a.a in every lane
  F4 sq = _mm_mul_ps(a, a);
  F4 s = _mm_add_ps(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}
inline void transpose(F4& a, F4& b, F4& c, F4& d) {
  _MM_TRANSPOSE4_PS(a, b, c, d);
}
inline void store3(float* out, F4 v) {  // lanes 0-2; out need not be aligned
  _mm_storel_pi(reinterpret_cast<__m64*>(out), v);
  _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

#elif defined(__ARM_NEON)
using F4 = float32x4_t;

// NEON has no alignment requirement: aligned and unaligned loads are the same instruction.
inline F4 load(const float* p) {
  return vld1q_f32(p);
}
inline F4 loadu(const float* p) {
  return vld1q_f32(p);
}
inline void store(float* p, F4 v) {
  vst1q_f32(p, v);
}
inline void storeu(float* p, F4 v) {
  vst1q_f32(p, v);
}
inline F4 set1(float x) {
  return vdupq_n_f32(x);
}
inline F4 setr(float x, float y, float z, float w) {
  const float v[4] = {x, y, z, w};
  return vld1q_f32(v);
}
inline F4 broadcast(const float* p) {  // ld1r: one load instruction
  return vld1q_dup_f32(p);
}
template <int L>
inline F4 splat(F4 a) {
  return vdupq_laneq_f32(a, L);
}
template <int L>
inline float lane(F4 a) {
  return vgetq_lane_f32(a, L);
}
inline F4 add(F4 a, F4 b) {
  return vaddq_f32(a, b);
}
inline F4 sub(F4 a, F4 b) {
  return vsubq_f32(a, b);
}
inline F4 mul(F4 a, F4 b) {
  return vmulq_f32(a, b);
}
inline F4 madd(F4 a, F4 b, F4 c) {  // fused (fmla), as with AVX2's FMA
  return vfmaq_f32(c, a, b);
}
inline bool all_at_least(F4 a, F4 b) {  // a >= b in every lane
  return vminvq_u32(vcgeq_f32(a, b)) != 0;
}
inline F4 vmin(F4 a, F4 b) {
  return vminq_f32(a, b);
}
inline F4 vmax(F4 a, F4 b) {
  return vmaxq_f32(a, b);
}
inline F4 flip_sign(F4 a, F4 s) {
  const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(s), vdupq_n_u32(0x80000000u));
  return vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a), sign));
}
// NEON's estimate (frsqrte) has ~8 bits where SSE's rsqrtps has 12, so two Newton steps (frsqrts computes
// (3 - a * b) / 2) reach the accuracy of SSE's one: ~2 ulp of 1 / sqrt(x).
inline F4 rsqrt_nr(F4 x) {
  F4 y = vrsqrteq_f32(x);
  y = vmulq_f32(y, vrsqrtsq_f32(vmulq_f32(x, y), y));
  return vmulq_f32(y, vrsqrtsq_f32(vmulq_f32(x, y), y));
}
inline F4 dot4(F4 a, F4 b) {  // pairwise adds: (p0 + p1) + (p2 + p3) in every lane, as the SSE version
  const F4 p = vmulq_f32(a, b);
  const F4 s = vpaddq_f32(p, p);
  return vpaddq_f32(s, s);
}
inline F4 dot4_all(F4 a) {
  return dot4(a, a);
}
inline void transpose(F4& a, F4& b, F4& c, F4& d) {
  const F4 ab0 = vtrn1q_f32(a, b), ab1 = vtrn2q_f32(a, b);  // a0 b0 a2 b2, a1 b1 a3 b3
  const F4 cd0 = vtrn1q_f32(c, d), cd1 = vtrn2q_f32(c, d);
  auto lo = [](F4 x, F4 y) {
    return vreinterpretq_f32_f64(vtrn1q_f64(vreinterpretq_f64_f32(x), vreinterpretq_f64_f32(y)));
  };
  auto hi = [](F4 x, F4 y) {
    return vreinterpretq_f32_f64(vtrn2q_f64(vreinterpretq_f64_f32(x), vreinterpretq_f64_f32(y)));
  };
  a = lo(ab0, cd0), b = lo(ab1, cd1), c = hi(ab0, cd0), d = hi(ab1, cd1);
}
inline void store3(float* out, F4 v) {
  vst1_f32(out, vget_low_f32(v));
  vst1q_lane_f32(out + 2, v, 2);
}
#endif

}  // namespace ossa::detail::vec4
