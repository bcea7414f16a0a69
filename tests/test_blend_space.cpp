// Blend spaces (ossa/runtime/blend_space.h): the weights' properties (>= 0, sum 1, exact at samples,
// continuous, degenerate inputs refused or defined), and the player on the synthetic character against a
// brute-force reference (SampleJob + BlendJob at hand-computed phase-aligned times), sync markers, root
// motion (hand values) and notify rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "ossa/runtime/blend_space.h"
#include "ossa/runtime/sample_job.h"
#include "synthetic_character.h"

namespace ossa {
namespace {

std::vector<float> weights_at(const BlendSpace& space, float x, float y = 0) {
  std::vector<float> w(space.sample_count(), -1.f);
  EXPECT_TRUE(space.evaluate(x, y, w)) << "at " << x << ", " << y;
  return w;
}

float max_change(const std::vector<float>& a, const std::vector<float>& b) {
  float change = 0;
  for (size_t i = 0; i < a.size(); ++i) change = std::max(change, std::fabs(a[i] - b[i]));
  return change;
}

// Every weight >= 0, their sum 1.
void expect_partition_of_unity(const std::vector<float>& w, const char* where) {
  float sum = 0;
  for (float v : w) {
    ASSERT_TRUE(std::isfinite(v)) << where;
    ASSERT_GE(v, 0.f) << where;
    sum += v;
  }
  ASSERT_NEAR(sum, 1.f, 1e-6f) << where;
}

// Continuity between two parameters: the weights change by at most `tolerance` from p to q, or the segment
// is split in halves (down to 1/4096 of its length) until every piece does. A jump anywhere fails.
bool continuous_between(const BlendSpace& space, BlendPoint p, BlendPoint q, float tolerance,
                        int depth = 12) {
  const auto wp = weights_at(space, p.x, p.y), wq = weights_at(space, q.x, q.y);
  if (max_change(wp, wq) <= tolerance) return true;
  if (depth == 0) return false;
  const BlendPoint mid{(p.x + q.x) / 2, (p.y + q.y) / 2};
  return continuous_between(space, p, mid, tolerance, depth - 1) &&
         continuous_between(space, mid, q, tolerance, depth - 1);
}

// Fine grid over the box [lo, hi] (wider than the samples): partition of unity everywhere, continuity along
// every grid step in x and in y.
void check_grid(const BlendSpace& space, BlendPoint lo, BlendPoint hi, int steps) {
  const float dx = (hi.x - lo.x) / steps, dy = (hi.y - lo.y) / steps;
  int refined = 0;
  for (int i = 0; i <= steps; ++i)
    for (int j = 0; j <= steps; ++j) {
      const BlendPoint p{lo.x + i * dx, lo.y + j * dy};
      expect_partition_of_unity(weights_at(space, p.x, p.y), "grid point");
      for (BlendPoint q : {BlendPoint{p.x + dx, p.y}, BlendPoint{p.x, p.y + dy}}) {
        if (max_change(weights_at(space, p.x, p.y), weights_at(space, q.x, q.y)) > 0.05f) ++refined;
        ASSERT_TRUE(continuous_between(space, p, q, 0.05f))
            << "weights jump between (" << p.x << ", " << p.y << ") and (" << q.x << ", " << q.y << ")";
      }
    }
  EXPECT_LT(refined, 2 * (steps + 1) * (steps + 1) / 10) << "the grid is too coarse for this space";
}

TEST(BlendSpace1D, WeightsInterpolateOnTheSegmentAndClampAtTheEnds) {
  const float speeds[] = {1.5f, 0.f, 4.f};  // walk, idle, run: any order
  auto space = BlendSpace::build_1d(speeds);
  ASSERT_TRUE(space) << space.error();
  auto w = weights_at(*space, 0.75f);
  EXPECT_FLOAT_EQ(w[0], 0.5f);
  EXPECT_FLOAT_EQ(w[1], 0.5f);
  EXPECT_FLOAT_EQ(w[2], 0.f);
  w = weights_at(*space, 3.5f);  // 0.8 of the way from walk to run
  EXPECT_NEAR(w[0], 0.2f, 1e-6f);
  EXPECT_NEAR(w[2], 0.8f, 1e-6f);
  EXPECT_EQ(weights_at(*space, -3.f), (std::vector<float>{0, 1, 0}));
  EXPECT_EQ(weights_at(*space, 100.f), (std::vector<float>{0, 0, 1}));
  EXPECT_EQ(weights_at(*space, std::numeric_limits<float>::infinity()), (std::vector<float>{0, 0, 1}));
}

TEST(BlendSpace1D, WeightsArePositiveSumToOneAreExactAtSamplesAndContinuous) {
  const float positions[] = {0.f, 1.5f, 4.f, -2.f, 2.25f};
  auto space = BlendSpace::build_1d(positions);
  ASSERT_TRUE(space) << space.error();
  for (int s = 0; s < space->sample_count(); ++s) {
    auto w = weights_at(*space, positions[s]);
    for (int i = 0; i < space->sample_count(); ++i) EXPECT_EQ(w[i], i == s ? 1.f : 0.f) << "sample " << s;
  }
  // Step 1e-3 over [-3, 5]: the closest samples are 0.75 apart, so no weight moves more than 1e-3 / 0.75.
  auto previous = weights_at(*space, -3.f);
  for (int i = 1; i <= 8000; ++i) {
    auto w = weights_at(*space, -3.f + i * 1e-3f);
    expect_partition_of_unity(w, "1D grid");
    ASSERT_LE(max_change(previous, w), 1e-3f / 0.75f + 1e-5f) << "at " << -3.f + i * 1e-3f;
    previous = w;
  }
}

TEST(BlendSpace2D, BarycentricInsideAndNearestHullPointOutside) {
  const BlendPoint corners[] = {{0, 0}, {1, 0}, {0, 1}};
  auto space = BlendSpace::build_2d(corners);
  ASSERT_TRUE(space) << space.error();
  EXPECT_EQ(space->triangle_count(), 1);
  auto w = weights_at(*space, 0.25f, 0.25f);
  EXPECT_NEAR(w[0], 0.5f, 1e-6f);
  EXPECT_NEAR(w[1], 0.25f, 1e-6f);
  EXPECT_NEAR(w[2], 0.25f, 1e-6f);
  w = weights_at(*space, 0.5f, -3.f);  // below the bottom edge: its midpoint
  EXPECT_NEAR(w[0], 0.5f, 1e-6f);
  EXPECT_NEAR(w[1], 0.5f, 1e-6f);
  EXPECT_EQ(w[2], 0.f);
  w = weights_at(*space, 3.f, -1.f);  // beyond the corner (1, 0)
  EXPECT_EQ(w, (std::vector<float>{0, 1, 0}));
  w = weights_at(*space, 1.f, 1.f);  // beyond the hypotenuse: its midpoint
  EXPECT_NEAR(w[1], 0.5f, 1e-6f);
  EXPECT_NEAR(w[2], 0.5f, 1e-6f);
}

TEST(BlendSpace2D, DirectionBySpeedGridIsExactContinuousAndSumsToOne) {
  // Direction (degrees) x speed (m/s): idle at the centre, walk and run rings; the squares of the grid are
  // cocircular (each could be split two ways): triangulated once, 2 triangles each.
  const BlendPoint grid[] = {{-90, 0},   {0, 0},   {90, 0}, {-90, 1.5f}, {0, 1.5f},
                             {90, 1.5f}, {-90, 4}, {0, 4},  {90, 4}};
  auto space = BlendSpace::build_2d(grid);
  ASSERT_TRUE(space) << space.error();
  EXPECT_EQ(space->triangle_count(), 8);
  for (int s = 0; s < space->sample_count(); ++s) {
    auto w = weights_at(*space, grid[s].x, grid[s].y);
    for (int i = 0; i < space->sample_count(); ++i) EXPECT_EQ(w[i], i == s ? 1.f : 0.f) << "sample " << s;
  }
  check_grid(*space, {-150, -2}, {150, 6}, 200);
}

TEST(BlendSpace2D, ScatteredPointsAreExactContinuousAndSumToOne) {
  std::mt19937 rng(18);
  std::uniform_real_distribution<float> coordinate(-1.f, 1.f);
  std::vector<BlendPoint> points(14);
  for (BlendPoint& p : points) p = {coordinate(rng), coordinate(rng)};
  auto space = BlendSpace::build_2d(points);
  ASSERT_TRUE(space) << space.error();
  for (int s = 0; s < space->sample_count(); ++s) {
    auto w = weights_at(*space, points[s].x, points[s].y);
    EXPECT_EQ(w[s], 1.f) << "sample " << s;
  }
  check_grid(*space, {-1.5f, -1.5f}, {1.5f, 1.5f}, 200);
}

TEST(BlendSpace, DegenerateInputsAreRefusedWithAReasonOrGiveDefinedWeights) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  auto refused = [](const auto& result, const char* reason) {
    ASSERT_FALSE(result) << "accepted; expected a refusal naming: " << reason;
    EXPECT_NE(result.error().find(reason), std::string::npos) << result.error();
  };
  refused(BlendSpace::build_1d(std::vector<float>{}), "no samples");
  refused(BlendSpace::build_1d(std::vector<float>{0, 1.5f, 1.5f}), "both at");
  refused(BlendSpace::build_1d(std::vector<float>{0, nan}), "not a finite");
  refused(BlendSpace::build_1d(std::vector<float>{0, 1e30f}), "not a finite");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {1, 1}}), "at least 3");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {1, 1}, {2, 2}, {-1, -1}}), "one line");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {1, 0}, {0, 1}, {1, 0}}), "both at");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {1, 0}, {inf, 1}}), "not finite");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>(BlendSpace::kMaxSamples2D + 1)), "limit");
  // Subnormal coordinates are 0 under flush-to-zero (games run with FTZ/DAZ): samples at 0 and 1e-40 would
  // share a place and take each other's weights.
  refused(BlendSpace::build_1d(std::vector<float>{0, 1e-40f, 1}),
          "not a finite value within 1e6 (nor subnormal)");
  refused(BlendSpace::build_1d(std::vector<float>{0, 1e-7f, 1}), "both at");
  refused(BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {1, 1e-40f}, {0, 1}}), "not finite");

  auto single = BlendSpace::build_1d(std::vector<float>{2.f});  // one sample: always all of it
  ASSERT_TRUE(single) << single.error();
  EXPECT_EQ(weights_at(*single, -5.f), std::vector<float>{1.f});

  const BlendPoint corners[] = {{0, 0}, {1, 0}, {0, 1}};
  auto space = BlendSpace::build_2d(corners);
  ASSERT_TRUE(space);
  std::vector<float> w(3, -1.f);
  EXPECT_FALSE(space->evaluate(nan, 0.5f, w));  // NaN: defined weights, and false
  EXPECT_EQ(w, (std::vector<float>{1, 0, 0}));
  EXPECT_TRUE(space->evaluate(inf, -inf, w));  // infinities: the far corner (1, 0)
  EXPECT_EQ(w, (std::vector<float>{0, 1, 0}));
  std::vector<float> small(2, -1.f);
  EXPECT_FALSE(space->evaluate(0.2f, 0.2f, small));  // too small: nothing written
  EXPECT_EQ(small, (std::vector<float>{-1, -1}));
}

