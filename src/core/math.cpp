#include "ossa/core/math.h"

#include "matrix_inline.h"

#include <algorithm>
#include <iterator>

namespace ossa {

Vec3 normalize(Vec3 a) {
  float len = length(a);
  return len > 0 ? a * (1.0f / len) : a;
}

Quat operator*(Quat a, Quat b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

Quat normalize(Quat q) {
  float len2 = dot(q, q);
  if (!(len2 > 0)) return {};
  float inv = 1.0f / std::sqrt(len2);
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

Quat conjugate(Quat q) {
  return {-q.x, -q.y, -q.z, q.w};
}

Vec3 rotate(Quat q, Vec3 v) {
  // v' = v + 2w(u x v) + 2 u x (u x v), u = (x, y, z)
  Vec3 u{q.x, q.y, q.z};
  Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}

Quat quat_from_axis_angle(Vec3 axis, float radians) {
  Vec3 a = normalize(axis);
  float s = std::sin(radians * 0.5f);
  return {a.x * s, a.y * s, a.z * s, std::cos(radians * 0.5f)};
}

Vec3 rotation_vector(Quat q) {
  if (q.w < 0) q = {-q.x, -q.y, -q.z, -q.w};  // the shorter way round
  const float s = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
  if (s < 1e-12f) return {2 * q.x, 2 * q.y, 2 * q.z};
  // atan2 keeps the angle exact near 0 and near pi, where acos(w) or asin(s) lose digits.
  const float k = 2 * std::atan2(s, q.w) / s;
  return {q.x * k, q.y * k, q.z * k};
}

Quat quat_from_rotation_vector(Vec3 v) {
  const float angle = length(v);
  if (angle < 1e-12f) return normalize(Quat{v.x * 0.5f, v.y * 0.5f, v.z * 0.5f, 1});
  const float k = std::sin(angle * 0.5f) / angle;
  return {v.x * k, v.y * k, v.z * k, std::cos(angle * 0.5f)};
}

Quat slerp(Quat a, Quat b, float t) {
  float d = dot(a, b);
  if (d < 0) {
    d = -d;
    b = {-b.x, -b.y, -b.z, -b.w};
  }
  float wa, wb;
  if (d > 0.9995f) {  // nearly parallel: sin(theta) ~ 0, lerp is exact to float precision
    wa = 1 - t;
    wb = t;
  } else {
    float theta = std::acos(std::min(d, 1.0f));
    float s = std::sin(theta);
    wa = std::sin((1 - t) * theta) / s;
    wb = std::sin(t * theta) / s;
  }
  return normalize(Quat{a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb});
}

Quat nlerp(Quat a, Quat b, float t) {
  float wb = dot(a, b) < 0 ? -t : t;
  float wa = 1 - t;
  return normalize(Quat{a.x * wa + b.x * wb, a.y * wa + b.y * wb, a.z * wa + b.z * wb, a.w * wa + b.w * wb});
}

Mat4 operator*(const Mat4& a, const Mat4& b) {
  return detail::multiply(a, b);
}

Vec3 transform_point(const Mat4& m, Vec3 p) {
  return {m.m[0] * p.x + m.m[4] * p.y + m.m[8] * p.z + m.m[12],
          m.m[1] * p.x + m.m[5] * p.y + m.m[9] * p.z + m.m[13],
          m.m[2] * p.x + m.m[6] * p.y + m.m[10] * p.z + m.m[14]};
}

Vec3 transform_vector(const Mat4& m, Vec3 v) {
  return {m.m[0] * v.x + m.m[4] * v.y + m.m[8] * v.z, m.m[1] * v.x + m.m[5] * v.y + m.m[9] * v.z,
          m.m[2] * v.x + m.m[6] * v.y + m.m[10] * v.z};
}

bool invert(const Mat4& mat, Mat4& out) {
  // Cofactor expansion in double precision: inverse binds of 175 m models need the headroom.
  double m[16], inv[16];
  for (int i = 0; i < 16; ++i) m[i] = mat.m[i];
  inv[0] = m[5] * m[10] * m[15] - m[5] * m[11] * m[14] - m[9] * m[6] * m[15] + m[9] * m[7] * m[14] +
           m[13] * m[6] * m[11] - m[13] * m[7] * m[10];
  inv[4] = -m[4] * m[10] * m[15] + m[4] * m[11] * m[14] + m[8] * m[6] * m[15] - m[8] * m[7] * m[14] -
           m[12] * m[6] * m[11] + m[12] * m[7] * m[10];
  inv[8] = m[4] * m[9] * m[15] - m[4] * m[11] * m[13] - m[8] * m[5] * m[15] + m[8] * m[7] * m[13] +
           m[12] * m[5] * m[11] - m[12] * m[7] * m[9];
  inv[12] = -m[4] * m[9] * m[14] + m[4] * m[10] * m[13] + m[8] * m[5] * m[14] - m[8] * m[6] * m[13] -
            m[12] * m[5] * m[10] + m[12] * m[6] * m[9];
  inv[1] = -m[1] * m[10] * m[15] + m[1] * m[11] * m[14] + m[9] * m[2] * m[15] - m[9] * m[3] * m[14] -
           m[13] * m[2] * m[11] + m[13] * m[3] * m[10];
  inv[5] = m[0] * m[10] * m[15] - m[0] * m[11] * m[14] - m[8] * m[2] * m[15] + m[8] * m[3] * m[14] +
           m[12] * m[2] * m[11] - m[12] * m[3] * m[10];
  inv[9] = -m[0] * m[9] * m[15] + m[0] * m[11] * m[13] + m[8] * m[1] * m[15] - m[8] * m[3] * m[13] -
           m[12] * m[1] * m[11] + m[12] * m[3] * m[9];
  inv[13] = m[0] * m[9] * m[14] - m[0] * m[10] * m[13] - m[8] * m[1] * m[14] + m[8] * m[2] * m[13] +
            m[12] * m[1] * m[10] - m[12] * m[2] * m[9];
  inv[2] = m[1] * m[6] * m[15] - m[1] * m[7] * m[14] - m[5] * m[2] * m[15] + m[5] * m[3] * m[14] +
           m[13] * m[2] * m[7] - m[13] * m[3] * m[6];
  inv[6] = -m[0] * m[6] * m[15] + m[0] * m[7] * m[14] + m[4] * m[2] * m[15] - m[4] * m[3] * m[14] -
           m[12] * m[2] * m[7] + m[12] * m[3] * m[6];
  inv[10] = m[0] * m[5] * m[15] - m[0] * m[7] * m[13] - m[4] * m[1] * m[15] + m[4] * m[3] * m[13] +
            m[12] * m[1] * m[7] - m[12] * m[3] * m[5];
  inv[14] = -m[0] * m[5] * m[14] + m[0] * m[6] * m[13] + m[4] * m[1] * m[14] - m[4] * m[2] * m[13] -
            m[12] * m[1] * m[6] + m[12] * m[2] * m[5];
  inv[3] = -m[1] * m[6] * m[11] + m[1] * m[7] * m[10] + m[5] * m[2] * m[11] - m[5] * m[3] * m[10] -
           m[9] * m[2] * m[7] + m[9] * m[3] * m[6];
  inv[7] = m[0] * m[6] * m[11] - m[0] * m[7] * m[10] - m[4] * m[2] * m[11] + m[4] * m[3] * m[10] +
           m[8] * m[2] * m[7] - m[8] * m[3] * m[6];
  inv[11] = -m[0] * m[5] * m[11] + m[0] * m[7] * m[9] + m[4] * m[1] * m[11] - m[4] * m[3] * m[9] -
            m[8] * m[1] * m[7] + m[8] * m[3] * m[5];
  inv[15] = m[0] * m[5] * m[10] - m[0] * m[6] * m[9] - m[4] * m[1] * m[10] + m[4] * m[2] * m[9] +
            m[8] * m[1] * m[6] - m[8] * m[2] * m[5];
  double det = m[0] * inv[0] + m[1] * inv[4] + m[2] * inv[8] + m[3] * inv[12];
  if (det == 0 || !std::isfinite(det)) {
    out = Mat4{};
    return false;
  }
  for (int i = 0; i < 16; ++i) out.m[i] = static_cast<float>(inv[i] / det);
  return true;
}

bool invert_linear(const Mat4& mat, Mat4& out) {
  // invert()'s cofactors and determinant where the last row is 0 0 0 1 and the translation drops out: each
  // cofactor is one sum of two products that are exact in double, so it rounds once, as there.
  out = Mat4{};
  double m[11];
  for (int i = 0; i < 11; ++i) {
    if (i % 4 != 3 && !std::isfinite(mat.m[i])) return false;
    m[i] = mat.m[i];
  }
  const double c[9] = {m[5] * m[10] - m[9] * m[6],  -m[1] * m[10] + m[9] * m[2], m[1] * m[6] - m[5] * m[2],
                       -m[4] * m[10] + m[8] * m[6], m[0] * m[10] - m[8] * m[2],  -m[0] * m[6] + m[4] * m[2],
                       m[4] * m[9] - m[8] * m[5],   -m[0] * m[9] + m[8] * m[1],  m[0] * m[5] - m[4] * m[1]};
  const double det = m[0] * c[0] + m[1] * c[3] + m[2] * c[6];
  if (det == 0 || !std::isfinite(det)) return false;
  for (int col = 0; col < 3; ++col)
    for (int row = 0; row < 3; ++row) out.m[4 * col + row] = static_cast<float>(c[3 * col + row] / det);
  return true;
}

Mat4 inverse(const Mat4& m) {
  Mat4 r;
  invert(m, r);
  return r;
}

Mat4 transpose(const Mat4& a) {
  Mat4 r;
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) r.m[c * 4 + row] = a.m[row * 4 + c];
  return r;
}

Mat4 normal_matrix(const Mat4& m) {
  Mat4 inverse_linear;
  invert_linear(m, inverse_linear);
  return transpose(inverse_linear);
}

Mat4 scale_matrix(Vec3 s) {
  Mat4 r;
  r.m[0] = s.x;
  r.m[5] = s.y;
  r.m[10] = s.z;
  return r;
}

Mat4 rotation_matrix(Quat q) {
  return detail::rotation_to_matrix(q);
}

Mat4 translation_matrix(Vec3 t) {
  Mat4 r;
  r.m[12] = t.x;
  r.m[13] = t.y;
  r.m[14] = t.z;
  return r;
}

bool is_finite(const Mat4& m) {
  return std::all_of(std::begin(m.m), std::end(m.m), [](float v) { return std::isfinite(v); });
}

Mat4 Transform::to_matrix() const {
  return detail::trs_to_matrix(*this);
}

namespace {
// Rotation matrix (orthonormal columns) to quaternion, Shepperd's method.
Quat quat_from_rotation(const float c0[3], const float c1[3], const float c2[3]) {
  float m00 = c0[0], m10 = c0[1], m20 = c0[2];
  float m01 = c1[0], m11 = c1[1], m21 = c1[2];
  float m02 = c2[0], m12 = c2[1], m22 = c2[2];
  float tr = m00 + m11 + m22;
  Quat q;
  if (tr > 0) {
    float s = std::sqrt(tr + 1.0f) * 2;
    q = {(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25f * s};
  } else if (m00 > m11 && m00 > m22) {
    float s = std::sqrt(1.0f + m00 - m11 - m22) * 2;
    q = {0.25f * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s};
  } else if (m11 > m22) {
    float s = std::sqrt(1.0f + m11 - m00 - m22) * 2;
    q = {(m01 + m10) / s, 0.25f * s, (m12 + m21) / s, (m02 - m20) / s};
  } else {
    float s = std::sqrt(1.0f + m22 - m00 - m11) * 2;
    q = {(m02 + m20) / s, (m12 + m21) / s, 0.25f * s, (m10 - m01) / s};
  }
  return normalize(q);
}
}  // namespace

Transform decompose(const Mat4& m) {
  Transform t;
  t.translation = m.translation();
  Vec3 c0{m.m[0], m.m[1], m.m[2]}, c1{m.m[4], m.m[5], m.m[6]}, c2{m.m[8], m.m[9], m.m[10]};
  t.scale = {length(c0), length(c1), length(c2)};
  if (dot(cross(c0, c1), c2) < 0) t.scale.x = -t.scale.x;  // reflection: fold into x
  Vec3 r0 = t.scale.x != 0 ? c0 * (1 / t.scale.x) : Vec3{1, 0, 0};
  Vec3 r1 = t.scale.y != 0 ? c1 * (1 / t.scale.y) : Vec3{0, 1, 0};
  Vec3 r2 = t.scale.z != 0 ? c2 * (1 / t.scale.z) : Vec3{0, 0, 1};
  float a0[3] = {r0.x, r0.y, r0.z}, a1[3] = {r1.x, r1.y, r1.z}, a2[3] = {r2.x, r2.y, r2.z};
  t.rotation = quat_from_rotation(a0, a1, a2);
  return t;
}

}  // namespace ossa
