// Two-bone and aim IK (ossa/runtime/ik_job.h). Truth: the chain rebuilt from its corrected local rotations
// (model = parent * T * R (* S), by hand) and measured: where its end lands, whether it is straight, which
// side it bends to; for the aim, the angle between the corrected forward ray (from the offset point) and the
// target. Tolerances in model units relative to the chain length: 1e-5 for reaching a target; 1e-5 rad for
// aiming.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ossa/runtime/ik_job.h"

namespace ossa {
namespace {

// Shoulder at `root` turned by r0, bones along their local +y, hinged about the mid joint's local z.
struct Chain {
  Vec3 root;
  Quat r0, r1;
  float upper = 1, lower = 1;
  Mat4 model[3];

  void update() {
    model[0] = translation_matrix(root) * rotation_matrix(r0);
    model[1] = model[0] * translation_matrix({0, upper, 0}) * rotation_matrix(r1);
    model[2] = model[1] * translation_matrix({0, lower, 0});
  }
  Vec3 at(int j) const { return model[j].translation(); }
  float length() const { return upper + lower; }
};

struct Solved {
  bool ok = false, reached = false;
  Quat start, mid;
};

Solved solve(Chain& chain, Vec3 target, Vec3 pole, float weight = 1, float soften = 1) {
  chain.update();
  Solved out;
  TwoBoneIkJob job;
  job.start_joint = &chain.model[0];
  job.mid_joint = &chain.model[1];
  job.end_joint = &chain.model[2];
  job.target = target;
  job.pole_vector = pole;
  job.mid_axis = {0, 0, 1};
  job.weight = weight;
  job.soften = soften;
  job.start_correction = &out.start;
  job.mid_correction = &out.mid;
  job.reached = &out.reached;
  out.ok = job.run();
  if (out.ok) {  // apply: local = local * correction, then rebuild
    chain.r0 = normalize(chain.r0 * out.start);
    chain.r1 = normalize(chain.r1 * out.mid);
    chain.update();
  }
  return out;
}

Vec3 random_direction(std::mt19937& rng) {
  std::normal_distribution<float> n(0, 1);
  return normalize(Vec3{n(rng), n(rng), n(rng)});
}

Chain random_chain(std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0, 1);
  Chain c;
  c.root = {u(rng) * 2 - 1, u(rng) * 2 - 1, u(rng) * 2 - 1};
  c.r0 = quat_from_axis_angle(random_direction(rng), u(rng) * 6.28f);
  c.r1 = quat_from_axis_angle({0, 0, 1}, (u(rng) - 0.5f) * 3.f);  // bent about the hinge
  c.upper = 0.3f + u(rng) * 1.2f;
  c.lower = 0.3f + u(rng) * 1.2f;
  return c;
}

TEST(TwoBoneIk, ReachesEveryReachableTarget) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  float worst = 0;
  for (int i = 0; i < 500; ++i) {
    Chain c = random_chain(rng);
    const float shortest = std::fabs(c.upper - c.lower),
                reach = shortest + (c.length() - shortest) * (0.02f + 0.96f * u(rng));
    const Vec3 target = c.root + random_direction(rng) * reach;
    const Solved s = solve(c, target, random_direction(rng));
    ASSERT_TRUE(s.ok);
    const float miss = length(c.at(2) - target) / c.length();
    worst = std::max(worst, miss);
    EXPECT_LE(miss, 1e-5f) << "chain " << i;
    EXPECT_TRUE(s.reached) << "chain " << i;
    EXPECT_NEAR(length(c.at(1) - c.at(0)), c.upper, 1e-5f * c.length());  // bones keep their lengths
  }
  std::printf("  500 random chains and targets: worst miss %.2e of the chain length\n", worst);
}

