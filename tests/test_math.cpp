// Math conventions every stage relies on: T*R*S order, quaternion layout and products, shortest-arc slerp.
#include <gtest/gtest.h>

#include "expect_near.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include "ossa/core/math.h"

namespace ossa {
namespace {
constexpr float kPi = 3.14159265358979f;

using test::expect_near;

TEST(Math, QuaternionRotatesCounterClockwiseAboutItsAxis) {
  Quat q = quat_from_axis_angle({0, 0, 1}, kPi / 2);
  EXPECT_NEAR(q.w, std::cos(kPi / 4), 1e-6f);  // stored (x, y, z, w): w is last
  EXPECT_NEAR(q.z, std::sin(kPi / 4), 1e-6f);
  expect_near(rotate(q, {1, 0, 0}), {0, 1, 0});
  expect_near(transform_point(rotation_matrix(q), {1, 0, 0}), {0, 1, 0});
}

TEST(Math, ProductAppliesRightOperandFirst) {
  Quat about_z = quat_from_axis_angle({0, 0, 1}, kPi / 2);
  Quat about_x = quat_from_axis_angle({1, 0, 0}, kPi / 2);
  // (about_z * about_x) v = about_z (about_x v): y -> z (by x), then z stays (about z).
  expect_near(rotate(about_z * about_x, {0, 1, 0}), {0, 0, 1});
  expect_near(rotate(about_z * about_x, {0, 1, 0}), rotate(about_z, rotate(about_x, {0, 1, 0})));
}

// Rodrigues' formula: v turned by `angle` about the unit `axis` (right-handed), written out here so that the
// quaternion code is checked against arithmetic it does not share.
Vec3 rodrigues(Vec3 axis, float angle, Vec3 v) {
  const float c = std::cos(angle), s = std::sin(angle);
  const Vec3 k = normalize(axis);
  const Vec3 kxv{k.y * v.z - k.z * v.y, k.z * v.x - k.x * v.z, k.x * v.y - k.y * v.x};
  const float kv = k.x * v.x + k.y * v.y + k.z * v.z;
  return {v.x * c + kxv.x * s + k.x * kv * (1 - c), v.y * c + kxv.y * s + k.y * kv * (1 - c),
          v.z * c + kxv.z * s + k.z * kv * (1 - c)};
}

// Products of general rotations (every component non-zero, so each term of the product matters) turn vectors
// as the two rotations one after the other do, and stay unit length.
TEST(Math, ProductOfGeneralRotationsMatchesRotatingTwice) {
  const Vec3 axes[] = {{0.3f, -0.8f, 0.5f}, {-0.6f, 0.2f, 0.77f}, {0.9f, 0.4f, -0.1f}};
  const float angles[] = {0.7f, 2.1f, -1.3f};
  const Vec3 v{0.4f, -1.1f, 0.8f};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      SCOPED_TRACE(testing::Message() << "rotations " << i << ", " << j);
      const Quat a = quat_from_axis_angle(axes[i], angles[i]), b = quat_from_axis_angle(axes[j], angles[j]);
      const Quat ab = a * b;
      EXPECT_NEAR(dot(ab, ab), 1.f, 1e-5f);
      expect_near(rotate(ab, v), rodrigues(axes[i], angles[i], rodrigues(axes[j], angles[j], v)), 1e-5f);
      expect_near(transform_point(rotation_matrix(ab), v),
                  rodrigues(axes[i], angles[i], rodrigues(axes[j], angles[j], v)), 1e-5f);
    }
}

// Slerp turns at constant speed: a quarter of the way along a 100-degree arc is a 25-degree turn about the
// same axis (a normalised lerp is 1.2 degrees short there; on a 150-degree arc, 4.5).
TEST(Math, SlerpTurnsAtConstantSpeedOnWideArcs) {
  const Vec3 axis = normalize(Vec3{0.2f, 1, -0.4f});
  for (float arc : {100.f, 150.f})
    for (float t : {0.25f, 0.5f, 0.8f}) {
      SCOPED_TRACE(testing::Message() << "arc " << arc << " degrees, t " << t);
      const float radians = arc * kPi / 180;
      const Quat from = quat_from_axis_angle(axis, 0.3f), to = quat_from_axis_angle(axis, 0.3f + radians);
      const Vec3 v{1, 0.5f, 0.25f};
      expect_near(rotate(slerp(from, to, t), v), rodrigues(axis, 0.3f + t * radians, v), 1e-5f);
    }
}

TEST(Math, TransformComposesTranslationRotationScale) {
  Transform t;
  t.translation = {1, 2, 3};
  t.rotation = quat_from_axis_angle({0, 0, 1}, kPi / 2);
  t.scale = {2, 3, 4};
  Vec3 p{1, 1, 1};
  // T*R*S: scale first (2, 3, 4), then rotate 90 deg about z (-3, 2, 4), then translate.
  expect_near(transform_point(t.to_matrix(), p), {-2, 4, 7});
  // T*S*R (assimp's aiMatrix4x4(s, r, t) constructor) would give something else under non-uniform scale.
  Mat4 tsr = translation_matrix(t.translation) * scale_matrix(t.scale) * rotation_matrix(t.rotation);
  EXPECT_GT(length(transform_point(tsr, p) - Vec3{-2, 4, 7}), 1.0f);
}

TEST(Math, DecomposeInvertsCompose) {
  Transform t;
  t.translation = {-4, 0.5f, 9};
  t.rotation = normalize(Quat{0.3f, -0.2f, 0.6f, 0.7f});
  t.scale = {0.5f, 2, 1.5f};
  Transform back = decompose(t.to_matrix());
  expect_near(back.translation, t.translation);
  expect_near(back.scale, t.scale);
  EXPECT_NEAR(std::fabs(dot(back.rotation, t.rotation)), 1.0f, 1e-5f);
}

TEST(Math, InverseOfScaledRotation) {
  Transform t{{1, 2, 3}, quat_from_axis_angle({1, 1, 0}, 0.7f), {2, 2, 2}};
  Mat4 m = t.to_matrix();
  Mat4 identity = m * inverse(m);
  for (int i = 0; i < 16; ++i) EXPECT_NEAR(identity.m[i], Mat4{}.m[i], 1e-5f);
  Mat4 singular = scale_matrix({1, 0, 1}), out;
  EXPECT_FALSE(invert(singular, out));
}

// invert_linear promises invert()'s 3x3 to the bit on affine matrices (compression's virtual vertices rely on
// it: the same shells, so the same bytes), so compare bits, over matrices from every corner of the range.
TEST(Math, LinearInverseIsTheGeneralInversesThreeByThreeToTheBit) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1, 1), exponent(-6, 6);
  for (int n = 0; n < 20000; ++n) {
    const Quat q = normalize(Quat{unit(rng), unit(rng), unit(rng), unit(rng)});
    const Vec3 s{std::exp2(exponent(rng)), std::exp2(exponent(rng)), std::exp2(exponent(rng))};
    const Vec3 t{1e3f * unit(rng), 1e3f * unit(rng), 1e3f * unit(rng)};
    Mat4 m = Transform{t, q, s}.to_matrix();
    if (n % 3 == 0) m = m * Transform{{unit(rng), 0, 0}, q, {1, std::exp2(exponent(rng)), 1}}.to_matrix();
    Mat4 general, linear;
    ASSERT_TRUE(invert(m, general));
    ASSERT_TRUE(invert_linear(m, linear));
    for (int col = 0; col < 3; ++col)
      for (int row = 0; row < 3; ++row) {
        const int i = 4 * col + row;
        ASSERT_EQ(std::bit_cast<uint32_t>(linear.m[i]), std::bit_cast<uint32_t>(general.m[i]))
            << "matrix " << n << ", entry " << i;
      }
    for (int i : {3, 7, 11, 12, 13, 14}) EXPECT_EQ(linear.m[i], 0.f);
    EXPECT_EQ(linear.m[15], 1.f);
  }
  Mat4 out;
  EXPECT_FALSE(invert_linear(scale_matrix({1, 0, 1}), out));
  EXPECT_EQ(out.m[0], 1.f);  // identity when refused
  Mat4 infinite = scale_matrix({1, 1, 1});
  infinite.m[4] = INFINITY;
  EXPECT_FALSE(invert_linear(infinite, out));
  Mat4 moved = translation_matrix({NAN, 0, 0});  // the translation plays no part
  EXPECT_TRUE(invert_linear(moved, out));
}

