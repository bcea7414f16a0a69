// SIMD kernels, written once with SSE intrinsics and compiled twice: as SSE2 (kernels_sse2.cpp) and with
// AVX2 + FMA enabled (kernels_avx2.cpp), where madd() becomes a fused multiply-add and the compiler uses VEX
// encodings. The including file defines OSSA_KERNEL_NS and OSSA_KERNEL_TABLE.
#include <immintrin.h>

#include <cstring>

#include "kernels.h"

namespace ossa::detail {
namespace OSSA_KERNEL_NS {
namespace {

inline __m128 madd(__m128 a, __m128 b, __m128 c) {
#ifdef __FMA__
  return _mm_fmadd_ps(a, b, c);
#else
  return _mm_add_ps(_mm_mul_ps(a, b), c);
#endif
}
#define OSSA_SPLAT(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE(i, i, i, i))

// 1/sqrt(x) in every lane: the hardware estimate refined by one Newton step (~1e-7 relative error).
inline __m128 rsqrt_nr(__m128 x) {
  __m128 y = _mm_rsqrt_ps(x);
  __m128 yyx = _mm_mul_ps(_mm_mul_ps(y, y), x);
  return _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), y), _mm_sub_ps(_mm_set1_ps(3.0f), yyx));
}

inline __m128 dot4_all(__m128 a) {  // a.a in every lane
  __m128 sq = _mm_mul_ps(a, a);
  __m128 s = _mm_add_ps(sq, _mm_shuffle_ps(sq, sq, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}

void blend_poses(const JointPose* a, const JointPose* b, float alpha, int count, JointPose* out) {
  const __m128 t = _mm_set1_ps(alpha);
  for (int j = 0; j < count; ++j) {
    __m128 ta = _mm_load_ps(a[j].translation), ra = _mm_load_ps(a[j].rotation), sa = _mm_load_ps(a[j].scale);
    __m128 tb = _mm_load_ps(b[j].translation), rb = _mm_load_ps(b[j].rotation), sb = _mm_load_ps(b[j].scale);
    __m128 r = madd(_mm_sub_ps(rb, ra), t, ra);
    _mm_store_ps(out[j].translation, madd(_mm_sub_ps(tb, ta), t, ta));
    _mm_store_ps(out[j].rotation, _mm_mul_ps(r, rsqrt_nr(dot4_all(r))));
    _mm_store_ps(out[j].scale, madd(_mm_sub_ps(sb, sa), t, sa));
  }
}

struct Columns {
  __m128 c[4];
};

// The columns of T * R * S for one joint (w lanes: 0, 0, 0, 1).
inline Columns trs_columns(const JointPose& p) {
  const float x = p.rotation[0], y = p.rotation[1], z = p.rotation[2], w = p.rotation[3];
  const float xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y,
              wz = w * z;
  const float sx = p.scale[0], sy = p.scale[1], sz = p.scale[2];
  Columns m;
  m.c[0] = _mm_set_ps(0, 2 * (xz - wy) * sx, 2 * (xy + wz) * sx, (1 - 2 * (yy + zz)) * sx);
  m.c[1] = _mm_set_ps(0, 2 * (yz + wx) * sy, (1 - 2 * (xx + zz)) * sy, 2 * (xy - wz) * sy);
  m.c[2] = _mm_set_ps(0, (1 - 2 * (xx + yy)) * sz, 2 * (yz - wx) * sz, 2 * (xz + wy) * sz);
  m.c[3] = _mm_set_ps(1, p.translation[2], p.translation[1], p.translation[0]);
  return m;
}

// out = a * b where b is affine (its columns 0-2 have w = 0, column 3 has w = 1).
inline void multiply_affine(const float* a, const Columns& b, float* out) {
  const __m128 a0 = _mm_load_ps(a), a1 = _mm_load_ps(a + 4), a2 = _mm_load_ps(a + 8), a3 = _mm_load_ps(a + 12);
  for (int k = 0; k < 3; ++k) {
    __m128 col = b.c[k];
    __m128 r = _mm_mul_ps(a0, OSSA_SPLAT(col, 0));
    r = madd(a1, OSSA_SPLAT(col, 1), r);
    r = madd(a2, OSSA_SPLAT(col, 2), r);
    _mm_store_ps(out + 4 * k, r);
  }
  __m128 col = b.c[3];
  __m128 r = madd(a0, OSSA_SPLAT(col, 0), a3);
  r = madd(a1, OSSA_SPLAT(col, 1), r);
  r = madd(a2, OSSA_SPLAT(col, 2), r);
  _mm_store_ps(out + 12, r);
}

void local_to_model(const JointPose* local, const int* parents, int begin, int end, const Mat4* root, Mat4* model) {
  for (int j = begin; j < end; ++j) {
    Columns m = trs_columns(local[j]);
    int p = parents[j];
    if (p >= 0) {
      multiply_affine(model[p].m, m, model[j].m);
    } else if (root) {
      multiply_affine(root->m, m, model[j].m);
    } else {
      for (int k = 0; k < 4; ++k) _mm_store_ps(model[j].m + 4 * k, m.c[k]);
    }
  }
}

void palette(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out) {
  for (int k = 0; k < count; ++k) {
    const float* a = model[remap ? remap[k] : k].m;
    const float* b = inverse_binds[k].m;
    const __m128 a0 = _mm_load_ps(a), a1 = _mm_load_ps(a + 4), a2 = _mm_load_ps(a + 8), a3 = _mm_load_ps(a + 12);
    for (int c = 0; c < 4; ++c) {
      __m128 col = _mm_load_ps(b + 4 * c);
      __m128 r = _mm_mul_ps(a0, OSSA_SPLAT(col, 0));
      r = madd(a1, OSSA_SPLAT(col, 1), r);
      r = madd(a2, OSSA_SPLAT(col, 2), r);
      r = madd(a3, OSSA_SPLAT(col, 3), r);
      _mm_store_ps(out[k].m + 4 * c, r);
    }
  }
}

inline void store3(float* out, __m128 v) {
  _mm_storel_pi(reinterpret_cast<__m64*>(out), v);
  _mm_store_ss(out + 2, _mm_movehl_ps(v, v));
}

template <int K, bool kNormals, bool kTangents>
void skin_loop(const SkinningJob& job) {
  const uint16_t* indices = job.joint_indices.data();
  const float* weights = job.joint_weights.data();
  const Mat4* palette = job.palette.data();
  const char* in_p = reinterpret_cast<const char*>(job.in_positions);
  const char* in_n = reinterpret_cast<const char*>(job.in_normals);
  const char* in_t = reinterpret_cast<const char*>(job.in_tangents);
  char* out_p = reinterpret_cast<char*>(job.out_positions);
  char* out_n = reinterpret_cast<char*>(job.out_normals);
  char* out_t = reinterpret_cast<char*>(job.out_tangents);
  for (int v = 0; v < job.vertex_count; ++v, indices += K, weights += K) {
    // Blend the (affine) palette matrices: columns 0-2 and the translation column.
    const float* m0 = palette[indices[0]].m;
    __m128 w = _mm_set1_ps(weights[0]);
    __m128 c0 = _mm_mul_ps(_mm_load_ps(m0), w), c1 = _mm_mul_ps(_mm_load_ps(m0 + 4), w);
    __m128 c2 = _mm_mul_ps(_mm_load_ps(m0 + 8), w), c3 = _mm_mul_ps(_mm_load_ps(m0 + 12), w);
    for (int i = 1; i < K; ++i) {
      const float* m = palette[indices[i]].m;
      w = _mm_set1_ps(weights[i]);
      c0 = madd(_mm_load_ps(m), w, c0);
      c1 = madd(_mm_load_ps(m + 4), w, c1);
      c2 = madd(_mm_load_ps(m + 8), w, c2);
      c3 = madd(_mm_load_ps(m + 12), w, c3);
    }
    const float* p = reinterpret_cast<const float*>(in_p);
    __m128 r = madd(c0, _mm_set1_ps(p[0]), c3);
    r = madd(c1, _mm_set1_ps(p[1]), r);
    r = madd(c2, _mm_set1_ps(p[2]), r);
    if constexpr (kNormals) {
      const float* n = reinterpret_cast<const float*>(in_n);
      __m128 rn = _mm_mul_ps(c0, _mm_set1_ps(n[0]));
      rn = madd(c1, _mm_set1_ps(n[1]), rn);
      rn = madd(c2, _mm_set1_ps(n[2]), rn);
      store3(reinterpret_cast<float*>(out_n), rn);
      in_n += job.in_normals_stride;
      out_n += job.out_normals_stride;
    }
    if constexpr (kTangents) {
      const float* t = reinterpret_cast<const float*>(in_t);
      const float sign = t[3];
      __m128 rt = _mm_mul_ps(c0, _mm_set1_ps(t[0]));
      rt = madd(c1, _mm_set1_ps(t[1]), rt);
      rt = madd(c2, _mm_set1_ps(t[2]), rt);
      float* ot = reinterpret_cast<float*>(out_t);
      store3(ot, rt);
      ot[3] = sign;
      in_t += job.in_tangents_stride;
      out_t += job.out_tangents_stride;
    }
    store3(reinterpret_cast<float*>(out_p), r);
    in_p += job.in_positions_stride;
    out_p += job.out_positions_stride;
  }
}

template <int K>
void skin_k(const SkinningJob& job) {
  const bool n = job.in_normals != nullptr, t = job.in_tangents != nullptr;
  if (n && t) return skin_loop<K, true, true>(job);
  if (n) return skin_loop<K, true, false>(job);
  if (t) return skin_loop<K, false, true>(job);
  skin_loop<K, false, false>(job);
}

void skin(const SkinningJob& job) {
  switch (job.influences) {
    case 1: return skin_k<1>(job);
    case 2: return skin_k<2>(job);
    case 3: return skin_k<3>(job);
    default: return skin_k<4>(job);
  }
}

#undef OSSA_SPLAT
}  // namespace
}  // namespace OSSA_KERNEL_NS

const Kernels OSSA_KERNEL_TABLE = {OSSA_KERNEL_NS::blend_poses, OSSA_KERNEL_NS::local_to_model,
                                   OSSA_KERNEL_NS::palette, OSSA_KERNEL_NS::skin};

}  // namespace ossa::detail
