// The runtime jobs (sample -> local-to-model -> palette -> skin) against the reference evaluator, on every
// clip of the bundled sample and of ../shared/models, at random times forwards, backwards and after random
// seeks; validate() against malformed input. (SIMD paths against the scalar path: test_simd_paths.cpp.)
// Where only the runtime is built (the aarch64 and Windows cross builds) the tests that need the importer are
// left out, and those that only need a character use the synthetic one instead of the bundled sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>

#include "ossa/asset/character.h"
#include "ossa/offline/compression.h"
#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/skinning_job.h"
#include "reference/reference_eval.h"
#include "synthetic_character.h"

#ifdef OSSA_HAS_IMPORT
#include "oracle_compare.h"
#include "ossa/import/import.h"
#endif

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

// The bundled sample (FBX) where the importer is built, else the synthetic character (two meshes, the second
// with a remapped palette, like the sample's).
Result<CharacterAsset> sample_asset(const CharacterBuildOptions& options = {}) {
#ifdef OSSA_HAS_IMPORT
  auto scene = import_file(source_dir() + "/assets/sample/ossa_sample.fbx");
  if (!scene) return Result<CharacterAsset>::failure(scene.error());
  return CharacterAsset::build(*scene, options);
#else
  return synthetic_character(33, 1, options);
#endif
}

#ifdef OSSA_HAS_IMPORT
float model_size(const ImportedScene& scene) {
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  auto grow = [&](Vec3 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  };
  for (const Mat4& m : reference::bind_pose_model(scene.skeleton)) grow(m.translation());
  for (const RawMesh& mesh : scene.meshes)
    for (const Vec3& p : mesh.positions) grow(p);
  return std::max(length(hi - lo), 1e-6f);
}

// Times to visit: forward at 60 Hz, backwards at 60 Hz, then random seeks (including outside the clip).
std::vector<float> visit_times(float duration, std::mt19937& rng) {
  std::vector<float> times;
  for (float t = 0; t <= duration; t += 1.f / 60) times.push_back(t);
  for (float t = duration; t >= 0; t -= 1.f / 60) times.push_back(t);
  std::uniform_real_distribution<float> any(-0.1f * duration, 1.1f * duration);
  for (int i = 0; i < 60; ++i) times.push_back(any(rng));
  return times;
}

struct Errors {
  double joints = 0, vertices = 0;
};

// Runs the jobs for `clip` at every time and returns the worst deviation from the reference (model units).
Errors run_against_reference(const ImportedScene& scene, const CharacterAsset& asset, int clip_index,
                             const std::vector<float>& times) {
  const Clip& clip = asset.clips[clip_index];
  const RawClip& raw = scene.clips[clip_index];
  const int joints = asset.skeleton.joint_count();
  std::vector<JointPose> locals(joints);
  std::vector<Mat4> model(joints);
  SamplingCache cache;
  Errors worst;
  for (float t : times) {
    EXPECT_TRUE((SampleJob{&clip, t, &cache, locals}.run()));
    EXPECT_TRUE((LocalToModelJob{&asset.skeleton, locals, model}.run()));
    float clamped = std::clamp(t, 0.f, raw.duration);
    auto ref =
        reference::local_to_model(scene.skeleton, reference::sample_clip(scene.skeleton, raw, clamped));
    for (int j = 0; j < joints; ++j)
      worst.joints = std::max<double>(worst.joints, length(model[j].translation() - ref[j].translation()));
    for (size_t m = 0; m < asset.meshes.size(); ++m) {
      const SkinnedMesh& mesh = asset.meshes[m];
      std::vector<Mat4> palette(mesh.inverse_binds().size());
      EXPECT_TRUE((PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run()));
      std::vector<float> out(mesh.positions().size());
      SkinningJob skin = SkinningJob::for_mesh(mesh, palette);
      skin.out_positions = out;
      EXPECT_TRUE(skin.run());
      auto expected = reference::skin_mesh(scene.meshes[m], ref).positions;
      for (int v = 0; v < mesh.vertex_count(); ++v)
        worst.vertices = std::max<double>(
            worst.vertices, length(Vec3{out[3 * v], out[3 * v + 1], out[3 * v + 2]} - expected[v]));
    }
  }
  return worst;
}