TEST(Math, SlerpTakesTheShortestArcAndKeepsUnitLength) {
  Quat a = quat_from_axis_angle({0, 1, 0}, 0.1f);
  Quat b = quat_from_axis_angle({0, 1, 0}, 0.5f);
  Quat neg_b{-b.x, -b.y, -b.z, -b.w};  // same rotation, other hemisphere
  for (float t : {0.f, 0.25f, 0.5f, 1.f}) {
    Quat expected = quat_from_axis_angle({0, 1, 0}, 0.1f + 0.4f * t);
    EXPECT_NEAR(std::fabs(dot(slerp(a, b, t), expected)), 1.f, 1e-6f);
    EXPECT_NEAR(std::fabs(dot(slerp(a, neg_b, t), expected)), 1.f, 1e-6f);
    EXPECT_NEAR(std::fabs(dot(nlerp(a, neg_b, t), expected)), 1.f, 1e-4f);
  }
  Quat half = slerp(quat_from_axis_angle({0, 0, 1}, 0), quat_from_axis_angle({0, 0, 1}, 3.0f), 0.5f);
  EXPECT_NEAR(dot(half, half), 1.f, 1e-6f);
  expect_near(rotate(half, {1, 0, 0}), {std::cos(1.5f), std::sin(1.5f), 0});
}

TEST(Math, NormalMatrixHandlesNonUniformScale) {
  Mat4 m = scale_matrix({2, 1, 1});
  // A surface tilted 45 deg in xy: stretched along x, its normal turns towards y.
  Vec3 n = normalize(transform_vector(normal_matrix(m), normalize(Vec3{1, 1, 0})));
  Vec3 tangent = transform_vector(m, normalize(Vec3{1, -1, 0}));
  EXPECT_NEAR(dot(n, tangent), 0.f, 1e-6f);
}

}  // namespace
}  // namespace ossa