// The start joint's turn is made from the cosine and sine of its angle, without forming the angle: check the
// ends of that range, where such formulas cancel. Targets at the end's own distance (no bend), 1e-7 to 1 rad
// away from the end's direction and the same from the direction opposite it, and exactly opposite.
TEST(TwoBoneIk, TargetsAlongAndAgainstTheChainAreReached) {
  std::mt19937 rng(11);
  float worst = 0;
  for (int i = 0; i < 40; ++i) {
    Chain c = random_chain(rng);
    c.update();
    const Vec3 end = c.at(2) - c.root;
    const Vec3 across = normalize(cross(end, random_direction(rng)));
    for (int k = 0; k <= 8; ++k) {
      const float off = k == 8 ? 0.f : std::pow(10.f, -static_cast<float>(k));
      for (const float base : {0.f, 3.14159265358979f}) {
        Chain t = c;
        const Vec3 target = c.root + rotate(quat_from_axis_angle(across, base + off), end);
        const Solved s = solve(t, target, random_direction(rng));
        ASSERT_TRUE(s.ok);
        const float miss = length(t.at(2) - target) / t.length();
        worst = std::max(worst, miss);
        EXPECT_LE(miss, 1e-5f) << "chain " << i << ", " << base + off << " rad";
        EXPECT_NEAR(length(t.at(1) - t.at(0)), t.upper, 1e-5f * t.length());
      }
    }
  }
  std::printf("  targets 0 to 1e-7 rad from the end's direction and from its opposite: worst miss %.2e\n",
              worst);
}
TEST(TwoBoneIk, UnreachableTargetsGiveTheStraightChainPointingAtThem) {
  std::mt19937 rng(8);
  for (int i = 0; i < 100; ++i) {
    Chain c = random_chain(rng);
    const Vec3 direction = random_direction(rng);
    const Vec3 target = c.root + direction * c.length() * (1.01f + i * 0.05f);
    const Solved s = solve(c, target, {0, 1, 0});
    ASSERT_TRUE(s.ok);
    EXPECT_FALSE(s.reached);
    EXPECT_NEAR(length(c.at(2) - c.root), c.length(), 1e-5f * c.length()) << i;  // straight
    EXPECT_LE(length(normalize(c.at(2) - c.root) - direction), 1e-5f) << i;      // towards the target
    EXPECT_LE(length(normalize(c.at(1) - c.root) - direction), 1e-4f) << i;
  }
}

TEST(TwoBoneIk, ThePoleDecidesTheBendPlane) {
  std::mt19937 rng(9);
  for (int i = 0; i < 200; ++i) {
    Chain c = random_chain(rng);
    const Vec3 target = c.root + random_direction(rng) * c.length() * 0.7f;
    const Vec3 axis = normalize(target - c.root);
    Vec3 pole = random_direction(rng);
    if (length(cross(pole, axis)) < 0.1f) continue;
    ASSERT_TRUE(solve(c, target, pole).ok);
    const Vec3 mid = c.at(1) - c.root;
    const Vec3 mid_off = mid - axis * dot(mid, axis), pole_off = pole - axis * dot(pole, axis);
    // The mid joint, the start and the target span a plane holding the pole, on the pole's side.
    EXPECT_GT(dot(normalize(mid_off), normalize(pole_off)), 1 - 1e-4f) << i;
  }
}

TEST(TwoBoneIk, WeightZeroChangesNothingAndWeightsBlendBetween) {
  std::mt19937 rng(10);
  Chain c = random_chain(rng);
  const Chain before = c;
  Chain at_zero = c;
  at_zero.update();
  const Vec3 end_before = at_zero.at(2);
  const Vec3 target = c.root + random_direction(rng) * c.length() * 0.6f;
  const Solved zero = solve(at_zero, target, {1, 0, 0}, 0);
  ASSERT_TRUE(zero.ok);
  EXPECT_EQ(zero.start.w, 1.f);
  EXPECT_EQ(zero.mid.w, 1.f);
  EXPECT_LE(length(at_zero.at(2) - end_before), 1e-6f);
  Chain half = before;
  ASSERT_TRUE(solve(half, target, {1, 0, 0}, 0.5f).ok);
  EXPECT_GT(length(half.at(2) - target), 1e-3f);                        // not there
  EXPECT_LT(length(half.at(2) - target), length(end_before - target));  // but closer
}