TEST(RuntimeJobs, AgreeWithReferenceOnEveryClip) {
  std::mt19937 rng(7);
  int models_run = 0;
  for (const std::string& path : animated_models()) {
    if (!fs::exists(path)) continue;
    ImportOptions options;
    options.max_influences = 4;  // the runtime skins with up to 4
    auto scene = import_file(path, options);
    ASSERT_TRUE(scene) << scene.error();
    const float size = model_size(*scene);
    auto keyed = CharacterAsset::build(*scene, {Clip::Layout::kKeyed, 0});
    auto fixed = CharacterAsset::build(*scene, {Clip::Layout::kFixedRate, 0});
    ASSERT_TRUE(keyed && fixed) << keyed.error() << fixed.error();
    for (size_t c = 0; c < scene->clips.size(); ++c) {
      std::vector<float> times = visit_times(scene->clips[c].duration, rng);
      Errors k = run_against_reference(*scene, *keyed, static_cast<int>(c), times);
      Errors f = run_against_reference(*scene, *fixed, static_cast<int>(c), times);
      std::printf(
          "  %-40s %-24s keyed: joints %.2g vertices %.2g | fixed %g fps: joints %.2g vertices %.2g "
          "(of size %.3g m)\n",
          fs::path(path).filename().string().c_str(), scene->clips[c].name.c_str(), k.joints / size,
          k.vertices / size, fixed->clips[c].frame_rate(), f.joints / size, f.vertices / size, size);
      EXPECT_LE(k.joints / size, 1e-5) << path << " " << scene->clips[c].name;
      EXPECT_LE(k.vertices / size, 1e-5) << path << " " << scene->clips[c].name;
      // Fixed rate: frames at the keys' rate, slerped between; every file here keys on a grid the builder
      // finds, so the clip is the keys' own curve (keys off any grid would add the resampling's error: the
      // documented bound, asset/clip.h and README, is 1e-3 of the size).
      EXPECT_LE(f.joints / size, 1e-5) << path << " " << scene->clips[c].name;
      EXPECT_LE(f.vertices / size, 1e-5) << path << " " << scene->clips[c].name;
    }
    ++models_run;
  }
  EXPECT_GE(models_run, 2);
  if (shared_dir().empty())
    std::printf("  ../shared/models not found: only the bundled sample was checked\n");
}
#endif  // OSSA_HAS_IMPORT

// The angle (radians) between a sampled rotation and the expected one, either sign of the quaternion.
double turn_between(const JointPose& sampled, Quat expected) {
  const Quat got{sampled.rotation[0], sampled.rotation[1], sampled.rotation[2], sampled.rotation[3]};
  const Quat e = dot(got, expected) < 0 ? Quat{-expected.x, -expected.y, -expected.z, -expected.w} : expected;
  const double chord = std::hypot(std::hypot(got.x - e.x, got.y - e.y), std::hypot(got.z - e.z, got.w - e.w));
  return 4 * std::asin(std::min(1.0, chord / 2));
}

// Joint 1 keyed at `times` (seconds), turning `degrees_per_key` about a changing axis from key to key and
// moving along x; the clip lasts `duration`.
RawClip keyed_turns(const std::vector<float>& times, float duration, float degrees_per_key = 40) {
  RawClip raw;
  raw.name = "turns";
  raw.duration = duration;
  RawTrack track;
  track.joint = 1;
  Quat q = quat_from_axis_angle({0, 0, 1}, 0);
  for (size_t k = 0; k < times.size(); ++k) {
    const float t = times[k];
    track.rotation_times.push_back(t);
    track.rotations.push_back(q);
    track.translation_times.push_back(t);
    track.translations.push_back({0.1f * std::sin(3.f * t), 1, 0});
    const float n = static_cast<float>(k);
    const Vec3 axis = normalize(Vec3{std::sin(0.9f * n), 1, std::cos(1.3f * n)});
    q = normalize(quat_from_axis_angle(axis, degrees_per_key * 3.14159265f / 180) * q);
  }
  raw.tracks.push_back(track);
  return raw;
}

