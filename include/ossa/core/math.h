// ossa/core/math.h — the small math types every stage shares.
//
// Conventions (one set for the whole library):
//   * Column vectors; a transform applies as `M * p`; hierarchies compose as `parent * local`.
//   * Mat4 is column-major: m[c * 4 + r] is row r of column c (what glUniformMatrix4fv expects with
//     transpose = GL_FALSE; a row-major D3D constant buffer holds the transpose).
//   * Quat is stored (x, y, z, w). Converting from assimp's (w, x, y, z) happens in one place only
//     (import/assimp_import.cpp, `to_quat`).
//   * Transform is translation, rotation, scale and composes as T * R * S.
// Units are whatever the data is in; after import that is metres in the canonical space (+Y up,
// right-handed).
#pragma once

#include "ossa/core/language.h"

#include <cmath>

namespace ossa {

struct Vec2 {
  float x = 0, y = 0;
};

struct Vec3 {
  float x = 0, y = 0, z = 0;
  friend Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
  friend Vec3 operator*(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
};

struct Vec4 {
  float x = 0, y = 0, z = 0, w = 0;
};

inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 a) {
  return std::sqrt(dot(a, a));
}
inline Vec3 lerp(Vec3 a, Vec3 b, float t) {
  return a + (b - a) * t;
}
Vec3 normalize(Vec3 a);  // returns a unchanged when its length is 0

struct Quat {
  float x = 0, y = 0, z = 0, w = 1;
};

inline float dot(Quat a, Quat b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
Quat operator*(Quat a, Quat b);  // Hamilton product: (a * b) rotates by b, then by a
Quat normalize(Quat q);          // identity when q is 0
Quat conjugate(Quat q);
Vec3 rotate(Quat q, Vec3 v);
Quat quat_from_axis_angle(Vec3 axis, float radians);
// A rotation as one vector: axis * angle (radians, 0 to pi: the shorter way round), and back. Rotation
// vectors add and scale where quaternions do not, so offsets and angular velocities are kept as them.
Vec3 rotation_vector(Quat q);
Quat quat_from_rotation_vector(Vec3 v);
// Spherical interpolation along the shortest arc (b is negated when dot(a, b) < 0).
Quat slerp(Quat a, Quat b, float t);
// Normalised linear interpolation along the shortest arc: the fast approximation of slerp.
Quat nlerp(Quat a, Quat b, float t);

struct alignas(16) Mat4 {
  float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  float& at(int row, int col) { return m[col * 4 + row]; }
  float at(int row, int col) const { return m[col * 4 + row]; }
  Vec3 translation() const { return {m[12], m[13], m[14]}; }
  static Mat4 identity() { return {}; }
};

Mat4 operator*(const Mat4& a, const Mat4& b);
Vec3 transform_point(const Mat4& m, Vec3 p);
Vec3 transform_vector(const Mat4& m, Vec3 v);  // ignores translation
// General 4x4 inverse; returns false (and identity) when the matrix is singular.
bool invert(const Mat4& m, Mat4& out);
Mat4 inverse(const Mat4& m);  // identity when singular; use invert() to detect that
// Inverse of the upper 3x3 (the linear part), as a Mat4 without translation; returns false (and identity)
// when that part is singular or not finite. For an affine matrix with finite entries its 3x3 is invert()'s
// to the bit (the same cofactors, each rounded once), at a fraction of the cost.
bool invert_linear(const Mat4& m, Mat4& out);
Mat4 transpose(const Mat4& m);
// Inverse-transpose of the upper 3x3 (for normals under non-uniform scale), as a Mat4 without translation.
Mat4 normal_matrix(const Mat4& m);
Mat4 scale_matrix(Vec3 s);
Mat4 rotation_matrix(Quat q);
Mat4 translation_matrix(Vec3 t);
bool is_finite(const Mat4& m);

struct Transform {
  Vec3 translation;
  Quat rotation;
  Vec3 scale{1, 1, 1};
  Mat4 to_matrix() const;  // T * R * S
};

// Splits an affine matrix into T, R, S. Exact for T*R*S matrices with positive scale; a reflection is
// folded into a negative x scale. Shear (not representable) is dropped.
Transform decompose(const Mat4& m);

}  // namespace ossa
