// ossa/asset/joint_pose.h — a joint's local transform as clips and skeletons store it and the runtime jobs
// pass it to each other.
//
// JointPose lays out translation, rotation (x, y, z, w) and scale as three 16-byte lanes (the w lanes of
// translation and scale are 0 and unused), so one joint is three SIMD loads. Builders flush magnitudes below
// 1e-20 to zero (flush_denormals) so that the runtime never computes with denormals.
#pragma once

#include <cmath>

#include "ossa/core/math.h"

namespace ossa {

struct alignas(16) JointPose {
  float translation[4] = {0, 0, 0, 0};
  float rotation[4] = {0, 0, 0, 1};
  float scale[4] = {1, 1, 1, 0};
};

inline JointPose to_joint_pose(const Transform& t) {
  JointPose p;
  p.translation[0] = t.translation.x, p.translation[1] = t.translation.y, p.translation[2] = t.translation.z;
  p.rotation[0] = t.rotation.x, p.rotation[1] = t.rotation.y, p.rotation[2] = t.rotation.z;
  p.rotation[3] = t.rotation.w;
  p.scale[0] = t.scale.x, p.scale[1] = t.scale.y, p.scale[2] = t.scale.z;
  return p;
}

// The dot product of two poses' rotations: the cosine of half the turn between them (negative when they lie
// on opposite hemispheres). The one sum order everywhere, so decisions taken on it are the same bits.
inline float rotation_dot(const JointPose& a, const JointPose& b) {
  const float* p = a.rotation;
  const float* q = b.rotation;
  return p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3];
}

inline Transform to_transform(const JointPose& p) {
  return {{p.translation[0], p.translation[1], p.translation[2]},
          {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]},
          {p.scale[0], p.scale[1], p.scale[2]}};
}

// Runtime data holds no magnitudes below 1e-20 (exporters write values like 3e-35 for zero): products of two
// such values, or of one and a blend weight, would be denormal, and denormal arithmetic costs ~100x on x86
// (measured here: a crossfade update 2.4x slower). 1e-20 is far below any meaningful length, angle or weight.
// Asset builders pass their output through these.
inline float flush_denormal(float v) {
  return std::fabs(v) < 1e-20f ? 0.f : v;
}
inline void flush_denormals(JointPose& p) {
  for (int i = 0; i < 4; ++i) {
    p.translation[i] = flush_denormal(p.translation[i]);
    p.rotation[i] = flush_denormal(p.rotation[i]);
    p.scale[i] = flush_denormal(p.scale[i]);
  }
}
inline void flush_denormals(Mat4& m) {
  for (float& v : m.m) v = flush_denormal(v);
}

}  // namespace ossa