// How far a fixed-rate clip of keyed_turns strays from the keys' own curve (the reference's slerp and lerp),
// sampled at 1,001 times: the worst angle (radians) and translation (units).
struct Stray {
  double angle = 0, translation = 0;
};
Stray stray_from_keys(const Clip& clip, const RawClip& raw, const RawSkeleton& raw_skeleton) {
  std::vector<JointPose> locals(2);
  Stray worst;
  for (int i = 0; i <= 1000; ++i) {
    const float t = raw.duration * static_cast<float>(i) / 1000;
    EXPECT_TRUE((SampleJob{&clip, t, nullptr, locals}.run()));
    const Transform expected = reference::sample_clip(raw_skeleton, raw, t)[1];
    worst.angle = std::max(worst.angle, turn_between(locals[1], expected.rotation));
    worst.translation =
        std::max(worst.translation, std::fabs(double{locals[1].translation[0]} - expected.translation.x));
  }
  return worst;
}

// Fixed-rate clips keep their keys' rate however fast a joint turns between keys (the sampler slerps), and
// reproduce the keys' own slerp between frames: a joint turning 75 degrees per 24 fps key about a changing
// axis gives a 24 fps clip within 5e-6 rad of the reference everywhere; only steps over 91 degrees (where the
// sampler's series gives way to sines) double the rate.
TEST(RuntimeJobs, FixedRateClipsKeepTheirKeysRateAndSlerpBetweenThem) {
  const RawSkeleton raw_skeleton = two_joint_raw_skeleton();
  auto skeleton = Skeleton::build(raw_skeleton);
  ASSERT_TRUE(skeleton) << skeleton.error();
  std::vector<float> times;
  for (int k = 0; k <= 24; ++k) times.push_back(static_cast<float>(k) / 24);
  const RawClip fast = keyed_turns(times, 1, 75);
  auto clip = Clip::build_fixed_rate(fast, *skeleton);
  ASSERT_TRUE(clip) << clip.error();
  EXPECT_EQ(clip->frame_rate(), 24.f);
  EXPECT_EQ(clip->frame_count(), 25);
  const double worst = stray_from_keys(*clip, fast, raw_skeleton).angle;
  std::printf("  75 degrees per key at 24 fps: stored at %g fps, worst %.3g rad from the keys' slerp\n",
              clip->frame_rate(), worst);
  EXPECT_LE(worst, 5e-6);  // the reference's own slerp is float (acos, sin): rounding of about 2e-6
  auto faster = Clip::build_fixed_rate(keyed_turns(times, 1, 120), *skeleton);
  ASSERT_TRUE(faster) << faster.error();
  EXPECT_EQ(faster->frame_rate(), 48.f);  // 120 degrees per key: doubled once, 60 per frame
}

// A clip's last frame sits at its end whatever the rate, so a last key at the clip's end need not lie on the
// grid: keys at 24 fps up to 0.9583 s and one at the end, 1.1729 s (an action ended between frames), give a
// 24 fps clip (30 frames, the last 1/160 s after the one before) that reproduces the keys' slerp in every
// interval, the long last one included. Requiring the end key on a grid too found none of the usual rates
// and fell back to 60 fps, where the 24 fps keys fall between frames: more frames, and corners cut.
TEST(RuntimeJobs, FixedRateClipsKeepTheirKeysRateWhenTheLastKeyEndsTheClipOffTheGrid) {
  const RawSkeleton raw_skeleton = two_joint_raw_skeleton();
  auto skeleton = Skeleton::build(raw_skeleton);
  ASSERT_TRUE(skeleton) << skeleton.error();
  std::vector<float> times;
  for (int k = 0; k < 24; ++k) times.push_back(static_cast<float>(k) / 24);
  times.push_back(1.1729f);
  const RawClip raw = keyed_turns(times, 1.1729f);
  auto clip = Clip::build_fixed_rate(raw, *skeleton);
  ASSERT_TRUE(clip) << clip.error();
  EXPECT_EQ(clip->frame_rate(), 24.f);
  EXPECT_EQ(clip->frame_count(), 30);
  const Stray worst = stray_from_keys(*clip, raw, raw_skeleton);
  std::printf(
      "  24 fps keys, last key at the end off the grid: stored at %g fps, worst %.3g rad, %.3g units\n",
      clip->frame_rate(), worst.angle, worst.translation);
  EXPECT_LE(worst.angle, 5e-6);        // the reference's float slerp rounds by about 2e-6
  EXPECT_LE(worst.translation, 1e-6);  // lerped translations, 0.1 units at most
}

