// Clip compression's bound in model units, whatever the rig's scales: the synthetic character under a root
// scaled by 0.01 (centimetre data, Mixamo's usual export), 1 and 100, with the same motion in model space.
// The check is brute force, independent of the compressor's own error measure: points around each joint in
// model space, carried through the reference evaluator's matrices of the uncompressed and the decoded clip.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <xxhash.h>

#include "ossa/offline/compression.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "ossa/serialize/ossa_file.h"
#include "reference/reference_eval.h"
#include "synthetic_character.h"

#ifdef OSSA_HAS_IMPORT  // the real models go through the importer (not in runtime-only builds)
#include "oracle_compare.h"
#include "ossa/import/import.h"
#endif

namespace ossa {
namespace {

// The synthetic scene with its joints under a new root scaled by `root_scale`, their translations divided by
// it: in model space the same motion; in the joints' own units centimetres (0.01) or hectometres (100).
test::SyntheticScene under_scaled_root(float root_scale) {
  test::SyntheticScene scene = test::synthetic_scene(33, 7);
  scene.meshes.clear();
  RawJoint root;
  root.name = "scaled_root";
  root.rest.scale = {root_scale, root_scale, root_scale};
  for (RawJoint& j : scene.skeleton.joints) {
    j.parent += 1;  // -1 (the old root) becomes 0, the new root
    j.rest.translation = j.rest.translation * (1 / root_scale);
    j.inverse_bind = j.inverse_bind * scale_matrix({1 / root_scale, 1 / root_scale, 1 / root_scale});
  }
  scene.skeleton.joints.insert(scene.skeleton.joints.begin(), root);
  for (RawClip& clip : scene.clips)
    for (RawTrack& track : clip.tracks) {
      track.joint += 1;
      for (Vec3& t : track.translations) t = t * (1 / root_scale);
    }
  return scene;
}

std::vector<Mat4> model_matrices(const RawSkeleton& skeleton, const JointPose* pose) {
  std::vector<Transform> local(skeleton.joints.size());
  for (size_t j = 0; j < local.size(); ++j) local[j] = to_transform(pose[j]);
  return reference::local_to_model(skeleton, local);
}

struct ScaledRigResult {
  size_t compressed_bytes = 0;
  float worst = 0;  // brute-force displacement, metres
};

// Offsets from a joint, in model space: the six virtual vertices at the shell and points on the sphere of
// radius shell / sqrt(3), which the compressor's guarantee covers.
std::vector<Vec3> shell_offsets(float shell) {
  std::vector<Vec3> offsets;
  for (int axis = 0; axis < 3; ++axis)
    for (float sign : {-1.f, 1.f}) {
      Vec3 v{0, 0, 0};
      (axis == 0 ? v.x : axis == 1 ? v.y : v.z) = sign * shell;
      offsets.push_back(v);
    }
  std::mt19937 rng(3);
  std::normal_distribution<float> n;
  for (int i = 0; i < 24; ++i)
    offsets.push_back(normalize(Vec3{n(rng), n(rng), n(rng)}) * (shell / std::sqrt(3.f)));
  return offsets;
}

// The farthest any of those points moves (metres) between `reference` and `lossy` sampled by the runtime at
// each of `times`, carried by the reference evaluator's matrices.
float worst_displacement(const RawSkeleton& skeleton, const Clip& reference, const Clip& lossy,
                         const std::vector<float>& times, float shell) {
  const std::vector<Vec3> offsets = shell_offsets(shell);
  const int joints = reference.joint_count();
  std::vector<JointPose> exact(joints), decoded(joints);
  SamplingCache exact_cache, lossy_cache;
  float worst = 0;
  for (float t : times) {
    EXPECT_TRUE((SampleJob{&reference, t, &exact_cache, exact}.run()));
    EXPECT_TRUE((SampleJob{&lossy, t, &lossy_cache, decoded}.run()));
    const auto want = model_matrices(skeleton, exact.data());
    const auto got = model_matrices(skeleton, decoded.data());
    for (int j = 0; j < joints; ++j) {
      Mat4 to_joint;
      if (!invert(want[j], to_joint)) continue;
      for (Vec3 offset : offsets) {
        const Vec3 p = want[j].translation() + offset;
        worst = std::max(worst, length(transform_point(got[j], transform_point(to_joint, p)) - p));
      }
    }
  }
  return worst;
}

// A fixed-rate clip's frame times (the last at its end) and, with `midpoints`, the times halfway between.
std::vector<float> frame_times(const Clip& clip, bool midpoints) {
  std::vector<float> times;
  for (int f = 0; f < clip.frame_count(); ++f) {
    const float t = f + 1 < clip.frame_count() ? static_cast<float>(f) / clip.frame_rate() : clip.duration();
    if (midpoints && f > 0) times.push_back(0.5f * (times.back() + t));
    times.push_back(t);
  }
  return times;
}

ScaledRigResult compress_and_measure(float root_scale, const CompressionSettings& settings) {
  const test::SyntheticScene scene = under_scaled_root(root_scale);
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, {}, "scaled rig");
  EXPECT_TRUE(asset) << asset.error();
  ScaledRigResult result;
  if (!asset) return result;
  for (const Clip& clip : asset->clips) {
    CompressionStats stats;
    auto compressed = compress_clip(clip, asset->skeleton, settings, &stats);
    EXPECT_TRUE(compressed) << compressed.error();
    if (!compressed) continue;
    result.compressed_bytes += stats.compressed_bytes;
    result.worst =
        std::max(result.worst, worst_displacement(scene.skeleton, clip, *compressed, frame_times(clip, false),
                                                  settings.shell_distance));
  }
  return result;
}

// Under a 0.01 root the "3 cm" shell once was 0.3 mm in the model (and 3 m under a 100x root): the bound and
// the shell are metres in model space now, and the compressed size does not depend on the rig's units.
TEST(Compression, BoundHoldsInModelUnitsUnderScaledRoots) {
  const CompressionSettings settings;  // 0.01 cm at 3 cm
  const ScaledRigResult metres = compress_and_measure(1.f, settings);
  for (float root_scale : {0.01f, 1.f, 100.f}) {
    const ScaledRigResult scaled = root_scale == 1.f ? metres : compress_and_measure(root_scale, settings);
    // Float rounding of the matrices (coordinates of about 1 m) stays under 1e-6 m.
    EXPECT_LE(scaled.worst, settings.tolerance + 1e-6f) << "root scale " << root_scale;
    EXPECT_GT(scaled.worst, 0.1f * settings.tolerance) << "root scale " << root_scale << ": lossless?";
    EXPECT_NEAR(static_cast<double>(scaled.compressed_bytes), static_cast<double>(metres.compressed_bytes),
                0.03 * static_cast<double>(metres.compressed_bytes))
        << "root scale " << root_scale;
  }
}

// `joints` bones in a chain up +y, 0.5 m apart (the first at the origin).
RawSkeleton bone_chain(int joints) {
  RawSkeleton skeleton;
  for (int j = 0; j < joints; ++j) {
    RawJoint joint;
    joint.name = "bone" + std::to_string(j);
    joint.parent = j - 1;
    joint.rest.translation = {0, j ? 0.5f : 0.f, 0};
    skeleton.joints.push_back(joint);
  }
  return skeleton;
}

// A clip resampled above its keys' rate (CesiumMan's 24 fps keys come out at 48 fps) is stored at the keys'
// rate: dropping every other frame costs nothing there. The bound still holds by brute force at every frame
// of the 48 fps clip and halfway between, and the size is that of the clip built at 24 fps.
TEST(Compression, FramesTheMotionDoesNotNeedAreDropped) {
  const RawSkeleton skeleton = bone_chain(4);
  // Keys at `rate` for 2 s; with `wiggle`, every other key turns 0.05 rad more about x.
  auto swing = [](float rate, bool wiggle) {
    RawClip raw;
    raw.name = "swing";
    raw.duration = 2;
    for (int j = 0; j < 4; ++j) {
      RawTrack track;
      track.joint = j;
      for (int k = 0; k <= static_cast<int>(2 * rate); ++k) {
        const float t = static_cast<float>(k) / rate,
                    angle = 0.6f * std::sin(3.f * t + static_cast<float>(j));
        Quat q = quat_from_axis_angle(normalize(Vec3{0.2f, 0.3f, 1}), angle);
        if (wiggle && k % 2) q = normalize(q * quat_from_axis_angle({1, 0, 0}, 0.05f));
        track.rotation_times.push_back(t);
        track.rotations.push_back(q);
        track.translation_times.push_back(t);
        track.translations.push_back({0.1f * std::sin(2.f * t), j ? 0.5f : 0.f, 0});
      }
      raw.tracks.push_back(track);
    }
    return raw;
  };
  const RawClip raw = swing(24, false);
  auto built = Skeleton::build(skeleton);
  ASSERT_TRUE(built) << built.error();
  auto at_48 = Clip::build_fixed_rate(raw, *built, 48), at_24 = Clip::build_fixed_rate(raw, *built, 24);
  ASSERT_TRUE(at_48 && at_24);
  const CompressionSettings settings;
  CompressionStats stats, stats_24;
  auto compressed = compress_clip(*at_48, *built, settings, &stats);
  ASSERT_TRUE(compressed) << compressed.error();
  ASSERT_TRUE(compress_clip(*at_24, *built, settings, &stats_24));
  EXPECT_EQ(compressed->frame_rate(), 24.f);
  EXPECT_EQ(stats.stored_frame_rate, 24.f);
  EXPECT_EQ(stats.raw_bytes, static_cast<size_t>(at_48->frame_count()) * 4 * 40)
      << "the ratio is to the clip given";
  EXPECT_LE(stats.compressed_bytes, stats_24.compressed_bytes * 21 / 20);
  const float worst =
      worst_displacement(skeleton, *at_48, *compressed, frame_times(*at_48, true), settings.shell_distance);
  EXPECT_LE(worst, settings.tolerance + 1e-6f);
  EXPECT_NEAR(stats.max_error, worst, 0.05 * settings.tolerance) << "the stats measure what the clip does";
  // Where every frame carries motion (keys at 48 fps with a fast wiggle), all frames stay.
  auto wiggle = Clip::build_fixed_rate(swing(48, true), *built, 48);
  ASSERT_TRUE(wiggle);
  auto kept = compress_clip(*wiggle, *built, settings, &stats);
  ASSERT_TRUE(kept) << kept.error();
  EXPECT_EQ(kept->frame_rate(), 48.f);
  // Keys at 6 fps built at 48: every 2nd, 4th and 8th frame hold the bound; the coarsest is stored, at the
  // size of the clip built at the keys' rate.
  auto at_6 = Clip::build_fixed_rate(swing(6, false), *built, 6);
  auto sparse = Clip::build_fixed_rate(swing(6, false), *built, 48);
  ASSERT_TRUE(at_6 && sparse);
  CompressionStats stats_6;
  ASSERT_TRUE(compress_clip(*at_6, *built, settings, &stats_6));
  auto coarsest = compress_clip(*sparse, *built, settings, &stats);
  ASSERT_TRUE(coarsest) << coarsest.error();
  EXPECT_EQ(coarsest->frame_rate(), 6.f);
  EXPECT_LE(stats.compressed_bytes, stats_6.compressed_bytes * 21 / 20);
  EXPECT_LE(
      worst_displacement(skeleton, *sparse, *coarsest, frame_times(*sparse, true), settings.shell_distance),
      settings.tolerance + 1e-6f);
}

// A bone flattened through zero and over (a card flip: its y scale 1, 0, -1, 0, 1, ... at its frames) hides
// its child's motion along y at the frames where it is flat. A child that moves only then gives a clip with
// every other frame dropped no error at any frame of the clip, but between frames, the bone half flat, the
// child leaves its path by 2.5 mm. Dropping frames is judged between frames too, so every frame stays.
TEST(Compression, MotionThatShowsOnlyBetweenFramesKeepsItsFrames) {
  const RawSkeleton skeleton = bone_chain(3);
  RawClip raw;
  raw.name = "flip";
  raw.duration = 2;
  RawTrack card, child;
  card.joint = 1, child.joint = 2;
  constexpr float kFlat[4] = {1, 0, -1, 0};
  for (int k = 0; k <= 48; ++k) {
    const float t = static_cast<float>(k) / 24;
    card.scale_times.push_back(t);
    card.scales.push_back({1, kFlat[k % 4], 1});
    child.translation_times.push_back(t);
    child.translations.push_back({0, k % 2 ? 0.51f : 0.5f, 0});  // 1 cm further out while the card is flat
  }
  raw.tracks = {card, child};
  auto built = Skeleton::build(skeleton);
  ASSERT_TRUE(built) << built.error();
  auto clip = Clip::build_fixed_rate(raw, *built, 24);
  ASSERT_TRUE(clip) << clip.error();
  const CompressionSettings settings;
  CompressionStats stats;
  auto compressed = compress_clip(*clip, *built, settings, &stats);
  ASSERT_TRUE(compressed) << compressed.error();
  EXPECT_EQ(compressed->frame_rate(), 24.f);
  const float worst =
      worst_displacement(skeleton, *clip, *compressed, frame_times(*clip, true), settings.shell_distance);
  EXPECT_LE(worst, settings.tolerance + 1e-6f);
}

// Offline output is the same bytes on every machine: compress_clip keeps or drops frames and picks bit rates
// on errors it measures, and a measure rounded differently at another SIMD level (AVX2's fused multiply-adds)
// took other decisions on 5 of 24 clips of four real files (RobotExpressive's Dance: 24,360 bytes at SSE2,
// 24,328 at AVX2).
std::vector<uint8_t> compressed_ossa(const CharacterAsset& asset) {
  OssaFile file;
  file.skeleton = asset.skeleton;
  for (const Clip& clip : asset.clips) {
    auto compressed = compress_clip(clip, asset.skeleton, CompressionSettings{});
    EXPECT_TRUE(compressed) << clip.name() << ": " << compressed.error();
    if (compressed) file.clips.push_back(std::move(compressed).value());
  }
  return encode_ossa(file);
}

std::vector<SimdLevel> levels_here() {
  std::vector<SimdLevel> levels = {SimdLevel::kScalar};
  if (best_simd_level() == SimdLevel::kAvx2) levels.push_back(SimdLevel::kSse2);
  if (best_simd_level() != SimdLevel::kScalar) levels.push_back(best_simd_level());
  return levels;
}

// The characters of the comparison: the synthetic one everywhere; where the importer is built, the bundled
// sample and the real files whose clips differed.
std::vector<std::pair<std::string, CharacterAsset>> characters_to_compress() {
  std::vector<std::pair<std::string, CharacterAsset>> out;
  out.emplace_back("synthetic", test::synthetic_character());
#ifdef OSSA_HAS_IMPORT
  std::vector<std::string> files = {test::source_dir() + "/assets/sample/ossa_sample.fbx"};
  if (const std::string shared = test::shared_dir(); !shared.empty())
    for (const char* f : {"RobotExpressive.glb", "Fox.glb", "CesiumMan.glb"})
      files.push_back(shared + "/models/" + f);
  for (const std::string& path : files) {
    ImportOptions options;
    options.isolate = false;  // our own test files
    auto scene = import_file(path, options);
    if (!scene) {
      ADD_FAILURE() << scene.error();
      continue;
    }
    auto asset = CharacterAsset::build(*scene);
    if (!asset) {
      ADD_FAILURE() << asset.error();
      continue;
    }
    out.emplace_back(path, std::move(asset).value());
  }
#endif
  return out;
}

TEST(Compression, SameBytesAtEverySimdLevel) {
  const SimdLevel saved = simd_level();
  const std::vector<SimdLevel> levels = levels_here();
  for (const auto& [name, asset] : characters_to_compress()) {
    std::vector<uint8_t> first;
    for (SimdLevel level : levels) {
      set_simd_level(level);
      std::vector<uint8_t> bytes = compressed_ossa(asset);
      if (first.empty()) {
        first = std::move(bytes);
        continue;
      }
      EXPECT_EQ(bytes.size(), first.size())
          << name << ": " << to_string(level) << " vs " << to_string(levels[0]);
      EXPECT_TRUE(bytes == first) << name << ": " << to_string(level) << " gives other bytes than "
                                  << to_string(levels[0]);
    }
  }
  set_simd_level(saved);
#ifdef OSSA_HAS_IMPORT
  if (test::shared_dir().empty())
    GTEST_SKIP() << "../shared not found: only the synthetic character and the sample";
#endif
}

// The same compressed file on every platform the suite runs on (x86-64 Linux, aarch64 under qemu, Windows
// under Wine): one digest, written here, of a character whose every number is made with +, -, *, / and sqrt
// (IEEE-exact everywhere; a platform's sin or acos may differ in the last bit, and the input would differ
// before the compressor sees it). A change to the compressor or the .ossa format changes the digest; update
// it then, deliberately, on one platform: the others must agree with it.
TEST(Compression, SameBytesOnEveryPlatform) {
  RawSkeleton raw;
  for (int j = 0; j < 14; ++j) {
    RawJoint joint;
    joint.name = "j" + std::to_string(j);
    joint.parent = j == 8 ? 1 : j - 1;  // a chain, and a second chain from its second joint
    joint.rest.translation = {0.02f * static_cast<float>(j % 3), j ? 0.1f + 0.01f * static_cast<float>(j) : 0,
                              0};
    raw.joints.push_back(joint);
  }
  auto skeleton = Skeleton::build(raw);
  ASSERT_TRUE(skeleton) << skeleton.error();
  const int joints = skeleton->joint_count(), frames = 61;  // 2 s at 30 fps
  std::vector<JointPose> poses(static_cast<size_t>(frames) * joints);
  for (int f = 0; f < frames; ++f)
    for (int j = 0; j < joints; ++j) {
      const float u = static_cast<float>((f * (j + 3)) % 40) / 20.f - 1;  // a triangle wave in [-1, 1)
      const float a = u * (0.3f - 0.1f * u * u), b = 0.05f * static_cast<float>(j % 4) * u * u;
      const float n = std::sqrt(a * a + b * b + 1);
      JointPose& p = poses[static_cast<size_t>(f) * joints + j];
      Transform t;
      t.translation = j == 0 ? Vec3{0.5f * u, 0.9f + 0.02f * u * u, 0.1f * static_cast<float>(f) / 30.f}
                             : raw.joints[j].rest.translation;
      t.rotation = {a / n, b / n, 0, 1 / n};
      p = to_joint_pose(t);
    }
  auto clip = Clip::from_frames("wave", 2.f, 30.f, joints, std::move(poses));
  ASSERT_TRUE(clip) << clip.error();
  OssaFile file;
  file.skeleton = *skeleton;
  CompressionStats stats;
  auto compressed = compress_clip(*clip, *skeleton, CompressionSettings{}, &stats);
  ASSERT_TRUE(compressed) << compressed.error();
  file.clips.push_back(std::move(compressed).value());
  const std::vector<uint8_t> bytes = encode_ossa(file);
  char digest[17];
  std::snprintf(digest, sizeof digest, "%016llx",
                static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
  EXPECT_EQ(std::string(digest), "9bcdd39e6edc7d00")
      << bytes.size() << " bytes, the clip " << stats.compressed_bytes << " at " << stats.stored_frame_rate
      << " fps";
}

// A compressed clip samples its still joints (no quantized channel) as its constant pose, bit for bit, and
// lists exactly the others as moving.
TEST(Compression, StillJointsAreTheConstantPose) {
  test::SyntheticScene scene = test::synthetic_scene(33, 7);
  for (RawTrack& track : scene.clips[0].tracks)
    if (track.joint % 3 != 0) {  // no keys: the joint stays at rest
      const int joint = track.joint;
      track = RawTrack{};
      track.joint = joint;
    }
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, {}, "some joints still");
  ASSERT_TRUE(asset) << asset.error();
  auto compressed = compress_clip(asset->clips[0], asset->skeleton, CompressionSettings{});
  ASSERT_TRUE(compressed) << compressed.error();
  const int joints = compressed->joint_count();
  std::vector<uint8_t> quantized(static_cast<size_t>(joints), 0);
  for (const Clip::QuantizedChannel& ch : compressed->quantized_channels()) quantized[ch.joint] = 1;
  std::vector<uint32_t> expected;
  for (int j = 0; j < joints; ++j)
    if (quantized[j]) expected.push_back(static_cast<uint32_t>(j));
  EXPECT_EQ(std::vector<uint32_t>(compressed->moving_joints().begin(), compressed->moving_joints().end()),
            expected);
  ASSERT_LT(expected.size(), static_cast<size_t>(joints) / 2) << "the still joints' path is not taken";
  SamplingCache cache;
  std::vector<JointPose> pose(joints);
  for (float t = 0; t <= compressed->duration(); t += 0.137f) {
    ASSERT_TRUE((SampleJob{&*compressed, t, &cache, pose}.run()));
    for (int j = 0; j < joints; ++j)
      if (!quantized[j]) {
        EXPECT_EQ(std::memcmp(&pose[j], &compressed->constant_pose()[j], sizeof(JointPose)), 0)
            << j << " at " << t;
      }
  }
}

}  // namespace
}  // namespace ossa