// --- Player
// ---------------------------------------------------------------------------------------------------

// The synthetic character (clips Walk 1.0 s, Wave 1.5 s, Idle 2.0 s, Turn 1.2 s; "Turn" stands in for a run)
// and a 1D space Idle:0, Walk:1.5, Run:4.
struct Locomotion {
  CharacterAsset asset = test::synthetic_character();
  int idle = asset.find_clip("Idle"), walk = asset.find_clip("Walk"), run = asset.find_clip("Turn");
  std::vector<int> clips = {idle, walk, run};
  BlendSpace space = std::move(BlendSpace::build_1d(std::vector<float>{0, 1.5f, 4})).value();
};

// Brute force: each clip sampled at its time, blended by BlendJob with the weights.
std::vector<JointPose> reference_pose(const CharacterAsset& asset, std::span<const int> clips,
                                      std::span<const double> times, std::span<const float> weights) {
  const size_t n = asset.skeleton.rest_pose().size();
  std::vector<std::vector<JointPose>> poses(clips.size(), std::vector<JointPose>(n));
  std::vector<BlendLayer> layers;
  for (size_t i = 0; i < clips.size(); ++i) {
    if (weights[i] <= 0) continue;
    SamplingCache cache;
    EXPECT_TRUE((SampleJob{&asset.clips[clips[i]], static_cast<float>(times[i]), &cache, poses[i]}.run()));
    layers.push_back({poses[i], weights[i], {}});
  }
  std::vector<JointPose> out(n);
  EXPECT_TRUE((BlendJob{layers, {}, asset.skeleton.rest_pose(), out}.run()));
  return out;
}

