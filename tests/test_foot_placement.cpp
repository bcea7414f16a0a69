// Foot placement (ossa/runtime/foot_placement.h) on a two-legged rig made here. Truths: the model matrices
// rebuilt by hand from the job's output locals (parent * T * R * S, no partial updates), the ground function
// of the test, and the animated pose before the job. Tolerances: 1e-5 of the leg length (2 * 0.45 m) for
// positions, 1e-4 rad for the toes' aim.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ossa/asset/skeleton.h"
#include "ossa/runtime/foot_placement.h"
#include "ossa/runtime/local_to_model_job.h"

namespace ossa {
namespace {

constexpr float kLeg = 0.9f, kTolerance = 1e-5f * kLeg;
enum Joint { kRoot, kPelvis, kThighL, kCalfL, kFootL, kToeL, kThighR, kCalfR, kFootR, kToeR, kCount };

// Pelvis 1 m up; legs straight down (thigh 0.45, calf 0.45) with the knees slightly bent forward (+z) so
// the bend plane is defined; ankles at 0.1 m, toes 0.15 m ahead and 0.05 m down.
Skeleton make_legs() {
  RawSkeleton raw;
  auto add = [&](const char* name, int parent, Vec3 t, Quat r = {}) {
    RawJoint j;
    j.name = name, j.parent = parent, j.rest.translation = t, j.rest.rotation = r;
    raw.joints.push_back(j);
  };
  const Quat bend = quat_from_axis_angle({1, 0, 0}, -0.15f), unbend = quat_from_axis_angle({1, 0, 0}, 0.3f);
  add("root", -1, {0, 0, 0});
  add("pelvis", kRoot, {0, 1, 0});
  for (float side : {1.f, -1.f}) {
    const int base = static_cast<int>(raw.joints.size());
    add(side > 0 ? "thigh_l" : "thigh_r", kPelvis, {0.1f * side, 0, 0}, bend);
    add(side > 0 ? "calf_l" : "calf_r", base, {0, -0.45f, 0}, unbend);
    add(side > 0 ? "foot_l" : "foot_r", base + 1, {0, -0.45f + 0.1f, 0}, bend);
    add(side > 0 ? "ball_l" : "ball_r", base + 2, {0, -0.05f, 0.15f});
  }
  auto skeleton = Skeleton::build(raw);
  EXPECT_TRUE(skeleton.ok()) << skeleton.error();
  return std::move(skeleton).value();
}

float slope_and_step(const void*, float x, float z) {
  return 0.1f * z + 0.05f * x + (z > 0.05f ? 0.12f : 0.f);
}
float flat(const void* height, float, float) {
  return *static_cast<const float*>(height);
}

// Model matrices from locals by hand: no job involved.
std::vector<Mat4> by_hand(const Skeleton& s, const std::vector<JointPose>& locals, const Mat4& root) {
  std::vector<Mat4> m(s.joint_count());
  for (int j = 0; j < s.joint_count(); ++j) {
    const Mat4 local = to_transform(locals[j]).to_matrix();
    m[j] = (s.parents()[j] >= 0 ? m[s.parents()[j]] : root) * local;
  }
  return m;
}

struct Scene {
  Skeleton skeleton = make_legs();
  std::vector<JointPose> locals;
  std::vector<Mat4> model;
  Mat4 root;
  LegJoints legs[2] = {{kThighL, kCalfL, kFootL, kToeL}, {kThighR, kCalfR, kFootR, kToeR}};
  Vec3 targets[2];
  bool reached[2] = {false, false};
  float drop = 1;

