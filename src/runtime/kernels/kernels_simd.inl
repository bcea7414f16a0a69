// SIMD kernels, written once in the four-float operations of vec4.h and compiled three times: as SSE2
// (kernels_sse2.cpp), with AVX2 + FMA enabled (kernels_avx2.cpp: madd() becomes a fused multiply-add, VEX
// encodings, and the AVX2-only skinning below) and for AArch64 NEON (kernels_neon.cpp: fused
// madd(), its own decode below). The including file defines OSSA_KERNEL_NS and OSSA_KERNEL_TABLE.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "kernels.h"
#include "vec4.h"

namespace ossa::detail {
namespace OSSA_KERNEL_NS {
namespace {

using namespace vec4;

// Normalises four quaternions at once: transposed so that each lane is one quaternion (structure of arrays),
// one rsqrt for the four, transposed back. Saves the per-joint horizontal sums of dot4_all.
inline void normalize4(F4& q0, F4& q1, F4& q2, F4& q3) {
  F4 x = q0, y = q1, z = q2, w = q3;
  transpose(x, y, z, w);
  F4 len2 = madd(x, x, madd(y, y, madd(z, z, mul(w, w))));
  F4 inv = rsqrt_nr(len2);
  x = mul(x, inv), y = mul(y, inv), z = mul(z, inv), w = mul(w, inv);
  transpose(x, y, z, w);
  q0 = x, q1 = y, q2 = z, q3 = w;
}

void blend_poses(const JointPose* a, const JointPose* b, float alpha, int count, JointPose* out) {
  const F4 t = set1(alpha);
  auto lerp_joint = [&](int j) {  // translation and scale stored, the rotation returned unnormalised
    F4 ta = load(a[j].translation), sa = load(a[j].scale);
    store(out[j].translation, madd(sub(load(b[j].translation), ta), t, ta));
    store(out[j].scale, madd(sub(load(b[j].scale), sa), t, sa));
    F4 ra = load(a[j].rotation), rb = load(b[j].rotation);
    rb = flip_sign(rb, dot4(ra, rb));  // the short arc
    return madd(sub(rb, ra), t, ra);
  };
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    F4 r0 = lerp_joint(j), r1 = lerp_joint(j + 1), r2 = lerp_joint(j + 2), r3 = lerp_joint(j + 3);
    normalize4(r0, r1, r2, r3);
    store(out[j].rotation, r0);
    store(out[j + 1].rotation, r1);
    store(out[j + 2].rotation, r2);
    store(out[j + 3].rotation, r3);
  }
  for (; j < count; ++j) {
    F4 r = lerp_joint(j);
    store(out[j].rotation, mul(r, rsqrt_nr(dot4_all(r))));
  }
}

// slerp_weight_series() for four fractions at once.
template <int kTerms>
inline F4 slerp_weight4(F4 t, F4 xm1) {
  const F4 one = set1(1), t2 = mul(t, t);
  F4 f = one;
  for (int i = kTerms; i >= 1; --i)
    f = madd(mul(sub(mul(set1(slerp_u(i)), t2), set1(slerp_v(i))), xm1), f, one);
  return mul(t, f);
}

// cos(angle) - 1 of the short arc, from the dot product d (|d| clamped to 1 against rounding).
inline F4 cos_minus_one(F4 d) {
  const F4 one = set1(1);
  return sub(vmin(flip_sign(d, d), one), one);
}

// A slerp weight at one fraction t for every lane (a clip sampled between two of its frames), as a polynomial
// in x = cos(angle) - 1: slerp_weight_series multiplied out, t (1 + c1 x (1 + c2 x (...))) = t + t c1 x +
// t c1 c2 x^2 + ..., with c_i = u_i t^2 - v_i fixed per call, so each lane's weight is a chain of kTerms
// multiply-adds.
template <int kTerms>
class SlerpPolynomial {
 public:
  explicit SlerpPolynomial(float t) {
    const float t2 = t * t;
    float product = t;
    coefficient_[0] = set1(product);
    for (int i = 1; i <= kTerms; ++i) {
      product *= slerp_u(i) * t2 - slerp_v(i);
      coefficient_[i] = set1(product);
    }
  }
  F4 operator()(F4 x) const {
    F4 w = coefficient_[kTerms];
    for (int k = kTerms - 1; k >= 0; --k) w = madd(w, x, coefficient_[k]);
    return w;
  }