// Keys on a grid none of the usual rates fits (NTSC video's 29.97 fps, 30000/1001) give a clip at the keys'
// own rate, found from their spacing: 60 frames for 60 keys, the keys' curve kept. The usual rates' fallback,
// 60 fps, put most keys between frames; it stays for keys too sparse to be a frame rate.
TEST(RuntimeJobs, FixedRateClipsKeepAnUnusualKeyRate) {
  const RawSkeleton raw_skeleton = two_joint_raw_skeleton();
  auto skeleton = Skeleton::build(raw_skeleton);
  ASSERT_TRUE(skeleton) << skeleton.error();
  constexpr double kNtsc = 30000.0 / 1001;
  std::vector<float> times;
  for (int k = 0; k < 60; ++k) times.push_back(static_cast<float>(k / kNtsc));
  const RawClip raw = keyed_turns(times, times.back());
  auto clip = Clip::build_fixed_rate(raw, *skeleton);
  ASSERT_TRUE(clip) << clip.error();
  EXPECT_NEAR(clip->frame_rate(), kNtsc, 1e-3);
  EXPECT_EQ(clip->frame_count(), 60);
  const Stray worst = stray_from_keys(*clip, raw, raw_skeleton);
  std::printf("  29.97 fps keys: stored at %.5g fps, %d frames, worst %.3g rad, %.3g units\n",
              clip->frame_rate(), clip->frame_count(), worst.angle, worst.translation);
  EXPECT_LE(worst.angle, 5e-6);
  EXPECT_LE(worst.translation, 1e-6);
  // Keys 0.3699 s apart (on no usual grid) are sparse keys, not a frame rate: the 60 fps fallback.
  auto sparse = Clip::build_fixed_rate(keyed_turns({0.f, 0.3699f, 0.7398f, 1.1097f}, 1.1097f), *skeleton);
  ASSERT_TRUE(sparse) << sparse.error();
  EXPECT_EQ(sparse->frame_rate(), 60.f);
}

// Additive layers apply as blend_job.h documents, checked against hand values: at weight 0.5, a delta of
// translation (0, 0.4, 0), scale 1.5 and a 60-degree turn about z adds (0, 0.2, 0), scales by 1.25 and turns
// by 30 degrees (nlerp from identity to 60 degrees at 0.5 is exactly 30).
TEST(RuntimeJobs, AdditiveLayersFollowTheDocumentedRule) {
  std::vector<JointPose> base(1), delta(1), rest(1), out(1);
  base[0].translation[0] = 1;
  for (int i = 0; i < 3; ++i) base[0].scale[i] = 2;
  delta[0].translation[1] = 0.4f;
  for (int i = 0; i < 3; ++i) delta[0].scale[i] = 1.5f;
  const Quat turn = quat_from_axis_angle({0, 0, 1}, 3.14159265f / 3);
  std::memcpy(delta[0].rotation, &turn, 16);
  const BlendLayer layer{base, 1.f, {}}, additive{delta, 0.5f, {}};
  ASSERT_TRUE((BlendJob{std::span(&layer, 1), std::span(&additive, 1), rest, out}.run()));
  EXPECT_NEAR(out[0].translation[0], 1.f, 1e-6f);
  EXPECT_NEAR(out[0].translation[1], 0.2f, 1e-6f);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(out[0].scale[i], 2.5f, 1e-6f);
  const Quat expected = quat_from_axis_angle({0, 0, 1}, 3.14159265f / 6);
  EXPECT_NEAR(out[0].rotation[2], expected.z, 1e-6f);
  EXPECT_NEAR(out[0].rotation[3], expected.w, 1e-6f);
}

