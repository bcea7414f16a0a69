// The SIMD kernels (SSE2, AVX2 + FMA, NEON: whichever this machine runs) against the scalar path, on a
// synthetic character everywhere and on the bundled sample where the importer is built: every job within
// float rounding, compressed clips decoded bit for bit. Needs ossa::runtime only, so the aarch64 cross build
// runs it under qemu with the NEON kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/offline/compression.h"
#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/skinning_job.h"
#include "synthetic_character.h"

#include "../src/runtime/kernels/kernels.h"

#ifdef OSSA_HAS_IMPORT
#include "ossa/import/import.h"
#include "test_paths.h"
#endif

namespace ossa::test {
namespace {

// Every SIMD level this machine runs (never empty on x86-64 and AArch64: there is always a vector path).
std::vector<SimdLevel> simd_levels() {
  std::vector<SimdLevel> levels;
  for (SimdLevel level : {SimdLevel::kSse2, SimdLevel::kAvx2, SimdLevel::kNeon}) {
    set_simd_level(level);
    if (simd_level() == level) levels.push_back(level);
  }
  set_simd_level(best_simd_level());
  return levels;
}

struct NamedAsset {
  std::string name;
  CharacterAsset asset;
  int mesh;  // the mesh with the most streams
};

// The characters the comparisons run on: two synthetic ones (33 joints, and 6: a block of four plus a tail
// of two), and the bundled sample where the importer is built.
std::vector<NamedAsset> characters() {
  std::vector<NamedAsset> out;
  out.push_back({"synthetic 33", synthetic_character(33, 1), 0});
  out.push_back({"synthetic 6", synthetic_character(6, 2), 0});
#ifdef OSSA_HAS_IMPORT
  auto scene = import_file(std::string(build::source_dir()) + "/assets/sample/ossa_sample.fbx");
  EXPECT_TRUE(scene) << scene.error();
  if (scene) {
    auto asset = CharacterAsset::build(*scene);
    EXPECT_TRUE(asset) << asset.error();
    if (asset) out.push_back({"ossa_sample.fbx", std::move(asset).value(), 1});  // Body: normals, tangents
  }
#endif
  return out;
}

TEST(RuntimeJobs, ThisMachineHasAVectorPath) {
#if defined(__x86_64__) || defined(__aarch64__)
  const std::vector<SimdLevel> levels = simd_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.back(), best_simd_level());
#if defined(__aarch64__)
  EXPECT_EQ(best_simd_level(), SimdLevel::kNeon);
  EXPECT_STREQ(to_string(SimdLevel::kNeon), "neon");
#endif
#else
  GTEST_SKIP() << "no SIMD kernels for this architecture";
#endif
  // A level this machine lacks selects the best one (SSE2 on AArch64, NEON on x86-64).
  for (SimdLevel level : {SimdLevel::kSse2, SimdLevel::kAvx2, SimdLevel::kNeon}) {
    set_simd_level(level);
    EXPECT_TRUE(simd_level() == level || simd_level() == best_simd_level()) << to_string(level);
  }
  set_simd_level(SimdLevel::kScalar);
  EXPECT_EQ(simd_level(), SimdLevel::kScalar);
  set_simd_level(best_simd_level());
}

// Every SIMD level gives the scalar result within float rounding, for all jobs and all stream combinations.
TEST(RuntimeJobs, SimdPathsAgreeWithScalar) {
  for (const NamedAsset& c : characters()) {
    const CharacterAsset* asset = &c.asset;
    const int joints = asset->skeleton.joint_count();
    const SkinnedMesh& mesh = asset->meshes[c.mesh];
    ASSERT_FALSE(mesh.tangents().empty());
    struct Output {
      std::vector<JointPose> locals, blended, crossfaded;
      std::vector<Mat4> model, palette;
      std::vector<float> positions, normals, tangents;
    };
    auto run_all = [&](SimdLevel level) {
      set_simd_level(level);
      Output o;
      o.locals.resize(joints);
      o.blended.resize(joints);
      o.crossfaded.resize(joints);
      o.model.resize(joints);
      o.palette.resize(mesh.inverse_binds().size());
      o.positions.resize(mesh.positions().size());
      o.normals.resize(mesh.normals().size());
      o.tangents.resize(mesh.tangents().size());
      EXPECT_TRUE((SampleJob{&asset->clips[2], 0.37f, nullptr, o.locals}.run()));
      // Two clips blended (shortest-path rotations) and two crossfaded in one pass.
      std::vector<JointPose> other(joints);
      EXPECT_TRUE((SampleJob{&asset->clips[0], 0.61f, nullptr, other}.run()));
      const BlendLayer layers[] = {{o.locals, 0.7f, {}}, {other, 0.3f, {}}};
      EXPECT_TRUE((BlendJob{layers, {}, asset->skeleton.rest_pose(), o.blended}.run()));
      EXPECT_TRUE(
          (CrossfadeSampleJob{&asset->clips[2], 0.37f, &asset->clips[0], 0.61f, 0.4f, o.crossfaded}.run()));
      Transform root_transform;
      root_transform.translation = {1, 2, 3};
      root_transform.rotation = quat_from_axis_angle({0, 1, 0}, 0.5f);
      Mat4 root = root_transform.to_matrix();
      EXPECT_TRUE((LocalToModelJob{&asset->skeleton, o.locals, o.model, &root}.run()));
      EXPECT_TRUE((PaletteJob{o.model, mesh.inverse_binds(), mesh.joint_remap(), o.palette, {}}.run()));
      SkinningJob skin;
      skin.vertex_count = mesh.vertex_count();
      skin.influences = mesh.influences();
      skin.joint_indices = mesh.joint_indices();
      skin.joint_weights = mesh.joint_weights();
      skin.palette = o.palette;
      skin.palette_slots = o.palette.size();
      skin.in_positions = mesh.positions();
      skin.in_normals = mesh.normals();
      skin.in_tangents = mesh.tangents();
      skin.out_positions = o.positions;
      skin.out_normals = o.normals;
      skin.out_tangents = o.tangents;
      EXPECT_TRUE(skin.run());
      return o;
    };
    const Output scalar = run_all(SimdLevel::kScalar);
    for (SimdLevel level : simd_levels()) {
      const Output simd = run_all(level);
      const std::string where = c.name + " at " + to_string(level);
      for (int j = 0; j < joints; ++j) {
        for (int i = 0; i < 4; ++i) {
          EXPECT_NEAR(simd.locals[j].rotation[i], scalar.locals[j].rotation[i], 1e-6f) << where;
          EXPECT_NEAR(simd.blended[j].rotation[i], scalar.blended[j].rotation[i], 1e-6f) << where;
          EXPECT_NEAR(simd.crossfaded[j].rotation[i], scalar.crossfaded[j].rotation[i], 1e-6f) << where;
        }
        for (int i = 0; i < 3; ++i) {
          EXPECT_NEAR(simd.blended[j].translation[i], scalar.blended[j].translation[i], 1e-6f) << where;
          EXPECT_NEAR(simd.crossfaded[j].scale[i], scalar.crossfaded[j].scale[i], 1e-6f) << where;
        }
        float magnitude = 1;  // float rounding is relative to the matrix's largest element
        for (float v : scalar.model[j].m) magnitude = std::max(magnitude, std::fabs(v));
        for (int e = 0; e < 16; ++e)
          EXPECT_NEAR(simd.model[j].m[e], scalar.model[j].m[e], 2e-6f * magnitude) << where;
      }
      for (size_t k = 0; k < scalar.palette.size(); ++k)
        for (int e = 0; e < 16; ++e)
          EXPECT_NEAR(simd.palette[k].m[e], scalar.palette[k].m[e],
                      1e-5f * std::max(1.f, std::fabs(scalar.palette[k].m[e])))
              << where;
      for (size_t i = 0; i < scalar.positions.size(); ++i)
        EXPECT_NEAR(simd.positions[i], scalar.positions[i],
                    1e-5f * std::max(1.f, std::fabs(scalar.positions[i])))
            << where;
      for (size_t i = 0; i < scalar.normals.size(); ++i)
        EXPECT_NEAR(simd.normals[i], scalar.normals[i], 1e-5f) << where;
      for (size_t i = 0; i < scalar.tangents.size(); ++i)
        EXPECT_NEAR(simd.tangents[i], scalar.tangents[i], 1e-5f) << where;
    }
  }
  set_simd_level(best_simd_level());
}

// Skinning at every influence count (1-4) and every stream combination, against the scalar path; the
// outputs' padding is left alone.
TEST(RuntimeJobs, SimdSkinningAgreesWithScalarForEveryInfluenceCountAndStream) {
  const CharacterAsset asset = synthetic_character(33, 3);
  const SkinnedMesh& mesh = asset.meshes[0];
  std::vector<Mat4> model(asset.skeleton.joint_count()), palette(mesh.inverse_binds().size());
  std::vector<JointPose> locals(asset.skeleton.joint_count());
  ASSERT_TRUE((SampleJob{&asset.clips[1], 0.8f, nullptr, locals}.run()));
  ASSERT_TRUE((LocalToModelJob{&asset.skeleton, locals, model}.run()));
  ASSERT_TRUE((PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run()));
  const int n = mesh.vertex_count();
  for (int k = 1; k <= 4; ++k) {
    // The mesh's first k influences, renormalised.
    std::vector<uint16_t> indices;
    std::vector<float> weights;
    for (int v = 0; v < n; ++v) {
      float sum = 0;
      for (int i = 0; i < k; ++i) sum += mesh.joint_weights()[v * 4 + i];
      for (int i = 0; i < k; ++i) {
        indices.push_back(mesh.joint_indices()[v * 4 + i]);
        weights.push_back(mesh.joint_weights()[v * 4 + i] / sum);
      }
    }
    for (int streams = 0; streams < 4; ++streams) {
      const bool normals = streams & 1, tangents = streams & 2;
      auto run = [&](SimdLevel level) {
        set_simd_level(level);
        std::vector<float> out(static_cast<size_t>(n) * 11,
                               -7.f);  // positions 3, normals 4 (padded), tangents 4
        SkinningJob job;
        job.vertex_count = n;
        job.influences = k;
        job.joint_indices = indices;
        job.joint_weights = weights;
        job.palette = palette;
        job.palette_slots = palette.size();
        job.in_positions = mesh.positions();
        job.out_positions = std::span<float>(out).first(3 * static_cast<size_t>(n));
        if (normals) {
          job.in_normals = mesh.normals();
          job.out_normals = strided_span(out.data() + 3 * n, 16, n, 3);
          job.out_normals_stride = 16;
        }
        if (tangents) {
          job.in_tangents = mesh.tangents();
          job.out_tangents = std::span<float>(out).subspan(7 * static_cast<size_t>(n));
        }
        EXPECT_TRUE(job.run());
        return out;
      };
      const std::vector<float> scalar = run(SimdLevel::kScalar);
      for (SimdLevel level : simd_levels()) {
        const std::vector<float> simd = run(level);
        for (size_t i = 0; i < scalar.size(); ++i) {
          if (scalar[i] == -7.f) {  // not written by the scalar path: the SIMD path must not write it either
            EXPECT_EQ(simd[i], -7.f) << "k " << k << " streams " << streams << " at " << to_string(level);
            continue;
          }
          EXPECT_NEAR(simd[i], scalar[i], 1e-5f * std::max(1.f, std::fabs(scalar[i])))
              << "k " << k << " streams " << streams << " at " << to_string(level) << " index " << i;
        }
      }
    }
  }
  set_simd_level(best_simd_level());
}

// Blending two poses whose rotations lie on opposite hemispheres (q and -q are one rotation) takes the short
// way, at every SIMD level and on both blend paths (two unmasked layers: the SIMD kernel; masked layers: the
// general loop). Truth, by hand: blending the rotation by angle a with the one by angle b about the same
// axis, at weight 0.25, gives the rotation by a + 0.25 (b - a) (to nlerp's accuracy on 0.6 rad: 2e-3).
TEST(RuntimeJobs, BlendingTakesTheShortArcAcrossHemispheresAtEveryLevel) {
  constexpr int kJoints = 9;  // two SIMD blocks of four and a tail
  const Vec3 axis = normalize(Vec3{0.3f, 1, -0.2f});
  std::vector<JointPose> a(kJoints), b(kJoints), rest(kJoints), out(kJoints);
  for (int j = 0; j < kJoints; ++j) {
    const Quat qa = quat_from_axis_angle(axis, 0.2f * j), qb = quat_from_axis_angle(axis, 0.2f * j + 0.6f);
    const Quat stored = j % 2 ? Quat{-qb.x, -qb.y, -qb.z, -qb.w} : qb;  // every other on the far hemisphere
    std::memcpy(a[j].rotation, &qa, 16);
    std::memcpy(b[j].rotation, &stored, 16);
  }
  const std::vector<float> full(kJoints, 1.f);
  std::vector<SimdLevel> levels = simd_levels();
  levels.insert(levels.begin(), SimdLevel::kScalar);
  for (SimdLevel level : levels) {
    set_simd_level(level);
    for (bool masked : {false, true}) {
      const BlendLayer layers[2] = {
          {a, 0.75f, masked ? std::span<const float>(full) : std::span<const float>()},
          {b, 0.25f, masked ? std::span<const float>(full) : std::span<const float>()}};
      ASSERT_TRUE((BlendJob{layers, {}, rest, out}.run()));
      for (int j = 0; j < kJoints; ++j) {
        SCOPED_TRACE(testing::Message() << to_string(level) << (masked ? ", masked" : "") << ", joint " << j);
        Quat q{out[j].rotation[0], out[j].rotation[1], out[j].rotation[2], out[j].rotation[3]};
        const Quat expected = quat_from_axis_angle(axis, 0.2f * j + 0.25f * 0.6f);
        if (dot(q, expected) < 0) q = {-q.x, -q.y, -q.z, -q.w};
        EXPECT_NEAR(q.x, expected.x, 2e-3f);
        EXPECT_NEAR(q.y, expected.y, 2e-3f);
        EXPECT_NEAR(q.z, expected.z, 2e-3f);
        EXPECT_NEAR(q.w, expected.w, 2e-3f);
      }
    }
  }
  set_simd_level(best_simd_level());
}

// Compressed clips decode to the same bits at every SIMD level: the compressor measured its bound on the
// decoded values, so a machine with another instruction set must not get different ones.
TEST(RuntimeJobs, CompressedClipsDecodeBitIdenticallyAtEverySimdLevel) {
  for (const NamedAsset& c : characters()) {
    const CharacterAsset* asset = &c.asset;
    int frames_checked = 0;
    for (const Clip& clip : asset->clips) {
      auto compressed = compress_clip(clip, asset->skeleton);
      ASSERT_TRUE(compressed) << compressed.error();
      auto decode_all = [&](SimdLevel level) {
        set_simd_level(level);
        std::vector<JointPose> poses(static_cast<size_t>(compressed->frame_count()) *
                                     compressed->joint_count());
        for (int f = 0; f < compressed->frame_count(); ++f)
          compressed->decode_frame(f, poses.data() + static_cast<size_t>(f) * compressed->joint_count());
        return poses;
      };
      const auto scalar = decode_all(SimdLevel::kScalar);
      for (SimdLevel level : simd_levels()) {
        const auto simd = decode_all(level);
        ASSERT_EQ(simd.size(), scalar.size());
        EXPECT_EQ(std::memcmp(simd.data(), scalar.data(), simd.size() * sizeof(JointPose)), 0)
            << c.name << " " << clip.name() << " at " << to_string(level);
      }
      frames_checked += compressed->frame_count();
    }
    EXPECT_GT(frames_checked, 100) << c.name;
  }
  set_simd_level(best_simd_level());
}

// Two frames decoded together (the sampler's pair when both are new) are the bits of each decoded alone, and
// their cosines rotation_dot's bits for every joint whose rotation is animated (no other is written), at
// every level, on the compressed clips of the test characters; frames of different segments are refused.
TEST(RuntimeJobs, DecodedFramePairsAreTheBitsOfSingleDecodesAtEveryLevel) {
  int pairs = 0, refused = 0;
  for (const NamedAsset& c : characters()) {
    for (const Clip& clip : c.asset.clips) {
      auto compressed = compress_clip(clip, c.asset.skeleton);
      ASSERT_TRUE(compressed) << compressed.error();
      const int joints = compressed->joint_count();
      std::vector<uint8_t> animated(joints, 0);
      for (const Clip::QuantizedChannel& channel : compressed->quantized_channels())
        if (channel.kind == 1) animated[channel.joint] = 1;
      const std::vector<JointPose> still(compressed->constant_pose().begin(),
                                         compressed->constant_pose().end());
      for (SimdLevel level : simd_levels()) {
        set_simd_level(level);
        for (int f = 0; f + 1 < compressed->frame_count(); ++f) {
          std::vector<JointPose> first = still, second = still, first_alone = still, second_alone = still;
          std::vector<float> cosines(joints, -7.f);
          const bool together =
              compressed->decode_animated_pair(f, f + 1, first.data(), second.data(), cosines.data());
          EXPECT_EQ(together, f / compressed->segment_frames() == (f + 1) / compressed->segment_frames());
          if (!together) {
            ++refused;
            EXPECT_EQ(std::memcmp(first.data(), still.data(), still.size() * sizeof(JointPose)), 0);
            continue;
          }
          ++pairs;
          compressed->decode_animated(f, first_alone.data());
          compressed->decode_animated(f + 1, second_alone.data());
          ASSERT_EQ(std::memcmp(first.data(), first_alone.data(), still.size() * sizeof(JointPose)), 0)
              << c.name << " " << clip.name() << " at " << to_string(level) << ", frame " << f;
          ASSERT_EQ(std::memcmp(second.data(), second_alone.data(), still.size() * sizeof(JointPose)), 0)
              << c.name << " " << clip.name() << " at " << to_string(level) << ", frame " << f + 1;
          for (int j = 0; j < joints; ++j) {
            const float expected = animated[j] ? rotation_dot(first_alone[j], second_alone[j]) : -7.f;
            ASSERT_EQ(std::memcmp(&cosines[j], &expected, sizeof(float)), 0)
                << c.name << " " << clip.name() << " at " << to_string(level) << ", frame " << f << ", joint "
                << j;
          }
        }
      }
    }
  }
  EXPECT_GT(pairs, 100);
  EXPECT_GT(refused, 0) << "some clip spans segments";
  set_simd_level(best_simd_level());
}

// The cosines of two decoded frames (what compressed sampling slerps with) are rotation_dot's bits at every
// level, for any joint list: full blocks of four with a tail, joints out of order, one joint and none.
TEST(RuntimeJobs, DecodedFrameCosinesAreRotationDotBitsAtEveryLevel) {
  std::mt19937 rng(11);
  std::normal_distribution<float> n;
  std::vector<JointPose> a(23), b(23);
  for (size_t j = 0; j < a.size(); ++j) {
    float qa[4], qb[4], la = 0, lb = 0;
    for (int i = 0; i < 4; ++i) qa[i] = n(rng), qb[i] = n(rng), la += qa[i] * qa[i], lb += qb[i] * qb[i];
    for (int i = 0; i < 4; ++i)
      a[j].rotation[i] = qa[i] / std::sqrt(la), b[j].rotation[i] = qb[i] / std::sqrt(lb);
  }
  const std::vector<std::vector<uint32_t>> lists = {
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22},
      {22, 3, 7, 8, 15, 0, 1},
      {5},
      {}};
  for (SimdLevel level : simd_levels()) {
    set_simd_level(level);
    for (const auto& joints : lists) {
      std::vector<float> out(a.size(), -7.f);
      detail::active_kernels().rotation_cosines(a.data(), b.data(), joints.data(),
                                                static_cast<int>(joints.size()), out.data());
      std::vector<float> expected(a.size(), -7.f);
      for (uint32_t j : joints) expected[j] = rotation_dot(a[j], b[j]);
      EXPECT_EQ(std::memcmp(out.data(), expected.data(), out.size() * sizeof(float)), 0)
          << to_string(level) << ", " << joints.size() << " joints";
    }
  }
  set_simd_level(best_simd_level());
}

