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

inline __m128 dot4(__m128 a, __m128 b) {  // a.b in every lane
  __m128 p = _mm_mul_ps(a, b);
  __m128 s = _mm_add_ps(p, _mm_shuffle_ps(p, p, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_add_ps(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 0, 3, 2)));
}

// Normalises four quaternions at once: transposed so that each lane is one quaternion (structure of arrays),
// one rsqrt for the four, transposed back. Saves the per-joint horizontal sums of dot4_all.
inline void normalize4(__m128& q0, __m128& q1, __m128& q2, __m128& q3) {
  __m128 x = q0, y = q1, z = q2, w = q3;
  _MM_TRANSPOSE4_PS(x, y, z, w);
  __m128 len2 = madd(x, x, madd(y, y, madd(z, z, _mm_mul_ps(w, w))));
  __m128 inv = rsqrt_nr(len2);
  x = _mm_mul_ps(x, inv), y = _mm_mul_ps(y, inv), z = _mm_mul_ps(z, inv), w = _mm_mul_ps(w, inv);
  _MM_TRANSPOSE4_PS(x, y, z, w);
  q0 = x, q1 = y, q2 = z, q3 = w;
}

template <bool kShortest>
void blend_poses_t(const JointPose* a, const JointPose* b, float alpha, int count, JointPose* out) {
  const __m128 t = _mm_set1_ps(alpha);
  auto lerp_joint = [&](int j) {  // translation and scale stored, the rotation returned unnormalised
    __m128 ta = _mm_load_ps(a[j].translation), sa = _mm_load_ps(a[j].scale);
    _mm_store_ps(out[j].translation, madd(_mm_sub_ps(_mm_load_ps(b[j].translation), ta), t, ta));
    _mm_store_ps(out[j].scale, madd(_mm_sub_ps(_mm_load_ps(b[j].scale), sa), t, sa));
    __m128 ra = _mm_load_ps(a[j].rotation), rb = _mm_load_ps(b[j].rotation);
    if constexpr (kShortest) rb = _mm_xor_ps(rb, _mm_and_ps(dot4(ra, rb), _mm_set1_ps(-0.f)));
    return madd(_mm_sub_ps(rb, ra), t, ra);
  };
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    __m128 r0 = lerp_joint(j), r1 = lerp_joint(j + 1), r2 = lerp_joint(j + 2), r3 = lerp_joint(j + 3);
    normalize4(r0, r1, r2, r3);
    _mm_store_ps(out[j].rotation, r0);
    _mm_store_ps(out[j + 1].rotation, r1);
    _mm_store_ps(out[j + 2].rotation, r2);
    _mm_store_ps(out[j + 3].rotation, r3);
  }
  for (; j < count; ++j) {
    __m128 r = lerp_joint(j);
    _mm_store_ps(out[j].rotation, _mm_mul_ps(r, rsqrt_nr(dot4_all(r))));
  }
}

void blend_poses(const JointPose* a, const JointPose* b, float alpha, int count, bool shortest,
                 JointPose* out) {
  if (shortest)
    blend_poses_t<true>(a, b, alpha, count, out);
  else
    blend_poses_t<false>(a, b, alpha, count, out);
}

