// Internal: the matrix arithmetic that hot loops inline (the portable kernels' local-to-model and palette,
// the compressor's search). math.cpp's public Mat4 operator*, rotation_matrix and Transform::to_matrix are
// these functions, so inlined and called, every caller gets the same bits.
#pragma once

#include "ossa/core/math.h"

namespace ossa::detail {

inline Mat4 multiply(const Mat4& a, const Mat4& b) {
  Mat4 r;
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a.m[k * 4 + row] * b.m[c * 4 + k];
      r.m[c * 4 + row] = s;
    }
  return r;
}

inline Mat4 rotation_to_matrix(Quat q) {
  Mat4 r;
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  r.m[0] = 1 - 2 * (yy + zz);
  r.m[1] = 2 * (xy + wz);
  r.m[2] = 2 * (xz - wy);
  r.m[4] = 2 * (xy - wz);
  r.m[5] = 1 - 2 * (xx + zz);
  r.m[6] = 2 * (yz + wx);
  r.m[8] = 2 * (xz + wy);
  r.m[9] = 2 * (yz - wx);
  r.m[10] = 1 - 2 * (xx + yy);
  return r;
}

// T * R * S written out: columns of R scaled by S, translation in the last column.
inline Mat4 trs_to_matrix(Vec3 translation, Quat rotation, Vec3 scale) {
  Mat4 r = rotation_to_matrix(rotation);
  for (int row = 0; row < 3; ++row) {
    r.m[0 + row] *= scale.x;
    r.m[4 + row] *= scale.y;
    r.m[8 + row] *= scale.z;
  }
  r.m[12] = translation.x;
  r.m[13] = translation.y;
  r.m[14] = translation.z;
  return r;
}

inline Mat4 trs_to_matrix(const Transform& t) {
  return trs_to_matrix(t.translation, t.rotation, t.scale);
}

}  // namespace ossa::detail