 private:
  F4 coefficient_[kTerms + 1];
};

// The weights of a slerp at fraction t for lanes not all within the near range (frames over 36 degrees
// apart): the series' middle range, or sines lane by lane beyond 91 degrees. Rare, so out of line.
[[gnu::noinline]] void far_slerp_weights(float t, F4 xm1, F4& wa, F4& wb) {
  if (all_at_least(xm1, set1(-kSlerpMid))) {
    wa = slerp_weight4<kSlerpMidTerms>(set1(1 - t), xm1);
    wb = slerp_weight4<kSlerpMidTerms>(set1(t), xm1);
    return;
  }
  alignas(16) float x[4], a[4], b[4];
  store(x, xm1);
  for (int i = 0; i < 4; ++i) a[i] = slerp_weight(1 - t, x[i]), b[i] = slerp_weight(t, x[i]);
  wa = load(a), wb = load(b);
}

// Slerp weights (wa, wb) of four rotation pairs with dot products d, scaled so that wa a + wb b has unit
// length: for unit a and b, n = |wa a + wb b|^2 = wa^2 + wb^2 + 2 wa wb (a.b). The weights are within 1.3e-7
// of exact, so n lies within 1e-6 of 1, where 1/sqrt(n) = 1.5 - 0.5 n to 4e-13 (the next term is
// 3/8 (n - 1)^2; rotations decoded a little off unit length move n further, and within 1e-3 of 1 the term
// stays below 4e-7): one multiply-add on the latency chain of every update instead of a square-root estimate
// and its Newton step.
inline void scale_to_unit(F4 d, F4& wa, F4& wb) {
  const F4 length2 = add(madd(wb, wb, mul(wa, wa)), mul(add(wa, wa), mul(wb, d)));
  const F4 inv = madd(set1(-0.5f), length2, set1(1.5f));
  wa = mul(wa, inv), wb = mul(wb, inv);
}

// wa a + wb b with the weights of lane L: the rotations stay as stored (a joint's 16 bytes), each taking its
// weights from the four computed together, so no transposes.
template <int L>
inline F4 weighted_rotation(F4 a, F4 b, F4 wa, F4 wb) {
  return madd(a, splat<L>(wa), mul(b, splat<L>(wb)));
}

// Slerp weights at one fraction for four joints whose rotations have dot products d (Clip::frame_cosines):
// the weight of the far rotation carries d's sign (the short arc). With kUnit they are scaled to unit length
// (scale_to_unit); without, the result is within 3e-7 of unit length (the series' truncation and float
// rounding), for callers that normalise later anyway.
struct FrameSlerp {
  explicit FrameSlerp(float t) : t(t), near_a(1 - t), near_b(t) {}
  template <bool kUnit>
  void weights(F4 d, F4& wa, F4& wb) const {
    const F4 xm1 = cos_minus_one(d);
    if (all_at_least(xm1, set1(-kSlerpNear))) {
      wa = near_a(xm1), wb = near_b(xm1);
    } else {
      far_slerp_weights(t, xm1, wa, wb);
    }
    wb = flip_sign(wb, d);  // frames on either hemisphere: the short arc
    if constexpr (kUnit) scale_to_unit(d, wa, wb);
  }
  float t;
  SlerpPolynomial<kSlerpNearTerms> near_a, near_b;
};

// The cosines of a last block of `rest` (1 to 3) joints j0, j1, j2 in the first lanes, 1 (a pair that does
// not turn) in the others.
inline F4 tail_cosines(const float* cosines, uint32_t j0, uint32_t j1, uint32_t j2, int rest) {
  return setr(cosines[j0], rest > 1 ? cosines[j1] : 1.f, rest > 2 ? cosines[j2] : 1.f, 1.f);
}

// One joint between frames a and b: translation and scale lerped at t, the rotation by lane L's weights.
template <int L>
inline void interpolate_joint(const JointPose& a, const JointPose& b, F4 t, F4 wa, F4 wb, JointPose& out) {
  const F4 ta = load(a.translation), sa = load(a.scale);
  store(out.translation, madd(sub(load(b.translation), ta), t, ta));
  store(out.scale, madd(sub(load(b.scale), sa), t, sa));
  store(out.rotation, weighted_rotation<L>(load(a.rotation), load(b.rotation), wa, wb));
}

// `joint_at(k)` is the k-th joint to sample.
template <typename JointAt>
void interpolate_frames_at(const JointPose* a, const JointPose* b, const float* cosines, float alpha,
                           JointAt joint_at, int count, JointPose* out) {
  const F4 t = set1(alpha);
  const FrameSlerp slerp(alpha);
  F4 wa, wb;
  int k = 0;
  for (; k + 4 <= count; k += 4) {
    const uint32_t j0 = joint_at(k), j1 = joint_at(k + 1), j2 = joint_at(k + 2), j3 = joint_at(k + 3);
    slerp.weights<true>(
        j3 == j0 + 3 ? loadu(cosines + j0) : setr(cosines[j0], cosines[j1], cosines[j2], cosines[j3]), wa,
        wb);
    interpolate_joint<0>(a[j0], b[j0], t, wa, wb, out[j0]);
    interpolate_joint<1>(a[j1], b[j1], t, wa, wb, out[j1]);
    interpolate_joint<2>(a[j2], b[j2], t, wa, wb, out[j2]);
    interpolate_joint<3>(a[j3], b[j3], t, wa, wb, out[j3]);
  }
  if (k < count) {  // the last one to three joints (missing ones repeat the first, unread)
    const int rest = count - k;
    const uint32_t j0 = joint_at(k), j1 = joint_at(k + (rest > 1)), j2 = joint_at(k + (rest > 2) * 2);
    slerp.weights<true>(tail_cosines(cosines, j0, j1, j2, rest), wa, wb);
    interpolate_joint<0>(a[j0], b[j0], t, wa, wb, out[j0]);
    if (rest > 1) interpolate_joint<1>(a[j1], b[j1], t, wa, wb, out[j1]);
    if (rest > 2) interpolate_joint<2>(a[j2], b[j2], t, wa, wb, out[j2]);
  }
}

void interpolate_frames(const JointPose* a, const JointPose* b, const float* cosines, float alpha,
                        const uint32_t* joints, int count, JointPose* out) {
  if (joints)
    interpolate_frames_at(
        a, b, cosines, alpha, [joints](int k) { return joints[k]; }, count, out);
  else
    interpolate_frames_at(
        a, b, cosines, alpha, [](int k) { return static_cast<uint32_t>(k); }, count, out);
}

void sample_blend2(const JointPose* a0, const JointPose* a1, const float* cosines_a, float alpha,
                   const JointPose* b0, const JointPose* b1, const float* cosines_b, float beta, float weight,
                   int count, JointPose* out) {
  const F4 ta_ = set1(alpha), tb_ = set1(beta), w = set1(weight);
  const FrameSlerp slerp_a(alpha), slerp_b(beta);
  F4 wa0, wa1, wb0, wb1;
  // Each clip's rotation slerped between its frames, then the two nlerped (one normalisation, at the end).
  auto joint = [&](int j, auto lane) {
    constexpr int L = decltype(lane)::value;
    F4 a0t = load(a0[j].translation), b0t = load(b0[j].translation);
    F4 ta = madd(sub(load(a1[j].translation), a0t), ta_, a0t);
    F4 tb = madd(sub(load(b1[j].translation), b0t), tb_, b0t);
    store(out[j].translation, madd(sub(tb, ta), w, ta));
    F4 a0s = load(a0[j].scale), b0s = load(b0[j].scale);
    F4 sa = madd(sub(load(a1[j].scale), a0s), ta_, a0s);
    F4 sb = madd(sub(load(b1[j].scale), b0s), tb_, b0s);
    store(out[j].scale, madd(sub(sb, sa), w, sa));
    const F4 ra = weighted_rotation<L>(load(a0[j].rotation), load(a1[j].rotation), wa0, wa1);
    F4 rb = weighted_rotation<L>(load(b0[j].rotation), load(b1[j].rotation), wb0, wb1);
    rb = flip_sign(rb, dot4(ra, rb));
    const F4 r = madd(sub(rb, ra), w, ra);
    store(out[j].rotation, mul(r, rsqrt_nr(dot4_all(r))));
  };
  using Lane0 = std::integral_constant<int, 0>;
  using Lane1 = std::integral_constant<int, 1>;
  using Lane2 = std::integral_constant<int, 2>;
  using Lane3 = std::integral_constant<int, 3>;
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    slerp_a.weights<false>(loadu(cosines_a + j), wa0, wa1);
    slerp_b.weights<false>(loadu(cosines_b + j), wb0, wb1);
    joint(j, Lane0{}), joint(j + 1, Lane1{}), joint(j + 2, Lane2{}), joint(j + 3, Lane3{});
  }
  if (j < count) {  // the last one to three joints
    const int rest = count - j;
    const uint32_t j0 = j, j1 = j + (rest > 1), j2 = j + (rest > 2) * 2;
    slerp_a.weights<false>(tail_cosines(cosines_a, j0, j1, j2, rest), wa0, wa1);
    slerp_b.weights<false>(tail_cosines(cosines_b, j0, j1, j2, rest), wb0, wb1);
    joint(j, Lane0{});
    if (rest > 1) joint(j + 1, Lane1{});
    if (rest > 2) joint(j + 2, Lane2{});
  }
}

// The weights of slerps at four fractions for lanes not all within the near range (keys over 36 degrees
// apart): the series' middle range, or sines lane by lane beyond 91 degrees. Rare, so out of line.
[[gnu::noinline]] void far_key_weights(F4 fraction, F4 xm1, F4& wa, F4& wb) {
  if (all_at_least(xm1, set1(-kSlerpMid))) {
    wa = slerp_weight4<kSlerpMidTerms>(sub(set1(1), fraction), xm1);
    wb = slerp_weight4<kSlerpMidTerms>(fraction, xm1);
    return;
  }
  alignas(16) float f[4], x[4], a[4], b[4];
  store(f, fraction);
  store(x, xm1);
  for (int i = 0; i < 4; ++i) a[i] = slerp_weight(1 - f[i], x[i]), b[i] = slerp_weight(f[i], x[i]);
  wa = load(a), wb = load(b);
}

// kOneTrack: every moving channel has the same key times (time track 1), so one cursor and one fraction
// serve them all (most exported clips).
template <bool kOneTrack>
void interpolate_keys_on(const KeyPairs& keys, int count, JointPose* out) {
  std::copy_n(keys.constant_pose, count, out);  // the still channels
  const F4 one = set1(1);
  struct Pair {
    const float *a, *b;
    const float* fraction;
  };
  const uint32_t shared_cursor = kOneTrack ? keys.cursor[1] : 0;
  auto pair = [&](uint32_t c) {
    const uint32_t k = kOneTrack ? 1 : keys.track[c];
    const float* a = keys.values + 4 * (size_t{keys.first[c]} + (kOneTrack ? shared_cursor : keys.cursor[k]));
    return Pair{a, a + 4, keys.fraction + k};
  };
  auto lerp = [&](uint32_t c, float* to) {
    const Pair v = pair(c);
    const F4 a = loadu(v.a);
    store(to, madd(sub(loadu(v.b), a), broadcast(v.fraction), a));
  };
  const uint32_t* moving = keys.moving;
  for (uint32_t m = 0; m < keys.translations; ++m) lerp(moving[m], out[moving[m] / 3].translation);
  moving += keys.translations;
  for (uint32_t m = 0; m < keys.scales; ++m) lerp(moving[m], out[moving[m] / 3].scale);
  moving += keys.scales;
  // Rotations four channels at a time, their keys as stored (a joint's 16 bytes each): one transpose of the
  // products gives the four dot products in lanes, the weights are computed for the four together and scaled
  // to unit length (scale_to_unit), then each channel takes its lane's. The last block's missing lanes repeat
  // its last channel and are not stored.
  for (uint32_t m = 0; m < keys.rotations; m += 4) {
    const uint32_t lanes = std::min(keys.rotations - m, 4u);
    const uint32_t c[4] = {moving[m], moving[m + std::min(1u, lanes - 1)],
                           moving[m + std::min(2u, lanes - 1)], moving[m + lanes - 1]};
    const Pair r[4] = {pair(c[0]), pair(c[1]), pair(c[2]), pair(c[3])};
    const F4 a[4] = {loadu(r[0].a), loadu(r[1].a), loadu(r[2].a), loadu(r[3].a)};
    const F4 b[4] = {loadu(r[0].b), loadu(r[1].b), loadu(r[2].b), loadu(r[3].b)};
    F4 p[4] = {mul(a[0], b[0]), mul(a[1], b[1]), mul(a[2], b[2]), mul(a[3], b[3])};
    transpose(p[0], p[1], p[2], p[3]);
    const F4 d = add(add(p[0], p[1]), add(p[2], p[3]));
    const F4 fraction = kOneTrack ? broadcast(keys.fraction + 1)
                                  : setr(*r[0].fraction, *r[1].fraction, *r[2].fraction, *r[3].fraction);
    const F4 xm1 = cos_minus_one(d);
    F4 wa, wb;
    if (all_at_least(xm1, set1(-kSlerpNear))) {
      wa = slerp_weight4<kSlerpNearTerms>(sub(one, fraction), xm1);
      wb = slerp_weight4<kSlerpNearTerms>(fraction, xm1);
    } else {
      far_key_weights(fraction, xm1, wa, wb);
    }
    wb = flip_sign(wb, d);  // keys on either hemisphere: the short arc
    scale_to_unit(d, wa, wb);
    store(out[c[0] / 3].rotation, weighted_rotation<0>(a[0], b[0], wa, wb));
    if (lanes > 1) store(out[c[1] / 3].rotation, weighted_rotation<1>(a[1], b[1], wa, wb));
    if (lanes > 2) store(out[c[2] / 3].rotation, weighted_rotation<2>(a[2], b[2], wa, wb));
    if (lanes > 3) store(out[c[3] / 3].rotation, weighted_rotation<3>(a[3], b[3], wa, wb));
  }
}

void interpolate_keys(const KeyPairs& keys, int count, JointPose* out) {
  if (keys.one_track)
    interpolate_keys_on<true>(keys, count, out);
  else
    interpolate_keys_on<false>(keys, count, out);
}

struct Columns {
  F4 c[4];
};

inline Columns load_columns(const float* m) {
  return {{load(m), load(m + 4), load(m + 8), load(m + 12)}};
}
inline void store_columns(const Columns& c, float* m) {
  for (int k = 0; k < 4; ++k) store(m + 4 * k, c.c[k]);
}

// Rotation * scale entries of T * R * S for four joints at once, structure of arrays: rs[e] lane k is entry
// e (column-major 3x3: m00 m10 m20 m01 m11 m21 m02 m12 m22) of joint k.
struct RotationScale4 {
  F4 rs[9];
};
inline RotationScale4 rotation_scale4(const JointPose& p0, const JointPose& p1, const JointPose& p2,
                                      const JointPose& p3) {
  F4 x = load(p0.rotation), y = load(p1.rotation), z = load(p2.rotation), w = load(p3.rotation);
  transpose(x, y, z, w);
  F4 sx = load(p0.scale), sy = load(p1.scale), sz = load(p2.scale), unused = load(p3.scale);
  transpose(sx, sy, sz, unused);
  const F4 one = set1(1.f);
  const F4 x2 = add(x, x), y2 = add(y, y), z2 = add(z, z);
  const F4 xx = mul(x, x2), yy = mul(y, y2), zz = mul(z, z2);
  const F4 xy = mul(x, y2), xz = mul(x, z2), yz = mul(y, z2);
  const F4 wx = mul(w, x2), wy = mul(w, y2), wz = mul(w, z2);
  return {{mul(sub(one, add(yy, zz)), sx), mul(add(xy, wz), sx), mul(sub(xz, wy), sx), mul(sub(xy, wz), sy),
           mul(sub(one, add(xx, zz)), sy), mul(add(yz, wx), sy), mul(add(xz, wy), sz), mul(sub(yz, wx), sz),
           mul(sub(one, add(xx, yy)), sz)}};
}

// a * v[Lane]: NEON multiplies by a lane of a register (fmla by element); x86 spreads the lane first, one
// shuffle.
#if defined(__ARM_NEON)
template <int Lane>
inline F4 mul_lane(F4 a, F4 v) {
  return vmulq_laneq_f32(a, v, Lane);
}
template <int Lane>
inline F4 madd_lane(F4 a, F4 v, F4 c) {  // c + a * v[Lane], fused
  return vfmaq_laneq_f32(c, a, v, Lane);
}
#else
template <int Lane>
inline F4 mul_lane(F4 a, F4 v) {
  return mul(a, splat<Lane>(v));
}
template <int Lane>
inline F4 madd_lane(F4 a, F4 v, F4 c) {  // c + a * v[Lane], fused with FMA
  return madd(a, splat<Lane>(v), c);
}
#endif

// The translation column: NEON loads the translation once and multiplies by its lanes; x86 broadcasts each
// coordinate from memory (a load each, which leaves the shuffle unit to the entries above: spreading these
// lanes by shuffles too measured 24 % slower).
inline F4 translation_column(const Columns& a, const float* t) {
#if defined(__ARM_NEON)
  const F4 v = load(t);
  return add(madd_lane<0>(a.c[0], v, mul_lane<1>(a.c[1], v)), madd_lane<2>(a.c[2], v, a.c[3]));
#else
  return add(madd(a.c[0], broadcast(t), mul(a.c[1], broadcast(t + 1))),
             madd(a.c[2], broadcast(t + 2), a.c[3]));
#endif
}

// parent * TRS(joint Lane of a block of four): columns 0-2 from the block's entries, column 3 from the
// translation, in two-deep multiply-add chains (the parent-to-child dependency is the latency). The lane is a
// compile-time constant. The entries stay in the nine registers rotation_scale4 computes them in (storing
// them to broadcast them back from memory puts a store and its forwarding before the products: a fifth slower
// on the 71-joint humanoid).
template <int Lane>
inline Columns multiply_local(const Columns& a, const RotationScale4& b, const float* translation) {
  const F4* rs = b.rs;
  Columns r;
  for (int c = 0; c < 3; ++c) {
    F4 r01 = madd_lane<Lane>(a.c[0], rs[3 * c], mul_lane<Lane>(a.c[1], rs[3 * c + 1]));
    r.c[c] = madd_lane<Lane>(a.c[2], rs[3 * c + 2], r01);
  }
  r.c[3] = translation_column(a, translation);
  return r;
}

template <int Lane>
inline float entry(const RotationScale4& b, int i) {
  return lane<Lane>(b.rs[i]);
}

template <int Lane>
inline Columns local_columns(const RotationScale4& b, const float* t) {
  return {{setr(entry<Lane>(b, 0), entry<Lane>(b, 1), entry<Lane>(b, 2), 0),
           setr(entry<Lane>(b, 3), entry<Lane>(b, 4), entry<Lane>(b, 5), 0),
           setr(entry<Lane>(b, 6), entry<Lane>(b, 7), entry<Lane>(b, 8), 0), setr(t[0], t[1], t[2], 1)}};
}

// Parent-first walk. `last` holds the previous joint's model matrix in registers: in depth-first order a
// joint usually follows its parent, and reusing the registers takes the store-to-load round trip off the
// chain.
template <int Lane>
inline void place(const RotationScale4& rs, const JointPose& local, int j, const int* parents,
                  const Mat4* root, Mat4* model, Columns& last) {
  const int p = parents[j];
  if (p >= 0) {
    last = multiply_local<Lane>(p == j - 1 ? last : load_columns(model[p].m), rs, local.translation);
  } else if (root) {
    last = multiply_local<Lane>(load_columns(root->m), rs, local.translation);
  } else {
    last = local_columns<Lane>(rs, local.translation);
  }
  store_columns(last, model[j].m);
}

void local_to_model(const JointPose* local, const int* parents, int begin, int end, const Mat4* root,
                    Mat4* model) {
  // The joint before `begin` may be its parent (sub-tree updates): start from its stored matrix.
  Columns last = begin > 0 ? load_columns(model[begin - 1].m) : Columns{};
  int j = begin;
  for (; j + 4 <= end; j += 4) {
    const RotationScale4 rs = rotation_scale4(local[j], local[j + 1], local[j + 2], local[j + 3]);
    // In order: a parent inside this block is placed before its children.
    place<0>(rs, local[j], j, parents, root, model, last);
    place<1>(rs, local[j + 1], j + 1, parents, root, model, last);
    place<2>(rs, local[j + 2], j + 2, parents, root, model, last);
    place<3>(rs, local[j + 3], j + 3, parents, root, model, last);
  }
  if (j < end) {  // the last 1-3 joints: the block padded with the last joint
    const JointPose& last_joint = local[end - 1];
    const RotationScale4 rs = rotation_scale4(local[j], j + 1 < end ? local[j + 1] : last_joint,
                                              j + 2 < end ? local[j + 2] : last_joint, last_joint);
    place<0>(rs, local[j], j, parents, root, model, last);
    if (j + 1 < end) place<1>(rs, local[j + 1], j + 1, parents, root, model, last);
    if (j + 2 < end) place<2>(rs, local[j + 2], j + 2, parents, root, model, last);
  }
}

// Model matrices and inverse binds are affine (last row 0 0 0 1): each product column is three multiply-adds
// of the model's columns by the inverse bind's entries. Each inverse-bind column is one load, multiplied by
// lane (NEON) or its lanes spread by shuffles (SSE2: three broadcast loads are three loads and three shuffles
// there; 9 % faster on the humanoid). AVX2: two product columns per 256-bit register, below.
#ifdef __AVX2__
// Columns in pairs (c0|c1, c2|c3): the model's column k in both halves (one 128-bit broadcast load), the
// inverse bind's entries k of both columns spread over their halves by one in-lane shuffle of a 256-bit
// load, so a product takes 8 loads and stores, 7 shuffles and 7 multiplies and adds instead of 20 memory
// operations and 13 multiplies and adds, summed in the same order as column by column. Matrices are 16-byte
// aligned: unaligned 256-bit loads and stores.
void palette(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out) {
  for (int k = 0; k < count; ++k) {
    const float* a = model[remap ? remap[k] : k].m;
    const float* b = inverse_binds[k].m;
    const __m256 a0 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a)),
                 a1 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a + 4)),
                 a2 = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(a + 8));
    // c3 adds the model's translation column: (0 | a3).
    const __m256 a3 = _mm256_insertf128_ps(_mm256_setzero_ps(), _mm_load_ps(a + 12), 1);
    const __m256 b01 = _mm256_loadu_ps(b), b23 = _mm256_loadu_ps(b + 8);
    __m256 r01 = _mm256_mul_ps(a1, _mm256_permute_ps(b01, 0x55));
    r01 = _mm256_fmadd_ps(a0, _mm256_permute_ps(b01, 0x00), r01);
    r01 = _mm256_fmadd_ps(a2, _mm256_permute_ps(b01, 0xaa), r01);
    __m256 r23 = _mm256_mul_ps(a1, _mm256_permute_ps(b23, 0x55));
    r23 = _mm256_fmadd_ps(a0, _mm256_permute_ps(b23, 0x00), r23);
    r23 = _mm256_add_ps(_mm256_fmadd_ps(a2, _mm256_permute_ps(b23, 0xaa), r23), a3);
    _mm256_storeu_ps(out[k].m, r01);
    _mm256_storeu_ps(out[k].m + 8, r23);
  }
}
#else
void palette(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out) {
  for (int k = 0; k < count; ++k) {
    const Columns a = load_columns(model[remap ? remap[k] : k].m);
    const float* b = inverse_binds[k].m;
    for (int c = 0; c < 4; ++c) {
      const F4 bc = load(b + 4 * c);
      F4 r = madd_lane<0>(a.c[0], bc, mul_lane<1>(a.c[1], bc));
      r = madd_lane<2>(a.c[2], bc, r);
      if (c == 3) r = add(r, a.c[3]);
      store(out[k].m + 4 * c, r);
    }
  }
}
#endif