void sample_blend2(const JointPose* a0, const JointPose* a1, float alpha, const JointPose* b0,
                   const JointPose* b1, float beta, float weight, int count, JointPose* out) {
  const __m128 ta_ = _mm_set1_ps(alpha), tb_ = _mm_set1_ps(beta), w = _mm_set1_ps(weight);
  const __m128 sign_bit = _mm_set1_ps(-0.f);
  for (int j = 0; j < count; ++j) {
    __m128 a0r = _mm_load_ps(a0[j].rotation), b0r = _mm_load_ps(b0[j].rotation);
    __m128 ra = madd(_mm_sub_ps(_mm_load_ps(a1[j].rotation), a0r), ta_, a0r);
    __m128 rb = madd(_mm_sub_ps(_mm_load_ps(b1[j].rotation), b0r), tb_, b0r);
    rb = _mm_xor_ps(rb, _mm_and_ps(dot4(ra, rb), sign_bit));
    __m128 r = madd(_mm_sub_ps(rb, ra), w, ra);
    _mm_store_ps(out[j].rotation, _mm_mul_ps(r, rsqrt_nr(dot4_all(r))));
    __m128 a0t = _mm_load_ps(a0[j].translation), b0t = _mm_load_ps(b0[j].translation);
    __m128 ta = madd(_mm_sub_ps(_mm_load_ps(a1[j].translation), a0t), ta_, a0t);
    __m128 tb = madd(_mm_sub_ps(_mm_load_ps(b1[j].translation), b0t), tb_, b0t);
    _mm_store_ps(out[j].translation, madd(_mm_sub_ps(tb, ta), w, ta));
    __m128 a0s = _mm_load_ps(a0[j].scale), b0s = _mm_load_ps(b0[j].scale);
    __m128 sa = madd(_mm_sub_ps(_mm_load_ps(a1[j].scale), a0s), ta_, a0s);
    __m128 sb = madd(_mm_sub_ps(_mm_load_ps(b1[j].scale), b0s), tb_, b0s);
    _mm_store_ps(out[j].scale, madd(_mm_sub_ps(sb, sa), w, sa));
  }
}

struct Columns {
  __m128 c[4];
};

inline Columns load_columns(const float* m) {
  return {{_mm_load_ps(m), _mm_load_ps(m + 4), _mm_load_ps(m + 8), _mm_load_ps(m + 12)}};
}
inline void store_columns(const Columns& c, float* m) {
  for (int k = 0; k < 4; ++k) _mm_store_ps(m + 4 * k, c.c[k]);
}

// Broadcast of one float from memory: a plain load with AVX (vbroadcastss), load + shuffle with SSE2.
inline __m128 broadcast(const float* p) {
#ifdef __AVX__
  return _mm_broadcast_ss(p);
#else
  return _mm_load1_ps(p);
#endif
}

// Rotation * scale entries of T * R * S for four joints at once, structure of arrays: rs[e][k] is entry e
// (column-major 3x3: m00 m10 m20 m01 m11 m21 m02 m12 m22) of joint k. Computing four joints per instruction
// and then broadcasting entries from memory keeps the shuffle port free for the products below.
inline void rotation_scale4(const JointPose* p, float rs[9][4]) {
  __m128 x = _mm_load_ps(p[0].rotation), y = _mm_load_ps(p[1].rotation), z = _mm_load_ps(p[2].rotation),
         w = _mm_load_ps(p[3].rotation);
  _MM_TRANSPOSE4_PS(x, y, z, w);
  __m128 sx = _mm_load_ps(p[0].scale), sy = _mm_load_ps(p[1].scale), sz = _mm_load_ps(p[2].scale),
         unused = _mm_load_ps(p[3].scale);
  _MM_TRANSPOSE4_PS(sx, sy, sz, unused);
  const __m128 one = _mm_set1_ps(1.f);
  const __m128 x2 = _mm_add_ps(x, x), y2 = _mm_add_ps(y, y), z2 = _mm_add_ps(z, z);
  const __m128 xx = _mm_mul_ps(x, x2), yy = _mm_mul_ps(y, y2), zz = _mm_mul_ps(z, z2);
  const __m128 xy = _mm_mul_ps(x, y2), xz = _mm_mul_ps(x, z2), yz = _mm_mul_ps(y, z2);
  const __m128 wx = _mm_mul_ps(w, x2), wy = _mm_mul_ps(w, y2), wz = _mm_mul_ps(w, z2);
  _mm_store_ps(rs[0], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(yy, zz)), sx));
  _mm_store_ps(rs[1], _mm_mul_ps(_mm_add_ps(xy, wz), sx));
  _mm_store_ps(rs[2], _mm_mul_ps(_mm_sub_ps(xz, wy), sx));
  _mm_store_ps(rs[3], _mm_mul_ps(_mm_sub_ps(xy, wz), sy));
  _mm_store_ps(rs[4], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, zz)), sy));
  _mm_store_ps(rs[5], _mm_mul_ps(_mm_add_ps(yz, wx), sy));
  _mm_store_ps(rs[6], _mm_mul_ps(_mm_add_ps(xz, wy), sz));
  _mm_store_ps(rs[7], _mm_mul_ps(_mm_sub_ps(yz, wx), sz));
  _mm_store_ps(rs[8], _mm_mul_ps(_mm_sub_ps(one, _mm_add_ps(xx, yy)), sz));
}