// A compressed clip turning through 180 degrees: its decoded frames lie on opposite hemispheres there (the
// decoder rebuilds w >= 0), and sampling between them must still take the short way, at every SIMD level.
// Truth: the fixed-rate clip's rotation at the same times (its frames share a hemisphere), within the
// compression bound's reach (0.1 mm at a 3 cm shell: 3.4e-3 rad).
TEST(RuntimeJobs, CompressedSamplingTakesTheShortArcThroughHalfTurnsAtEveryLevel) {
  RawSkeleton skeleton;
  skeleton.joints.resize(2);
  skeleton.joints[0].name = "root";
  skeleton.joints[1].name = "arm";
  skeleton.joints[1].parent = 0;
  skeleton.joints[1].rest.translation = {0, 0.5f, 0};
  RawClip raw;
  raw.name = "half_turn";
  raw.duration = 1;
  RawTrack track;
  track.joint = 1;
  const Vec3 axis = normalize(Vec3{0.2f, 0.1f, 1});
  for (int k = 0; k <= 30; ++k) {  // 150 to 210 degrees
    track.rotation_times.push_back(k / 30.f);
    track.rotations.push_back(quat_from_axis_angle(axis, (150.f + 2.f * k) * 3.14159265f / 180));
  }
  raw.tracks.push_back(track);
  auto built = Skeleton::build(skeleton);
  ASSERT_TRUE(built) << built.error();
  auto fixed = Clip::build_fixed_rate(raw, *built, 30);
  ASSERT_TRUE(fixed) << fixed.error();
  auto compressed = compress_clip(*fixed, *built);
  ASSERT_TRUE(compressed) << compressed.error();
  std::vector<SimdLevel> levels = simd_levels();
  levels.insert(levels.begin(), SimdLevel::kScalar);
  for (SimdLevel level : levels) {
    set_simd_level(level);
    SamplingCache cache;
    std::vector<JointPose> want(2), got(2);
    float worst = 0;
    for (float t = 0; t <= 1; t += 1.f / 97) {  // between frames, forward
      ASSERT_TRUE((SampleJob{&*fixed, t, nullptr, want}.run()));
      ASSERT_TRUE((SampleJob{&*compressed, t, &cache, got}.run()));
      float d = 0;
      for (int i = 0; i < 4; ++i) d += want[1].rotation[i] * got[1].rotation[i];
      worst = std::max(worst, 2 * std::acos(std::min(std::fabs(d), 1.f)));
    }
    EXPECT_LT(worst, 3.4e-3f) << to_string(level) << ": radians off the fixed-rate clip";
  }
  set_simd_level(best_simd_level());
}

