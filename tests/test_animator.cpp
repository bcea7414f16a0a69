// The Animator on hand-made clips whose blended poses can be computed by hand: crossfade, time-synced
// crossfade, masked override layer, additive layer, root motion across wraps and in reverse, notify
// threshold; inertialized clip switches on the synthetic character.
#include <gtest/gtest.h>

#include "expect_near.h"

#include <cmath>
#include <filesystem>
#include <random>

#include "ossa/offline/clip_builder.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/animator.h"
#include "synthetic_character.h"

#ifdef OSSA_HAS_IMPORT  // the one test on the bundled sample (the runtime-only builds have no importer)
#include "oracle_compare.h"
#include "ossa/import/import.h"
#endif

namespace ossa {
namespace {
constexpr float kPi = 3.14159265358979f;

using test::expect_near;

JointPose pose(Vec3 t, Quat r = {}) {
  Transform tr;
  tr.translation = t;
  tr.rotation = r;
  return to_joint_pose(tr);
}

// root -> spine -> arm, each 1 m above its parent at rest.
CharacterAsset make_character() {
  RawSkeleton raw;
  raw.joints.resize(3);
  const char* names[] = {"root", "spine", "arm"};
  for (int j = 0; j < 3; ++j) {
    raw.joints[j].name = names[j];
    raw.joints[j].parent = j - 1;
    raw.joints[j].rest.translation = j == 0 ? Vec3{} : Vec3{0, 1, 0};
  }
  return CharacterAsset{std::move(Skeleton::build(raw)).value(), {}, {}};
}

// A clip of `frames` frames at 10 fps whose joint poses come from f(frame, joint).
template <class F>
Clip make_clip(const char* name, int frames, F&& f) {
  std::vector<JointPose> data;
  for (int i = 0; i < frames; ++i)
    for (int j = 0; j < 3; ++j) data.push_back(f(i, j));
  return std::move(Clip::from_frames(name, (frames - 1) / 10.f, 10.f, 3, std::move(data))).value();
}

TEST(Animator, CrossfadeBlendsLinearlyOverItsDuration) {
  CharacterAsset c = make_character();
  c.clips.push_back(make_clip("A", 11, [](int, int j) {
    return pose(j == 2 ? Vec3{1, 0, 0} : Vec3{0, 1, 0});
  }));
  c.clips.push_back(make_clip("B", 11, [](int, int j) {
    return pose(j == 2 ? Vec3{0, 0, 1} : Vec3{0, 1, 0});
  }));
  Animator a(c);
  EXPECT_TRUE(a.play(0));
  a.update(0.1f);
  EXPECT_TRUE(a.crossfade(1, 0.4f));
  a.update(0.1f);  // weight of B: 0.25
  const float* t = a.locals()[2].translation;
  EXPECT_NEAR(t[0], 0.75f, 1e-6f);
  EXPECT_NEAR(t[2], 0.25f, 1e-6f);
  expect_near(a.model()[2].translation(), {0.75f, 2, 0.25f});  // root at 1 m, spine at 2 m
  a.update(0.3f);                                              // fade complete
  expect_near(a.model()[2].translation(), {0, 2, 1});
  EXPECT_EQ(a.clip(), 1);
}

TEST(Animator, SyncedCrossfadeKeepsBothClipsInPhase) {
  CharacterAsset c = make_character();
  c.clips.push_back(make_clip("Walk", 11, [](int, int) { return pose({0, 1, 0}); }));  // 1 s
  c.clips.push_back(make_clip("Run", 6, [](int, int) { return pose({0, 1, 0}); }));    // 0.5 s
  Animator a(c);
  EXPECT_TRUE(a.play(0, LoopMode::kRepeat, 0, 0.4f));
  EXPECT_TRUE(a.crossfade(1, 1.0f, FadeSync::kPhase));
  EXPECT_NEAR(a.time(), 0.2f, 1e-6f);  // Run starts at Walk's ratio (0.4)
  for (int i = 0; i < 3; ++i) a.update(0.1f);
  // Both move by 0.1 s of a cycle whose length blends from 1 s to 0.5 s with Run's weight (0.1, 0.2, 0.3):
  // the ratio grows by 0.1/0.95 + 0.1/0.9 + 0.1/0.85.
  double ratio = 0.4 + 0.1 / 0.95 + 0.1 / 0.9 + 0.1 / 0.85;
  EXPECT_NEAR(a.time(), ratio * 0.5, 1e-5);
}

TEST(Animator, MaskedLayerOverridesOnlyItsJoints) {
  CharacterAsset c = make_character();
  const Quat turn = quat_from_axis_angle({0, 0, 1}, kPi / 2);
  c.clips.push_back(make_clip("Base", 11, [](int, int j) { return pose(j == 0 ? Vec3{} : Vec3{0, 1, 0}); }));
  c.clips.push_back(make_clip("Wave", 11, [&](int, int j) {
    return pose(j == 0 ? Vec3{} : Vec3{0, 1, 0}, turn);
  }));
  std::vector<float> arm_only = {0, 0, 1};
  Animator a(c);
  EXPECT_TRUE(a.play(0));
  int layer = a.add_layer(1, 1.f, arm_only);
  ASSERT_GE(layer, 0);
  a.update(0.1f);
  // root and spine from Base; arm turned 90 deg about z: its child offset would point along -x.
  expect_near(a.model()[1].translation(), {0, 1, 0});
  expect_near(transform_vector(a.model()[2], {0, 1, 0}), {-1, 0, 0});
  a.set_layer_weight(layer, 0.5f);
  a.update(0.1f);  // halfway: 45 deg
  expect_near(transform_vector(a.model()[2], {0, 1, 0}), {-std::sin(kPi / 4), std::cos(kPi / 4), 0});
}

TEST(Animator, AdditiveLayerAddsItsDeltaFromTheReference) {
  CharacterAsset c = make_character();
  // Source of the additive: frame 0 is the reference; it turns the spine 0 -> 90 deg about x over 1 s.
  Clip nod = make_clip("Nod", 11, [](int f, int j) {
    Quat q = j == 1 ? quat_from_axis_angle({1, 0, 0}, kPi / 2 * f / 10.f) : Quat{};
    return pose(j == 0 ? Vec3{} : Vec3{0, 1, 0}, q);
  });
  std::vector<JointPose> reference(nod.frames().begin(), nod.frames().begin() + 3);
  c.clips.push_back(make_clip("Base", 11, [](int, int j) {
    return pose(j == 0 ? Vec3{2, 0, 0} : Vec3{0, 1, 0},
                j == 1 ? quat_from_axis_angle({0, 1, 0}, kPi / 2) : Quat{});
  }));
  c.clips.push_back(std::move(make_additive_clip(nod, reference)).value());
  Animator a(c);
  EXPECT_TRUE(a.play(0));
  a.add_layer(1, 1.f, {}, /*additive=*/true, LoopMode::kOnce);
  a.update(1.0f);  // additive at its end: +90 deg about the spine's local x
  // spine rotation = base (90 about y) * delta (90 about x): maps local +y to ...
  Quat expected = quat_from_axis_angle({0, 1, 0}, kPi / 2) * quat_from_axis_angle({1, 0, 0}, kPi / 2);
  Vec3 arm_offset = rotate(expected, {0, 1, 0});
  expect_near(a.model()[2].translation(), Vec3{2, 1, 0} + arm_offset);
  expect_near(a.model()[0].translation(), {2, 0, 0});  // translation deltas are zero: base kept
}

TEST(Animator, NotifiesFireOnlyWhileTheClipWeighsEnough) {
  CharacterAsset c = make_character();
  c.clips.push_back(make_clip("A", 11, [](int, int) { return pose({0, 1, 0}); }));
  c.clips.push_back(make_clip("B", 11, [](int, int) { return pose({0, 1, 0}); }));
  auto set = parse_notifies(
      R"({"clips": {"A": [{"name": "TickA", "ratio": 0.9}, {"name": "HoldA", "time": 0.0, "duration": 1.0}],
                                          "B": [{"name": "TickB", "time": 0.05}]}})",
      "test.notifies.json", {{"A", 1.f}, {"B", 1.f}});
  ASSERT_TRUE(set) << set.error();
  Animator a(c, &*set);
  a.notify_blend_in_threshold = a.notify_weight_threshold;  // one rule for both clips of a fade
  std::vector<std::string> fired;
  EXPECT_TRUE(a.on("TickA", [&](const AnimEvent& e) { fired.push_back("TickA@" + std::to_string(e.time)); }));
  EXPECT_FALSE(a.on("Nope", [](const AnimEvent&) {}));
  EXPECT_TRUE(a.play(0));
  a.update(0.1f);
  ASSERT_EQ(a.events().size(), 1u);
  EXPECT_EQ(*a.events()[0].name, "HoldA");
  EXPECT_EQ(a.events()[0].type, EventType::kBegin);
  EXPECT_TRUE(a.crossfade(1, 0.4f));
  a.update(0.1f);  // A weighs 0.75: still counts; B (0.25) does not, so TickB at 0.05 is not reported
  for (const AnimEvent& e : a.events()) EXPECT_NE(*e.name, "TickB");
  a.update(0.2f);  // A weighs 0.25: its open state ends now, and TickA (0.9) later would not fire
  bool hold_ended = false;
  for (const AnimEvent& e : a.events()) hold_ended |= *e.name == "HoldA" && e.type == EventType::kEnd;
  EXPECT_TRUE(hold_ended);
  a.dispatch();
  EXPECT_TRUE(fired.empty());
}