// parent * TRS(joint k of the block): columns 0-2 from the broadcast rotation-scale entries, column 3 from
// the broadcast translation. Two-deep multiply-add chains (the parent-to-child dependency is the latency).
inline Columns multiply_local(const Columns& a, const float rs[9][4], int k, const float* t) {
  Columns r;
  for (int c = 0; c < 3; ++c) {
    __m128 r01 = madd(a.c[0], broadcast(&rs[3 * c][k]), _mm_mul_ps(a.c[1], broadcast(&rs[3 * c + 1][k])));
    r.c[c] = madd(a.c[2], broadcast(&rs[3 * c + 2][k]), r01);
  }
  r.c[3] = _mm_add_ps(madd(a.c[0], broadcast(t), _mm_mul_ps(a.c[1], broadcast(t + 1))),
                      madd(a.c[2], broadcast(t + 2), a.c[3]));
  return r;
}

inline Columns local_columns(const float rs[9][4], int k, const float* t) {
  return {{_mm_set_ps(0, rs[2][k], rs[1][k], rs[0][k]), _mm_set_ps(0, rs[5][k], rs[4][k], rs[3][k]),
           _mm_set_ps(0, rs[8][k], rs[7][k], rs[6][k]), _mm_set_ps(1, t[2], t[1], t[0])}};
}

// Parent-first walk. `last` holds the previous joint's model matrix in registers: in depth-first order a
// joint usually follows its parent, and reusing the registers takes the store-to-load round trip off the
// chain.
inline void place(const float rs[9][4], int k, const JointPose& local, int j, const int* parents,
                  const Mat4* root, Mat4* model, Columns& last) {
  const int p = parents[j];
  if (p >= 0) {
    last = multiply_local(p == j - 1 ? last : load_columns(model[p].m), rs, k, local.translation);
  } else if (root) {
    last = multiply_local(load_columns(root->m), rs, k, local.translation);
  } else {
    last = local_columns(rs, k, local.translation);
  }
  store_columns(last, model[j].m);
}

void local_to_model(const JointPose* local, const int* parents, int begin, int end, const Mat4* root,
                    Mat4* model) {
  // The joint before `begin` may be its parent (sub-tree updates): start from its stored matrix.
  Columns last = begin > 0 ? load_columns(model[begin - 1].m) : Columns{};
  alignas(16) float rs[9][4];
  int j = begin;
  for (; j + 4 <= end; j += 4) {
    rotation_scale4(local + j, rs);
    // In order: a parent inside this block is placed before its children.
    for (int k = 0; k < 4; ++k) place(rs, k, local[j + k], j + k, parents, root, model, last);
  }
  if (j < end) {  // the last 1-3 joints: pad the block with copies of the last joint
    JointPose tail[4];
    for (int k = 0; k < 4; ++k) tail[k] = local[std::min(j + k, end - 1)];
    rotation_scale4(tail, rs);
    for (int k = 0; j + k < end; ++k) place(rs, k, local[j + k], j + k, parents, root, model, last);
  }
}