float pose_distance(std::span<const JointPose> a, std::span<const JointPose> b) {
  float d = 0;
  for (size_t j = 0; j < a.size(); ++j)
    for (int i = 0; i < 4; ++i) {
      d = std::max(d, std::fabs(a[j].translation[i] - b[j].translation[i]));
      d = std::max(d, std::fabs(a[j].rotation[i] - b[j].rotation[i]));
      d = std::max(d, std::fabs(a[j].scale[i] - b[j].scale[i]));
    }
  return d;
}

TEST(BlendSpacePlayer, AtASamplePointThePoseIsThatClipAlone) {
  Locomotion l;
  auto player = BlendSpacePlayer::create(l.asset, l.space, l.clips);
  ASSERT_TRUE(player) << player.error();
  player->set_parameter(1.5f);  // walk
  double time = 0;
  for (int step = 0; step < 90; ++step) {
    player->update(1 / 60.f);
    time = std::fmod(time + 1 / 60.f, 1.0);
    ASSERT_EQ(player->leader(), 1);
    ASSERT_NEAR(player->clip_time(1), time, 1e-5);
    std::vector<JointPose> alone(l.asset.skeleton.rest_pose().size());
    SamplingCache cache;
    ASSERT_TRUE((SampleJob{&l.asset.clips[l.walk], player->clip_time(1), &cache, alone}.run()));
    ASSERT_LE(pose_distance(player->locals(), alone), 1e-6f) << "step " << step;
  }
}

