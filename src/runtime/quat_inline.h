// Internal: quaternion arithmetic inline, for the per-frame jobs that chain many products (math.h's are out
// of line). Unit quaternions stay unit to float precision along a chain, so only what is written out is
// normalised.
#pragma once

#include <cmath>

#include "ossa/core/math.h"

namespace ossa::detail {

inline Quat mul(const Quat& a, const Quat& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Quat conj(const Quat& q) {
  return {-q.x, -q.y, -q.z, q.w};
}
inline Vec3 rot(const Quat& q, Vec3 v) {  // v + w t + q.xyz x t, t = 2 q.xyz x v
  const Vec3 u{q.x, q.y, q.z}, t = cross(u, v) * 2.f;
  return v + t * q.w + cross(u, t);
}
inline Quat unit(const Quat& q) {
  const float inv = 1.f / std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

}  // namespace ossa::detail
