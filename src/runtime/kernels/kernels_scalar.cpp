// Plain C++ kernels: the portable fallback and the reference the SIMD kernels are tested against.
#include <algorithm>
#include <cmath>

#include "kernels.h"

#include "../../asset/quantization.h"
#include "../../core/matrix_inline.h"

namespace ossa::detail {
namespace {

void blend_poses(const JointPose* a, const JointPose* b, float alpha, int count, JointPose* out) {
  for (int j = 0; j < count; ++j) {
    float d = 0;
    for (int i = 0; i < 4; ++i) d += a[j].rotation[i] * b[j].rotation[i];
    const float sign = d < 0 ? -1.f : 1.f;  // b on the other hemisphere: the short arc
    for (int i = 0; i < 3; ++i) {
      out[j].translation[i] = a[j].translation[i] + (b[j].translation[i] - a[j].translation[i]) * alpha;
      out[j].scale[i] = a[j].scale[i] + (b[j].scale[i] - a[j].scale[i]) * alpha;
    }
    float q[4], len2 = 0;
    for (int i = 0; i < 4; ++i) {
      q[i] = a[j].rotation[i] + (sign * b[j].rotation[i] - a[j].rotation[i]) * alpha;
      len2 += q[i] * q[i];
    }
    float inv = 1.0f / std::sqrt(len2);
    for (int i = 0; i < 4; ++i) out[j].rotation[i] = q[i] * inv;
    out[j].translation[3] = 0;
    out[j].scale[3] = 0;
  }
}

void local_to_model(const JointPose* local, const int* parents, int begin, int end, const Mat4* root,
                    Mat4* model) {
  for (int j = begin; j < end; ++j) {
    const Mat4 m = trs_to_matrix(to_transform(local[j]));
    const int p = parents[j];
    model[j] = p >= 0 ? multiply(model[p], m) : root ? multiply(*root, m) : m;
  }
}

void palette(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out) {
  for (int k = 0; k < count; ++k) out[k] = multiply(model[remap ? remap[k] : k], inverse_binds[k]);
}

const float* at(const float* base, size_t stride, int v) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) +
                                        stride * static_cast<size_t>(v));
}
float* at(float* base, size_t stride, int v) {
  return reinterpret_cast<float*>(reinterpret_cast<char*>(base) + stride * static_cast<size_t>(v));
}

void skin(const SkinningJob& job) {
  const int k = job.influences;
  for (int v = 0; v < job.vertex_count; ++v) {
    float m[16] = {};
    for (int i = 0; i < k; ++i) {
      float w = job.joint_weights[static_cast<size_t>(v) * k + i];
      const Mat4& p = job.palette[job.joint_indices[static_cast<size_t>(v) * k + i]];
      for (int e = 0; e < 16; ++e) m[e] += w * p.m[e];
    }
    // Inputs are copied before writing: output may alias input (skinning in place).
    const float* pp = at(job.in_positions.data(), job.in_positions_stride, v);
    const float p[3] = {pp[0], pp[1], pp[2]};
    float* o = at(job.out_positions.data(), job.out_positions_stride, v);
    for (int r = 0; r < 3; ++r) o[r] = m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r];
    if (!job.out_normals.empty()) {
      const float* np = at(job.in_normals.data(), job.in_normals_stride, v);
      const float n[3] = {np[0], np[1], np[2]};
      float* on = at(job.out_normals.data(), job.out_normals_stride, v);
      for (int r = 0; r < 3; ++r) on[r] = m[r] * n[0] + m[4 + r] * n[1] + m[8 + r] * n[2];
    }
    if (!job.out_tangents.empty()) {
      const float* tp = at(job.in_tangents.data(), job.in_tangents_stride, v);
      const float t[4] = {tp[0], tp[1], tp[2], tp[3]};
      float* ot = at(job.out_tangents.data(), job.out_tangents_stride, v);
      float w = t[3];
      for (int r = 0; r < 3; ++r) ot[r] = m[r] * t[0] + m[4 + r] * t[1] + m[8 + r] * t[2];
      ot[3] = w;
    }
  }
}

// Rotation q = a slerped towards b at fraction t along the short arc (d = a.b), unnormalised.
void slerp_rotation(const float a[4], const float b[4], float d, float t, float q[4]) {
  const float xm1 = std::min(std::fabs(d), 1.f) - 1;
  const float wa = slerp_weight(1 - t, xm1), wb = std::copysign(slerp_weight(t, xm1), d);
  for (int i = 0; i < 4; ++i) q[i] = a[i] * wa + b[i] * wb;
}
void normalize_into(const float q[4], float out[4]) {
  float len2 = 0;
  for (int i = 0; i < 4; ++i) len2 += q[i] * q[i];
  const float inv = 1.0f / std::sqrt(len2);
  for (int i = 0; i < 4; ++i) out[i] = q[i] * inv;
}

void interpolate_frames(const JointPose* a, const JointPose* b, const float* cosines, float alpha,
                        const uint32_t* joints, int count, JointPose* out) {
  for (int k = 0; k < count; ++k) {
    const uint32_t j = joints ? joints[k] : static_cast<uint32_t>(k);
    float q[4];
    slerp_rotation(a[j].rotation, b[j].rotation, cosines[j], alpha, q);
    normalize_into(q, out[j].rotation);
    for (int i = 0; i < 3; ++i) {
      out[j].translation[i] = a[j].translation[i] + (b[j].translation[i] - a[j].translation[i]) * alpha;
      out[j].scale[i] = a[j].scale[i] + (b[j].scale[i] - a[j].scale[i]) * alpha;
    }
    out[j].translation[3] = 0;
    out[j].scale[3] = 0;
  }
}

}  // namespace

