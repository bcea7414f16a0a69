// Two-bone IK (ossa/runtime/ik_job.h). Truth: the chain rebuilt from its corrected local rotations (model =
// parent * T * R, by hand) and measured: where its end lands, whether it is straight, which side it bends to.
// Tolerances in model units relative to the chain length: 1e-5 for reaching a target.
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

}  // namespace
}  // namespace ossa