  explicit Scene(Vec3 at = {}) : root(translation_matrix(at)) {
    locals.assign(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
    model.resize(kCount);
    LocalToModelJob{&skeleton, locals, model, &root}.run();
  }
  FootPlacementJob job(GroundFunction ground) {
    FootPlacementJob j;
    j.skeleton = &skeleton, j.locals = locals, j.model = model, j.root = &root, j.pelvis = kPelvis;
    j.legs = legs, j.ground = ground, j.forward = {0, 0, 1};
    j.targets = targets, j.reached = reached, j.pelvis_drop = &drop;
    return j;
  }
};

TEST(FootPlacement, FeetLandOnTheGroundAtTheirAuthoredHeightAndTheModelStaysConsistent) {
  // Standing at z = 0.02: the left foot is before the step, the right one too; then at z = 0.1 both are on
  // it; then straddling a slope sideways.
  for (Vec3 at : {Vec3{0, 0, 0.02f}, Vec3{0, 0.2f, 0.1f}, Vec3{0.3f, 0, -0.5f}}) {
    Scene scene(at);
    const std::vector<Mat4> before = scene.model;
    ASSERT_TRUE(scene.job({slope_and_step, nullptr}).run());
    const std::vector<Mat4> truth = by_hand(scene.skeleton, scene.locals, scene.root);
    for (int j = 0; j < kCount; ++j)
      for (int k = 0; k < 16; ++k) ASSERT_NEAR(scene.model[j].m[k], truth[j].m[k], 1e-5f) << j;
    for (int i = 0; i < 2; ++i) {
      const LegJoints& leg = scene.legs[i];
      const Vec3 animated = before[leg.foot].translation(), foot = truth[leg.foot].translation();
      const float authored_height = animated.y - at.y;  // above the floor the character stands on
      EXPECT_TRUE(scene.reached[i]);
      EXPECT_NEAR(foot.x, animated.x, kTolerance);
      EXPECT_NEAR(foot.z, animated.z, kTolerance);
      EXPECT_NEAR(foot.y, slope_and_step(nullptr, animated.x, animated.z) + authored_height, kTolerance);
      EXPECT_NEAR(length(scene.targets[i] - foot), 0, kTolerance);
      // Toes: heel to toe aims at the toe's target (the animated toe over the ground, same height rule).
      const Vec3 toe0 = before[leg.toe].translation();
      const Vec3 toe_target{toe0.x, slope_and_step(nullptr, toe0.x, toe0.z) + toe0.y - at.y, toe0.z};
      const Vec3 aim = truth[leg.toe].translation() - foot, wanted = toe_target - foot;
      EXPECT_LT(std::atan2(length(cross(aim, wanted)), dot(aim, wanted)), 1e-4f);
    }
    // The pelvis went down by how far the lower foot target lies under its animated foot (<= 0).
    float expected_drop = 0;
    for (int i = 0; i < 2; ++i)
      expected_drop =
          std::min(expected_drop, scene.targets[i].y - before[scene.legs[i].foot].translation().y);
    EXPECT_NEAR(scene.drop, expected_drop, 1e-6f);
    EXPECT_NEAR(truth[kPelvis].translation().y, before[kPelvis].translation().y + expected_drop, kTolerance);
  }
}

TEST(FootPlacement, ThePelvisDropsAtMostMaxDropAndFeetOutOfReachSaySo) {
  Scene scene;
  const float hole = -1.f;  // the ground 1 m below the floor: out of reach of a 0.25 m drop
  FootPlacementJob job = scene.job({flat, &hole});
  const float pelvis_before = scene.model[kPelvis].translation().y;
  ASSERT_TRUE(job.run());
  EXPECT_FLOAT_EQ(scene.drop, -job.max_drop);
  EXPECT_NEAR(scene.model[kPelvis].translation().y, pelvis_before - job.max_drop, kTolerance);
  EXPECT_FALSE(scene.reached[0]);
  EXPECT_FALSE(scene.reached[1]);
  for (const Mat4& m : scene.model)
    for (float v : m.m) ASSERT_TRUE(std::isfinite(v));
}

TEST(FootPlacement, WeightZeroLeavesTheAnimatedPose) {
  Scene scene({0, 0, 0.02f});
  const std::vector<JointPose> locals = scene.locals;
  FootPlacementJob job = scene.job({slope_and_step, nullptr});
  job.weight = 0;
  ASSERT_TRUE(job.run());
  for (int j = 0; j < kCount; ++j)
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(scene.locals[j].translation[k], locals[j].translation[k], 1e-7f);
      EXPECT_NEAR(std::abs(scene.locals[j].rotation[k]), std::abs(locals[j].rotation[k]), 1e-6f);
    }
}

TEST(FootPlacement, ValidateRefusesBrokenLegsAndSettings) {
  Scene scene;
  const float zero = 0;
  auto refused = [&](auto&& change) {
    FootPlacementJob job = scene.job({flat, &zero});
    LegJoints legs[2] = {scene.legs[0], scene.legs[1]};
    job.legs = legs;
    change(job, legs);
    return !job.validate() && !job.run();
  };
  EXPECT_TRUE(scene.job({flat, &zero}).validate());
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.ground.height = nullptr; }));
  EXPECT_TRUE(refused([](FootPlacementJob&, LegJoints* l) { l[0].calf = kFootL; }));     // not a chain
  EXPECT_TRUE(refused([](FootPlacementJob&, LegJoints* l) { l[0].toe = kToeR; }));       // not the foot's
  EXPECT_TRUE(refused([](FootPlacementJob&, LegJoints* l) { l[1].thigh = kCount; }));    // out of range
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.pelvis = kThighL; }));     // not above both
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.forward = {0, 1, 0}; }));  // vertical
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.forward = {NAN, 0, 1}; }));
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.weight = 2; }));
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.max_drop = -1; }));
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints*) { j.model = j.model.first(3); }));
  EXPECT_TRUE(refused([](FootPlacementJob& j, LegJoints* l) { j.legs = std::span<const LegJoints>(l, 0); }));
  // A NaN ground leaves the pose finite (the drop is ignored; IK refuses NaN targets or gives a defined
  // pose).
  const float nan = NAN;
  ASSERT_TRUE(scene.job({flat, &nan}).run());
  for (const Mat4& m : scene.model)
    for (float v : m.m) ASSERT_TRUE(std::isfinite(v));
}

}  // namespace
}  // namespace ossa
