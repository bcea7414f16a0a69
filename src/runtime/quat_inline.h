// Internal: quaternion arithmetic inline, for the per-frame jobs that chain many products (math.h's are out
// of line). Unit quaternions stay unit to float precision along a chain, so only what is written out is
// normalised. With SSE2 a product or a rotated vector is a handful of 4-wide operations; the scalar forms add
// in the same order, so both give the same bits (x86-64 and aarch64 agree).
#pragma once

#include <cmath>

#include "ossa/core/math.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ossa::detail {

#if defined(__SSE2__)
inline __m128 load4(const Quat& q) {
  return _mm_setr_ps(q.x, q.y, q.z, q.w);
}
inline __m128 load3(Vec3 v) {
  return _mm_setr_ps(v.x, v.y, v.z, 0.f);
}
inline __m128 cross3(__m128 a, __m128 b) {  // lanes 0-2; (a b.yzx - a.yzx b) is the cross product as z, x, y
  const __m128 a_yzx = _mm_shuffle_ps(a, a, _MM_SHUFFLE(3, 0, 2, 1));
  const __m128 b_yzx = _mm_shuffle_ps(b, b, _MM_SHUFFLE(3, 0, 2, 1));
  const __m128 zxy = _mm_sub_ps(_mm_mul_ps(a, b_yzx), _mm_mul_ps(a_yzx, b));
  return _mm_shuffle_ps(zxy, zxy, _MM_SHUFFLE(3, 0, 2, 1));
}
#endif

// Hamilton product, each lane summed as ((a.w b.i + a.i b.w) + a.j b.k) - a.k b.j; w as ((a.w b.w - a.x b.x)
// - a.y b.y) - a.z b.z.
inline Quat mul(const Quat& a, const Quat& b) {
#if defined(__SSE2__)
  const __m128 va = load4(a), vb = load4(b);
  const __m128 flip_w = _mm_castsi128_ps(_mm_setr_epi32(0, 0, 0, static_cast<int>(0x80000000u)));
  const __m128 a_xyzx = _mm_shuffle_ps(va, va, _MM_SHUFFLE(0, 2, 1, 0));
  const __m128 b_wwwx = _mm_shuffle_ps(vb, vb, _MM_SHUFFLE(0, 3, 3, 3));
  const __m128 a_yzxy = _mm_shuffle_ps(va, va, _MM_SHUFFLE(1, 0, 2, 1));
  const __m128 b_zxyy = _mm_shuffle_ps(vb, vb, _MM_SHUFFLE(1, 1, 0, 2));
  const __m128 a_zxyz = _mm_shuffle_ps(va, va, _MM_SHUFFLE(2, 1, 0, 2));
  const __m128 b_yzxz = _mm_shuffle_ps(vb, vb, _MM_SHUFFLE(2, 0, 2, 1));
  __m128 r = _mm_mul_ps(_mm_shuffle_ps(va, va, _MM_SHUFFLE(3, 3, 3, 3)), vb);
  r = _mm_add_ps(r, _mm_xor_ps(_mm_mul_ps(a_xyzx, b_wwwx), flip_w));
  r = _mm_add_ps(r, _mm_xor_ps(_mm_mul_ps(a_yzxy, b_zxyy), flip_w));
  r = _mm_sub_ps(r, _mm_mul_ps(a_zxyz, b_yzxz));
  alignas(16) float out[4];
  _mm_store_ps(out, r);
  return {out[0], out[1], out[2], out[3]};
#else
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
          a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
#endif
}
inline Quat conj(const Quat& q) {
  return {-q.x, -q.y, -q.z, q.w};
}
inline Vec3 rot(const Quat& q, Vec3 v) {  // (v + w t) + q.xyz x t, t = 2 q.xyz x v
#if defined(__SSE2__)
  const __m128 vq = load4(q), vv = load3(v);
  __m128 t = cross3(vq, vv);
  t = _mm_add_ps(t, t);
  const __m128 r = _mm_add_ps(_mm_add_ps(vv, _mm_mul_ps(t, _mm_shuffle_ps(vq, vq, _MM_SHUFFLE(3, 3, 3, 3)))),
                              cross3(vq, t));
  alignas(16) float out[4];
  _mm_store_ps(out, r);
  return {out[0], out[1], out[2]};
#else
  const Vec3 u{q.x, q.y, q.z}, t = cross(u, v) * 2.f;
  return v + t * q.w + cross(u, t);
#endif
}
inline Quat unit(const Quat& q) {
  const float inv = 1.f / std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

}  // namespace ossa::detail
