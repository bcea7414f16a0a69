// ossa/runtime/pose.h — the per-joint data the runtime jobs pass to each other.
//
// JointPose (ossa/asset/joint_pose.h) is a joint's local transform laid out for the sampling loop.
// Model-space and palette matrices are ossa::Mat4 (column-major, 16-byte aligned).
// Affine3x4 is the GPU upload form of a palette matrix: the first three rows, row-major (a vec4[3] per joint
// in a uniform buffer: p' = vec3(dot(row0, p1), dot(row1, p1), dot(row2, p1)) with p1 = vec4(p, 1)).
#pragma once

#include <cmath>

#include "ossa/asset/joint_pose.h"
#include "ossa/core/math.h"

namespace ossa {

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