// Crossfades (issue 11, point 11): notifies of the clip being blended in fire by their own threshold,
// notify_blend_in_threshold, whose default lets a start notify (t = 0) fire during the fade. The clip being
// blended out keeps notify_weight_threshold (0.5).
TEST(Animator, StartNotifyOfTheIncomingClipFiresDuringACrossfade) {
  CharacterAsset c = make_character();
  c.clips.push_back(make_clip("Idle", 11, [](int, int) { return pose({0, 1, 0}); }));
  c.clips.push_back(make_clip("Wave", 11, [](int, int) { return pose({0, 1, 0}); }));
  auto set = parse_notifies(R"({"clips": {"Wave": [{"name": "WaveStart", "ratio": 0.0}]}})",
                            "test.notifies.json", {{"Idle", 1.f}, {"Wave", 1.f}});
  ASSERT_TRUE(set) << set.error();
  Animator a(c, &*set);
  int fired = 0;
  ASSERT_TRUE(a.on("WaveStart", [&](const AnimEvent& e) { fired += e.clip == 1 && e.time == 0.f; }));
  EXPECT_TRUE(a.play(0));
  a.update(0.1f);
  EXPECT_TRUE(a.crossfade(1, 0.3f));
  for (int i = 0; i < 10; ++i) {
    a.update(1 / 60.f);
    a.dispatch();
  }
  EXPECT_EQ(fired, 1);
}