// A joint index equal to the palette's size is one past its end: refused, like any larger one.
TEST(RuntimeJobs, SkinningRefusesAnIndexOnePastThePalette) {
  const Mat4 palette[2];
  const uint16_t joints[2] = {0, 2};
  const float weights[2] = {0.5f, 0.5f}, position[3] = {1, 2, 3};
  float out[3] = {};
  SkinningJob job;
  job.vertex_count = 1;
  job.influences = 2;
  job.joint_indices = joints;
  job.joint_weights = weights;
  job.palette = palette;
  job.palette_slots = 2;
  job.in_positions = position;
  job.out_positions = out;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());
  EXPECT_EQ(out[0], 0.f) << "ran although invalid";
  const uint16_t in_range[2] = {0, 1};
  job.joint_indices = in_range;
  EXPECT_TRUE(job.run());
}

// A crowd character's clock wraps however far one update moves it, forwards and backwards (hand values on a
// 1 s clip: 0.5 + 2.7 = 3.2 -> 0.2; 0.5 - 2.7 = -2.2 -> 0.8).
TEST(RuntimeJobs, CrowdClocksWrapAcrossSeveralClipLengths) {
  RawSkeleton raw;
  raw.joints.resize(1);
  raw.joints[0].name = "root";
  auto skeleton = Skeleton::build(raw);
  ASSERT_TRUE(skeleton) << skeleton.error();
  std::vector<JointPose> frames(11);
  auto clip = Clip::from_frames("second", 1.f, 10.f, 1, frames);
  ASSERT_TRUE(clip) << clip.error();
  for (float speed : {1.f, -1.f}) {
    CharacterInstance c;
    c.init(*skeleton, &*clip, 0.5f);
    c.speed = speed;
    ASSERT_TRUE(update_character(*skeleton, c, 2.7f));
    EXPECT_NEAR(c.time, speed > 0 ? 0.2f : 0.8f, 1e-5f) << "speed " << speed;
  }
}

TEST(RuntimeJobs, LocalToModelUpdatesOnlyTheRequestedSubtree) {
  auto asset = sample_asset();
  ASSERT_TRUE(asset) << asset.error();
  const Skeleton& s = asset->skeleton;
  std::vector<JointPose> locals(s.rest_pose().begin(), s.rest_pose().end());
  std::vector<Mat4> full(s.joint_count()), partial(s.joint_count());
  ASSERT_TRUE((LocalToModelJob{&s, locals, full}.run()));
  partial = full;
#ifdef OSSA_HAS_IMPORT
  int arm = s.find_joint("upperarm_r");
  int before = s.find_joint("thigh_l");
#else  // the synthetic character: a joint with a sub-tree of several joints, and the joint just after that
       // sub-tree (neither inside it nor an ancestor)
  int arm = 1;
  while (arm < s.joint_count() && (s.subtree_end(arm) - arm <= 3 || s.subtree_end(arm) >= s.joint_count()))
    ++arm;
  int before = arm < s.joint_count() ? s.subtree_end(arm) : -1;
#endif
  ASSERT_GE(arm, 0);
  ASSERT_LT(arm, s.joint_count());
  locals[arm].rotation[0] = 0.7071f;  // bend the arm
  locals[arm].rotation[3] = 0.7071f;
  Mat4 sentinel;
  sentinel.m[0] = 42;
  ASSERT_GE(before, 0);
  ASSERT_TRUE(before < arm || before >= s.subtree_end(arm));
  partial[before] = sentinel;  // outside the sub-tree: must stay untouched
  ASSERT_TRUE((LocalToModelJob{&s, locals, partial, nullptr, arm}.run()));
  std::vector<Mat4> expected(s.joint_count());
  ASSERT_TRUE((LocalToModelJob{&s, locals, expected}.run()));
  for (int j = arm; j < s.subtree_end(arm); ++j)
    for (int e = 0; e < 16; ++e) EXPECT_NEAR(partial[j].m[e], expected[j].m[e], 1e-5f);
  EXPECT_EQ(partial[before].m[0], 42.f);
  EXPECT_GT(s.subtree_end(arm) - arm, 3);
}