// Model matrices and inverse binds are affine (last row 0 0 0 1): each product column is three multiply-adds
// of the model's columns by broadcast inverse-bind entries.
void palette(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out) {
  for (int k = 0; k < count; ++k) {
    const Columns a = load_columns(model[remap ? remap[k] : k].m);
    const float* b = inverse_binds[k].m;
    for (int c = 0; c < 4; ++c) {
      __m128 r = madd(a.c[0], broadcast(b + 4 * c), _mm_mul_ps(a.c[1], broadcast(b + 4 * c + 1)));
      r = madd(a.c[2], broadcast(b + 4 * c + 2), r);
      if (c == 3) r = _mm_add_ps(r, a.c[3]);
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

#ifdef __AVX2__
// AVX2: the blend works on column pairs (c0|c1, c2|c3) in 256-bit registers, halving its multiply-adds;
// the transform then sums the two halves. Palette matrices are 16-byte aligned, not 32: unaligned 256-bit
// loads (no slower on aligned data; an aligned load on a 16-byte boundary would fault).
template <int K, bool kNormals, bool kTangents>
void skin_loop_avx2(const SkinningJob& job) {
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
    // All K joint indices in one load, taken apart with shifts (keeps the load ports for the matrices).
    uint64_t packed = 0;
    std::memcpy(&packed, indices, sizeof(uint16_t) * K);
    const float* m0 = palette[packed & 0xffff].m;
    __m256 w = _mm256_broadcast_ss(weights);
    __m256 c01 = _mm256_mul_ps(_mm256_loadu_ps(m0), w);
    __m256 c23 = _mm256_mul_ps(_mm256_loadu_ps(m0 + 8), w);
    for (int i = 1; i < K; ++i) {
      const float* m = palette[(packed >> (16 * i)) & 0xffff].m;
      w = _mm256_broadcast_ss(weights + i);
      c01 = _mm256_fmadd_ps(_mm256_loadu_ps(m), w, c01);
      c23 = _mm256_fmadd_ps(_mm256_loadu_ps(m + 8), w, c23);
    }
    const float* p = reinterpret_cast<const float*>(in_p);
    // (c0 * x | c1 * y) + (c2 * z | c3 * 1), then low + high.
    __m256 xy = _mm256_set_m128(_mm_broadcast_ss(p + 1), _mm_broadcast_ss(p));
    __m256 z1 = _mm256_set_m128(_mm_set1_ps(1.f), _mm_broadcast_ss(p + 2));
    __m256 sum = _mm256_fmadd_ps(c01, xy, _mm256_mul_ps(c23, z1));
    __m128 r = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
    if constexpr (kNormals) {
      const float* n = reinterpret_cast<const float*>(in_n);
      __m256 nxy = _mm256_set_m128(_mm_broadcast_ss(n + 1), _mm_broadcast_ss(n));
      __m256 nz0 = _mm256_set_m128(_mm_setzero_ps(), _mm_broadcast_ss(n + 2));
      __m256 ns = _mm256_fmadd_ps(c01, nxy, _mm256_mul_ps(c23, nz0));
      store3(reinterpret_cast<float*>(out_n),
             _mm_add_ps(_mm256_castps256_ps128(ns), _mm256_extractf128_ps(ns, 1)));
      in_n += job.in_normals_stride;
      out_n += job.out_normals_stride;
    }
    if constexpr (kTangents) {
      const float* t = reinterpret_cast<const float*>(in_t);
      const float sign = t[3];
      __m256 txy = _mm256_set_m128(_mm_broadcast_ss(t + 1), _mm_broadcast_ss(t));
      __m256 tz0 = _mm256_set_m128(_mm_setzero_ps(), _mm_broadcast_ss(t + 2));
      __m256 ts = _mm256_fmadd_ps(c01, txy, _mm256_mul_ps(c23, tz0));
      float* ot = reinterpret_cast<float*>(out_t);
      store3(ot, _mm_add_ps(_mm256_castps256_ps128(ts), _mm256_extractf128_ps(ts, 1)));
      ot[3] = sign;
      in_t += job.in_tangents_stride;
      out_t += job.out_tangents_stride;
    }
    store3(reinterpret_cast<float*>(out_p), r);
    in_p += job.in_positions_stride;
    out_p += job.out_positions_stride;
  }
}
#define OSSA_SKIN_LOOP skin_loop_avx2
#else
#define OSSA_SKIN_LOOP skin_loop
#endif

template <int K>
void skin_k(const SkinningJob& job) {
  const bool n = job.in_normals != nullptr, t = job.in_tangents != nullptr;
  if (n && t) return OSSA_SKIN_LOOP<K, true, true>(job);
  if (n) return OSSA_SKIN_LOOP<K, true, false>(job);
  if (t) return OSSA_SKIN_LOOP<K, false, true>(job);
  OSSA_SKIN_LOOP<K, false, false>(job);
}

void skin(const SkinningJob& job) {
  switch (job.influences) {
    case 1:
      return skin_k<1>(job);
    case 2:
      return skin_k<2>(job);
    case 3:
      return skin_k<3>(job);
    default:
      return skin_k<4>(job);
  }
}

#ifdef __AVX2__
// One channel per iteration, its three components in lanes 0-2: the three 32-bit words, a variable shift, the
// mask, then base + step * q with a separate multiply and add (as the scalar decoder: the results are
// bit-identical). Rotations rebuild w = sqrt(max(1 - ((x*x + y*y) + z*z), 0)) in the same order.
void decode_quantized(const uint8_t* frame, const Clip::DecodeStep* steps, int rotations, int vectors,
                      JointPose* out) {
  auto decode = [frame](const Clip::DecodeStep& d) {
    // Three plain loads: gathers are microcoded, and slow where the Gather Data Sampling fix is applied.
    int words[3];
    for (int i = 0; i < 3; ++i) std::memcpy(&words[i], frame + d.byte[i], 4);
    __m128i q = _mm_setr_epi32(words[0], words[1], words[2], 0);
    q = _mm_and_si128(_mm_srlv_epi32(q, _mm_load_si128(reinterpret_cast<const __m128i*>(d.shift))),
                      _mm_load_si128(reinterpret_cast<const __m128i*>(d.mask)));
    return _mm_add_ps(_mm_load_ps(d.base), _mm_mul_ps(_mm_load_ps(d.step), _mm_cvtepi32_ps(q)));
  };
  for (const Clip::DecodeStep* d = steps; d != steps + rotations; ++d) {
    const __m128 v = decode(*d);
    const __m128 sq = _mm_mul_ps(v, v);
    const __m128 sum = _mm_add_ss(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1)), _mm_movehl_ps(sq, sq));
    const __m128 w = _mm_sqrt_ss(_mm_max_ss(_mm_sub_ss(_mm_set_ss(1.f), sum), _mm_setzero_ps()));
    _mm_storeu_ps(out[d->joint].rotation, _mm_insert_ps(v, w, 0x30));
  }
  for (const Clip::DecodeStep* d = steps + rotations; d != steps + rotations + vectors; ++d)
    _mm_storeu_ps(d->kind == 0 ? out[d->joint].translation : out[d->joint].scale, decode(*d));
}
#endif

#undef OSSA_SPLAT
#undef OSSA_SKIN_LOOP
}  // namespace
}  // namespace OSSA_KERNEL_NS

#ifdef __AVX2__
#define OSSA_DECODE_QUANTIZED OSSA_KERNEL_NS::decode_quantized
#else
#define OSSA_DECODE_QUANTIZED decode_quantized_scalar
#endif
const Kernels OSSA_KERNEL_TABLE = {OSSA_KERNEL_NS::blend_poses,   OSSA_KERNEL_NS::local_to_model,
                                   OSSA_KERNEL_NS::palette,       OSSA_KERNEL_NS::skin,
                                   OSSA_KERNEL_NS::sample_blend2, OSSA_DECODE_QUANTIZED};
#undef OSSA_DECODE_QUANTIZED

}  // namespace ossa::detail