// Root motion at a heading other than zero, against hand-computed values: a right-handed turn of +90 deg
// about +Y takes a step along +X to -Z, and one along +Z to +X. A clip that starts facing +X (yaw 90 deg) and
// walks 2 m along world +X while turning on to 180 deg must stay in place exactly (root x and z at frame
// 0's), travel 2 m forward in its own start frame, and turn 90 deg.
TEST(Animator, RootMotionAtNonZeroYawFollowsTheRightHandRule) {
  const RootDelta facing_x{0, 0, kPi / 2};
  const RootDelta right = facing_x.then({1, 0, 0}), ahead = facing_x.then({0, 1, 0});
  EXPECT_NEAR(right.x, 0.f, 1e-6f);
  EXPECT_NEAR(right.z, -1.f, 1e-6f);
  EXPECT_NEAR(ahead.x, 1.f, 1e-6f);
  EXPECT_NEAR(ahead.z, 0.f, 1e-6f);
  EXPECT_NEAR(ahead.yaw, kPi / 2, 1e-6f);

  CharacterAsset c = make_character();
  Clip walk = make_clip("WalkEast", 11, [](int f, int j) {
    if (j != 0) return pose({0, 1, 0});
    const float s = f / 10.f;
    return pose({2 * s, 0, 0}, quat_from_axis_angle({0, 1, 0}, kPi / 2 * (1 + s)));
  });
  auto in_place = extract_root_motion(walk, c.skeleton, 0);
  ASSERT_TRUE(in_place) << in_place.error();
  for (int f = 0; f < in_place->clip.frame_count(); ++f) {
    const JointPose& root = in_place->clip.frames()[f * 3];
    EXPECT_NEAR(root.translation[0], 0.f, 1e-5f) << "frame " << f << ": the in-place root drifts";
    EXPECT_NEAR(root.translation[2], 0.f, 1e-5f) << "frame " << f << ": the in-place root drifts";
  }
  // Deltas are in the model's axes at the clip's start (root_motion.h): 2 m along +X, a quarter turn.
  const RootDelta total = in_place->track.total();
  EXPECT_NEAR(total.x, 2.f, 1e-5f);
  EXPECT_NEAR(total.z, 0.f, 1e-5f);
  EXPECT_NEAR(total.yaw, kPi / 2, 1e-5f);
}

