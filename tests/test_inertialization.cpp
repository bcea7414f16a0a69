// Inertialization (ossa/runtime/inertialization.h). Truths: the quintic written out here in double precision
// from Bollo's formula, finite differences of the shown pose at 1 kHz and 10 kHz, and the sources themselves
// (closed-form motions of this file). Units: metres for translations, radians for rotations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ossa/runtime/inertialization.h"

namespace ossa {
namespace {

constexpr int kJoints = 3;

// Two smooth motions, different enough that switching between them jumps by tens of centimetres and radians.
std::vector<JointPose> motion(int which, double t) {
  std::vector<JointPose> pose(kJoints);
  for (int j = 0; j < kJoints; ++j) {
    const double k = which == 0 ? 1.0 + j : -0.7 - 0.5 * j, phase = which == 0 ? 0.0 : 1.3;
    const Vec3 p{static_cast<float>(0.3 * std::sin(2 * k * t + phase)), static_cast<float>(0.2 * k * t),
                 static_cast<float>(0.1 * std::cos(3 * t + phase))};
    const Quat q = quat_from_axis_angle({static_cast<float>(std::cos(0.5 * t + j)), 1, static_cast<float>(k)},
                                        static_cast<float>(1.1 * k * t + phase));
    pose[j] = to_joint_pose({p, q, {1, static_cast<float>(1 + 0.1 * std::sin(t * k)), 1}});
  }
  return pose;
}

Vec3 translation(const JointPose& p) {
  return {p.translation[0], p.translation[1], p.translation[2]};
}
Quat rotation(const JointPose& p) {
  return {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]};
}
// Angular distance between two rotations, radians.
float angle(Quat a, Quat b) {
  return length(rotation_vector(a * conjugate(b)));
}

// Runs motion 0 until `switch_at`, then motion 1 (sampled from its time 0) with a transition of `duration`,
// at `hz` updates per second; returns every shown pose.
std::vector<std::vector<JointPose>> run(double hz, double switch_at, double end, float duration,
                                        bool inertialize = true) {
  Inertializer blend(kJoints);
  std::vector<std::vector<JointPose>> shown;
  const double dt = 1 / hz;
  const int switch_frame = static_cast<int>(std::lround(switch_at * hz));
  for (int f = 0; f <= static_cast<int>(std::lround(end * hz)); ++f) {
    std::vector<JointPose> pose = f <= switch_frame ? motion(0, f * dt) : motion(1, (f - switch_frame) * dt);
    EXPECT_TRUE(blend.update(pose, f == 0 ? 0.f : static_cast<float>(dt)));
    shown.push_back(pose);
    if (f == switch_frame && inertialize) {
      EXPECT_TRUE(blend.start(motion(1, 0), motion(1, -dt), static_cast<float>(dt), duration));
    }
  }
  return shown;
}

// The largest change of velocity between the frame before the switch and the frame after it, per kind.
struct Jumps {
  float position = 0, velocity = 0, angular_velocity = 0;
};
Jumps jumps_at_switch(const std::vector<std::vector<JointPose>>& shown, int s, double dt) {
  Jumps out;
  for (int j = 0; j < kJoints; ++j) {
    const Vec3 a = translation(shown[s - 1][j]), b = translation(shown[s][j]),
               c = translation(shown[s + 1][j]);
    out.position = std::max(out.position, length(c - b));
    out.velocity = std::max(out.velocity, length((c - b) - (b - a)) / static_cast<float>(dt));
    const Vec3 w0 = rotation_vector(rotation(shown[s][j]) * conjugate(rotation(shown[s - 1][j])));
    const Vec3 w1 = rotation_vector(rotation(shown[s + 1][j]) * conjugate(rotation(shown[s][j])));
    out.angular_velocity = std::max(out.angular_velocity, length(w1 - w0) / static_cast<float>(dt));
  }
  return out;
}

TEST(Inertialization, QuinticMatchesBollosFormulaAndEndsAtRest) {
  for (double x0 : {0.4, -0.25, 0.0}) {
    for (double v0 : {0.0, 3.0, -2.0, -12.0}) {
      const double T = 0.3;
      const QuinticDecay d = QuinticDecay::make(static_cast<float>(x0), static_cast<float>(v0), 0.3f);
      // Bollo's formula in the offset's sign (positive x), written out independently in double.
      const double s = x0 > 0 ? 1 : x0 < 0 ? -1 : (v0 >= 0 ? 1 : -1), x = s * x0, v = s * v0;
      const double a = std::max(0.0, (-8 * v * T - 20 * x) / (T * T));
      const double A = -(a * T * T + 6 * v * T + 12 * x) / (2 * std::pow(T, 5));
      const double B = (3 * a * T * T + 16 * v * T + 30 * x) / (2 * std::pow(T, 4));
      const double C = -(3 * a * T * T + 12 * v * T + 20 * x) / (2 * std::pow(T, 3));
      for (int i = 0; i <= 300; ++i) {
        const double t = T * i / 300;
        const double want = t < T ? s * (A * std::pow(t, 5) + B * std::pow(t, 4) + C * std::pow(t, 3) +
                                         a / 2 * t * t + v * t + x)
                                  : 0;
        EXPECT_NEAR(d.value(static_cast<float>(t)), want, 2e-5) << "x0 " << x0 << " v0 " << v0 << " t " << t;
      }
      EXPECT_FLOAT_EQ(d.value(0), static_cast<float>(x0));
      EXPECT_FLOAT_EQ(d.velocity(0), static_cast<float>(v0));
      // The curve lands at rest: value, velocity (and, from the formula, acceleration) reach 0 at T.
      EXPECT_NEAR(d.value(0.3f - 1e-4f), 0, 1e-5);
      EXPECT_NEAR(d.velocity(0.3f - 1e-4f), 0, 1e-3);
      EXPECT_EQ(d.value(0.3f), 0);
      EXPECT_EQ(d.value(5.f), 0);
    }
  }
}

TEST(Inertialization, ShownPoseAndVelocityAreContinuousAtTheSwitch) {
  // Without inertialization the switch jumps by tens of centimetres in one frame.
  const auto plain = run(1000, 0.25, 0.3, 0.3f, false);
  const Jumps hard = jumps_at_switch(plain, 250, 1e-3);
  ASSERT_GT(hard.position, 0.1f);
  // With it, at 1 kHz and 10 kHz: the position moves by what its velocity carries it (continuity), and the
  // velocity's change across the switch shrinks with the step (a finite acceleration: C1).
  const auto slow = run(1000, 0.25, 0.3, 0.3f), fast = run(10000, 0.25, 0.26, 0.3f);
  const Jumps j1 = jumps_at_switch(slow, 250, 1e-3), j10 = jumps_at_switch(fast, 2500, 1e-4);
  std::printf(
      "switch: plain jump %.3f m; inertialized step %.2e m (1 kHz); velocity change %.3f m/s (1 kHz), "
      "%.4f m/s (10 kHz); angular %.3f rad/s (1 kHz), %.4f rad/s (10 kHz)\n",
      hard.position, j1.position, j1.velocity, j10.velocity, j1.angular_velocity, j10.angular_velocity);
  EXPECT_LT(j1.position, 2e-3f);  // under 2 m/s x 1 ms: the sources move at most ~1 m/s
  EXPECT_LT(j1.velocity, 0.5f);
  EXPECT_LT(j10.velocity, 0.2f * j1.velocity + 1e-3f);
  EXPECT_LT(j1.angular_velocity, 2.f);
  EXPECT_LT(j10.angular_velocity, 0.2f * j1.angular_velocity + 5e-3f);
}

TEST(Inertialization, OffsetIsGoneAtTheDurationsEnd) {
  const auto shown = run(1000, 0.25, 0.8, 0.3f);
  // From the switch + 0.3 s on (one frame later: 300 float steps of 1 ms add up to just under 0.3).
  for (int f = 551; f < static_cast<int>(shown.size()); ++f) {
    const auto source = motion(1, (f - 250) * 1e-3);
    for (int j = 0; j < kJoints; ++j) {
      for (int c = 0; c < 4; ++c) {
        ASSERT_EQ(shown[f][j].translation[c], source[j].translation[c]) << "frame " << f;
        ASSERT_EQ(shown[f][j].rotation[c], source[j].rotation[c]) << "frame " << f;
        ASSERT_EQ(shown[f][j].scale[c], source[j].scale[c]) << "frame " << f;
      }
    }
  }
  // Half-way, the offset is still there.
  const auto mid = motion(1, 0.15);
  EXPECT_GT(length(translation(shown[400][0]) - translation(mid[0])), 1e-3f);
}

TEST(Inertialization, ASwitchToTheSamePoseChangesNothing) {
  Inertializer blend(kJoints);
  const double dt = 1 / 60.0;
  for (int f = 0; f < 120; ++f) {
    std::vector<JointPose> pose = motion(0, f * dt);
    const std::vector<JointPose> source = pose;
    ASSERT_TRUE(blend.update(pose, f == 0 ? 0.f : static_cast<float>(dt)));
    // Rounding only: both velocities are backward differences over the same step (1e-5 m, 1e-5 rad).
    for (int j = 0; j < kJoints; ++j) {
      EXPECT_LT(length(translation(pose[j]) - translation(source[j])), 1e-5f) << f;
      EXPECT_LT(angle(rotation(pose[j]), rotation(source[j])), 1e-5f) << f;
    }
    if (f % 20 == 5) {
      ASSERT_TRUE(blend.start(motion(0, f * dt), motion(0, (f - 1) * dt), static_cast<float>(dt), 0.25f));
    }
  }
}

TEST(Inertialization, RefusesWhatItCannotUse) {
  Inertializer blend(kJoints);
  const auto pose = motion(0, 0);
  EXPECT_FALSE(blend.start(pose, pose, 1 / 60.f, 0.2f));  // nothing shown yet
  auto shown = pose;
  ASSERT_TRUE(blend.update(shown, 0));
  EXPECT_FALSE(blend.start(pose, pose, 0, 0.2f));
  EXPECT_FALSE(blend.start(pose, pose, 1 / 60.f, -1));
  EXPECT_FALSE(blend.start(pose, pose, 1 / 60.f, NAN));
  EXPECT_FALSE(blend.start(std::span(pose).first(2), pose, 1 / 60.f, 0.2f));
  EXPECT_FALSE(blend.update(std::span(shown).first(2), 0.01f));
  EXPECT_FALSE(blend.update(shown, -0.01f));
  EXPECT_FALSE(blend.active());
  EXPECT_TRUE(blend.start(pose, pose, 1 / 60.f, 0.2f));
  EXPECT_TRUE(blend.active());
}

}  // namespace
}  // namespace ossa