template <int K, bool kNormals, bool kTangents>
void skin_loop(const SkinningJob& job) {
  const uint16_t* indices = job.joint_indices.data();
  const float* weights = job.joint_weights.data();
  const Mat4* palette = job.palette.data();
  const char* in_p = reinterpret_cast<const char*>(job.in_positions.data());
  const char* in_n = reinterpret_cast<const char*>(job.in_normals.data());
  const char* in_t = reinterpret_cast<const char*>(job.in_tangents.data());
  char* out_p = reinterpret_cast<char*>(job.out_positions.data());
  char* out_n = reinterpret_cast<char*>(job.out_normals.data());
  char* out_t = reinterpret_cast<char*>(job.out_tangents.data());
  for (int v = 0; v < job.vertex_count; ++v, indices += K, weights += K) {
    // Blend the (affine) palette matrices: columns 0-2 and the translation column.
    const float* m0 = palette[indices[0]].m;
    F4 w = set1(weights[0]);
    F4 c0 = mul(load(m0), w), c1 = mul(load(m0 + 4), w);
    F4 c2 = mul(load(m0 + 8), w), c3 = mul(load(m0 + 12), w);
    for (int i = 1; i < K; ++i) {
      const float* m = palette[indices[i]].m;
      w = set1(weights[i]);
      c0 = madd(load(m), w, c0);
      c1 = madd(load(m + 4), w, c1);
      c2 = madd(load(m + 8), w, c2);
      c3 = madd(load(m + 12), w, c3);
    }
    const float* p = reinterpret_cast<const float*>(in_p);
    F4 r = madd(c0, set1(p[0]), c3);
    r = madd(c1, set1(p[1]), r);
    r = madd(c2, set1(p[2]), r);
    if constexpr (kNormals) {
      const float* n = reinterpret_cast<const float*>(in_n);
      F4 rn = mul(c0, set1(n[0]));
      rn = madd(c1, set1(n[1]), rn);
      rn = madd(c2, set1(n[2]), rn);
      store3(reinterpret_cast<float*>(out_n), rn);
      in_n += job.in_normals_stride;
      out_n += job.out_normals_stride;
    }
    if constexpr (kTangents) {
      const float* t = reinterpret_cast<const float*>(in_t);
      const float sign = t[3];
      F4 rt = mul(c0, set1(t[0]));
      rt = madd(c1, set1(t[1]), rt);
      rt = madd(c2, set1(t[2]), rt);
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
  const char* in_p = reinterpret_cast<const char*>(job.in_positions.data());
  const char* in_n = reinterpret_cast<const char*>(job.in_normals.data());
  const char* in_t = reinterpret_cast<const char*>(job.in_tangents.data());
  char* out_p = reinterpret_cast<char*>(job.out_positions.data());
  char* out_n = reinterpret_cast<char*>(job.out_normals.data());
  char* out_t = reinterpret_cast<char*>(job.out_tangents.data());
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
  const bool n = !job.out_normals.empty(), t = !job.out_tangents.empty();
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

#if defined(__SSE2__)
// One channel per decode, its three components in lanes 0-2: the three 32-bit words, masked to the
// component's bits, shifted down (AVX2: a variable shift per lane; SSE2 has none: the masked word converted
// to float and multiplied by 2^-shift, both exact, see DecodeStep::field_mask), then base + step * q with a
// separate multiply and add (as the scalar decoder: the results are bit-identical). Rotations rebuild
// w = sqrt(max(1 - ((x*x + y*y) + z*z), 0)) in the same order, four at a time: transposed, one square root
// serves four (a square root issues every few cycles, and one per rotation bounded the decode), then
// transposed back.
//
// kFrames frames of one segment at once (1, or 2 for the two frames a sample needs when both are new): a
// step's tables are loaded once for all of them, and with two the cosines of their rotations come from the
// registers, x, y, z, w products summed in rotation_dot's order.
template <int kFrames>
void decode_frames(const uint8_t* const* frames, const detail::DecodeStep* steps, int rotations, int vectors,
                   JointPose* const* out, float* cosines) {
  auto decode = [frames](const detail::DecodeStep& d, __m128* v) {
    const __m128i field_mask = _mm_load_si128(reinterpret_cast<const __m128i*>(d.field_mask));
    const __m128i shift = _mm_load_si128(reinterpret_cast<const __m128i*>(d.shift));
    const __m128 base = _mm_load_ps(d.base), step = _mm_load_ps(d.step);
#ifdef __AVX2__
    const __m128i gather = _mm_load_si128(reinterpret_cast<const __m128i*>(d.gather));
#else
    // 2^-shift from its exponent bits: (127 - shift) << 23.
    const __m128 unshift = _mm_castsi128_ps(_mm_slli_epi32(_mm_sub_epi32(_mm_set1_epi32(127), shift), 23));
#endif
    for (int f = 0; f < kFrames; ++f) {
#ifdef __AVX2__
      // The channel's bytes in one load, each component's word put in its lane by a byte shuffle (not a
      // gather instruction: gathers are microcoded, and slow where the Gather Data Sampling fix is applied).
      const __m128i words =
          _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(frames[f] + d.byte[0])), gather);
      const __m128 q = _mm_cvtepi32_ps(_mm_srlv_epi32(_mm_and_si128(words, field_mask), shift));
#else
      int word[3];  // three plain loads (SSE2 has no byte shuffle)
      for (int i = 0; i < 3; ++i) std::memcpy(&word[i], frames[f] + d.byte[i], 4);
      const __m128i words = _mm_setr_epi32(word[0], word[1], word[2], 0);
      const __m128 q = _mm_mul_ps(_mm_cvtepi32_ps(_mm_and_si128(words, field_mask)), unshift);
#endif
      v[f] = _mm_add_ps(base, _mm_mul_ps(step, q));
    }
  };
  // Indices, not pointers past the end: a frame without rotations may come with no steps at all (null).
  int k = 0;
  for (; k + 4 <= rotations; k += 4) {
    const detail::DecodeStep* d = steps + k;
    __m128 x[kFrames], y[kFrames], z[kFrames], w[kFrames];
    decode(d[0], x), decode(d[1], y), decode(d[2], z), decode(d[3], w);
    for (int f = 0; f < kFrames; ++f) {
      _MM_TRANSPOSE4_PS(x[f], y[f], z[f], w[f]);
      const __m128 sum =
          _mm_add_ps(_mm_add_ps(_mm_mul_ps(x[f], x[f]), _mm_mul_ps(y[f], y[f])), _mm_mul_ps(z[f], z[f]));
      w[f] = _mm_sqrt_ps(_mm_max_ps(_mm_sub_ps(_mm_set1_ps(1.f), sum), _mm_setzero_ps()));
    }
    if constexpr (kFrames == 2) {
      alignas(16) float c[4];
      _mm_store_ps(c, _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x[0], x[1]), _mm_mul_ps(y[0], y[1])),
                                            _mm_mul_ps(z[0], z[1])),
                                 _mm_mul_ps(w[0], w[1])));
      for (int lane = 0; lane < 4; ++lane) cosines[d[lane].joint] = c[lane];
    }
    for (int f = 0; f < kFrames; ++f) {
      _MM_TRANSPOSE4_PS(x[f], y[f], z[f], w[f]);
      _mm_storeu_ps(out[f][d[0].joint].rotation, x[f]);
      _mm_storeu_ps(out[f][d[1].joint].rotation, y[f]);
      _mm_storeu_ps(out[f][d[2].joint].rotation, z[f]);
      _mm_storeu_ps(out[f][d[3].joint].rotation, w[f]);
    }
  }
  for (; k < rotations; ++k) {
    const detail::DecodeStep& d = steps[k];
    __m128 v[kFrames];
    decode(d, v);
    for (int f = 0; f < kFrames; ++f) {
      const __m128 sq = _mm_mul_ps(v[f], v[f]);
      const __m128 sum = _mm_add_ss(_mm_add_ss(sq, _mm_shuffle_ps(sq, sq, 1)), _mm_movehl_ps(sq, sq));
      const __m128 w = _mm_sqrt_ss(_mm_max_ss(_mm_sub_ss(_mm_set_ss(1.f), sum), _mm_setzero_ps()));
      // (x, y, z, w): z and w paired in the high half (SSE2 has no insert).
      _mm_storeu_ps(out[f][d.joint].rotation,
                    _mm_movelh_ps(v[f], _mm_unpacklo_ps(_mm_movehl_ps(v[f], v[f]), w)));
    }
    if constexpr (kFrames == 2) cosines[d.joint] = rotation_dot(out[0][d.joint], out[1][d.joint]);
  }
  for (; k < rotations + vectors; ++k) {
    const detail::DecodeStep& d = steps[k];
    __m128 v[kFrames];
    decode(d, v);
    for (int f = 0; f < kFrames; ++f)
      _mm_storeu_ps(d.kind == 0 ? out[f][d.joint].translation : out[f][d.joint].scale, v[f]);
  }
}