TEST(RuntimeJobs, SkinningHandlesInterleavedStridesAndInPlace) {
  // One vertex, two influences, interleaved position+normal (24-byte stride), skinned in place.
  Mat4 palette[2] = {translation_matrix({1, 0, 0}),
                     rotation_matrix(quat_from_axis_angle({0, 0, 1}, 1.5707964f))};
  uint16_t joints[2] = {0, 1};
  float weights[2] = {0.5f, 0.5f};
  for (SimdLevel level : {SimdLevel::kScalar, best_simd_level()}) {
    set_simd_level(level);
    float vertex[2][6] = {{1, 0, 0, 1, 0, 0}, {7, 7, 7, 7, 7, 7}};
    SkinningJob job;
    job.vertex_count = 1;
    job.influences = 2;
    job.joint_indices = joints;
    job.joint_weights = weights;
    job.palette = palette;
    job.palette_slots = 2;
    job.out_positions = strided_span(&vertex[0][0], 24, 1, 3);
    job.out_normals = strided_span(&vertex[0][3], 24, 1, 3);
    job.in_positions = job.out_positions;
    job.in_normals = job.out_normals;
    job.in_positions_stride = job.out_positions_stride = job.in_normals_stride = job.out_normals_stride = 24;
    ASSERT_TRUE(job.run());
    // 0.5 * (2, 0, 0) + 0.5 * (0, 1, 0); normal: 0.5 * (1, 0, 0) + 0.5 * (0, 1, 0).
    EXPECT_NEAR(vertex[0][0], 1.0f, 1e-6f);
    EXPECT_NEAR(vertex[0][1], 0.5f, 1e-6f);
    EXPECT_NEAR(vertex[0][3], 0.5f, 1e-6f);
    EXPECT_NEAR(vertex[0][4], 0.5f, 1e-6f);
    EXPECT_EQ(vertex[1][0], 7.f) << "wrote past the vertex";
  }
  set_simd_level(best_simd_level());
}