TEST(TwoBoneIk, SofteningEasesTheLastOfTheReach) {
  Chain c;
  c.r1 = quat_from_axis_angle({0, 0, 1}, 1.f);
  const Vec3 target{0, 1.98f, 0};  // 99 % of the reach
  Chain hard = c, soft = c;
  ASSERT_TRUE(solve(hard, target, {1, 0, 0}).ok);
  ASSERT_TRUE(solve(soft, target, {1, 0, 0}, 1, 0.8f).ok);
  EXPECT_LE(length(hard.at(2) - target), 1e-5f * 2);
  const float soft_reach = length(soft.at(2) - soft.root);
  EXPECT_LT(soft_reach, 1.98f);  // short of the target: the knee is not snapped straight
  EXPECT_GT(soft_reach, 1.6f);   // but past where the easing starts
}

TEST(TwoBoneIk, DegenerateInputsGiveDefinedResultsNeverNaN) {
  auto all_finite = [](const Chain& c) {
    for (const Mat4& m : c.model)
      if (!is_finite(m)) return false;
    return true;
  };
  {  // straight chain, target nearer: it must bend about its hinge
    Chain c;
    const Solved s = solve(c, {0.5f, 1.2f, 0}, {1, 0, 0});
    ASSERT_TRUE(s.ok);
    EXPECT_TRUE(s.reached);
    EXPECT_LE(length(c.at(2) - Vec3{0.5f, 1.2f, 0}), 2e-5f);
  }
  {  // target at the start joint: the chain folds as far as it can, in place
    Chain c;
    c.r1 = quat_from_axis_angle({0, 0, 1}, 0.5f);
    const Solved s = solve(c, c.root, {1, 0, 0});
    ASSERT_TRUE(s.ok);
    EXPECT_TRUE(all_finite(c));
  }
  {  // zero-length bone: nothing to bend, identity corrections
    Chain c;
    c.lower = 0;
    const Solved s = solve(c, {1, 1, 0}, {1, 0, 0});
    ASSERT_TRUE(s.ok);
    EXPECT_EQ(s.start.w, 1.f);
    EXPECT_EQ(s.mid.w, 1.f);
    EXPECT_TRUE(all_finite(c));
  }
  {  // pole along the start-target axis: the current plane is kept
    Chain c;
    c.r1 = quat_from_axis_angle({0, 0, 1}, 0.5f);
    const Solved s = solve(c, {0, 1.5f, 0}, {0, 1, 0});
    ASSERT_TRUE(s.ok);
    EXPECT_TRUE(all_finite(c));
    EXPECT_LE(length(c.at(2) - Vec3{0, 1.5f, 0}), 2e-5f);
  }
  {  // NaN target, bad soften, missing output: refused
    Chain c;
    c.update();
    Quat q1, q2;
    TwoBoneIkJob job{&c.model[0], &c.model[1], &c.model[2], {NAN, 0, 0}};
    job.start_correction = &q1;
    job.mid_correction = &q2;
    EXPECT_FALSE(job.validate());
    EXPECT_FALSE(job.run());
    job.target = {1, 0, 0};
    EXPECT_TRUE(job.validate());
    job.soften = 0;
    EXPECT_FALSE(job.validate());
    job.soften = 1;
    job.mid_correction = nullptr;
    EXPECT_FALSE(job.run());
  }
}

// ---- Aim IK ----

// A joint under a parent (rigid turn and move, uniform scale), with its own local T * R * S.
struct AimJoint {
  Mat4 parent;
  Vec3 translation;
  Quat rotation;
  Vec3 scale{1, 1, 1};
  Mat4 model;

  void update() {
    model = parent * translation_matrix(translation) * rotation_matrix(rotation) * scale_matrix(scale);
  }
};

struct Aimed {
  bool ok = false, reached = false;
  Quat correction;
};

struct AimSetup {
  Vec3 target, forward{0, 0, 1}, up{0, 1, 0}, offset, pole{0, 1, 0};
  float twist = 0, weight = 1;
};

AimSetup aim_at(Vec3 target, Vec3 offset = {}) {
  AimSetup s;
  s.target = target;
  s.offset = offset;
  return s;
}