void sample_blend2(const JointPose* a0, const JointPose* a1, const float* cosines_a, float alpha,
                   const JointPose* b0, const JointPose* b1, const float* cosines_b, float beta, float weight,
                   int count, JointPose* out) {
  for (int j = 0; j < count; ++j) {
    float ra[4], rb[4], d = 0;
    slerp_rotation(a0[j].rotation, a1[j].rotation, cosines_a[j], alpha, ra);
    slerp_rotation(b0[j].rotation, b1[j].rotation, cosines_b[j], beta, rb);
    for (int i = 0; i < 4; ++i) d += ra[i] * rb[i];
    const float sign = d < 0 ? -1.f : 1.f;
    float q[4];
    for (int i = 0; i < 4; ++i) q[i] = ra[i] + (sign * rb[i] - ra[i]) * weight;
    normalize_into(q, out[j].rotation);
    for (int i = 0; i < 4; ++i) {
      const float ta = a0[j].translation[i] + (a1[j].translation[i] - a0[j].translation[i]) * alpha;
      const float tb = b0[j].translation[i] + (b1[j].translation[i] - b0[j].translation[i]) * beta;
      out[j].translation[i] = ta + (tb - ta) * weight;
      const float sa = a0[j].scale[i] + (a1[j].scale[i] - a0[j].scale[i]) * alpha;
      const float sb = b0[j].scale[i] + (b1[j].scale[i] - b0[j].scale[i]) * beta;
      out[j].scale[i] = sa + (sb - sa) * weight;
    }
  }
}

void decode_quantized_scalar(const uint8_t* frame, const detail::DecodeStep* steps, int rotations,
                             int vectors, JointPose* out) {
  auto component = [frame](const detail::DecodeStep& d, int i) {
    return dequantize(d.base[i], d.step[i], read_quantized(frame, d.byte[i], d.shift[i], d.mask[i]));
  };
  for (const detail::DecodeStep* d = steps; d != steps + rotations; ++d) {
    const float v[3] = {component(*d, 0), component(*d, 1), component(*d, 2)};
    rebuild_rotation(v, out[d->joint].rotation);
  }
  for (const detail::DecodeStep* d = steps + rotations; d != steps + rotations + vectors; ++d) {
    float* dst = d->kind == 0 ? out[d->joint].translation : out[d->joint].scale;
    dst[0] = component(*d, 0), dst[1] = component(*d, 1), dst[2] = component(*d, 2);
  }
}

void decode_quantized_pair_in_turn(decltype(Kernels::decode_quantized) decode, const uint8_t* first,
                                   const uint8_t* second, const detail::DecodeStep* steps, int rotations,
                                   int vectors, JointPose* out_first, JointPose* out_second, float* cosines) {
  decode(first, steps, rotations, vectors, out_first);
  decode(second, steps, rotations, vectors, out_second);
  for (const detail::DecodeStep* d = steps; d != steps + rotations; ++d)
    cosines[d->joint] = rotation_dot(out_first[d->joint], out_second[d->joint]);
}

namespace {
void decode_quantized_pair_scalar(const uint8_t* first, const uint8_t* second,
                                  const detail::DecodeStep* steps, int rotations, int vectors,
                                  JointPose* out_first, JointPose* out_second, float* cosines) {
  decode_quantized_pair_in_turn(decode_quantized_scalar, first, second, steps, rotations, vectors, out_first,
                                out_second, cosines);
}
}  // namespace

void interpolate_keys(const KeyPairs& keys, int count, JointPose* out) {
  std::copy_n(keys.constant_pose, count, out);
  struct Pair {
    const float *a, *b;
    float fraction;
  };
  auto pair = [&](uint32_t c) {
    const uint32_t k = keys.track[c];
    const float* a = keys.values + 4 * (size_t{keys.first[c]} + keys.cursor[k]);
    return Pair{a, a + 4, keys.fraction[k]};
  };
  const uint32_t vectors = keys.translations + keys.scales;
  for (uint32_t m = 0; m < vectors; ++m) {
    const uint32_t c = keys.moving[m];
    const Pair v = pair(c);
    float* value = c % 3 == 0 ? out[c / 3].translation : out[c / 3].scale;
    for (int i = 0; i < 3; ++i) value[i] = v.a[i] + (v.b[i] - v.a[i]) * v.fraction;
  }
  for (uint32_t m = vectors; m < vectors + keys.rotations; ++m) {
    const uint32_t c = keys.moving[m];
    const Pair r = pair(c);
    float d = 0;
    for (int i = 0; i < 4; ++i) d += r.a[i] * r.b[i];
    const float xm1 = std::min(std::fabs(d), 1.f) - 1;
    const float wa = slerp_weight(1 - r.fraction, xm1), wb = std::copysign(slerp_weight(r.fraction, xm1), d);
    float q[4], len2 = 0;
    for (int i = 0; i < 4; ++i) {
      q[i] = r.a[i] * wa + r.b[i] * wb;
      len2 += q[i] * q[i];
    }
    const float inv = 1.0f / std::sqrt(len2);
    for (int i = 0; i < 4; ++i) out[c / 3].rotation[i] = q[i] * inv;
  }
}

void rotation_cosines(const JointPose* a, const JointPose* b, const uint32_t* joints, int count, float* out) {
  for (int k = 0; k < count; ++k) out[joints[k]] = rotation_dot(a[joints[k]], b[joints[k]]);
}

const Kernels kScalarKernels = {blend_poses,
                                interpolate_frames,
                                local_to_model,
                                palette,
                                skin,
                                sample_blend2,
                                decode_quantized_scalar,
                                decode_quantized_pair_scalar,
                                interpolate_keys,
                                rotation_cosines};

}  // namespace ossa::detail