// The polynomial slerp weights against sin(t angle) / sin(angle) in double precision, over the whole domain
// (rotations up to a half turn apart in quaternion space, i.e. a full turn) and at the ends exactly.
// Fixed-rate and compressed clips slerp between their frames, whatever the angle between them: steps of a
// few degrees (the series' near range), up to 91 degrees (its middle range) and beyond (sines), frames on
// either hemisphere, the crossfade of two such clips too; at every SIMD level, against the frames slerped in
// double precision (the crossfade: the two slerps nlerped in double precision).
TEST(RuntimeJobs, FixedRateSamplingSlerpsBetweenFramesAtEveryLevel) {
  constexpr int kJoints = 11;  // two SIMD blocks of four and a tail of three
  const double step_degrees[kJoints] = {0, 3, 20, 36, 37, 60, 91, 92, 130, 170, 179};
  std::vector<JointPose> frames(2 * kJoints);
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (int j = 0; j < kJoints; ++j) {
    const Vec3 axis_a = normalize(Vec3{normal(rng), normal(rng), normal(rng)});
    const Vec3 axis_b = normalize(Vec3{normal(rng), normal(rng), normal(rng)});
    const Quat qa = quat_from_axis_angle(axis_a, 0.7f * static_cast<float>(j));
    Quat qb = normalize(
        quat_from_axis_angle(axis_b, static_cast<float>(step_degrees[j] * 3.14159265358979 / 180)) * qa);
    if (j % 3 == 1) qb = {-qb.x, -qb.y, -qb.z, -qb.w};  // the other hemisphere: the same rotation
    std::memcpy(frames[j].rotation, &qa, 16);
    std::memcpy(frames[kJoints + j].rotation, &qb, 16);
    for (int i = 0; i < 3; ++i) {
      frames[j].translation[i] = normal(rng), frames[kJoints + j].translation[i] = normal(rng);
      frames[j].scale[i] = 1, frames[kJoints + j].scale[i] = 1.5f;
    }
  }
  auto clip = Clip::from_frames("steps", 1, 1, kJoints, frames);
  ASSERT_TRUE(clip) << clip.error();
  // The exact slerp of joint j from frame 0 to frame 1 at t, short arc, in double precision.
  auto slerp_exact = [&](int j, double t, double out[4]) {
    const float* a = frames[j].rotation;
    const float* b = frames[kJoints + j].rotation;
    double d = 0;
    for (int i = 0; i < 4; ++i) d += double{a[i]} * b[i];
    const double sign = d < 0 ? -1 : 1, angle = std::acos(std::min(1.0, std::fabs(d)));
    const double wa = angle < 1e-12 ? 1 - t : std::sin((1 - t) * angle) / std::sin(angle);
    const double wb = angle < 1e-12 ? t : std::sin(t * angle) / std::sin(angle);
    for (int i = 0; i < 4; ++i) out[i] = wa * a[i] + sign * wb * b[i];
  };
  auto rotation_error = [](const float* q, const double* expected) {  // radians, sign-free
    double d = 0, chord = 0;  // |q - e| = 2 sin(angle / 4) for unit quaternions (acos of a dot loses digits)
    for (int i = 0; i < 4; ++i) d += q[i] * expected[i];
    for (int i = 0; i < 4; ++i) chord += std::pow(q[i] - (d < 0 ? -1 : 1) * expected[i], 2);
    return 4 * std::asin(std::min(1.0, std::sqrt(chord) / 2));
  };
  std::vector<SimdLevel> levels = simd_levels();
  levels.insert(levels.begin(), SimdLevel::kScalar);
  double worst = 0, worst_crossfade = 0, worst_length = 0;
  constexpr double kUnitLengthTolerance = 2.5e-7;
  std::vector<JointPose> out(kJoints), crossfade(kJoints);
  for (SimdLevel level : levels) {
    set_simd_level(level);
    for (double t : {0.0, 0.1, 0.25, 0.5, 0.77, 0.9, 1.0}) {
      const float time = static_cast<float>(t);
      ASSERT_TRUE((SampleJob{&*clip, time, nullptr, out}.run()));
      // Crossfade: the clip with itself at t and at 1 - t, weight 0.3.
      ASSERT_TRUE((CrossfadeSampleJob{&*clip, time, &*clip, 1 - time, 0.3f, crossfade}.run()));
      for (int j = 0; j < kJoints; ++j) {
        SCOPED_TRACE(testing::Message() << to_string(level) << ", t " << t << ", step " << step_degrees[j]);
        double expected[4], other[4], blended[4], sign = 0, norm = 0;
        slerp_exact(j, t, expected);
        const double error = rotation_error(out[j].rotation, expected);
        EXPECT_LE(error, 2e-6);
        worst = std::max(worst, error);
        // Unit length to a few float roundings (the weights are scaled so that the sum has length 1).
        double length2 = 0;
        for (float q : out[j].rotation) length2 += double{q} * q;
        EXPECT_LE(std::fabs(std::sqrt(length2) - 1), kUnitLengthTolerance);
        worst_length = std::max(worst_length, std::fabs(std::sqrt(length2) - 1));
        slerp_exact(j, 1 - static_cast<double>(1 - time), expected);
        slerp_exact(j, static_cast<double>(1 - time), other);
        for (int i = 0; i < 4; ++i) sign += expected[i] * other[i];
        for (int i = 0; i < 4; ++i)
          blended[i] = expected[i] + ((sign < 0 ? -1 : 1) * other[i] - expected[i]) * 0.3;
        for (int i = 0; i < 4; ++i) norm += blended[i] * blended[i];
        for (int i = 0; i < 4; ++i) blended[i] /= std::sqrt(norm);
        const double crossfade_error = rotation_error(crossfade[j].rotation, blended);
        EXPECT_LE(crossfade_error, 2e-6);
        worst_crossfade = std::max(worst_crossfade, crossfade_error);
        for (int i = 0; i < 3; ++i)
          EXPECT_NEAR(
              out[j].translation[i],
              frames[j].translation[i] + (frames[kJoints + j].translation[i] - frames[j].translation[i]) * t,
              1e-6);
      }
    }
  }
  std::printf(
      "  worst rotation error between frames: %.3g rad sampled, %.3g rad crossfaded; length 1 +- %.3g\n",
      worst, worst_crossfade, worst_length);
  set_simd_level(best_simd_level());
}