Aimed aim(AimJoint& joint, const AimSetup& s) {
  joint.update();
  Aimed out;
  AimIkJob job;
  job.joint = &joint.model;
  job.target = s.target;
  job.forward = s.forward;
  job.up = s.up;
  job.offset = s.offset;
  job.pole_vector = s.pole;
  job.twist_angle = s.twist;
  job.weight = s.weight;
  job.joint_correction = &out.correction;
  job.reached = &out.reached;
  out.ok = job.run();
  if (out.ok) {  // apply: local = local * correction, then rebuild
    joint.rotation = normalize(joint.rotation * out.correction);
    joint.update();
  }
  return out;
}

float angle_of(Vec3 a, Vec3 b) {  // accurate near 0
  return std::atan2(length(cross(a, b)), dot(a, b));
}

// The angle between the aimed ray (from the offset point along forward, in model space) and the target.
float aim_error(const AimJoint& j, const AimSetup& s) {
  const Vec3 from = transform_point(j.model, s.offset);
  return angle_of(transform_vector(j.model, s.forward), s.target - from);
}

AimJoint random_joint(std::mt19937& rng, bool scaled) {
  std::uniform_real_distribution<float> u(0, 1);
  AimJoint j;
  const float k = scaled ? 0.5f + u(rng) * 1.5f : 1;
  j.parent = translation_matrix({u(rng) * 4 - 2, u(rng) * 4 - 2, u(rng) * 4 - 2}) *
             rotation_matrix(quat_from_axis_angle(random_direction(rng), u(rng) * 6.28f)) *
             scale_matrix({k, k, k});
  j.translation = {u(rng) - 0.5f, u(rng), u(rng) - 0.5f};
  j.rotation = quat_from_axis_angle(random_direction(rng), u(rng) * 6.28f);
  if (scaled) j.scale = {0.5f + u(rng), 0.5f + u(rng), 0.5f + u(rng)};
  j.update();
  return j;
}

// A random aim problem the joint can solve: offset within 0.3 (before scale), the target outside the offset
// sphere, so at least 0.5 beyond the offset point once aimed.
AimSetup random_aim(std::mt19937& rng, const AimJoint& j) {
  std::uniform_real_distribution<float> u(0, 1);
  AimSetup s;
  s.forward = random_direction(rng) * (0.5f + u(rng));  // any length
  s.up = random_direction(rng);
  s.offset = random_direction(rng) * (0.3f * u(rng));
  s.pole = random_direction(rng);
  const Vec3 eye = transform_point(j.model, s.offset);
  const float eye_distance = length(eye - j.model.translation());
  s.target = eye + random_direction(rng) * (2 * eye_distance + 0.5f + 2.5f * u(rng));
  return s;
}

TEST(AimIk, TheForwardRayFromTheOffsetHitsTheTarget) {
  std::mt19937 rng(11);
  float worst = 0;
  int solved = 0;
  for (int i = 0; i < 2000; ++i) {
    AimJoint j = random_joint(rng, i % 2 == 1);  // every other joint scaled (uniform above, its own below)
    const AimSetup s = random_aim(rng, j);
    const Vec3 joint_at = j.model.translation();
    const Aimed a = aim(j, s);
    ASSERT_TRUE(a.ok);
    EXPECT_TRUE(a.reached) << i;
    EXPECT_LE(length(j.model.translation() - joint_at), 1e-5f) << i;  // it turns, never moves
    const float error = aim_error(j, s);
    worst = std::max(worst, error);
    EXPECT_LE(error, 1e-5f) << "joint " << i;
    // The target is ahead of the offset point, not behind it.
    const Vec3 from = transform_point(j.model, s.offset);
    EXPECT_GT(dot(transform_vector(j.model, s.forward), s.target - from), 0) << i;
    ++solved;
  }
  std::printf("  %d random joints, offsets and targets: worst aim error %.2e rad\n", solved, worst);
}

TEST(AimIk, WithoutOffsetTheForwardAxisPointsAtTheTarget) {
  std::mt19937 rng(12);
  for (int i = 0; i < 300; ++i) {
    AimJoint j = random_joint(rng, false);
    AimSetup s = random_aim(rng, j);
    s.offset = {};
    ASSERT_TRUE(aim(j, s).ok);
    const Vec3 forward = normalize(transform_vector(j.model, s.forward));
    EXPECT_LE(length(forward - normalize(s.target - j.model.translation())), 2e-5f) << i;
  }
}