void decode_quantized(const uint8_t* frame, const detail::DecodeStep* steps, int rotations, int vectors,
                      JointPose* out) {
  decode_frames<1>(&frame, steps, rotations, vectors, &out, nullptr);
}

void decode_quantized_pair(const uint8_t* first, const uint8_t* second, const detail::DecodeStep* steps,
                           int rotations, int vectors, JointPose* out_first, JointPose* out_second,
                           float* cosines) {
  const uint8_t* frames[2] = {first, second};
  JointPose* out[2] = {out_first, out_second};
  decode_frames<2>(frames, steps, rotations, vectors, out, cosines);
}
#elif defined(__ARM_NEON)
// NEON: each channel decoded as the AVX2 decode above does (a negative vshl is the right shift), one rotation
// at a time (not measured four at a time on NEON hardware). Only single IEEE operations: vmulq then vaddq
// (never vfmaq), and w from the same scalar expression as rebuild_rotation, so the results are the scalar
// decoder's bits.
void decode_quantized(const uint8_t* frame, const detail::DecodeStep* steps, int rotations, int vectors,
                      JointPose* out) {
  auto decode = [frame](const detail::DecodeStep& d) {
    uint32_t w0, w1, w2;
    std::memcpy(&w0, frame + d.byte[0], 4);
    std::memcpy(&w1, frame + d.byte[1], 4);
    std::memcpy(&w2, frame + d.byte[2], 4);
    uint32x4_t q = vcombine_u32(vcreate_u32(w0 | static_cast<uint64_t>(w1) << 32), vcreate_u32(w2));
    q = vandq_u32(vshlq_u32(q, vnegq_s32(vreinterpretq_s32_u32(vld1q_u32(d.shift)))), vld1q_u32(d.mask));
    return vaddq_f32(vld1q_f32(d.base), vmulq_f32(vld1q_f32(d.step), vcvtq_f32_u32(q)));
  };
  for (const detail::DecodeStep* d = steps; d != steps + rotations; ++d) {
    const float32x4_t v = decode(*d);
    const float32x4_t sq = vmulq_f32(v, v);
    const float sum = (vgetq_lane_f32(sq, 0) + vgetq_lane_f32(sq, 1)) + vgetq_lane_f32(sq, 2);
    // vsqrt (fsqrt): the correctly rounded root, without std::sqrt's errno branch.
    const float w = vget_lane_f32(vsqrt_f32(vdup_n_f32(std::max(1.f - sum, 0.f))), 0);
    vst1q_f32(out[d->joint].rotation, vsetq_lane_f32(w, v, 3));
  }
  for (const detail::DecodeStep* d = steps + rotations; d != steps + rotations + vectors; ++d)
    vst1q_f32(d->kind == 0 ? out[d->joint].translation : out[d->joint].scale, decode(*d));
}