// The SIMD kernels work on blocks of four joints; a rig whose joint count is not a multiple of four ends in a
// block of one to three, and a clip whose moving joints are gathered ends in one too. For 1 to 9 joints
// (every third one still from 4 on, so some counts gather; every other joint's parent is not the joint before
// it), sampling, crossfading, local-to-model and the palette agree with the scalar path within float
// rounding: 1e-6 on unit quaternions, translations and scales, 1e-5 on matrix entries of about 1.
TEST(RuntimeJobs, EveryBlockTailAgreesWithScalar) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  std::uniform_real_distribution<float> uniform(0.5f, 2.f);
  for (int joints = 1; joints <= 9; ++joints) {
    RawSkeleton raw;
    for (int j = 0; j < joints; ++j) {
      RawJoint joint;
      joint.name = "joint" + std::to_string(j);
      joint.parent = j == 0 ? -1 : j % 2 ? j - 1 : std::max(0, j - 2);
      joint.rest.translation = {0, 0.5f, 0};
      raw.joints.push_back(joint);
    }
    auto skeleton = Skeleton::build(raw);
    ASSERT_TRUE(skeleton) << skeleton.error();
    std::vector<JointPose> frames(2 * joints);
    for (int j = 0; j < joints; ++j) {
      for (int f = 0; f < 2; ++f) {
        const bool still = joints >= 4 && j % 3 == 2;
        if (f == 1 && still) {
          frames[joints + j] = frames[j];
          continue;
        }
        const Quat q =
            quat_from_axis_angle(normalize(Vec3{normal(rng), normal(rng), normal(rng)}), normal(rng));
        JointPose& p = frames[static_cast<size_t>(f) * joints + j];
        std::memcpy(p.rotation, &q, 16);
        for (int i = 0; i < 3; ++i) p.translation[i] = normal(rng), p.scale[i] = uniform(rng);
      }
    }
    auto clip = Clip::from_frames("tail", 1, 1, joints, frames);
    ASSERT_TRUE(clip) << clip.error();
    struct Output {
      std::vector<JointPose> sampled, crossfaded;
      std::vector<Mat4> model, palette;
    };
    auto run_all = [&](SimdLevel level) {
      set_simd_level(level);
      Output o{std::vector<JointPose>(joints), std::vector<JointPose>(joints), std::vector<Mat4>(joints),
               std::vector<Mat4>(joints)};
      EXPECT_TRUE((SampleJob{&*clip, 0.3f, nullptr, o.sampled}.run()));
      EXPECT_TRUE((CrossfadeSampleJob{&*clip, 0.3f, &*clip, 0.8f, 0.4f, o.crossfaded}.run()));
      EXPECT_TRUE((LocalToModelJob{&*skeleton, o.sampled, o.model}.run()));
      EXPECT_TRUE((PaletteJob{o.model, skeleton->inverse_binds(), {}, o.palette, {}}.run()));
      return o;
    };
    const Output scalar = run_all(SimdLevel::kScalar);
    for (SimdLevel level : simd_levels()) {
      const Output simd = run_all(level);
      for (int j = 0; j < joints; ++j) {
        SCOPED_TRACE(testing::Message() << to_string(level) << ", " << joints << " joints, joint " << j);
        for (int i = 0; i < 4; ++i) {
          EXPECT_NEAR(simd.sampled[j].rotation[i], scalar.sampled[j].rotation[i], 1e-6f);
          EXPECT_NEAR(simd.crossfaded[j].rotation[i], scalar.crossfaded[j].rotation[i], 1e-6f);
        }
        for (int i = 0; i < 3; ++i) {
          EXPECT_NEAR(simd.sampled[j].translation[i], scalar.sampled[j].translation[i], 1e-6f);
          EXPECT_NEAR(simd.sampled[j].scale[i], scalar.sampled[j].scale[i], 1e-6f);
          EXPECT_NEAR(simd.crossfaded[j].translation[i], scalar.crossfaded[j].translation[i], 1e-6f);
        }
        for (int e = 0; e < 16; ++e) {
          EXPECT_NEAR(simd.model[j].m[e], scalar.model[j].m[e],
                      1e-5f * std::max(1.f, std::fabs(scalar.model[j].m[e])));
          EXPECT_NEAR(simd.palette[j].m[e], scalar.palette[j].m[e],
                      1e-5f * std::max(1.f, std::fabs(scalar.palette[j].m[e])));
        }
      }
    }
  }
  set_simd_level(best_simd_level());
}