TEST(RuntimeJobs, ValidateRejectsMalformedInputAndRunWritesNothing) {
  auto asset = sample_asset({Clip::Layout::kKeyed, 0});
  ASSERT_TRUE(asset) << asset.error();
  const int n = asset->skeleton.joint_count();
  std::vector<JointPose> locals(n), too_few(n - 1);
  JointPose sentinel;
  sentinel.translation[0] = 99;
  std::fill(locals.begin(), locals.end(), sentinel);
  SamplingCache cache;
  const Clip* clip = &asset->clips[0];
  EXPECT_FALSE((SampleJob{clip, std::nanf(""), &cache, locals}.run()));  // NaN time
  EXPECT_FALSE((SampleJob{clip, 0.5f, &cache, too_few}.run()));          // output too small
  EXPECT_FALSE((SampleJob{clip, 0.5f, nullptr, locals}.run()));          // keyed clip without cache
  EXPECT_FALSE((SampleJob{nullptr, 0.5f, &cache, locals}.run()));        // no clip
  EXPECT_EQ(locals[0].translation[0], 99.f) << "a failed run wrote output";

  std::vector<Mat4> model(n), short_model(n - 1);
  EXPECT_FALSE((LocalToModelJob{&asset->skeleton, locals, short_model}.run()));
  EXPECT_FALSE((LocalToModelJob{&asset->skeleton, too_few, model}.run()));
  EXPECT_FALSE((LocalToModelJob{nullptr, locals, model}.run()));
  EXPECT_FALSE((LocalToModelJob{&asset->skeleton, locals, model, nullptr, n}.run()));  // `from` out of range

  const SkinnedMesh& mesh = asset->meshes[1];
  std::vector<Mat4> palette(mesh.inverse_binds().size());
  std::vector<uint16_t> bad_remap(mesh.joint_remap().begin(), mesh.joint_remap().end());
  bad_remap[0] = static_cast<uint16_t>(n);  // past the model matrices
  EXPECT_FALSE((PaletteJob{model, mesh.inverse_binds(), bad_remap, palette, {}}.run()));
  EXPECT_FALSE((PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), {}, {}}.run()));  // no output

  std::vector<float> out(mesh.positions().size());
  SkinningJob skin;
  skin.vertex_count = mesh.vertex_count();
  skin.influences = 5;  // more than 4
  skin.joint_indices = mesh.joint_indices();
  skin.joint_weights = mesh.joint_weights();
  skin.palette = palette;
  skin.palette_slots = palette.size();
  skin.in_positions = mesh.positions();
  skin.out_positions = out;
  EXPECT_FALSE(skin.run());
  skin.influences = mesh.influences();
  skin.palette = std::span<const Mat4>(palette.data(), 1);  // indices past the palette
  EXPECT_FALSE(skin.run());
  skin.palette = palette;
  std::vector<float> out_normals(mesh.positions().size());
  skin.out_normals = out_normals;  // normals out, nothing to read them from
  EXPECT_FALSE(skin.run());
  skin.out_normals = {};
  skin.joint_weights = mesh.joint_weights().first(3);  // too short
  EXPECT_FALSE(skin.run());
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == 0; }))
      << "a failed run wrote output";

  // A skeleton whose joints are not in depth-first order is refused when built.
  RawSkeleton raw;
  raw.joints.resize(4);
  raw.joints[0].parent = -1;
  raw.joints[1].parent = 0;
  raw.joints[2].parent = -1;
  raw.joints[3].parent = 1;  // child of joint 1 after another root: sub-tree of 1 not contiguous
  EXPECT_FALSE(Skeleton::build(raw));
}

}  // namespace
}  // namespace ossa::test