// Targets behind the joint: the turn is near a half turn, where its axis (forward x target) is rounding.
TEST(AimIk, TargetsBehindTheForwardAxisAreAimedAt) {
  std::mt19937 rng(13);
  float worst = 0;
  for (int i = 0; i < 40; ++i) {
    AimJoint j = random_joint(rng, i % 2 == 1);
    const Vec3 local_forward = random_direction(rng);  // not along an axis: its cross products then round
    const Vec3 forward = normalize(transform_vector(j.model, local_forward));
    const Vec3 across = normalize(cross(forward, random_direction(rng)));
    for (int k = 0; k <= 8; ++k) {
      const float off = k == 8 ? 0.f : std::pow(10.f, -static_cast<float>(k));
      AimJoint t = j;
      AimSetup s =
          aim_at(j.model.translation() + rotate(quat_from_axis_angle(across, 3.14159265f + off), forward));
      s.forward = local_forward;
      s.pole = random_direction(rng);
      ASSERT_TRUE(aim(t, s).ok);
      const float error = aim_error(t, s);
      worst = std::max(worst, error);
      EXPECT_LE(error, 1e-5f) << "joint " << i << ", " << off << " rad from behind";
    }
  }
  std::printf("  targets behind the joint, 0 to 1 rad off: worst aim error %.2e rad\n", worst);
}

TEST(AimIk, UpLiesInThePlaneOfTheAimAxisAndThePoleOnItsSide) {
  std::mt19937 rng(13);
  int checked = 0;
  for (int i = 0; i < 1000; ++i) {
    AimJoint j = random_joint(rng, i % 2 == 1);
    AimSetup s = random_aim(rng, j);
    if (i % 3 == 0) s.offset = {};  // then the aim axis is the forward axis itself
    const Vec3 joint_at = j.model.translation();
    const Vec3 axis = normalize(s.target - joint_at);
    const Vec3 pole_off = s.pole - axis * dot(s.pole, axis);
    ASSERT_TRUE(aim(j, s).ok);
    const Vec3 up = normalize(transform_vector(j.model, s.up));
    const Vec3 up_off = up - axis * dot(up, axis);
    if (length(pole_off) < 0.1f || length(up_off) < 0.1f) continue;  // near the axis: the plane is loose
    ++checked;
    EXPECT_LE(std::fabs(dot(up, normalize(cross(axis, s.pole)))), 1e-5f) << i;  // in the plane
    EXPECT_GT(dot(up_off, pole_off), 0) << i;                                   // on the pole's side
    if (s.offset.x == 0 && s.offset.y == 0 && s.offset.z == 0) {
      const Vec3 forward = normalize(transform_vector(j.model, s.forward));
      EXPECT_LE(std::fabs(dot(up, normalize(cross(forward, s.pole)))), 2e-5f) << i;
    }
  }
  EXPECT_GT(checked, 500);
}

TEST(AimIk, TwistTurnsAboutTheAimAxisByTheAngle) {
  std::mt19937 rng(14);
  for (int i = 0; i < 300; ++i) {
    const float twist = (i % 2 ? 1 : -1) * (0.1f + 0.01f * i);  // up to 3.1 rad, both ways
    AimJoint j = random_joint(rng, i % 2 == 1);
    AimSetup s = random_aim(rng, j);
    if (i % 3 == 0) s.offset = {};
    AimJoint twisted = j;
    ASSERT_TRUE(aim(j, s).ok);
    AimSetup st = s;
    st.twist = twist;
    const Aimed a = aim(twisted, st);
    ASSERT_TRUE(a.ok);
    EXPECT_TRUE(a.reached);
    EXPECT_LE(aim_error(twisted, st), 1e-5f) << i;  // still aimed
    const Vec3 axis = normalize(s.target - j.model.translation());
    const Vec3 u0 = transform_vector(j.model, s.up), u1 = transform_vector(twisted.model, s.up);
    const Vec3 p0 = u0 - axis * dot(u0, axis), p1 = u1 - axis * dot(u1, axis);
    if (length(p0) < 0.1f * length(u0)) continue;
    const float turned = std::atan2(dot(cross(p0, p1), axis), dot(p0, p1));
    EXPECT_NEAR(turned, twist, 1e-4f) << i;
    if (s.offset.x == 0 && s.offset.y == 0 && s.offset.z == 0) {  // about the forward axis itself
      const Vec3 f0 = normalize(transform_vector(j.model, s.forward));
      EXPECT_LE(length(f0 - normalize(transform_vector(twisted.model, s.forward))), 2e-5f) << i;
    }
  }
}