// Joints whose frames are all the same are copied from the clip's constant pose, bit for bit; the others are
// slerped and lerped between their frames as before: 12 joints of which 5 stand still (so the moving ones are
// gathered: two blocks of four would need contiguous joints), at every SIMD level, against the frames
// interpolated in double precision.
TEST(RuntimeJobs, FixedRateSamplingCopiesStillJointsAndInterpolatesTheOthers) {
  constexpr int kJoints = 12, kFrames = 3;
  const bool still[kJoints] = {true, false, false, true, false, true, false, false, true, true, false, false};
  std::vector<JointPose> frames(static_cast<size_t>(kFrames) * kJoints);
  std::mt19937 rng(21);
  std::normal_distribution<float> normal;
  for (int f = 0; f < kFrames; ++f)
    for (int j = 0; j < kJoints; ++j) {
      JointPose& p = frames[static_cast<size_t>(f) * kJoints + j];
      if (f > 0 && still[j]) {
        p = frames[j];
        continue;
      }
      const Quat q = quat_from_axis_angle(normalize(Vec3{normal(rng), normal(rng), normal(rng)}),
                                          0.3f * static_cast<float>(f) + 0.1f * static_cast<float>(j));
      std::memcpy(p.rotation, &q, 16);
      for (int i = 0; i < 3; ++i) p.translation[i] = normal(rng), p.scale[i] = 1 + 0.1f * normal(rng);
    }
  auto clip = Clip::from_frames("still and moving", 2, 1, kJoints, frames);
  ASSERT_TRUE(clip) << clip.error();
  std::vector<uint32_t> expected_moving;
  for (int j = 0; j < kJoints; ++j)
    if (!still[j]) expected_moving.push_back(static_cast<uint32_t>(j));
  EXPECT_EQ(std::vector<uint32_t>(clip->moving_joints().begin(), clip->moving_joints().end()),
            expected_moving);
  std::vector<SimdLevel> levels = simd_levels();
  levels.insert(levels.begin(), SimdLevel::kScalar);
  std::vector<JointPose> out(kJoints);
  for (SimdLevel level : levels) {
    set_simd_level(level);
    for (float t : {0.f, 0.3f, 1.f, 1.5f, 2.f}) {
      ASSERT_TRUE((SampleJob{&*clip, t, nullptr, out}.run()));
      const int f = std::min(static_cast<int>(t), kFrames - 2);
      const double u = t - static_cast<double>(f);
      for (int j = 0; j < kJoints; ++j) {
        SCOPED_TRACE(testing::Message() << to_string(level) << ", t " << t << ", joint " << j);
        if (still[j]) {
          EXPECT_EQ(std::memcmp(&out[j], &clip->frames()[j], sizeof(JointPose)), 0);  // as the clip keeps it
          continue;
        }
        const JointPose& a = frames[static_cast<size_t>(f) * kJoints + j];
        const JointPose& b = frames[static_cast<size_t>(f + 1) * kJoints + j];
        double d = 0;
        for (int i = 0; i < 4; ++i) d += double{a.rotation[i]} * b.rotation[i];
        const double sign = d < 0 ? -1 : 1, angle = std::acos(std::min(1.0, std::fabs(d)));
        const double wa = std::sin((1 - u) * angle) / std::sin(angle),
                     wb = std::sin(u * angle) / std::sin(angle);
        for (int i = 0; i < 4; ++i)
          EXPECT_NEAR(out[j].rotation[i], wa * a.rotation[i] + sign * wb * b.rotation[i], 1e-6);
        for (int i = 0; i < 3; ++i) {
          EXPECT_NEAR(out[j].translation[i], a.translation[i] + (b.translation[i] - a.translation[i]) * u,
                      1e-6);
          EXPECT_NEAR(out[j].scale[i], a.scale[i] + (b.scale[i] - a.scale[i]) * u, 1e-6);
        }
      }
    }
  }
  set_simd_level(best_simd_level());
}