// Notify times in a 2 s clip (hand values): a ratio is a fraction of the clip's duration; a state must end
// within the clip, wherever it starts.
TEST(Notifies, RatiosScaleWithTheClipAndStatesEndInsideIt) {
  const std::vector<ClipTiming> clips = {{"Long", 2.f}};
  auto set = parse_notifies(R"({"clips": {"Long": [{"name": "Quarter", "ratio": 0.25},
                                                   {"name": "Hold", "time": 1.5, "duration": 0.5}]}})",
                            "long.json", clips);
  ASSERT_TRUE(set) << set.error();
  ASSERT_EQ(set->clips[0].instants.size(), 1u);
  EXPECT_FLOAT_EQ(set->clips[0].instants[0].time, 0.5f);
  ASSERT_EQ(set->clips[0].states.size(), 1u);
  EXPECT_FLOAT_EQ(set->clips[0].states[0].time, 1.5f);
  auto late = parse_notifies(R"({"clips": {"Long": [{"name": "Hold", "time": 1.5, "duration": 0.75}]}})",
                             "late.json", clips);
  ASSERT_FALSE(late);
  EXPECT_NE(late.error().find("after the clip's end"), std::string::npos) << late.error();
}

// During a crossfade the root moves by the two clips' deltas weighted like their poses (hand values): a clip
// walking 1 m/s along +z fades over 1 s into one walking 2 m/s along +x; the update that ends 0.3 s into
// the fade (incoming weight 0.3) moves 0.7 * 0.1 m along z and 0.3 * 0.2 m along x.
TEST(Animator, RootMotionDuringACrossfadeIsWeightedLikeThePoses) {
  CharacterAsset c = make_character();
  std::vector<RootMotionTrack> tracks;
  for (Vec3 velocity : {Vec3{0, 0, 1}, Vec3{2, 0, 0}}) {
    auto in_place =
        extract_root_motion(make_clip("Walk", 21,
                                      [&](int f, int j) {
                                        return j == 0 ? pose(velocity * (f / 10.f)) : pose({0, 1, 0});
                                      }),
                            c.skeleton, 0);
    ASSERT_TRUE(in_place) << in_place.error();
    c.clips.push_back(std::move(in_place->clip));
    tracks.push_back(in_place->track);
  }
  Animator a(c, nullptr, tracks);
  EXPECT_TRUE(a.play(0));
  a.update(0.5f);
  ASSERT_TRUE(a.crossfade(1, 1.f));
  a.update(0.2f);
  a.update(0.1f);  // the fade is now 0.3 s old
  EXPECT_NEAR(a.root_delta().z, 0.7f * 0.1f, 1e-5f);
  EXPECT_NEAR(a.root_delta().x, 0.3f * 0.2f, 1e-5f);
}