namespace ossa::test {
namespace {
// The one-pass crossfade sampler against two SampleJobs and a BlendJob, on the sample's clips, every SIMD
// level: joint positions agree within 1 mm on a 2.5 m character (the one-pass sampler normalises rotations
// once).
TEST(RuntimeJobs, CrossfadeSampleJobMatchesTwoSamplesAndABlend) {
  auto asset = sample_asset();
  ASSERT_TRUE(asset) << asset.error();
  const int n = asset->skeleton.joint_count();
  std::vector<JointPose> a(n), b(n), two_pass(n), one_pass(n);
  std::vector<Mat4> m1(n), m2(n);
  double worst = 0;
  for (SimdLevel level : {SimdLevel::kScalar, best_simd_level()}) {
    set_simd_level(level);
    for (float w : {0.f, 0.25f, 0.5f, 0.9f, 1.f}) {
      const Clip& walk = asset->clips[2];
      const Clip& wave = asset->clips[3];
      float ta = walk.duration() * 0.37f, tb = wave.duration() * 0.61f;
      ASSERT_TRUE((SampleJob{&walk, ta, nullptr, a}.run()));
      ASSERT_TRUE((SampleJob{&wave, tb, nullptr, b}.run()));
      BlendLayer layers[2] = {{a, 1 - w, {}}, {b, w, {}}};
      ASSERT_TRUE((BlendJob{layers, {}, asset->skeleton.rest_pose(), two_pass}.run()));
      ASSERT_TRUE((CrossfadeSampleJob{&walk, ta, &wave, tb, w, one_pass}.run()));
      LocalToModelJob{&asset->skeleton, two_pass, m1}.run();
      LocalToModelJob{&asset->skeleton, one_pass, m2}.run();
      for (int j = 0; j < n; ++j)
        worst = std::max<double>(worst, length(m1[j].translation() - m2[j].translation()));
    }
  }
  set_simd_level(best_simd_level());
  std::printf("  worst joint difference: %.3g m\n", worst);
  EXPECT_LT(worst, 1e-3);
  std::vector<JointPose> out(n);
  SamplingCache cache;
  auto keyed = sample_asset({Clip::Layout::kKeyed, 0});
  ASSERT_TRUE(keyed) << keyed.error();
  EXPECT_FALSE((CrossfadeSampleJob{&keyed->clips[0], 0, &asset->clips[1], 0, 0.5f, out}.run()));  // keyed: no
}
}  // namespace
}  // namespace ossa::test

namespace ossa::test {
namespace {
// A file that claims a clip of days must not make the builder allocate gigabytes (found by fuzz_import).
TEST(RuntimeJobs, AbsurdClipLengthsAreRefusedNotAllocated) {
  RawSkeleton raw;
  raw.joints.resize(2);
  raw.joints[1].parent = 0;
  auto skeleton = Skeleton::build(raw);
  ASSERT_TRUE(skeleton);
  RawClip clip;
  clip.name = "Forever";
  clip.duration = 1e6f;  // eleven days
  RawTrack track;
  track.joint = 1;
  track.rotation_times = {0, 1e6f};
  track.rotations = {Quat{}, quat_from_axis_angle({0, 1, 0}, 1)};
  clip.tracks.push_back(track);
  auto fixed = Clip::build_fixed_rate(clip, *skeleton);
  ASSERT_FALSE(fixed);
  EXPECT_NE(fixed.error().find("too much to resample"), std::string::npos) << fixed.error();
  auto keyed = Clip::build_keyed(clip, *skeleton);  // the exact keys cost nothing
  ASSERT_TRUE(keyed) << keyed.error();
}
}  // namespace
}  // namespace ossa::test