// Between samples the pose is BlendJob of the clips at phase-aligned times: a shared normalised phase that
// moves by dt / L_blend per update (L_blend = sum of weight x clip length), each clip at phase x its length.
// The parameter moves three times, so the leader changes (idle, walk, then idle again).
TEST(BlendSpacePlayer, BetweenSamplesThePoseIsTheBlendOfTheClipsAtPhaseAlignedTimes) {
  Locomotion l;
  auto player = BlendSpacePlayer::create(l.asset, l.space, l.clips);
  ASSERT_TRUE(player) << player.error();
  const double lengths[] = {2.0, 1.0, 1.2};
  double phase = 0;
  const float dt = 1 / 30.f;
  struct Stretch {
    float parameter;
    std::vector<float> weights;
    int leader;
  };
  const Stretch stretches[] = {
      {0.6f, {0.6f, 0.4f, 0}, 0}, {2.5f, {0, 0.6f, 0.4f}, 1}, {3.7f, {0, 0.12f, 0.88f}, 2}};
  for (const Stretch& s : stretches) {
    player->set_parameter(s.parameter);
    double blended_length = 0;
    for (int i = 0; i < 3; ++i) blended_length += s.weights[i] * lengths[i];
    for (int step = 0; step < 40; ++step) {
      player->update(dt);
      phase = std::fmod(phase + dt / blended_length, 1.0);
      ASSERT_EQ(player->leader(), s.leader);
      double times[3];
      for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(player->weights()[i], s.weights[i], 1e-6f);
        times[i] = phase * lengths[i];
        // Phase wraps at 1: a time just below the end and one at 0 are the same point of the cycle.
        double off = std::fabs(player->clip_time(i) - times[i]);
        off = std::min(off, std::fabs(off - lengths[i]));
        ASSERT_LT(off, 1e-4) << "clip " << i << " out of phase at parameter " << s.parameter << ", step "
                             << step;
        times[i] = player->clip_time(i);
      }
      const auto expected = reference_pose(l.asset, l.clips, times, s.weights);
      ASSERT_LE(pose_distance(player->locals(), expected), 1e-6f) << "parameter " << s.parameter;
    }
  }
}