// A root track of a clip whose last interval is short (1.05 s at 10 fps: frames at 0, 0.1, ..., 1.0, 1.05)
// interpolates that interval over its own length. Truth: the root walks 1 m/s along +x, so x = t.
TEST(Animator, RootMotionTrackInterpolatesTheShortLastInterval) {
  CharacterAsset c = make_character();
  std::vector<JointPose> data;
  for (int f = 0; f < 12; ++f)
    for (int j = 0; j < 3; ++j)
      data.push_back(pose(j == 0 ? Vec3{f < 11 ? f / 10.f : 1.05f, 0, 0} : Vec3{0, 1, 0}));
  auto walk = Clip::from_frames("Walk", 1.05f, 10.f, 3, std::move(data));
  ASSERT_TRUE(walk) << walk.error();
  auto in_place = extract_root_motion(*walk, c.skeleton, 0);
  ASSERT_TRUE(in_place) << in_place.error();
  for (float t : {0.95f, 1.0f, 1.01f, 1.025f, 1.04f, 1.05f})
    EXPECT_NEAR(in_place->track.at(t).x, t, 1e-5f) << "at " << t;
}

// A root that turns three quarters of a turn (past +-180 deg, where atan2 wraps), either way, accumulates
// its heading: the track turns +-270 deg at constant speed, not -+90.
TEST(Animator, RootMotionHeadingAccumulatesPastHalfATurn) {
  CharacterAsset c = make_character();
  for (float direction : {1.f, -1.f}) {
    SCOPED_TRACE(direction > 0 ? "turning left" : "turning right");
    Clip spin = make_clip("Spin", 11, [&](int f, int j) {
      return j == 0 ? pose({}, quat_from_axis_angle({0, 1, 0}, direction * 1.5f * kPi * f / 10.f))
                    : pose({0, 1, 0});
    });
    auto in_place = extract_root_motion(spin, c.skeleton, 0);
    ASSERT_TRUE(in_place) << in_place.error();
    for (float t : {0.25f, 0.5f, 0.75f, 1.f})
      EXPECT_NEAR(in_place->track.at(t).yaw, direction * 1.5f * kPi * t, 1e-4f) << "at " << t;
    EXPECT_NEAR(in_place->track.total().yaw, direction * 1.5f * kPi, 1e-4f);
  }
}