// NEON: the two frames one after the other, then their cosines (not measured fused on NEON hardware).
void decode_quantized_pair(const uint8_t* first, const uint8_t* second, const detail::DecodeStep* steps,
                           int rotations, int vectors, JointPose* out_first, JointPose* out_second,
                           float* cosines) {
  decode_quantized_pair_in_turn(decode_quantized, first, second, steps, rotations, vectors, out_first,
                                out_second, cosines);
}
#endif

// Four joints at a time: the products of their rotations' components, transposed so each sum adds x, y, z,
// w products across lanes in rotation_dot's order (the same bits as the scalar loop).
void rotation_cosines(const JointPose* a, const JointPose* b, const uint32_t* joints, int count, float* out) {
  int k = 0;
  for (; k + 4 <= count; k += 4) {
    const uint32_t* j = joints + k;
    F4 p0 = mul(load(a[j[0]].rotation), load(b[j[0]].rotation)),
       p1 = mul(load(a[j[1]].rotation), load(b[j[1]].rotation)),
       p2 = mul(load(a[j[2]].rotation), load(b[j[2]].rotation)),
       p3 = mul(load(a[j[3]].rotation), load(b[j[3]].rotation));
    transpose(p0, p1, p2, p3);
    alignas(16) float d[4];
    store(d, add(add(add(p0, p1), p2), p3));
    for (int lane = 0; lane < 4; ++lane) out[j[lane]] = d[lane];
  }
  for (; k < count; ++k) out[joints[k]] = rotation_dot(a[joints[k]], b[joints[k]]);
}

#undef OSSA_SKIN_LOOP
}  // namespace
}  // namespace OSSA_KERNEL_NS

const Kernels OSSA_KERNEL_TABLE = {OSSA_KERNEL_NS::blend_poses,
                                   OSSA_KERNEL_NS::interpolate_frames,
                                   OSSA_KERNEL_NS::local_to_model,
                                   OSSA_KERNEL_NS::palette,
                                   OSSA_KERNEL_NS::skin,
                                   OSSA_KERNEL_NS::sample_blend2,
                                   OSSA_KERNEL_NS::decode_quantized,
                                   OSSA_KERNEL_NS::decode_quantized_pair,
                                   OSSA_KERNEL_NS::interpolate_keys,
                                   OSSA_KERNEL_NS::rotation_cosines};

}  // namespace ossa::detail