TEST(KeyedSampling, SlerpWeightsAreWithinTheirBound) {
  double worst = 0, worst_near = 0;
  for (int a = 0; a <= 2000; ++a) {
    const double angle = 1.5707963267948966 * a / 2000;
    const float xm1 = static_cast<float>(std::cos(angle)) - 1;
    EXPECT_EQ(detail::slerp_weight(0, xm1), 0.f) << angle;
    EXPECT_EQ(detail::slerp_weight(1, xm1), 1.f) << angle;
    const double x = static_cast<double>(xm1) + 1, exact_angle = std::acos(x);
    for (int i = 0; i <= 200; ++i) {
      const float t = static_cast<float>(i) / 200;
      const double exact = exact_angle == 0 ? t : std::sin(t * exact_angle) / std::sin(exact_angle);
      const double error = std::fabs(detail::slerp_weight(t, xm1) - exact);
      worst = std::max(worst, error);
      if (-xm1 <= detail::kSlerpNear) worst_near = std::max(worst_near, error);
    }
  }
  std::printf("  worst slerp weight error %.3g (%.3g where 1 - cos <= %g)\n", worst, worst_near,
              detail::kSlerpNear);
  EXPECT_LE(worst, 2e-7);  // float rounding of the weight itself (~1.2e-7) dominates everywhere
  EXPECT_LE(worst_near, 2e-7);
}

// Keyed sampling through a per-instance cache, in every order of times (forward, backward, seeks, before the
// first key and after the last), at every SIMD level: the same as a fresh cache for each time, and within
// float rounding of the keys slerped and lerped in double precision. Channels share time tracks, have their
// own, or hold one key; rotations lie on either hemisphere and up to a half turn apart.
// Keys a denormal apart (a hostile or damaged file): the inverse of their span overflows, and t at the first
// key gave 0 * inf = NaN. Found by fuzz_ossa_loader
// (fuzz/regressions/ossa/keys_a_denormal_apart.ossa).
TEST(KeyedSampling, KeysADenormalApartSampleTheirFirstKey) {
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<uint32_t> first = {0, 3, 6, 9};
  const std::vector<float> times = {0, tiny, 1, 0, tiny, 1, 0, tiny, 1};
  const std::vector<float> values = {1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0,   // translation
                                     0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0,   // rotation
                                     1, 1, 1, 0, 2, 2, 2, 0, 3, 3, 3, 0};  // scale
  auto clip = Clip::from_keys("tiny span", 1.f, 1, first, times, values);
  ASSERT_TRUE(clip) << clip.error();
  SamplingCache cache;
  std::vector<JointPose> pose(1);
  for (float t : {0.f, tiny, 0.5f, 0.f}) {
    ASSERT_TRUE((SampleJob{&*clip, t, &cache, pose}.run()));
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isfinite(pose[0].translation[i]) && std::isfinite(pose[0].scale[i])) << t;
    }
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(std::isfinite(pose[0].rotation[i])) << t;
    }
    if (t == 0) {
      EXPECT_EQ(pose[0].translation[0], 1.f);
    }
  }
}

TEST(KeyedSampling, CachedSamplingFollowsTheKeysInAnyOrder) {
  constexpr int kJoints = 11;
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::vector<uint32_t> first;
  std::vector<float> times, values;
  std::vector<std::vector<float>> track_times = {
      {0, 0.1f, 0.25f, 0.4f, 0.5f, 0.9f, 1.f}, {0.05f, 0.3f, 0.31f, 0.7f}, {0.2f, 0.6f}};
  for (int c = 0; c < kJoints * 3; ++c) {
    first.push_back(static_cast<uint32_t>(times.size()));
    const int shape = c % 5;  // shared track, another shared track, one key, own times, shared track
    std::vector<float> own;
    if (shape == 3) {
      float t = 0.02f * static_cast<float>(c % 7);
      for (int k = 0; k < 3 + c % 4; ++k, t += 0.13f + 0.01f * static_cast<float>(k)) own.push_back(t);
    }
    const std::vector<float>& keys = shape == 2   ? std::vector<float>{0.f}
                                     : shape == 3 ? own
                                                  : track_times[shape == 1 ? 1 : (shape == 4 ? 2 : 0)];
    for (float t : keys) {
      times.push_back(t);
      float v[4] = {unit(rng), unit(rng), unit(rng), c % 3 == 1 ? unit(rng) : 0.f};
      if (c % 3 == 1) {
        const float n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
        for (float& e : v) e /= n;
      }
      values.insert(values.end(), v, v + 4);
    }
  }
  first.push_back(static_cast<uint32_t>(times.size()));
  auto clip = Clip::from_keys("mixed", 1.f, kJoints, first, times, values);
  ASSERT_TRUE(clip) << clip.error();
  EXPECT_EQ(clip->time_tracks().size(), 4u + kJoints * 3 / 5) << "tracks: single keys, 3 shared, own times";

  // The reference: each channel's keys around t in double precision (slerp along the short arc).
  auto reference = [&](float t, int c, double* out) {
    const uint32_t b = first[c], n = first[c + 1] - b;
    uint32_t i = 0;
    while (i + 2 < n && times[b + i + 1] <= t) ++i;
    const float* ka = &values[4 * (b + i)];
    if (n == 1) {
      for (int e = 0; e < 4; ++e) out[e] = ka[e];
      return;
    }
    const float* kb = ka + 4;
    const double t0 = times[b + i], t1 = times[b + i + 1];
    const double f = std::clamp((t - t0) / (t1 - t0), 0.0, 1.0);
    if (c % 3 != 1) {
      for (int e = 0; e < 4; ++e) out[e] = ka[e] + (kb[e] - ka[e]) * f;
      return;
    }
    double d = 0;
    for (int e = 0; e < 4; ++e) d += double{ka[e]} * kb[e];
    const double sign = d < 0 ? -1 : 1, angle = std::acos(std::min(1.0, std::fabs(d)));
    const double wa = angle < 1e-9 ? 1 - f : std::sin((1 - f) * angle) / std::sin(angle);
    const double wb = angle < 1e-9 ? f : std::sin(f * angle) / std::sin(angle);
    double len = 0;
    for (int e = 0; e < 4; ++e) out[e] = ka[e] * wa + sign * kb[e] * wb, len += out[e] * out[e];
    for (int e = 0; e < 4; ++e) out[e] /= std::sqrt(len);
  };

  std::vector<float> visits;
  for (float t = 0; t <= 1; t += 1.f / 60) visits.push_back(t);
  for (float t = 1; t >= 0; t -= 1.f / 45) visits.push_back(t);
  std::uniform_real_distribution<float> any(-0.2f, 1.2f);
  for (int i = 0; i < 200; ++i) visits.push_back(any(rng));
  for (float t : times) visits.push_back(t);  // exactly on keys

  std::vector<SimdLevel> levels = simd_levels();
  levels.push_back(SimdLevel::kScalar);
  for (SimdLevel level : levels) {
    set_simd_level(level);
    SamplingCache cache;
    std::vector<JointPose> cached(kJoints), fresh(kJoints);
    double worst = 0;
    for (float t : visits) {
      ASSERT_TRUE((SampleJob{&*clip, t, &cache, cached}.run()));
      SamplingCache new_cache;
      ASSERT_TRUE((SampleJob{&*clip, t, &new_cache, fresh}.run()));
      ASSERT_EQ(std::memcmp(cached.data(), fresh.data(), sizeof(JointPose) * kJoints), 0)
          << "t " << t << " at " << to_string(level);
      const float clamped = std::clamp(t, 0.f, 1.f);
      for (int c = 0; c < kJoints * 3; ++c) {
        double expected[4];
        reference(clamped, c, expected);
        const JointPose& p = cached[c / 3];
        const float* got = c % 3 == 0 ? p.translation : c % 3 == 1 ? p.rotation : p.scale;
        // q and -q are one rotation: compare with the sign that matches.
        double dot = 0;
        for (int e = 0; e < 4; ++e) dot += got[e] * expected[e];
        const double sign = c % 3 == 1 && dot < 0 ? -1 : 1;
        for (int e = 0; e < (c % 3 == 1 ? 4 : 3); ++e)
          worst = std::max(worst, std::fabs(got[e] - sign * expected[e]));
        if (c % 3 != 1) {
          EXPECT_EQ(got[3], 0.f);
        }
      }
    }
    std::printf("  %s: worst difference from double-precision interpolation %.3g\n", to_string(level), worst);
    EXPECT_LE(worst, 5e-7) << to_string(level);
  }
  set_simd_level(best_simd_level());
}