// Root motion: a clip that walks 2 m along +z while turning 90 deg, played in place; deltas summed over
// updates equal the clip's displacement, across wraps and in reverse.
TEST(Animator, RootMotionDeltasAddUpToTheClipDisplacement) {
  CharacterAsset c = make_character();
  Clip walk = make_clip("Walk", 11, [](int f, int j) {
    if (j != 0) return pose({0, 1, 0});
    float s = f / 10.f;
    return pose({0, 0, 2 * s}, quat_from_axis_angle({0, 1, 0}, kPi / 2 * s));
  });
  auto in_place = extract_root_motion(walk, c.skeleton, 0);
  ASSERT_TRUE(in_place) << in_place.error();
  const RootMotionTrack& track = in_place->track;
  RootDelta total = track.total();
  EXPECT_NEAR(total.z, 2.f, 1e-5f);
  EXPECT_NEAR(total.x, 0.f, 1e-5f);
  EXPECT_NEAR(total.yaw, kPi / 2, 1e-5f);
  c.clips.push_back(std::move(in_place->clip));
  // The in-place clip keeps the root where it starts.
  for (int f = 0; f < c.clips[0].frame_count(); ++f) {
    const JointPose& root = c.clips[0].frames()[f * 3];
    EXPECT_NEAR(root.translation[2], 0.f, 1e-5f);
    EXPECT_NEAR(std::fabs(root.rotation[3]), 1.f, 1e-5f);
  }
  std::vector<RootMotionTrack> tracks = {track};
  Animator a(c, nullptr, tracks);
  EXPECT_TRUE(a.play(0));
  std::mt19937 rng(5);
  RootDelta sum;
  float travelled = 0;
  while (travelled < 2.5f - 1e-4f) {  // two and a half loops in uneven steps
    float dt = std::min(std::uniform_real_distribution<float>(0.01f, 0.3f)(rng), 2.5f - travelled);
    a.update(dt);
    sum = sum.then(a.root_delta());
    travelled += dt;
  }
  RootDelta expected = total.then(total).then(track.delta(0, 0.5f));
  EXPECT_NEAR(sum.x, expected.x, 1e-4f);
  EXPECT_NEAR(sum.z, expected.z, 1e-4f);
  EXPECT_NEAR(sum.yaw, expected.yaw, 1e-4f);
  // Backwards over one loop: exactly undoes one loop's motion.
  EXPECT_TRUE(a.play(0, LoopMode::kRepeat, 0, 0.5f));
  a.set_speed(-1);
  RootDelta back;
  for (int i = 0; i < 10; ++i) {
    a.update(0.1f);
    back = back.then(a.root_delta());
  }
  // 0.5 -> 0, the wrap (no motion: clip time jumps from 0 to its end), then 1 -> 0.5.
  RootDelta loop_back = track.delta(0.5f, 0).then(track.delta(1.f, 0.5f));
  EXPECT_NEAR(back.x, loop_back.x, 1e-4f);
  EXPECT_NEAR(back.z, loop_back.z, 1e-4f);
  EXPECT_NEAR(back.yaw, -kPi / 2, 1e-4f);
  // Forward one loop then back one loop retraces the path: no net motion.
  EXPECT_TRUE(a.play(0, LoopMode::kRepeat, 0, 0.3f));
  a.set_speed(1);
  RootDelta there_and_back;
  for (int i = 0; i < 13; ++i) a.update(0.1f), there_and_back = there_and_back.then(a.root_delta());
  a.set_speed(-1);
  for (int i = 0; i < 13; ++i) a.update(0.1f), there_and_back = there_and_back.then(a.root_delta());
  EXPECT_NEAR(there_and_back.x, 0.f, 1e-4f);
  EXPECT_NEAR(there_and_back.z, 0.f, 1e-4f);
  EXPECT_NEAR(there_and_back.yaw, 0.f, 1e-4f);
}

// ---- Inertialized switches (inertialize()), on the synthetic character (33 joints, about 2 units tall) ----

// Largest distance between the joints' model-space positions of two poses, in model units.
float max_distance(std::span<const Mat4> a, std::span<const Mat4> b) {
  float worst = 0;
  for (size_t j = 0; j < a.size(); ++j)
    worst = std::max(worst, length(a[j].translation() - b[j].translation()));
  return worst;
}