// A 2D space plays the same way: inside its triangle Idle (0, 0), Walk (0, 1), Run (1, 0), the pose at
// (0.25, 0.25) is the blend 0.5 / 0.25 / 0.25 of the clips at one shared phase.
TEST(BlendSpacePlayer, TwoDimensionalSpaceBlendsItsTriangleInPhase) {
  Locomotion l;
  auto space = BlendSpace::build_2d(std::vector<BlendPoint>{{0, 0}, {0, 1}, {1, 0}});
  ASSERT_TRUE(space) << space.error();
  auto player = BlendSpacePlayer::create(l.asset, *space, l.clips);
  ASSERT_TRUE(player) << player.error();
  player->set_parameter(0.25f, 0.25f);
  const double lengths[] = {2.0, 1.0, 1.2}, blended_length = 0.5 * 2.0 + 0.25 * 1.0 + 0.25 * 1.2;
  const float weights[] = {0.5f, 0.25f, 0.25f};
  double phase = 0;
  for (int step = 0; step < 60; ++step) {
    player->update(1 / 30.f);
    phase = std::fmod(phase + (1 / 30.f) / blended_length, 1.0);
    double times[3];
    for (int i = 0; i < 3; ++i) {
      ASSERT_NEAR(player->weights()[i], weights[i], 1e-6f);
      double off = std::fabs(player->clip_time(i) - phase * lengths[i]);
      ASSERT_LT(std::min(off, std::fabs(off - lengths[i])), 1e-4) << "clip " << i << ", step " << step;
      times[i] = player->clip_time(i);
    }
    ASSERT_LE(pose_distance(player->locals(), reference_pose(l.asset, l.clips, times, weights)), 1e-6f);
  }
}

