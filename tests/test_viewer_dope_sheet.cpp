// The viewer's dope sheet and curve view (src/viewer/dope_sheet.h) against the clips' own data: a keyed
// clip's stored keys, frames written by hand for a fixed-rate clip, its compressed twin decoded frame by
// frame, the morph character's weight track, and Euler angles composed back into the quaternion they came
// from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "ossa/core/math.h"
#include "ossa/offline/compression.h"
#include "ossa/runtime/sample_job.h"
#include "synthetic_character.h"
#include "viewer/dope_sheet.h"

namespace ossa::viewer {
namespace {

constexpr int kJoints = 4;

CharacterAsset with_clip(Clip clip) {
  CharacterAsset asset = test::synthetic_character(kJoints);
  asset.clips = {std::move(clip)};
  return asset;
}

JointPose rest() {
  return JointPose{};
}

// 10 frames at 10 fps: joint 1's rotation turns between frames 2 and 3 and again from 6 to 7; joint 2's
// translation moves on every frame; joints 0 and 3 hold still (3's scale within float noise).
Clip hand_made_frames() {
  std::vector<JointPose> frames(10 * kJoints, rest());
  for (int f = 0; f < 10; ++f) {
    const float angle = f < 3 ? 0.f : f < 7 ? 0.5f : 1.f;
    const Quat q = quat_from_axis_angle({1, 0, 0}, angle);
    JointPose& j1 = frames[f * kJoints + 1];
    j1.rotation[0] = q.x, j1.rotation[1] = q.y, j1.rotation[2] = q.z, j1.rotation[3] = q.w;
    frames[f * kJoints + 2].translation[1] = 0.1f * static_cast<float>(f);
    frames[f * kJoints + 3].scale[0] = 1 + (f % 2 ? 3e-7f : 0.f);  // a float export's noise: no keys
  }
  auto clip = Clip::from_frames("Frames", 0.9f, 10, kJoints, frames);
  EXPECT_TRUE(clip.ok()) << clip.error();
  return std::move(clip).value();
}

TEST(ViewerDopeSheet, FrameClipsShowTheFramesThatBoundEachChange) {
  const CharacterAsset asset = with_clip(hand_made_frames());
  const DopeSheet sheet = make_dope_sheet(asset, 0);
  ASSERT_EQ(sheet.rows.size(), 2u);  // only the joints that move
  EXPECT_EQ(sheet.rows[0].joint, 1);
  EXPECT_EQ(sheet.rows[0].name, asset.skeleton.name(1));
  EXPECT_TRUE(sheet.rows[0].keys[0].empty());
  EXPECT_EQ(sheet.rows[0].keys[1], (std::vector<float>{0.2f, 0.3f, 0.6f, 0.7f}));
  EXPECT_TRUE(sheet.rows[0].keys[2].empty());
  EXPECT_EQ(sheet.rows[1].joint, 2);
  EXPECT_EQ(sheet.rows[1].keys[0].size(), 10u);  // every frame
  EXPECT_FLOAT_EQ(sheet.rows[1].keys[0].back(), 0.9f);
  EXPECT_EQ(sheet.key_count(), 14u);
  EXPECT_TRUE(make_dope_sheet(asset, 1).rows.empty());
  EXPECT_TRUE(make_dope_sheet(asset, -1).rows.empty());
}

TEST(ViewerDopeSheet, CompressedClipsShowTheKeysTheirDecodedFramesHave) {
  CharacterAsset asset = with_clip(hand_made_frames());
  auto compressed = compress_clip(asset.clips[0], asset.skeleton, {});
  ASSERT_TRUE(compressed.ok()) << compressed.error();
  // The truth: the same rule applied to the frames the compressed clip decodes to.
  std::vector<std::vector<JointPose>> decoded(10, std::vector<JointPose>(kJoints));
  for (int f = 0; f < 10; ++f) compressed->decode_frame(f, decoded[f].data());
  asset.clips[0] = std::move(compressed).value();
  const DopeSheet sheet = make_dope_sheet(asset, 0);
  size_t expected = 0;
  for (int j = 0; j < kJoints; ++j)
    for (int c = 0; c < 3; ++c) {
      std::vector<float> keys;
      for (int f = 1; f < 10; ++f) {
        const float* a = c == 0   ? decoded[f - 1][j].translation
                         : c == 1 ? decoded[f - 1][j].rotation
                                  : decoded[f - 1][j].scale;
        const float* b = c == 0   ? decoded[f][j].translation
                         : c == 1 ? decoded[f][j].rotation
                                  : decoded[f][j].scale;
        bool changed = false;  // beyond 1e-5 of the value's size (at least 1e-5): the header's rule
        for (int k = 0; k < 4; ++k)
          changed =
              changed || std::abs(a[k] - b[k]) > 1e-5f * std::max({1.f, std::abs(a[k]), std::abs(b[k])});
        if (changed) {
          const float t0 = static_cast<float>(f - 1) / 10, t1 = f == 9 ? 0.9f : static_cast<float>(f) / 10;
          if (keys.empty() || keys.back() != t0) keys.push_back(t0);
          keys.push_back(t1);
        }
      }
      expected += keys.size();
      for (const DopeRow& row : sheet.rows)
        if (row.joint == j) {
          EXPECT_EQ(row.keys[c], keys) << "joint " << j << " channel " << c;
        }
    }
  EXPECT_EQ(sheet.key_count(), expected);
  EXPECT_GT(expected, 0u);
}

TEST(ViewerDopeSheet, KeyedClipsShowTheirStoredKeys) {
  // Joint 0: 3 rotation keys; joint 2: 2 scale keys; every other channel one key (held still).
  std::vector<uint32_t> first;
  std::vector<float> times, values;
  auto channel = [&](std::vector<float> key_times) {
    first.push_back(static_cast<uint32_t>(times.size()));
    for (float t : key_times) {
      times.push_back(t);
      values.insert(values.end(), {0, 0, 0, 1});  // a unit rotation; as translation and scale it is held too
    }
  };
  for (int j = 0; j < kJoints; ++j)
    for (int c = 0; c < 3; ++c)
      channel(j == 0 && c == 1   ? std::vector<float>{0, 0.25f, 1}
              : j == 2 && c == 2 ? std::vector<float>{0.5f, 0.75f}
                                 : std::vector<float>{0});
  first.push_back(static_cast<uint32_t>(times.size()));
  auto clip = Clip::from_keys("Keys", 1, kJoints, first, times, values);
  ASSERT_TRUE(clip.ok()) << clip.error();
  const DopeSheet sheet = make_dope_sheet(with_clip(std::move(clip).value()), 0);
  ASSERT_EQ(sheet.rows.size(), 2u);
  EXPECT_EQ(sheet.rows[0].keys[1], (std::vector<float>{0, 0.25f, 1}));
  EXPECT_EQ(sheet.rows[1].joint, 2);
  EXPECT_EQ(sheet.rows[1].keys[2], (std::vector<float>{0.5f, 0.75f}));
  EXPECT_EQ(sheet.key_count(), 5u);
}

TEST(ViewerDopeSheet, MorphTargetsShowTheirTracksKeys) {
  const CharacterAsset asset = test::synthetic_morph_character();
  const int walk = asset.find_clip("Armature|Walk");
  ASSERT_GE(walk, 0);
  const MorphWeightTracks& weights = asset.clips[walk].morph_weights();
  ASSERT_FALSE(weights.empty());
  const DopeSheet sheet = make_dope_sheet(asset, walk);
  int morph_rows = 0;
  for (const DopeRow& row : sheet.rows) {
    if (row.mesh < 0) continue;
    ++morph_rows;
    const auto& track = weights.tracks()[0];
    EXPECT_EQ(row.mesh, track.mesh);
    EXPECT_LT(row.target, 3);  // the clip animates the Body's first 3 targets
    const auto times = weights.key_times().subspan(track.key_first, track.key_count);
    EXPECT_EQ(row.keys[0], std::vector<float>(times.begin(), times.end()));
    EXPECT_EQ(row.name, asset.meshes[row.mesh].name() + ": " +
                            asset.meshes[row.mesh].morph_targets().names()[row.target]);
  }
  EXPECT_EQ(morph_rows, 3);
}

TEST(ViewerCurves, EulerAnglesComposeBackIntoTheirQuaternion) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  for (int i = 0; i < 2000; ++i) {
    Quat q{unit(random), unit(random), unit(random), unit(random)};
    if (i == 0) q = quat_from_axis_angle({0, 1, 0}, 1.5707963f);  // gimbal lock: Y at +90 degrees
    if (i == 1) q = quat_from_axis_angle({0, 1, 0}, -1.5707963f);
    const float n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (n < 1e-3f) continue;
    q = {q.x / n, q.y / n, q.z / n, q.w / n};
    const float v[4] = {q.x, q.y, q.z, q.w};
    const auto e = euler_xyz_degrees(v);
    const float r = 3.14159265f / 180;
    const Quat back = quat_from_axis_angle({0, 0, 1}, e[2] * r) * quat_from_axis_angle({0, 1, 0}, e[1] * r) *
                      quat_from_axis_angle({1, 0, 0}, e[0] * r);
    const float dot = std::abs(back.x * q.x + back.y * q.y + back.z * q.z + back.w * q.w);
    EXPECT_GT(dot, 1 - 2e-5f) << i << ": " << e[0] << " " << e[1] << " " << e[2];
  }
}

TEST(ViewerCurves, CurvesArePlaybackSampledAtKeysAndUnwrapped) {
  // A keyed rotation about X from 0 to 350 degrees in 7 keys: Euler X rises without a jump.
  std::vector<uint32_t> first;
  std::vector<float> times, values;
  for (int j = 0; j < kJoints; ++j)
    for (int c = 0; c < 3; ++c) {
      first.push_back(static_cast<uint32_t>(times.size()));
      const int keys = j == 1 && c == 1 ? 8 : 1;
      for (int k = 0; k < keys; ++k) {
        times.push_back(static_cast<float>(k) / 7);
        const Quat q =
            c == 1 ? quat_from_axis_angle({1, 0, 0}, static_cast<float>(k) * 50 * 3.14159265f / 180) : Quat{};
        if (c == 1)
          values.insert(values.end(), {q.x, q.y, q.z, q.w});
        else
          values.insert(values.end(), {c == 2 ? 1.f : 0.f, c == 2 ? 1.f : 0.f, c == 2 ? 1.f : 0.f, 0.f});
      }
    }
  first.push_back(static_cast<uint32_t>(times.size()));
  auto clip = Clip::from_keys("Spin", 1, kJoints, first, times, values);
  ASSERT_TRUE(clip.ok()) << clip.error();
  const CharacterAsset asset = with_clip(std::move(clip).value());
  const auto curve = channel_curve(asset, 0, ChannelKind::kRotation, 1, -1, -1, 50);
  ASSERT_GE(curve.size(), 50u);
  // Every key time is on the curve, and every point is what SampleJob gives.
  for (float key : std::vector<float>(times.begin() + first[4], times.begin() + first[5]))
    EXPECT_TRUE(std::any_of(curve.begin(), curve.end(), [&](const CurveSample& s) { return s.time == key; }));
  SamplingCache cache;
  std::vector<JointPose> pose(kJoints);
  for (size_t i = 0; i < curve.size(); ++i) {
    const SampleJob job{.clip = &asset.clips[0], .time = curve[i].time, .cache = &cache, .output = pose};
    ASSERT_TRUE(job.run());
    for (int k = 0; k < 4; ++k) EXPECT_EQ(curve[i].value[k], pose[1].rotation[k]);
    if (i > 0) {
      EXPECT_GE(curve[i].time, curve[i - 1].time);
      EXPECT_LT(std::abs(curve[i].euler_degrees[0] - curve[i - 1].euler_degrees[0]), 30) << "a jump at " << i;
    }
  }
  EXPECT_NEAR(curve.back().euler_degrees[0], 350, 0.01);
  EXPECT_TRUE(channel_curve(asset, 0, ChannelKind::kRotation, kJoints, -1, -1, 50).empty());
  EXPECT_TRUE(channel_curve(asset, 0, ChannelKind::kMorphWeight, -1, 0, 0, 50).empty());  // no targets
}

}  // namespace
}  // namespace ossa::viewer