// The synthetic character with two smooth looping clips instead of its own (keyed at 30 fps and interpolated
// linearly, their velocity jumps at every key, which no transition can make continuous): every joint turns
// and moves sinusoidally, "Walk" over 1 s and "Wave" over 1.5 s, keyed at 1,200 fps.
CharacterAsset smooth_character() {
  CharacterAsset c = test::synthetic_character();
  c.clips.clear();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  const auto rest = c.skeleton.rest_pose();
  const int n = c.skeleton.joint_count();
  for (const auto& [name, duration] : {std::pair{"Walk", 1.f}, std::pair{"Wave", 1.5f}}) {
    constexpr float kRate = 1200;
    const int frames = static_cast<int>(std::lround(duration * kRate)) + 1;
    std::vector<JointPose> data(static_cast<size_t>(frames) * n);
    for (int j = 0; j < n; ++j) {
      const Vec3 axis = normalize(Vec3{unit(rng), unit(rng), unit(rng)});
      const float amplitude = 0.3f + 0.5f * std::fabs(unit(rng)), phase = kPi * unit(rng);
      const Vec3 offset{0.05f * unit(rng), 0.05f * unit(rng), 0.05f * unit(rng)};
      for (int f = 0; f < frames; ++f) {
        const float s = std::sin(2 * kPi * static_cast<float>(f) / (frames - 1) + phase);
        JointPose& p = data[static_cast<size_t>(f) * n + j];
        p = rest[j];
        const Quat r = Quat{p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]} *
                       quat_from_axis_angle(axis, amplitude * s);
        p.rotation[0] = r.x, p.rotation[1] = r.y, p.rotation[2] = r.z, p.rotation[3] = r.w;
        for (int k = 0; k < 3; ++k)
          p.translation[k] += (k == 0 ? offset.x : k == 1 ? offset.y : offset.z) * s;
      }
    }
    c.clips.push_back(std::move(Clip::from_frames(name, duration, kRate, n, std::move(data))).value());
  }
  return c;
}

// Walk for 0.5 s, then switch to Wave (unrelated motions: play() jumps by about a unit). The first
// inertialized pose's distance from the last two poses extrapolated falls with the square of the frame time
// (pose and velocity continuous; a velocity jump would make it fall linearly): measured 0.017 units at 60 Hz
// and 1.7e-4 at 600 Hz, asserted under 0.03 and 5e-4 units and over 50 times smaller at 600 Hz. play() lands
// over half a unit away at either rate.
TEST(Animator, InertializeContinuesTheShownPoseWherePlayJumps) {
  const CharacterAsset c = smooth_character();
  const int walk = c.find_clip("Walk"), wave = c.find_clip("Wave");
  ASSERT_GE(walk, 0);
  ASSERT_GE(wave, 0);
  auto at = [&](int hz, float& inert_error, float& plain_jump) {
    const float dt = 1.f / static_cast<float>(hz);
    Animator inert(c), plain(c);
    ASSERT_TRUE(inert.play(walk));
    ASSERT_TRUE(plain.play(walk));
    std::vector<Mat4> before, last;
    for (int f = 0; f < hz / 2; ++f) {
      inert.update(dt), plain.update(dt);
      before = last;
      last.assign(inert.model().begin(), inert.model().end());
    }
    ASSERT_TRUE(inert.inertialize(wave, 0.3f));
    ASSERT_TRUE(plain.play(wave));
    EXPECT_EQ(inert.clip(), wave) << "the base clip switches at once";
    inert.update(dt), plain.update(dt);
    std::vector<Mat4> extrapolated(last);
    for (size_t j = 0; j < last.size(); ++j) {
      const Vec3 p = last[j].translation() * 2.f - before[j].translation();
      extrapolated[j].m[12] = p.x, extrapolated[j].m[13] = p.y, extrapolated[j].m[14] = p.z;
    }
    inert_error = max_distance(inert.model(), extrapolated);
    plain_jump = max_distance(plain.model(), extrapolated);
    std::printf("switch at %d Hz: play() lands %.4f units from the extrapolated pose, inertialize() %.6f\n",
                hz, plain_jump, inert_error);
  };
  float error60 = 0, jump60 = 0, error600 = 0, jump600 = 0;
  at(60, error60, jump60);
  at(600, error600, jump600);
  EXPECT_LT(error60, 0.03f);
  EXPECT_LT(error600, 5e-4f);
  EXPECT_GT(error60, 50 * error600);
  EXPECT_GT(jump60, 0.5f);
  EXPECT_GT(jump600, 0.5f);
}