// Walk (1.0 s: FootL at 0, FootR at 0.5) and a run (1.2 s: FootL at 0.1, FootR at 0.9; FootR at 0.67 of the
// clip, not half way): with sync markers each foot lands on the same update in both clips.
TEST(BlendSpacePlayer, SyncMarkersPutBothClipsFeetDownOnTheSameUpdate) {
  Locomotion l;
  std::vector<ClipTiming> timings;
  for (const Clip& c : l.asset.clips) timings.push_back({c.name(), c.duration()});
  auto notifies = parse_notifies(R"({"clips": {
      "Walk": [{"name": "FootL", "time": 0.0}, {"name": "FootR", "time": 0.5}],
      "Turn": [{"name": "FootL", "time": 0.1}, {"name": "FootR", "time": 0.9}, {"name": "Mid", "time": 0.5}]}})",
                                 "markers.json", timings);
  ASSERT_TRUE(notifies) << notifies.error();
  const int walk_run[] = {l.walk, l.run};
  auto space = BlendSpace::build_1d(std::vector<float>{1.5f, 4});
  ASSERT_TRUE(space);
  const std::string markers[] = {"FootL", "FootR"};
  auto player = BlendSpacePlayer::create(l.asset, *space, walk_run, &*notifies, {}, markers);
  ASSERT_TRUE(player) << player.error();
  player->notify_weight_threshold = 0;  // both clips report, so both feet can be compared
  int together = 0;
  for (float parameter : {2.5f, 3.0f}) {  // walk leads, then the run leads
    player->set_parameter(parameter);
    for (int step = 0; step < 150; ++step) {
      player->update(1 / 60.f);
      for (const char* foot : {"FootL", "FootR"}) {
        bool in_walk = false, in_run = false;
        for (const AnimEvent& e : player->events())
          if (e.name && *e.name == foot) (e.clip == l.walk ? in_walk : in_run) = true;
        ASSERT_EQ(in_walk, in_run) << foot << " at step " << step << ", parameter " << parameter;
        together += in_walk;
      }
    }
  }
  EXPECT_GE(together, 8);  // at ~0.85-1.1 s per cycle, 5 s hold at least 4 cycles x 2 feet
}

// Without a marker in the follower, phase falls back to normalised time.
TEST(BlendSpacePlayer, ClipsWithoutMarkersFollowNormalisedTime) {
  Locomotion l;
  std::vector<ClipTiming> timings;
  for (const Clip& c : l.asset.clips) timings.push_back({c.name(), c.duration()});
  auto notifies =
      parse_notifies(R"({"clips": {"Walk": [{"name": "FootL", "time": 0.2}]}})", "m.json", timings);
  ASSERT_TRUE(notifies) << notifies.error();
  const int walk_run[] = {l.walk, l.run};
  auto space = BlendSpace::build_1d(std::vector<float>{1.5f, 4});
  ASSERT_TRUE(space);
  const std::string markers[] = {"FootL"};
  auto player = BlendSpacePlayer::create(l.asset, *space, walk_run, &*notifies, {}, markers);
  ASSERT_TRUE(player);
  player->set_parameter(2.f);
  for (int step = 0; step < 50; ++step) {
    player->update(1 / 60.f);
    EXPECT_NEAR(player->clip_time(1) / 1.2, player->clip_time(0) / 1.0, 1e-5) << "step " << step;
  }
}

// Notifies come from the leader (default threshold 1), never from the other clips; a clip that loses the
// lead ends its open states.
TEST(BlendSpacePlayer, NotifiesFireFromTheLeaderAndEndItsStatesWhenItLosesTheLead) {
  Locomotion l;
  std::vector<ClipTiming> timings;
  for (const Clip& c : l.asset.clips) timings.push_back({c.name(), c.duration()});
  auto notifies = parse_notifies(R"({"clips": {
      "Walk": [{"name": "Step", "time": 0.25}, {"name": "Hold", "time": 0.0, "duration": 0.9}],
      "Idle": [{"name": "Breathe", "ratio": 0.25}]}})",
                                 "n.json", timings);
  ASSERT_TRUE(notifies) << notifies.error();
  auto player = BlendSpacePlayer::create(l.asset, l.space, l.clips, &*notifies);
  ASSERT_TRUE(player);
  player->set_parameter(1.f);  // walk 2/3 leads
  bool step_fired = false, hold_began = false;
  for (int i = 0; i < 60; ++i) {
    player->update(1 / 60.f);
    for (const AnimEvent& e : player->events()) {
      ASSERT_EQ(e.clip, l.walk) << "a follower's event: " << (e.name ? *e.name : "loop");
      step_fired |= e.name && *e.name == "Step";
      hold_began |= e.name && *e.name == "Hold" && e.type == EventType::kBegin;
    }
  }
  EXPECT_TRUE(step_fired);
  EXPECT_TRUE(hold_began);
  // Find a moment inside Hold, then hand the lead to idle: Hold ends on that update.
  while (player->clip_time(1) > 0.5f) player->update(1 / 60.f);
  player->set_parameter(0.2f);
  player->update(1 / 60.f);
  bool hold_ended = false;
  for (const AnimEvent& e : player->events())
    hold_ended |= e.clip == l.walk && e.name && *e.name == "Hold" && e.type == EventType::kEnd;
  EXPECT_TRUE(hold_ended);
}

