#include "space.h"

#include <cmath>
#include <cstdio>

namespace ossa::detail {
namespace {
const char* axis_name(int axis, int sign) {
  static const char* names[2][3] = {{"-X", "-Y", "-Z"}, {"+X", "+Y", "+Z"}};
  if (axis < 0 || axis > 2) return "?";
  return names[sign >= 0 ? 1 : 0][axis];
}

Mat4 mirror_z() {
  return scale_matrix({1, 1, -1});
}
}  // namespace

SpaceConversion fbx_space(int up_axis, int up_sign, int front_axis, int front_sign, int coord_axis,
                          int coord_sign, double unit_scale_factor, bool left_handed) {
  SpaceConversion space;
  space.source_up = axis_name(up_axis, up_sign);
  space.source_front = axis_name(front_axis, front_sign);
  space.unit_scale = unit_scale_factor / 100.0;  // UnitScaleFactor is centimetres per unit
  space.left_handed = left_handed;

  bool valid = up_axis >= 0 && up_axis < 3 && front_axis >= 0 && front_axis < 3 && coord_axis >= 0 &&
               coord_axis < 3 && up_axis != front_axis && up_axis != coord_axis && front_axis != coord_axis;
  Mat4 rotation;  // rows: file right (coord), up, front -> canonical +X, +Y, +Z
  if (valid) {
    rotation = Mat4{};
    for (int i = 0; i < 3; ++i) rotation.at(i, i) = 0;
    rotation.at(0, coord_axis) = coord_sign >= 0 ? 1.f : -1.f;
    rotation.at(1, up_axis) = up_sign >= 0 ? 1.f : -1.f;
    rotation.at(2, front_axis) = front_sign >= 0 ? 1.f : -1.f;
  }
  float s = static_cast<float>(space.unit_scale);
  space.file_to_canonical = scale_matrix({s, s, s}) * rotation;
  if (left_handed) space.file_to_canonical = mirror_z() * space.file_to_canonical;
  char note[256];
  std::snprintf(note, sizeof note, "FBX axes up %s front %s, UnitScaleFactor %g (x%g to metres)%s%s",
                space.source_up.c_str(), space.source_front.c_str(), unit_scale_factor, space.unit_scale,
                valid ? "" : " [invalid axis metadata: axes left as they are]",
                left_handed ? ", mirrored to left-handed" : "");
  space.note = note;
  return space;
}

SpaceConversion identity_space(const std::string& note, bool left_handed) {
  SpaceConversion space;
  space.left_handed = left_handed;
  if (left_handed) space.file_to_canonical = mirror_z();
  space.note = note + (left_handed ? ", mirrored to left-handed" : "");
  return space;
}

SpaceMapper::SpaceMapper(const SpaceConversion& space) : matrix_(space.file_to_canonical) {
  inverse_ = inverse(matrix_);
  // Split A = s * R. Columns of R are unit vectors with one non-zero component (signed permutation).
  Vec3 c0{matrix_.m[0], matrix_.m[1], matrix_.m[2]};
  float s = length(c0);
  linear_rotation_ = Mat4{};
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) linear_rotation_.at(r, c) = s > 0 ? matrix_.at(r, c) / s : (r == c);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (std::fabs(linear_rotation_.at(r, c)) > 0.5f) permutation_[r] = c;
  Vec3 r0{linear_rotation_.m[0], linear_rotation_.m[1], linear_rotation_.m[2]};
  Vec3 r1{linear_rotation_.m[4], linear_rotation_.m[5], linear_rotation_.m[6]};
  Vec3 r2{linear_rotation_.m[8], linear_rotation_.m[9], linear_rotation_.m[10]};
  mirrored_ = dot(cross(r0, r1), r2) < 0;
  Mat4 proper = linear_rotation_;
  if (mirrored_)
    for (int i = 0; i < 12; ++i) proper.m[i] = -proper.m[i];
  proper_rotation_ = decompose(proper).rotation;
}

Quat SpaceMapper::rotation(Quat q) const {
  return proper_rotation_ * q * ossa::conjugate(proper_rotation_);
}

Vec3 SpaceMapper::scale(Vec3 s) const {
  const float v[3] = {s.x, s.y, s.z};
  return {v[permutation_[0]], v[permutation_[1]], v[permutation_[2]]};
}

Transform SpaceMapper::local(const Transform& t) const {
  return {translation(t.translation), rotation(t.rotation), scale(t.scale)};
}

Mat4 SpaceMapper::conjugate(const Mat4& m) const {
  return matrix_ * m * inverse_;
}

}  // namespace ossa::detail
