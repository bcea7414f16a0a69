// Internal: applying a SpaceConversion to positions, directions, local transforms, keys and matrices.
//
// The conversion A = s * R (uniform scale s, R a signed axis permutation, possibly a mirror) is applied by
// conjugation, local' = A * local * A^-1, so every joint stays a T*R*S transform, translations come out in
// metres and world' = A * world. Vertices and directions are simply multiplied by A (resp. R).
#pragma once

#include "ossa/import/imported_scene.h"

namespace ossa::detail {

class SpaceMapper {
 public:
  explicit SpaceMapper(const SpaceConversion& space);

  Vec3 point(Vec3 p) const { return transform_point(matrix_, p); }
  Vec3 direction(Vec3 d) const { return transform_vector(linear_rotation_, d); }
  Vec3 translation(Vec3 t) const { return point(t); }
  Quat rotation(Quat q) const;  // R * rot(q) * R^-1 as a quaternion
  Vec3 scale(Vec3 s) const;     // axis-aligned scale permuted by R
  Transform local(const Transform& t) const;
  Mat4 conjugate(const Mat4& m) const;  // A * m * A^-1
  bool mirrored() const { return mirrored_; }

 private:
  Mat4 matrix_, inverse_, linear_rotation_;
  Quat proper_rotation_;            // R, or -R when R is a reflection (the conjugation is the same)
  int permutation_[3] = {0, 1, 2};  // output axis i takes input axis permutation_[i]
  bool mirrored_ = false;
};

// Builds the conversion for an FBX axis system (GlobalSettings Up/Front/Coord axis and sign, 0=x 1=y 2=z)
// and UnitScaleFactor (centimetres per file unit).
SpaceConversion fbx_space(int up_axis, int up_sign, int front_axis, int front_sign, int coord_axis,
                          int coord_sign, double unit_scale_factor, bool left_handed);
// Files already in +Y up metres (glTF; COLLADA after assimp applied its <up_axis> and <unit> to the root).
SpaceConversion identity_space(const std::string& note, bool left_handed);

}  // namespace ossa::detail