// Still channels (one key, or equal keys) are copied from the clip's constant pose, the moving ones
// interpolated: every mix of moving and still channels per joint (8 joints: each subset of translation,
// rotation, scale), with 4, 5 and 7 moving rotations (the four-wide blocks and their tails), at every SIMD
// level. Still channels come out as their key, bit for bit; moving ones as the keys interpolated at the
// middle of their span.
TEST(KeyedSampling, StillChannelsAreTheirKeyAndMovingOnesInterpolate) {
  for (int extra : {0, 1, 3}) {  // joints with every channel moving, after the 8 subsets
    const int joints = 8 + extra;
    std::vector<uint32_t> first;
    std::vector<float> times, values;
    std::mt19937 rng(11 + extra);
    std::uniform_real_distribution<float> unit(-1, 1);
    auto moves = [&](int c) { return c / 3 >= 8 || ((c / 3) >> (c % 3) & 1) != 0; };
    for (int c = 0; c < joints * 3; ++c) {
      first.push_back(static_cast<uint32_t>(times.size()));
      // A still channel has one key, or (every other one) two equal keys, as exporters write them.
      const int keys = moves(c) || c % 2 ? 2 : 1;
      for (int k = 0; k < keys; ++k) {
        times.push_back(static_cast<float>(k));
        float v[4] = {unit(rng), unit(rng), unit(rng), c % 3 == 1 ? unit(rng) : 0.f};
        if (c % 3 == 1) {
          const float n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
          for (float& e : v) e /= n;
        }
        if (k > 0 && !moves(c)) std::copy_n(values.end() - 4, 4, v);
        values.insert(values.end(), v, v + 4);
      }
    }
    first.push_back(static_cast<uint32_t>(times.size()));
    auto clip = Clip::from_keys("still and moving", 1.f, joints, first, times, values);
    ASSERT_TRUE(clip) << clip.error();
    const uint32_t moving_rotations = 4 + static_cast<uint32_t>(extra);
    EXPECT_EQ(clip->moving_translations(), moving_rotations);
    EXPECT_EQ(clip->moving_scales(), moving_rotations);
    ASSERT_EQ(clip->moving_channels().size(), 3 * moving_rotations);
    std::vector<SimdLevel> levels = simd_levels();
    levels.push_back(SimdLevel::kScalar);
    for (SimdLevel level : levels) {
      set_simd_level(level);
      std::vector<JointPose> pose(joints);
      SamplingCache cache;
      ASSERT_TRUE((SampleJob{&*clip, 0.5f, &cache, pose}.run()));
      for (int c = 0; c < joints * 3; ++c) {
        SCOPED_TRACE(testing::Message()
                     << to_string(level) << ", channel " << c << ", " << extra << " extra");
        const float* got = c % 3 == 0   ? pose[c / 3].translation
                           : c % 3 == 1 ? pose[c / 3].rotation
                                        : pose[c / 3].scale;
        const float* a = &values[4 * size_t{first[c]}];
        if (!moves(c)) {
          EXPECT_EQ(std::memcmp(got, a, (c % 3 == 1 ? 4 : 3) * sizeof(float)), 0);
          continue;
        }
        const float* b = a + 4;
        double expected[4], dot = 0, len = 0;
        for (int e = 0; e < 4; ++e) dot += double{a[e]} * b[e];
        for (int e = 0; e < 4; ++e) {
          // The middle of a slerp is the normalised sum of its ends (short arc); of a lerp, their mean.
          expected[e] = c % 3 == 1 ? a[e] + (dot < 0 ? -1 : 1) * double{b[e]} : 0.5 * (double{a[e]} + b[e]);
          len += expected[e] * expected[e];
        }
        for (int e = 0; e < (c % 3 == 1 ? 4 : 3); ++e) {
          const double want = c % 3 == 1 ? expected[e] / std::sqrt(len) : expected[e];
          EXPECT_NEAR(got[e], want, 5e-7);
        }
      }
    }
  }
  set_simd_level(best_simd_level());
}

}  // namespace
}  // namespace ossa::test