// From the duration on, the output is the new clip played plainly from the same moment: bit for bit.
TEST(Animator, InertializeEndsOnThePlainClipExactly) {
  const CharacterAsset c = test::synthetic_character();
  const int walk = c.find_clip("Walk"), wave = c.find_clip("Wave");
  for (LoopMode mode : {LoopMode::kRepeat, LoopMode::kOnce}) {
    Animator inert(c), plain(c);
    ASSERT_TRUE(inert.play(walk));
    ASSERT_TRUE(plain.play(walk));
    for (int f = 0; f < 20; ++f) inert.update(1 / 50.f), plain.update(1 / 50.f);
    ASSERT_TRUE(inert.inertialize(wave, 0.25f, mode));
    ASSERT_TRUE(plain.play(wave, mode));
    float during = 0;
    for (int f = 0; f < 30; ++f) {
      inert.update(1 / 50.f), plain.update(1 / 50.f);
      const float d = max_distance(inert.model(), plain.model());
      if (f < 12) during = std::max(during, d);  // elapsed under 0.25 s: the offset shows
      if (f < 12) continue;                      // elapsed 0.26 s and on: none
      for (size_t j = 0; j < plain.locals().size(); ++j)
        for (int k = 0; k < 4; ++k) ASSERT_EQ(inert.locals()[j].rotation[k], plain.locals()[j].rotation[k]);
      ASSERT_EQ(d, 0.f) << "frame " << f;
    }
    EXPECT_GT(during, 1e-3f) << "the transition did show an offset";
  }
}

// An invalid clip is refused and changes nothing; a play() or crossfade() alone never inertializes (the
// output is bit for bit the one without any inertialize() call), and play() ends an inertialization.
TEST(Animator, InertializeRefusesInvalidClipsAndPlayEndsIt) {
  const CharacterAsset c = test::synthetic_character();
  const int walk = c.find_clip("Walk"), wave = c.find_clip("Wave"), idle = c.find_clip("Idle");
  Animator a(c), b(c);
  ASSERT_TRUE(a.play(walk));
  ASSERT_TRUE(b.play(walk));
  for (int f = 0; f < 10; ++f) a.update(0.02f), b.update(0.02f);
  EXPECT_FALSE(a.inertialize(-1, 0.2f));
  EXPECT_FALSE(a.inertialize(static_cast<int>(c.clips.size()), 0.2f));
  EXPECT_EQ(a.clip(), walk);
  auto same = [&] {
    a.update(0.02f), b.update(0.02f);
    for (size_t j = 0; j < a.model().size(); ++j)
      for (int k = 0; k < 16; ++k) ASSERT_EQ(a.model()[j].m[k], b.model()[j].m[k]);
  };
  same();
  ASSERT_TRUE(a.crossfade(idle, 0.1f));
  ASSERT_TRUE(b.crossfade(idle, 0.1f));
  for (int f = 0; f < 8; ++f) same();
  ASSERT_TRUE(a.inertialize(wave, 0.5f));
  a.update(0.02f);
  ASSERT_TRUE(a.play(walk));  // mid-transition: the clip as it is
  ASSERT_TRUE(b.play(walk));
  for (int f = 0; f < 3; ++f) same();
}

#ifdef OSSA_HAS_IMPORT
// The bundled sample's Turn clip turns its root 360 degrees: root motion sees exactly one full turn.
TEST(Animator, SampleTurnIsOneFullTurnOfRootMotion) {
  auto scene = import_file(test::source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(scene);
  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset);
  int turn = asset->find_clip("Armature|Turn");
  ASSERT_GE(turn, 0);
  auto in_place = extract_root_motion(asset->clips[turn], asset->skeleton);
  ASSERT_TRUE(in_place) << in_place.error();
  EXPECT_EQ(asset->skeleton.name(in_place->track.joint), "root");
  EXPECT_NEAR(std::fabs(in_place->track.total().yaw), 2 * kPi, 0.02f);
}
#endif  // OSSA_HAS_IMPORT

}  // namespace
}  // namespace ossa