TEST(AimIk, WeightZeroChangesNothingOneIsExactHalfIsHalfway) {
  std::mt19937 rng(15);
  for (int i = 0; i < 200; ++i) {
    const AimJoint start = random_joint(rng, i % 2 == 1);
    AimSetup s = random_aim(rng, start);

    AimJoint zero = start;
    s.weight = 0;
    const Aimed a0 = aim(zero, s);
    ASSERT_TRUE(a0.ok);
    EXPECT_FALSE(a0.reached);
    EXPECT_TRUE(a0.correction.x == 0 && a0.correction.y == 0 && a0.correction.z == 0 && a0.correction.w == 1);

    AimJoint full = start, half = start;
    s.weight = 1;
    const Aimed a1 = aim(full, s);
    EXPECT_TRUE(a1.reached);
    EXPECT_LE(aim_error(full, s), 1e-5f);
    s.weight = 0.5f;
    const Aimed ah = aim(half, s);
    EXPECT_FALSE(ah.reached);
    // Halfway: half the angle about the same axis, i.e. applied twice it is the full correction.
    const float full_angle = 2 * std::acos(std::min(std::fabs(a1.correction.w), 1.f));
    const float half_angle = 2 * std::acos(std::min(std::fabs(ah.correction.w), 1.f));
    EXPECT_NEAR(half_angle, full_angle / 2, 1e-4f) << i;
    const Quat twice = ah.correction * ah.correction;
    EXPECT_GT(std::fabs(dot(twice, a1.correction)), 1 - 1e-6f) << i;
    if (aim_error(start, s) > 0.2f) {
      EXPECT_GT(aim_error(half, s), 1e-3f) << i;  // not there yet
    }
  }
}

