// ossa/runtime/pose.h — the per-joint data the runtime jobs pass to each other.
//
// JointPose is a joint's local transform laid out for the sampling loop: translation, rotation (x, y, z, w)
// and scale as three 16-byte lanes (the w lanes of translation and scale are 0 and unused), so one joint is
// three SIMD loads. Model-space and palette matrices are ossa::Mat4 (column-major, 16-byte aligned).
// Affine3x4 is the GPU upload form of a palette matrix: the first three rows, row-major (a vec4[3] per joint
// in a uniform buffer: p' = vec3(dot(row0, p1), dot(row1, p1), dot(row2, p1)) with p1 = vec4(p, 1)).
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

struct alignas(16) Affine3x4 {
  float rows[3][4];
};

inline Affine3x4 to_affine(const Mat4& m) {
  Affine3x4 a;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) a.rows[r][c] = m.at(r, c);
  return a;
}

}  // namespace ossa