// Root motion: hand-made tracks at constant velocity. Walk 1.0 s at 1.5 m/s along z; the run (1.2 s) at
// 4 m/s along z and 1 m/s along x; idle still. At walk 0.5 / run 0.5, L_blend = 1.1 s: per 0.1 s update the
// walk sweeps 0.1 / 1.1 s and the run 0.12 / 1.1 s, so the root moves 0.5 x (1.5 x 0.1 + 4 x 0.12) / 1.1 m
// along z and 0.5 x 0.12 / 1.1 m along x, across wraps too.
TEST(BlendSpacePlayer, RootMotionIsTheWeightedSumOfTheClipsDeltas) {
  Locomotion l;
  std::vector<RootMotionTrack> tracks(l.asset.clips.size());
  auto constant_velocity = [](float duration, float vx, float vz) {
    RootMotionTrack t;
    t.joint = 0;
    t.frame_rate = 10;
    t.duration = duration;
    const int frames = static_cast<int>(std::lround(duration * 10)) + 1;
    for (int f = 0; f < frames; ++f) t.frames.push_back({vx * f / 10.f, vz * f / 10.f, 0});
    return t;
  };
  tracks[l.idle] = constant_velocity(2.0f, 0, 0);
  tracks[l.walk] = constant_velocity(1.0f, 0, 1.5f);
  tracks[l.run] = constant_velocity(1.2f, 1, 4);
  auto player = BlendSpacePlayer::create(l.asset, l.space, l.clips, nullptr, tracks);
  ASSERT_TRUE(player) << player.error();
  player->set_parameter(2.75f);
  for (int step = 0; step < 30; ++step) {  // 3 s: the run wraps twice
    player->update(0.1f);
    EXPECT_NEAR(player->root_delta().z, 0.5f * (1.5f * 0.1f + 4 * 0.12f) / 1.1f, 1e-5f) << "step " << step;
    EXPECT_NEAR(player->root_delta().x, 0.5f * 0.12f / 1.1f, 1e-5f) << "step " << step;
    EXPECT_NEAR(player->root_delta().yaw, 0.f, 1e-6f);
  }
}

TEST(BlendSpacePlayer, RefusesMismatchedClipsAndIgnoresNonFiniteInput) {
  Locomotion l;
  const int two[] = {l.idle, l.walk};
  EXPECT_FALSE(BlendSpacePlayer::create(l.asset, l.space, two));
  const int bad[] = {l.idle, l.walk, 99};
  auto refused = BlendSpacePlayer::create(l.asset, l.space, bad);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("sample 2"), std::string::npos) << refused.error();
  auto player = BlendSpacePlayer::create(l.asset, l.space, l.clips);
  ASSERT_TRUE(player);
  ASSERT_TRUE(player->set_parameter(1.5f));
  EXPECT_FALSE(player->set_parameter(std::numeric_limits<float>::quiet_NaN()));
  player->update(std::numeric_limits<float>::quiet_NaN());
  player->update(std::numeric_limits<float>::infinity());
  EXPECT_EQ(player->weights()[1], 1.f);  // the parameter stayed at walk
  EXPECT_EQ(player->clip_time(1), 0.f);  // non-finite steps count as 0
  for (const JointPose& p : player->locals())
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(std::isfinite(p.rotation[i]));
}

}  // namespace
}  // namespace ossa