TEST(AimIk, DegenerateInputsGiveDefinedResultsNeverNaN) {
  auto finite_quat = [](Quat q) { return std::isfinite(q.x + q.y + q.z + q.w); };
  auto is_identity = [](Quat q) { return q.x == 0 && q.y == 0 && q.z == 0 && q.w == 1; };
  AimJoint j;
  j.translation = {0, 1, 0};
  j.update();
  {  // target at the joint: nothing to aim at
    AimJoint k = j;
    const Aimed a = aim(k, aim_at({0, 1, 0}));
    ASSERT_TRUE(a.ok);
    EXPECT_FALSE(a.reached);
    EXPECT_TRUE(is_identity(a.correction));
  }
  {  // target inside the offset sphere (eyes 1 ahead, target 0.5 away, in front or behind): unreachable
    for (Vec3 target : {Vec3{0, 1, 0.5f}, Vec3{0.3f, 1.4f, 0}, Vec3{0, 1, -0.5f}}) {
      AimJoint k = j;
      const Aimed a = aim(k, aim_at(target, {0, 0, 1}));
      ASSERT_TRUE(a.ok);
      EXPECT_FALSE(a.reached);
      EXPECT_TRUE(is_identity(a.correction));
    }
    AimJoint k = j;  // just outside: reachable, exact
    const AimSetup s = aim_at({0, 1, 1.5f}, {0, 0, 1});
    EXPECT_TRUE(aim(k, s).reached);
    EXPECT_LE(aim_error(k, s), 1e-5f);
    // An offset off the forward line (0.5 from it): a target nearer than that can never be on the ray.
    AimJoint n = j;
    const Aimed a = aim(n, aim_at({0.2f, 1.2f, 0}, {0.5f, 0, 0}));
    EXPECT_FALSE(a.reached);
    EXPECT_TRUE(is_identity(a.correction));
  }
  {  // forward parallel to the pole, up parallel to forward, zero pole: aimed, the roll kept, finite
    AimSetup cases[4] = {aim_at({3, 1, 0}), aim_at({3, 1, 0}), aim_at({-3, 1, 0}), aim_at({0, 1, -3})};
    cases[0].pole = {1, 0, 0};  // along the aim
    cases[1].up = {0, 0, 2};    // along forward
    cases[2].pole = {};         // none
    cases[3].pole = {0, 0, 1};  // the target straight behind
    for (const AimSetup& s : cases) {
      AimJoint k = j;
      const Aimed a = aim(k, s);
      ASSERT_TRUE(a.ok);
      EXPECT_TRUE(a.reached);
      EXPECT_TRUE(finite_quat(a.correction));
      EXPECT_LE(aim_error(k, s), 1e-5f);
    }
  }
  {  // zero axes, NaN anywhere, missing pointers: refused
    Quat q;
    AimIkJob job;
    job.joint = &j.model;
    job.target = {1, 1, 1};
    job.joint_correction = &q;
    EXPECT_TRUE(job.validate());
    AimIkJob bad = job;
    bad.forward = {};
    EXPECT_FALSE(bad.run());
    bad = job, bad.up = {};
    EXPECT_FALSE(bad.run());
    bad = job, bad.target = {NAN, 0, 0};
    EXPECT_FALSE(bad.run());
    bad = job, bad.offset = {0, INFINITY, 0};
    EXPECT_FALSE(bad.run());
    bad = job, bad.pole_vector = {0, 0, NAN};
    EXPECT_FALSE(bad.run());
    bad = job, bad.twist_angle = NAN;
    EXPECT_FALSE(bad.run());
    bad = job, bad.weight = NAN;
    EXPECT_FALSE(bad.run());
    Mat4 broken = j.model;
    broken.m[5] = NAN;
    bad = job, bad.joint = &broken;
    EXPECT_FALSE(bad.run());
    bad = job, bad.joint = nullptr;
    EXPECT_FALSE(bad.run());
    bad = job, bad.joint_correction = nullptr;
    EXPECT_FALSE(bad.run());
  }
  {  // a zero-scale joint, huge coordinates: identity or a finite turn, never NaN
    Mat4 flat = scale_matrix({0, 0, 0});
    Quat q{1, 2, 3, 4};
    AimIkJob job;
    job.joint = &flat;
    job.target = {1, 2, 3};
    job.joint_correction = &q;
    ASSERT_TRUE(job.run());
    EXPECT_TRUE(is_identity(q));
    Mat4 far = translation_matrix({1e30f, -1e30f, 3e38f});
    job.joint = &far;
    for (Vec3 target : {Vec3{-3e38f, 3e38f, -3e38f}, Vec3{1e30f, -1e30f, 3.0001e38f}}) {
      job.target = target;
      job.offset = {2e38f, 0, 0};
      job.pole_vector = {3e38f, 3e38f, 0};
      ASSERT_TRUE(job.run());
      EXPECT_TRUE(finite_quat(q));
    }
  }
  {  // every input from extremes (0, tiny, huge, either sign): refused or a finite correction
    std::mt19937 rng(16);
    const float pool[] = {0, 1e-38f, 1e-20f, 1e-6f, 0.5f, 1, 3, 1e6f, 1e19f, 1e30f, 3e38f};
    auto v = [&] { return pool[rng() % 11] * (rng() % 2 ? -1.f : 1.f); };
    auto v3 = [&] { return Vec3{v(), v(), v()}; };
    int ran = 0;
    for (int i = 0; i < 20000; ++i) {
      const Mat4 m = translation_matrix(v3()) * rotation_matrix(normalize(Quat{v(), v(), v(), v()})) *
                     scale_matrix(v3());
      Quat q;
      AimIkJob job;
      job.joint = &m, job.target = v3(), job.forward = v3(), job.up = v3(), job.offset = v3();
      job.pole_vector = v3(), job.twist_angle = v(), job.weight = v(), job.joint_correction = &q;
      if (!job.run()) continue;
      ++ran;
      ASSERT_TRUE(finite_quat(q)) << i;
    }
    EXPECT_GT(ran, 5000);
  }
}

}  // namespace
}  // namespace ossa
