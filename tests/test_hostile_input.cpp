// Hostile input at the library's doors (SECURITY.md): numbers in a .ossa behind valid checksums, section
// order, texture paths that leave the model's folder, deeply nested JSON, and inputs that cost quadratic
// time. Each case is made here, by code, from a small valid file; each must give an error naming the file
// and the problem (or load something the runtime can sample without reading out of bounds).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>

#include "ossa/asset/notifies.h"
#include "ossa/offline/compression.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/playhead.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/serialize/ossa_file.h"
#include "ossa_bytes.h"
#include "synthetic_character.h"

#ifdef OSSA_HAS_IMPORT  // the texture and weight cases go through the importer (not in runtime-only builds)
#include "../src/import/gltf_limits.h"
#include "../src/import/scene_wire.h"
#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/import/import.h"
#endif

namespace ossa {
namespace {
namespace fs = std::filesystem;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr uint32_t kSkeletonSection = 1, kClipSection = 3, kRootMotionSection = 6;

// A 2-joint file with one clip named "c" in the given layout: 1 s at 30 fps.
OssaFile small_file(Clip::Layout layout) {
  Skeleton skeleton = test::two_joint_skeleton();
  RawClip raw;
  raw.name = "c";
  raw.duration = 1;
  RawTrack track;
  track.joint = 1;
  for (int k = 0; k <= 30; ++k) {
    const float t = k / 30.f;
    track.rotation_times.push_back(t);
    // Not uniform motion (which two frames would hold exactly: compression would keep only those).
    track.rotations.push_back(quat_from_axis_angle({0, 0, 1}, std::sin(3 * t)));
    track.translation_times.push_back(t);
    track.translations.push_back({t * t, 1, 0});
  }
  raw.tracks.push_back(track);
  OssaFile file;
  if (layout == Clip::Layout::kKeyed) {
    file.clips.push_back(std::move(Clip::build_keyed(raw, skeleton)).value());
  } else {
    Clip fixed = std::move(Clip::build_fixed_rate(raw, skeleton, 30)).value();
    if (layout == Clip::Layout::kQuantized) fixed = std::move(compress_clip(fixed, skeleton)).value();
    file.clips.push_back(std::move(fixed));
  }
  file.skeleton = std::move(skeleton);
  file.root_motion.resize(1);
  return file;
}

struct Section {
  uint8_t* entry;
  uint8_t* payload;
  uint64_t size;
};
std::vector<Section> sections(std::vector<uint8_t>& bytes) {
  uint32_t count;
  std::memcpy(&count, bytes.data() + 16, 4);
  std::vector<Section> out;
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* entry = bytes.data() + 32 + 32 * i;
    uint64_t offset, size;
    std::memcpy(&offset, entry + 8, 8);
    std::memcpy(&size, entry + 16, 8);
    out.push_back({entry, bytes.data() + offset, size});
  }
  return out;
}
uint32_t type_of(const Section& s) {
  uint32_t t;
  std::memcpy(&t, s.entry, 4);
  return t;
}
// Clip section layout (ossa_file.h): u64 name length, name ("c"), u32 layout, f32 duration, u32 joints,
// then (fixed-rate and quantized) f32 frame rate, u32 frame count.
constexpr size_t kDurationAt = 8 + 1 + 4, kJointsAt = kDurationAt + 4, kRateAt = kJointsAt + 4,
                 kFramesAt = kRateAt + 4;

// Loads `bytes`; when the loader accepts them, every clip must still sample inside its buffers (ASan sees
// the reads) at times across and beyond the clip.
::testing::AssertionResult refused_or_safe(const std::vector<uint8_t>& bytes, const char* what) {
  auto file = decode_ossa(bytes, "hostile.ossa");
  if (!file) {
    if (file.error().find("hostile.ossa") == std::string::npos)
      return ::testing::AssertionFailure() << what << ": error does not name the file: " << file.error();
    return ::testing::AssertionSuccess();
  }
  for (const Clip& clip : file->clips) {
    if (!file->skeleton || clip.joint_count() != file->skeleton->joint_count())
      return ::testing::AssertionFailure() << what << ": loaded a clip that does not fit the skeleton";
    std::vector<JointPose> out(clip.joint_count());
    SamplingCache cache;
    for (float t : {0.f, 0.5f, 1.f, 2.f, 1e6f})
      if (!SampleJob{&clip, t, &cache, out}.run())
        return ::testing::AssertionFailure() << what << ": a loaded clip refuses to sample";
  }
  return ::testing::AssertionFailure() << what << ": loaded (want an error naming the problem)";
}

TEST(HostileOssa, ClipRatesAndDurationsBehindValidChecksumsAreRefused) {
  for (Clip::Layout layout : {Clip::Layout::kFixedRate, Clip::Layout::kQuantized}) {
    const std::vector<uint8_t> good = encode_ossa(small_file(layout));
    ASSERT_TRUE(decode_ossa(good, "good.ossa"));
    for (float rate : {kInf, 1e30f, 1e-30f, -30.f, 0.f, std::nanf(""), 31.f, 10001.f}) {
      auto bytes = good;
      test::patch_ossa_section(bytes, kClipSection, kRateAt, rate);
      EXPECT_TRUE(refused_or_safe(bytes, ("frame rate " + std::to_string(rate)).c_str()));
    }
    // Durations that disagree with the clip's rate and frame count (a compressed clip may keep fewer frames
    // than the fixed-rate one it came from, at a lower rate).
    const auto decoded = decode_ossa(good, "good.ossa");
    const Clip& clip = decoded->clips[0];
    for (float wrong : {0.5f, 3.f})
      ASSERT_NE(Clip::frame_count_for(wrong, clip.frame_rate()), clip.frame_count()) << wrong;
    for (float duration : {kInf, 1e30f, -1.f, std::nanf(""), 0.5f, 3.f}) {
      auto bytes = good;
      test::patch_ossa_section(bytes, kClipSection, kDurationAt, duration);
      EXPECT_TRUE(refused_or_safe(bytes, ("duration " + std::to_string(duration)).c_str()));
    }
    auto frames = good;
    test::patch_ossa_section(frames, kClipSection, kFramesAt, uint32_t{0x7fffffff});
    EXPECT_TRUE(refused_or_safe(frames, "frame count"));
  }
  // Keyed: the duration is the only number the sampler computes with.
  const std::vector<uint8_t> keyed = encode_ossa(small_file(Clip::Layout::kKeyed));
  for (float duration : {kInf, 1e30f, -1.f, std::nanf("")}) {
    auto bytes = keyed;
    test::patch_ossa_section(bytes, kClipSection, kDurationAt, duration);
    EXPECT_TRUE(refused_or_safe(bytes, ("keyed duration " + std::to_string(duration)).c_str()));
  }
}

TEST(HostileOssa, ClipJointCountIsCheckedWhateverTheSectionOrder) {
  OssaFile file = small_file(Clip::Layout::kFixedRate);
  // A 3-joint clip in a file whose skeleton has 2 joints, the clip's section listed first.
  RawSkeleton raw;
  raw.joints.resize(3);
  raw.joints[1].parent = 0;
  raw.joints[2].parent = 1;
  raw.joints[0].name = "a", raw.joints[1].name = "b", raw.joints[2].name = "c";
  Skeleton three = std::move(Skeleton::build(raw)).value();
  RawClip clip;
  clip.name = "c";
  clip.duration = 1;
  file.clips = {std::move(Clip::build_fixed_rate(clip, three, 30)).value()};
  std::vector<uint8_t> bytes = encode_ossa(file);
  auto table = sections(bytes);
  ASSERT_EQ(type_of(table[0]), kSkeletonSection);
  ASSERT_EQ(type_of(table[1]), kClipSection);
  uint8_t entry[32];
  std::memcpy(entry, table[0].entry, 32);
  std::memcpy(table[0].entry, table[1].entry, 32);
  std::memcpy(table[1].entry, entry, 32);
  auto loaded = decode_ossa(bytes, "order.ossa");
  ASSERT_FALSE(loaded) << "a clip for 3 joints loaded beside a 2-joint skeleton";
  EXPECT_NE(loaded.error().find("made for 3 joints"), std::string::npos) << loaded.error();
}

TEST(HostileOssa, RootMotionNumbersAreChecked) {
  OssaFile file = small_file(Clip::Layout::kFixedRate);
  auto in_place = extract_root_motion(file.clips[0], *file.skeleton, 1);
  ASSERT_TRUE(in_place) << in_place.error();
  file.clips[0] = std::move(in_place->clip);
  file.root_motion[0] = std::move(in_place->track);
  const std::vector<uint8_t> good = encode_ossa(file);
  auto loaded = decode_ossa(good, "good.ossa");
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_TRUE(loaded->root_motion[0]);
  // Root motion section: i32 joint, f32 frame rate, f32 duration, frames.
  for (float rate : {kInf, 1e30f, 1e-30f}) {
    auto bytes = good;
    test::patch_ossa_section(bytes, kRootMotionSection, 4, rate);
    auto r = decode_ossa(bytes, "hostile.ossa");
    if (r && r->root_motion[0]) {  // loaded: then it must at least sample inside its frames
      volatile RootDelta d = r->root_motion[0]->at(0.5f);
      (void)d;
      ADD_FAILURE() << "root motion at " << rate << " fps loaded";
    }
  }
  auto bytes = good;
  test::patch_ossa_section(bytes, kRootMotionSection, 8, 1e30f);
  EXPECT_FALSE(decode_ossa(bytes, "hostile.ossa")) << "root motion lasting 1e30 s loaded";
}

// A mesh whose influence points past its palette, whose triangle points past its vertices or whose palette
// slot points past the skeleton, behind a valid checksum: each index would reach the GPU or a job unchecked.
TEST(HostileOssa, MeshIndicesOnePastTheirRangeAreRefused) {
  OssaFile file = small_file(Clip::Layout::kKeyed);
  RawMesh raw;
  raw.name = "m";
  raw.skinned = true;
  raw.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  raw.indices = {0, 1, 2};
  raw.influences_per_vertex = 1;
  raw.influence_joints = {0, 1, 1};
  raw.influence_weights = {1, 1, 1};
  raw.joint_remap = {0, 1};
  raw.inverse_binds = {Mat4{}, Mat4{}};
  auto mesh = SkinnedMesh::build(raw, *file.skeleton);
  ASSERT_TRUE(mesh) << mesh.error();
  file.meshes.push_back(std::move(mesh).value());
  std::vector<uint8_t> good = encode_ossa(file);
  ASSERT_TRUE(decode_ossa(good, "good.ossa"));
  // Mesh section: name (u64 length, bytes), i32 material, u32 influences, then arrays of (u64 count, values):
  // positions, normals, tangents, uvs (floats), indices (u32), joints (u16), weights (float), palette map
  // (u16).
  const size_t element_sizes[] = {4, 4, 4, 4, 4, 2, 4, 2};
  auto array_at = [&](int array) {  // offset of array `array`'s count in the mesh section's payload
    uint64_t at = 8 + 1 + 4 + 4;
    for (int a = 0; a < array; ++a) {
      uint64_t count = 0;
      for (auto& s : sections(good))
        if (type_of(s) == 2) std::memcpy(&count, s.payload + at, 8);
      at += 8 + count * element_sizes[a];
    }
    return at;
  };
  struct Case {
    const char* what;
    int array;
    uint64_t element;
    uint16_t value16;
    uint32_t value32;
  };
  // Each one past the end of what it indexes: a slot of 2 palette slots, vertex 3 of 3, joint 2 of 2.
  const Case cases[] = {
      {"an influence past the palette", 5, 1, 2, 0},
      {"a triangle index past the vertices", 4, 2, 0, 3},
      {"a palette slot past the skeleton", 7, 1, static_cast<uint16_t>(file.skeleton->joint_count()), 0}};
  for (const Case& c : cases) {
    std::vector<uint8_t> bytes = good;
    const uint64_t at = array_at(c.array) + 8 + c.element * element_sizes[c.array];
    if (element_sizes[c.array] == 2)
      test::patch_ossa_section(bytes, 2, at, c.value16);
    else
      test::patch_ossa_section(bytes, 2, at, c.value32);
    auto loaded = decode_ossa(bytes, "hostile.ossa");
    ASSERT_FALSE(loaded) << c.what << " loaded";
    EXPECT_NE(loaded.error().find("hostile.ossa"), std::string::npos) << loaded.error();
  }
}

// A file with a 4-vertex mesh with morph targets "a" (moves vertices 1 and 3) and "b" (vertex 0), and the
// clip "c" animating their weights over 31 keys: as exact keys, or compressed with the mesh (quantized
// weights).
OssaFile morph_file(bool compressed) {
  OssaFile file = small_file(Clip::Layout::kFixedRate);
  RawMesh raw;
  raw.name = "m";
  raw.skinned = true;
  raw.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  raw.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  raw.tangents = {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, -1}, {1, 0, 0, 1}};
  raw.indices = {0, 1, 2, 2, 1, 3};
  raw.influences_per_vertex = 1;
  raw.influence_joints = {0, 0, 0, 0};
  raw.influence_weights = {1, 1, 1, 1};
  raw.joint_remap = {0};
  raw.inverse_binds = {Mat4{}};
  raw.morph_targets.resize(2);
  raw.morph_targets[0].name = "a";
  raw.morph_targets[0].vertices = {1, 3};
  raw.morph_targets[0].position_deltas = {{0, 0, 1}, {0, 0, 2}};
  raw.morph_targets[0].normal_deltas = {{0.1f, 0, 0}, {0.2f, 0, 0}};
  raw.morph_targets[0].tangent_deltas = {{0, 0.3f, 0}, {0, 0.4f, 0}};  // "b": none (zeros)
  raw.morph_targets[1].name = "b";
  raw.morph_targets[1].vertices = {0};
  raw.morph_targets[1].position_deltas = {{1, 0, 0}};
  raw.morph_targets[1].normal_deltas = {{0, 0.1f, 0}};
  raw.morph_default_weights = {0, 0.5f};
  auto mesh = SkinnedMesh::build(raw, *file.skeleton);
  EXPECT_TRUE(mesh) << mesh.error();
  file.meshes.push_back(std::move(mesh).value());
  RawMorphTrack track;
  track.mesh = 0;
  for (int k = 0; k <= 30; ++k) {
    track.times.push_back(static_cast<float>(k) / 30.f);
    track.weights.push_back(static_cast<float>(k) / 30.f);
    track.weights.push_back(1 - static_cast<float>(k * k) / 900.f);
  }
  auto weights = MorphWeightTracks::build(std::vector<RawMorphTrack>{track}, "c");
  EXPECT_TRUE(weights) << weights.error();
  Clip clip = Clip::with_morph_weights(std::move(file.clips[0]), std::move(weights).value());
  if (compressed) {
    CompressionSettings settings;
    settings.meshes = file.meshes;
    auto quantized = compress_clip(clip, *file.skeleton, settings);
    EXPECT_TRUE(quantized) << quantized.error();
    clip = std::move(quantized).value();
    EXPECT_TRUE(clip.morph_weights().quantized());
  }
  file.clips[0] = std::move(clip);
  return file;
}

constexpr uint32_t kMorphTargetsSection = 7, kMorphWeightsSection = 8;
// MORPH_TARGETS of morph_file() (ossa_file.h): u32 target count, names (u64 length, bytes: "a", "b"), then
// arrays of (u64 count, values): default weights (2 floats), target offsets (3 u32), vertices (3 u32),
// position deltas (9 floats), normal deltas (9 floats), tangent deltas (9 floats; "b"'s are zeros).
constexpr size_t kTargetCountAt = 0, kDefaultsAt = 4 + 9 + 9, kFirstAt = kDefaultsAt + 8 + 8,
                 kVerticesAt = kFirstAt + 8 + 12, kPositionsAt = kVerticesAt + 8 + 12,
                 kNormalsAt = kPositionsAt + 8 + 36, kTangentsAt = kNormalsAt + 8 + 36,
                 kMorphTargetsSize = kTangentsAt + 8 + 36;
// MORPH_WEIGHTS: u32 layout, u32 track count, per track i32 mesh, u32 targets, u32 keys; key times (31
// floats), then exact weights (62 floats) or, compressed, channels (12 bytes each: f32 min, f32 step, u8
// bits, 3 unused) and the packed bytes.
constexpr size_t kWeightLayoutAt = 0, kTrackCountAt = 4, kTrackMeshAt = 8, kTrackTargetsAt = 12,
                 kTrackKeysAt = 16, kTimesAt = 20, kAfterTimesAt = kTimesAt + 8 + 31 * 4;

::testing::AssertionResult refused(const std::vector<uint8_t>& bytes, const std::string& what) {
  auto file = decode_ossa(bytes, "hostile.ossa");
  if (file) return ::testing::AssertionFailure() << what << ": loaded";
  if (file.error().find("hostile.ossa") == std::string::npos)
    return ::testing::AssertionFailure() << what << ": error does not name the file: " << file.error();
  return ::testing::AssertionSuccess();
}

// The value at `at` in the first section of `type`.
template <class T>
T section_value(std::vector<uint8_t> bytes, uint32_t type, size_t at) {
  T value{};
  for (auto& s : sections(bytes))
    if (type_of(s) == type && at + sizeof value <= s.size)
      return std::memcpy(&value, s.payload + at, sizeof value), value;
  ADD_FAILURE() << "no section of type " << type;
  return value;
}

template <class T>
std::vector<uint8_t> patched(const std::vector<uint8_t>& good, uint32_t section, size_t at, T value) {
  std::vector<uint8_t> bytes = good;
  test::patch_ossa_section(bytes, section, at, value);
  return bytes;
}

TEST(HostileOssa, MorphTargetNumbersBehindValidChecksumsAreRefused) {
  const std::vector<uint8_t> good = encode_ossa(morph_file(false));
  auto loaded = decode_ossa(good, "good.ossa");
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->meshes[0].morph_targets().count(), 2);
  const uint32_t t = kMorphTargetsSection;
  // The offsets above, checked against the file: vertices 1, 3 (target "a") and 0, then the deltas.
  ASSERT_EQ(section_value<uint32_t>(good, t, kVerticesAt + 8), 1u);
  ASSERT_EQ(section_value<uint32_t>(good, t, kVerticesAt + 16), 0u);
  ASSERT_EQ(section_value<float>(good, t, kPositionsAt + 8 + 8), 1.f);
  ASSERT_EQ(section_value<float>(good, t, kNormalsAt + 8), 0.1f);
  EXPECT_TRUE(refused(patched(good, t, kTargetCountAt, uint32_t{0xffffffff}), "a huge target count"));
  EXPECT_TRUE(refused(patched(good, t, kTargetCountAt, uint32_t{0}), "no targets"));
  EXPECT_TRUE(refused(patched(good, t, kTargetCountAt, uint32_t{3}), "one target more than stored"));
  EXPECT_TRUE(refused(patched(good, t, kTargetCountAt, uint32_t{1}), "one target less than stored"));
  EXPECT_TRUE(refused(patched(good, t, kDefaultsAt + 8, std::nanf("")), "a NaN default weight"));
  EXPECT_TRUE(refused(patched(good, t, kFirstAt + 8, uint32_t{1}), "offsets not starting at 0"));
  EXPECT_TRUE(refused(patched(good, t, kFirstAt + 12, uint32_t{4}), "an offset past the entries"));
  EXPECT_TRUE(refused(patched(good, t, kFirstAt + 16, uint32_t{2}), "offsets short of the entries"));
  EXPECT_TRUE(refused(patched(good, t, kFirstAt, uint64_t{1} << 62), "a huge offset count"));
  EXPECT_TRUE(refused(patched(good, t, kVerticesAt + 8, uint32_t{4}), "vertex 4 of 4"));
  EXPECT_TRUE(refused(patched(good, t, kVerticesAt + 8, uint32_t{0xffffffff}), "vertex 2^32 - 1"));
  EXPECT_TRUE(refused(patched(good, t, kVerticesAt + 8, uint32_t{3}), "vertices not ascending"));
  EXPECT_TRUE(refused(patched(good, t, kVerticesAt + 12, uint32_t{1}), "a vertex twice"));
  EXPECT_TRUE(refused(patched(good, t, kPositionsAt + 8, kInf), "an infinite delta"));
  EXPECT_TRUE(refused(patched(good, t, kNormalsAt + 8 + 32, std::nanf("")), "a NaN normal delta"));
  EXPECT_TRUE(refused(patched(good, t, kPositionsAt, uint64_t{8}), "deltas short of the vertices"));
  // Tangent deltas: their count, each value, and a mesh that has tangents to morph.
  ASSERT_EQ(section_value<float>(good, t, kTangentsAt + 8 + 4), 0.3f);
  ASSERT_EQ(section_value<float>(good, t, kTangentsAt + 8 + 24 + 8), 0.f);  // target "b"
  EXPECT_TRUE(refused(patched(good, t, kTangentsAt + 8 + 16, kInf), "an infinite tangent delta"));
  EXPECT_TRUE(refused(patched(good, t, kTangentsAt + 8 + 32, std::nanf("")), "a NaN tangent delta"));
  EXPECT_TRUE(refused(patched(good, t, kTangentsAt, uint64_t{6}), "tangent deltas short of the vertices"));
  EXPECT_TRUE(refused(patched(good, t, kTangentsAt, uint64_t{12}), "tangent deltas past the section"));
  EXPECT_TRUE(refused(patched(good, t, kTangentsAt, uint64_t{1} << 62), "a huge tangent delta count"));
  // Offsets past the arrays are refused before any entry is read, whichever array is the shortest.
  EXPECT_TRUE(refused(patched(good, t, kFirstAt + 12, uint32_t{7}), "an offset past every array"));
  std::vector<uint8_t> bytes = good;
  for (auto& s : sections(bytes))
    if (type_of(s) == kMorphTargetsSection) {
      // A section that ends after the normal deltas (written before tangent deltas): none, the rest kept.
      ASSERT_EQ(s.size, kMorphTargetsSize);
      const uint64_t size = kTangentsAt, checksum = XXH3_64bits(s.payload, size);
      std::memcpy(s.entry + 16, &size, 8);
      std::memcpy(s.entry + 24, &checksum, 8);
    }
  auto without = decode_ossa(bytes, "without_tangents.ossa");
  ASSERT_TRUE(without) << without.error();
  EXPECT_TRUE(without->meshes[0].morph_targets().tangent_deltas().empty());
  EXPECT_EQ(without->meshes[0].morph_targets().normal_deltas().size(), 9u);
  ASSERT_EQ(loaded->meshes[0].morph_targets().tangent_deltas().size(), 9u);
  // Tangent deltas for a mesh without tangents (a file made so on purpose) are refused.
  OssaFile no_tangents = morph_file(false);
  const SkinnedMesh& with = no_tangents.meshes[0];
  RawMesh plain;
  plain.name = "m";
  plain.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  plain.indices = {0, 1, 2};
  plain.influences_per_vertex = 1;
  plain.influence_joints = {0, 0, 0, 0};
  plain.influence_weights = {1, 1, 1, 1};
  plain.joint_remap = {0};
  plain.inverse_binds = {Mat4{}};
  auto plain_mesh = SkinnedMesh::build(plain, *no_tangents.skeleton);
  ASSERT_TRUE(plain_mesh) << plain_mesh.error();
  no_tangents.meshes[0] =
      SkinnedMesh::with_morph_targets(std::move(plain_mesh).value(), with.morph_targets());
  EXPECT_TRUE(refused(encode_ossa(no_tangents), "tangent deltas for a mesh without tangents"));
  // The section's index names a mesh the file lacks (the table is not behind a checksum).
  bytes = good;
  for (auto& s : sections(bytes))
    if (type_of(s) == kMorphTargetsSection) std::memcpy(s.entry + 4, "\x05\0\0\0", 4);
  EXPECT_TRUE(refused(bytes, "targets of mesh 5"));
  // Version 2 knew no morph sections: such a file loads without them, as a version-2 reader would load it.
  bytes = good;
  bytes[8] = 2;
  auto old = decode_ossa(bytes, "v2.ossa");
  ASSERT_TRUE(old) << old.error();
  EXPECT_TRUE(old->meshes[0].morph_targets().empty());
  EXPECT_TRUE(old->clips[0].morph_weights().empty());
}

TEST(HostileOssa, MorphWeightNumbersBehindValidChecksumsAreRefused) {
  for (bool compressed : {false, true}) {
    const std::vector<uint8_t> good = encode_ossa(morph_file(compressed));
    auto loaded = decode_ossa(good, "good.ossa");
    ASSERT_TRUE(loaded) << loaded.error();
    ASSERT_EQ(loaded->clips[0].morph_weights().quantized(), compressed);
    const uint32_t w = kMorphWeightsSection;
    const std::string layout = compressed ? "compressed: " : "keys: ";
    ASSERT_EQ(section_value<uint32_t>(good, w, kTrackKeysAt), 31u);
    ASSERT_EQ(section_value<float>(good, w, kTimesAt + 8 + 30 * 4), 1.f);
    ASSERT_EQ(section_value<uint64_t>(good, w, kAfterTimesAt), compressed ? 2u : 62u);
    EXPECT_TRUE(refused(patched(good, w, kWeightLayoutAt, uint32_t{2}), layout + "an unknown layout"));
    EXPECT_TRUE(refused(patched(good, w, kWeightLayoutAt, uint32_t{compressed ? 0u : 1u}),
                        layout + "the other layout"));
    EXPECT_TRUE(
        refused(patched(good, w, kTrackCountAt, uint32_t{0xffffffff}), layout + "a huge track count"));
    EXPECT_TRUE(refused(patched(good, w, kTrackCountAt, uint32_t{0}), layout + "no tracks"));
    EXPECT_TRUE(refused(patched(good, w, kTrackMeshAt, int32_t{1}), layout + "weights of mesh 1 of 1"));
    EXPECT_TRUE(refused(patched(good, w, kTrackMeshAt, int32_t{-1}), layout + "weights of mesh -1"));
    EXPECT_TRUE(refused(patched(good, w, kTrackTargetsAt, uint32_t{3}), layout + "3 targets of 2"));
    EXPECT_TRUE(refused(patched(good, w, kTrackTargetsAt, uint32_t{1}), layout + "1 target of 2"));
    EXPECT_TRUE(
        refused(patched(good, w, kTrackTargetsAt, uint32_t{0xffffffff}), layout + "2^32 - 1 targets"));
    EXPECT_TRUE(refused(patched(good, w, kTrackKeysAt, uint32_t{0x7fffffff}), layout + "2^31 - 1 keys"));
    EXPECT_TRUE(refused(patched(good, w, kTrackKeysAt, uint32_t{0}), layout + "no keys"));
    EXPECT_TRUE(refused(patched(good, w, kTrackKeysAt, uint32_t{30}), layout + "a key fewer than stored"));
    EXPECT_TRUE(refused(patched(good, w, kTimesAt + 8 + 4, std::nanf("")), layout + "a NaN key time"));
    EXPECT_TRUE(refused(patched(good, w, kTimesAt + 8 + 8, -1.f), layout + "key times not ascending"));
    if (!compressed) {
      EXPECT_TRUE(refused(patched(good, w, kAfterTimesAt + 8 + 12, kInf), layout + "an infinite weight"));
      EXPECT_TRUE(
          refused(patched(good, w, kAfterTimesAt, uint64_t{61}), layout + "a weight fewer than the keys"));
      continue;
    }
    // Channels: (u64 count, then f32 min, f32 step, u8 bits per channel), then the packed bytes.
    const size_t channel = kAfterTimesAt + 8;
    const uint8_t bits = section_value<uint8_t>(good, w, channel + 8);
    ASSERT_TRUE(bits > 0 && bits <= MorphWeightTracks::kMaxQuantizedBits) << int{bits};
    for (uint8_t bad : {uint8_t{25}, uint8_t{31}, uint8_t{33}, uint8_t{255}})
      EXPECT_TRUE(refused(patched(good, w, channel + 8, bad), layout + "bit rate " + std::to_string(bad)));
    EXPECT_TRUE(
        refused(patched(good, w, channel + 8, uint8_t{0}), layout + "bits that leave packed bytes over"));
    EXPECT_TRUE(refused(patched(good, w, channel, std::nanf("")), layout + "a NaN range start"));
    EXPECT_TRUE(refused(patched(good, w, channel + 4, kInf), layout + "an infinite step"));
    EXPECT_TRUE(refused(patched(good, w, channel + 4, 3e38f), layout + "a step whose top is infinite"));
    EXPECT_TRUE(
        refused(patched(good, w, kAfterTimesAt, uint64_t{1}), layout + "a channel fewer than targets"));
    EXPECT_TRUE(refused(patched(good, w, kAfterTimesAt, uint64_t{1} << 60), layout + "a huge channel count"));
    const size_t packed = channel + 2 * 12;
    uint64_t packed_size = 0;
    std::vector<uint8_t> copy = good;
    for (auto& s : sections(copy))
      if (type_of(s) == w) std::memcpy(&packed_size, s.payload + packed, 8);
    ASSERT_GT(packed_size, 0u);
    EXPECT_TRUE(refused(patched(good, w, packed, packed_size - 1), layout + "a packed byte short"));
  }
  // The section's index names a clip the file lacks.
  std::vector<uint8_t> bytes = encode_ossa(morph_file(false));
  for (auto& s : sections(bytes))
    if (type_of(s) == kMorphWeightsSection) std::memcpy(s.entry + 4, "\x01\0\0\0", 4);
  EXPECT_TRUE(refused(bytes, "weights of clip 1 of 1"));
}

TEST(HostileOssa, ClipsAreValidatedWhereverTheyAreMade) {
  std::vector<JointPose> frames(4);
  EXPECT_FALSE(Clip::from_frames("x", 1, kInf, 2, frames));
  EXPECT_FALSE(Clip::from_frames("x", kInf, 1, 2, frames));
  EXPECT_FALSE(Clip::from_frames("x", 1, 1e9f, 2, frames));
  EXPECT_FALSE(Clip::from_frames("x", 5, 1, 2, frames)) << "2 frames cannot span 5 s at 1 fps";
  EXPECT_TRUE(Clip::from_frames("x", 1, 1, 2, frames));
  EXPECT_EQ(Clip::frame_count_for(1, 30), 31);
  EXPECT_EQ(Clip::frame_count_for(1.01f, 30), 32) << "a short last interval is still a frame";
  EXPECT_EQ(Clip::frame_count_for(0, 30), 1);
}

// A keyed channel table whose middle offset points past the keys, followed by one that ends where the keys
// do (found by fuzz_ossa_loader in CI): every offset is checked before any key is read. Under ASan the read
// past the key arrays fails this test without the check.
TEST(HostileOssa, KeyedChannelOffsetsPastTheKeysAreRefusedBeforeAnyRead) {
  const int joints = 1;  // 3 channels: offsets 0, a, b, 3
  std::vector<float> times = {0, 0, 0};
  std::vector<float> values = {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0};  // translation, rotation, scale
  for (uint32_t past : {4u, 1000u, 1u << 30}) {
    auto clip = Clip::from_keys("x", 1, joints, {0, past, 2, 3}, times, values);
    ASSERT_FALSE(clip) << "offset " << past;
    EXPECT_NE(clip.error().find("channel table"), std::string::npos) << clip.error();
  }
  EXPECT_TRUE(Clip::from_keys("x", 1, joints, {0, 1, 2, 3}, times, values));
}

// A clip whose duration is not a whole number of frames: the last interval is shorter than the others, and
// sampling inside it must interpolate over that shorter span. Truth: the keys are linear in time (x = t).
TEST(FixedRateClip, TheShortLastIntervalInterpolatesOverItsOwnLength) {
  Skeleton skeleton = test::two_joint_skeleton();
  RawClip raw;
  raw.name = "fraction";
  raw.duration = 1.05f;  // 10 fps: frames at 0, 0.1, ..., 1.0, and the last at 1.05
  RawTrack track;
  track.joint = 1;
  track.translation_times = {0, 1.05f};
  track.translations = {{0, 1, 0}, {1.05f, 1, 0}};
  raw.tracks.push_back(track);
  auto clip = Clip::build_fixed_rate(raw, skeleton, 10);
  ASSERT_TRUE(clip) << clip.error();
  ASSERT_EQ(clip->frame_count(), 12);
  std::vector<JointPose> out(2);
  SamplingCache cache;
  for (float t : {0.95f, 1.0f, 1.01f, 1.025f, 1.04f, 1.05f}) {
    ASSERT_TRUE((SampleJob{&*clip, t, &cache, out}.run()));
    EXPECT_NEAR(out[1].translation[0], t, 1e-5f) << "at " << t << " s";
  }
}

// A duration a hair over a whole number of frames (within the 1e-3-frame slack of Clip::frame_count_for): the
// last stored frame is still the pose at the clip's end, not at frame_count / rate. Truth: the source track
// moves 1 m/s, so the last frame holds x = duration.
TEST(FixedRateClip, TheLastFrameIsTheClipsEndEvenWithinTheFrameSlack) {
  Skeleton skeleton = test::two_joint_skeleton();
  RawClip raw;
  raw.name = "hair";
  raw.duration = 1.00005f;  // 10 fps: 10.0005 frames, stored as 11 (0, 0.1, ..., 0.9, then the end)
  RawTrack track;
  track.joint = 1;
  track.translation_times = {0, raw.duration};
  track.translations = {{0, 1, 0}, {raw.duration, 1, 0}};
  raw.tracks.push_back(track);
  auto clip = Clip::build_fixed_rate(raw, skeleton, 10);
  ASSERT_TRUE(clip) << clip.error();
  ASSERT_EQ(clip->frame_count(), 11);
  const JointPose& last =
      clip->frames()[static_cast<size_t>(clip->frame_count() - 1) * clip->joint_count() + 1];
  EXPECT_FLOAT_EQ(last.translation[0], raw.duration);
}

#ifdef OSSA_HAS_IMPORT
// ------------------------------------------------------------------------------------- texture paths

struct TexturedModel {
  std::string dir, model;
};
// A one-triangle glTF whose material names `image_uri`.
TexturedModel textured_model(const std::string& test, const std::string& image_uri) {
  TexturedModel m;
  m.dir = test::temp_dir(test);
  m.model = m.dir + "/model.gltf";
  test::GltfBuilder b;
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  b.doc()["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", positions}}}, {"material", 0}}}}}};
  b.doc()["materials"] = {
      {{"name", "Skin"}, {"pbrMetallicRoughness", {{"baseColorTexture", {{"index", 0}}}}}}};
  b.doc()["textures"] = {{{"source", 0}}};
  b.doc()["images"] = {{{"uri", image_uri}}};
  b.add_node({{"name", "tri"}, {"mesh", 0}});
  b.doc()["scenes"][0]["nodes"] = {0};
  b.write(m.model);
  return m;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(HostileTextures, PathsOutsideTheModelsFolderAreNotRead) {
  const std::string secret_dir = test::temp_dir("hostile_secret");
  write_bytes(secret_dir + "/secret.png", "SECRET-BYTES");
  std::string relative = "../";
  relative += fs::path(secret_dir).filename().string();
  relative += "/secret.png";
  for (const std::string& uri : {secret_dir + "/secret.png", relative}) {
    TexturedModel m = textured_model("hostile_tex", uri);
    auto scene = import_file(m.model);
    ASSERT_TRUE(scene) << scene.error();
    for (const Texture& t : scene->textures)
      EXPECT_EQ(std::string(t.data.begin(), t.data.end()).find("SECRET"), std::string::npos) << uri;
    ASSERT_GE(scene->materials.size(), 1u);  // assimp may add its default material after ours
    EXPECT_EQ(scene->materials[0].name, "Skin");
    EXPECT_EQ(scene->materials[0].diffuse_texture, -1) << uri << ": the material kept a texture from outside";
    bool warned = false;
    for (const std::string& w : scene->warnings)
      warned |=
          w.find("'Skin'") != std::string::npos && w.find("outside the model's folder") != std::string::npos;
    EXPECT_TRUE(warned) << uri << ": no warning naming the material and the path";
    // Allowed when the caller widens the policy on purpose.
    ImportOptions wide;
    wide.texture_folders = {secret_dir};
    auto allowed = import_file(m.model, wide);
    ASSERT_TRUE(allowed) << allowed.error();
    ASSERT_EQ(allowed->textures.size(), 1u) << uri;
    EXPECT_EQ(std::string(allowed->textures[0].data.begin(), allowed->textures[0].data.end()),
              "SECRET-BYTES");
  }
}

TEST(HostileTextures, SymlinksOutOfTheFolderAreNotFollowed) {
  const std::string secret_dir = test::temp_dir("hostile_secret_link");
  write_bytes(secret_dir + "/secret.png", "SECRET-BYTES");
  TexturedModel m = textured_model("hostile_link", "skin.png");
  std::error_code ec;
  fs::create_symlink(secret_dir + "/secret.png", m.dir + "/skin.png", ec);
  ASSERT_FALSE(ec) << ec.message();
  auto scene = import_file(m.model);
  ASSERT_TRUE(scene) << scene.error();
  EXPECT_EQ(scene->materials[0].diffuse_texture, -1) << "a symlink led out of the model's folder";
}

TEST(HostileTextures, InsideTheFolderTexturesAreReadWithinTheSizeCap) {
  TexturedModel m = textured_model("hostile_big", "skin");  // no extension at all
  write_bytes(m.dir + "/skin", std::string(4096, 'x'));
  auto scene = import_file(m.model);
  ASSERT_TRUE(scene) << scene.error();
  ASSERT_EQ(scene->textures.size(), 1u);
  EXPECT_EQ(scene->textures[0].data.size(), 4096u);
  EXPECT_EQ(scene->textures[0].format_hint, "");
  ImportOptions small;
  small.max_texture_bytes = 1000;
  auto capped = import_file(m.model, small);
  ASSERT_TRUE(capped) << capped.error();
  EXPECT_EQ(capped->materials[0].diffuse_texture, -1);
  bool warned = false;
  for (const std::string& w : capped->warnings) warned |= w.find("1000-byte limit") != std::string::npos;
  EXPECT_TRUE(warned);
}
// ------------------------------------------------------------------- the import guard's reply

// The import guard's child parsed a hostile file and may be compromised: what it sends back (scene_wire.h)
// is read like a hostile file. The scene below sets every field ImportedScene has, so each travels.
ImportedScene every_field_scene() {
  ImportedScene s;
  s.source_path = "/models/hero.fbx";
  s.format = "fbx";
  s.skeleton.joints.resize(2);
  s.skeleton.joints[0].name = "root";
  s.skeleton.joints[0].has_file_bind = true;
  s.skeleton.joints[1].name = "hand";
  s.skeleton.joints[1].parent = 0;
  s.skeleton.joints[1].rest.translation = {0, 1.5f, 0};
  s.skeleton.joints[1].inverse_bind.m[13] = -1.5f;
  s.skeleton.joints[1].weighted = true;
  RawMesh m;
  m.name = "body";
  m.node_joint = 0;
  m.material = 0;
  m.skinned = true;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {12345.5f, 1, 0}};
  m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  m.tangents = {{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, -1}};
  m.uvs = {{0, 0}, {1, 0}, {0, 1}};
  m.indices = {0, 1, 2};
  m.base_vertex = 7;
  m.influences_per_vertex = 2;
  m.influence_joints = {0, 1, 1, 0, 0, 0};
  m.influence_weights = {0.75f, 0.25f, 0.5f, 0.5f, 1, 0};
  m.joint_remap = {0, 1};
  m.inverse_binds = {Mat4{}, s.skeleton.joints[1].inverse_bind};
  m.influence_stats = {5, 1, 0.125f, 0};
  RawMorphTarget smile{"smile",
                       {0, 2},
                       {{0, 0.25f, 0}, {0, 0.5f, 0}},
                       {{0, 0, 0.5f}, {0, 0, 0.25f}},
                       {{0, 0.125f, 0}, {0.5f, 0, 0}}};
  m.morph_targets = {smile};
  m.morph_default_weights = {0.25f};
  s.meshes = {m};
  RawClip c;
  c.name = "Wave";
  c.duration = 2;
  c.ticks_per_second = 30;
  RawTrack t;
  t.joint = 1;
  t.translation_times = {0, 1};
  t.translations = {{0, 1.5f, 0}, {0, 2, 0}};
  t.rotation_times = {0.5f};
  t.rotations = {quat_from_axis_angle({0, 0, 1}, 0.5f)};
  t.scale_times = {2};
  t.scales = {{1, 2, 1}};
  c.tracks = {t};
  c.morph_tracks = {RawMorphTrack{0, {0, 2}, {0, 1}}};
  c.converted_step_channels = 2;
  c.converted_cubic_channels = 1;
  s.clips = {c};
  s.materials = {Material{"skin", {0.5f, 0.25f, 1, 1}, 0, -1, 1}};
  s.textures = {Texture{"*0", "", true, {0x89, 'P', 'N', 'G', 0, 1, 2}, "png"},
                Texture{"spec.jpg", "/models/spec.jpg", false, {0xFF, 0xD8, 0xFF}, "jpg"}};
  s.space.source_up = "+Z";
  s.space.source_front = "-Y";
  s.space.unit_scale = 0.01;
  s.space.left_handed = true;
  s.space.file_to_canonical.m[0] = 0.01f;
  s.space.note = "FBX: Z up, centimetres";
  s.warnings = {"mesh 'body': 1 vertex had more than 2 influences"};
  s.source_files = {"/models/hero.fbx", "/models/spec.jpg"};
  EXPECT_EQ(validate_scene(s), "");
  return s;
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(HostileImportReply, EveryFieldTravelsAndComparesBitForBit) {
  const ImportedScene scene = every_field_scene();
  const std::string bytes = detail::encode_scene(scene);
  auto back = detail::decode_scene(as_bytes(bytes));
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(detail::scene_difference(scene, *back), "");
  EXPECT_EQ(detail::encode_scene(*back), bytes) << "the form is canonical";
  // The comparison sees one changed bit, in every kind of field (a vertex, a sparse delta, a flag, a name).
  ImportedScene changed = *back;
  changed.meshes[0].positions[2].y = std::nextafter(1.f, 2.f);
  EXPECT_EQ(detail::scene_difference(scene, changed), "meshes[0].positions[2]");
  changed = *back;
  changed.meshes[0].morph_targets[0].normal_deltas[1].z = -0.25f;
  EXPECT_EQ(detail::scene_difference(scene, changed), "meshes[0].morph_targets[0].normal_deltas[1]");
  changed = *back;
  changed.meshes[0].morph_targets[0].tangent_deltas[0].y = 0.25f;
  EXPECT_EQ(detail::scene_difference(scene, changed), "meshes[0].morph_targets[0].tangent_deltas[0]");
  changed = *back;
  changed.textures[0].embedded = false;
  EXPECT_EQ(detail::scene_difference(scene, changed), "textures[0].embedded");
  changed = *back;
  changed.clips[0].morph_tracks[0].weights.push_back(0);
  EXPECT_EQ(detail::scene_difference(scene, changed), "clips[0].morph_tracks[0].weights.size()");
  changed = *back;
  changed.clips[0].converted_cubic_channels = 0;
  EXPECT_EQ(detail::scene_difference(scene, changed), "clips[0].converted_cubic_channels");
}

// Each outcome is an error, or a scene that passes validate_scene (a flipped bit in a float may still be a
// valid number); under AddressSanitizer any read out of bounds or huge allocation would end the test.
void expect_error_or_valid(const std::string& bytes, const std::string& what) {
  auto scene = detail::decode_scene(as_bytes(bytes));
  if (scene) {
    EXPECT_EQ(validate_scene(*scene), "") << what;
  }
}

TEST(HostileImportReply, TruncatedRepliesAreErrors) {
  const std::string bytes = detail::encode_scene(every_field_scene());
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto scene = detail::decode_scene(as_bytes(bytes.substr(0, size)));
    ASSERT_FALSE(scene) << "a reply cut to " << size << " of " << bytes.size() << " bytes was accepted";
  }
  auto longer = detail::decode_scene(as_bytes(bytes + '\0'));
  ASSERT_FALSE(longer);
  EXPECT_NE(longer.error().find("bytes follow the scene"), std::string::npos) << longer.error();
}

TEST(HostileImportReply, FlippedBytesAreErrorsOrValidScenes) {
  const std::string bytes = detail::encode_scene(every_field_scene());
  int errors = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}, uint8_t{0xFF}}) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(flipped[i] ^ mask);
      expect_error_or_valid(flipped, "byte " + std::to_string(i) + " ^ " + std::to_string(mask));
      errors += !detail::decode_scene(as_bytes(flipped));
    }
  }
  EXPECT_GT(errors, static_cast<int>(bytes.size())) << "most flips of counts, indices and flags are caught";
}

TEST(HostileImportReply, HugeCountsAndBadNumbersAreErrors) {
  const std::string bytes = detail::encode_scene(every_field_scene());
  // A huge value written over every 8 bytes reaches every count (and every index, flag and float on the way).
  for (uint64_t huge : {~uint64_t{0}, uint64_t{1} << 40, uint64_t{1} << 31, uint64_t{0x7FC00000FFFFFFFF}}) {
    for (size_t i = 0; i + 8 <= bytes.size(); ++i) {
      std::string damaged = bytes;
      std::memcpy(damaged.data() + i, &huge, 8);
      expect_error_or_valid(damaged, "offset " + std::to_string(i));
    }
  }
  // A NaN in place of a vertex coordinate, a unit scale of 0, a texture index of -2 or past its list.
  auto replaced = [&](auto from, auto to, const char* expected) {
    std::string damaged = bytes;
    const size_t at = damaged.find(std::string(reinterpret_cast<const char*>(&from), sizeof from));
    ASSERT_NE(at, std::string::npos);
    std::memcpy(damaged.data() + at, &to, sizeof to);
    auto scene = detail::decode_scene(as_bytes(damaged));
    ASSERT_FALSE(scene) << expected;
    EXPECT_NE(scene.error().find(expected), std::string::npos) << scene.error();
  };
  replaced(12345.5f, std::numeric_limits<float>::quiet_NaN(), "not finite");
  replaced(0.01, 0.0, "unit scale");
  // The material's specular texture (1, the last field of the only material) as -2.
  Material m = every_field_scene().materials[0];
  std::string material_tail(reinterpret_cast<const char*>(&m.diffuse_texture), 4);
  material_tail += std::string(reinterpret_cast<const char*>(&m.normal_texture), 4);
  material_tail += std::string(reinterpret_cast<const char*>(&m.specular_texture), 4);
  std::string damaged = bytes;
  const size_t at = damaged.find(material_tail);
  ASSERT_NE(at, std::string::npos);
  const int32_t minus_two = -2;
  std::memcpy(damaged.data() + at + 8, &minus_two, 4);
  auto negative = detail::decode_scene(as_bytes(damaged));
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().find("negative"), std::string::npos) << negative.error();
  // An index past its list is validate_scene's error.
  const int32_t two = 2;
  std::memcpy(damaged.data() + at + 8, &two, 4);
  auto past = detail::decode_scene(as_bytes(damaged));
  ASSERT_FALSE(past);
  EXPECT_NE(past.error().find("texture out of range"), std::string::npos) << past.error();
}

#endif  // OSSA_HAS_IMPORT

TEST(HostileOssa, TexturePathsInsideAnOssaAreNeverOpened) {
  OssaFile file = small_file(Clip::Layout::kKeyed);
  Texture t;
  t.path = "/etc/hostname";
  t.resolved_path = "/etc/hostname";
  file.textures.push_back(t);
  auto loaded = decode_ossa(encode_ossa(file), "tex.ossa");
  ASSERT_TRUE(loaded) << loaded.error();
  ASSERT_EQ(loaded->textures.size(), 1u);
  EXPECT_TRUE(loaded->textures[0].resolved_path.empty());
  EXPECT_TRUE(loaded->textures[0].data.empty());
}

#ifdef OSSA_HAS_IMPORT
// ------------------------------------------------------------------------------- weights and binds

// Two joints, a triangle weighted to them with `weights` (4 per vertex) and inverse binds `binds` (2 x 16).
std::string skinned_triangle(const std::string& dir, const std::vector<float>& weights,
                             const std::vector<float>& binds) {
  test::GltfBuilder b;
  b.add_node({{"name", "Root"}, {"children", {1}}});
  b.add_node({{"name", "Child"}, {"translation", {0, 1, 0}}});
  b.add_node({{"name", "Body"}, {"mesh", 0}, {"skin", 0}});
  b.doc()["scenes"][0]["nodes"] = {0, 2};
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  int joints = b.add_u16({0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}, "VEC4");
  int weight_accessor = b.add_floats(weights, "VEC4");
  int ibm = b.add_floats(binds, "MAT4");
  nlohmann::json attributes = {{"POSITION", positions}, {"JOINTS_0", joints}, {"WEIGHTS_0", weight_accessor}};
  nlohmann::json primitive = {{"attributes", attributes}};
  b.doc()["meshes"] = nlohmann::json::array({{{"primitives", nlohmann::json::array({primitive})}}});
  b.doc()["skins"] = nlohmann::json::array({{{"joints", {0, 1}}, {"inverseBindMatrices", ibm}}});
  const std::string path = dir + "/skinned.gltf";
  b.write(path);
  return path;
}
const std::vector<float> kIdentityBinds = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,
                                           1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1};

bool warned(const ImportedScene& scene, const std::string& what) {
  for (const std::string& w : scene.warnings)
    if (w.find(what) != std::string::npos) return true;
  return false;
}

TEST(HostileWeights, NegativeWeightsAreReportedNotDroppedSilently) {
  const std::string dir = test::temp_dir("hostile_weights");
  auto scene =
      import_file(skinned_triangle(dir, {0.5f, 0.5f, 0, 0, 1.5f, -0.5f, 0, 0, 1, 0, 0, 0}, kIdentityBinds));
  ASSERT_TRUE(scene) << scene.error();
  // assimp's glTF reader drops the negative weight before Ossa sees it; what is left sums to 1.5.
  EXPECT_TRUE(warned(*scene, "negative weights were ignored") || warned(*scene, "summing to 1.5-1.5"))
      << "a negative weight vanished without a word";
  // The vertex keeps its positive influence, renormalised to 1.
  const RawMesh& mesh = scene->meshes.at(0);
  const int k = mesh.influences_per_vertex;
  EXPECT_FLOAT_EQ(mesh.influence_weights[static_cast<size_t>(k)], 1.f);
  auto clean = import_file(skinned_triangle(dir, {0.5f, 0.5f, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, kIdentityBinds));
  ASSERT_TRUE(clean) << clean.error();
  EXPECT_FALSE(warned(*clean, "negative") || warned(*clean, "summing")) << "no warning without a reason";
  fs::remove_all(dir);
}

TEST(HostileWeights, SingularInverseBindsAreReported) {
  const std::string dir = test::temp_dir("hostile_binds");
  std::vector<float> binds = kIdentityBinds;
  std::fill(binds.begin() + 16, binds.end(), 0.f);  // Child's inverse bind: all zeros
  auto scene = import_file(skinned_triangle(dir, {0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0}, binds));
  ASSERT_TRUE(scene) << scene.error();
  EXPECT_TRUE(warned(*scene, "'Child' has a singular offset (inverse bind) matrix"))
      << "silently at the origin";
  auto clean =
      import_file(skinned_triangle(dir, {0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0}, kIdentityBinds));
  ASSERT_TRUE(clean) << clean.error();
  EXPECT_FALSE(warned(*clean, "singular"));
  fs::remove_all(dir);
}

// Class 4 through the importer: a glTF whose joints are 3e38 apart, every number finite. The import refuses
// it by name (it loaded, and eval printed nulls).
TEST(HostileNumbers, ImportedJointsBeyondTheCoordinateRangeAreRefused) {
  const std::string dir = test::temp_dir("hostile_far_joints");
  test::GltfBuilder b;
  b.add_node({{"name", "Root"}, {"children", {1}}});
  b.add_node({{"name", "Far"}, {"translation", {0, 3e38, 0}}, {"mesh", 0}});
  b.doc()["scenes"][0]["nodes"] = {0};
  const int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  b.doc()["meshes"] = {{{"primitives", {{{"attributes", {{"POSITION", positions}}}}}}}};
  b.write(dir + "/far.gltf");
  auto scene = import_file(dir + "/far.gltf");
  ASSERT_FALSE(scene) << "joints 3e38 apart imported";
  EXPECT_NE(scene.error().find("1e7"), std::string::npos) << scene.error();
  fs::remove_all(dir);
}
#endif  // OSSA_HAS_IMPORT

// ------------------------------------------------------------------------------------------------- JSON

TEST(HostileJson, DeeplyNestedNotifyPayloadsAreRefused) {
  const std::vector<ClipTiming> clips{{"Walk", 1.f}};
  std::string deep = R"({"clips": {"Walk": [{"name": "a", "time": 0, "payload": )";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}]}}";
  auto r = parse_notifies(deep, "deep.notifies.json", clips);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("deep.notifies.json"), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("nested"), std::string::npos) << r.error();
  // Depth inside strings does not count; 64 levels are fine.
  std::string fine = R"({"clips": {"Walk": [{"name": "[[[[{{{{", "time": 0, "payload": )";
  fine += std::string(60, '[') + std::string(60, ']') + "}]}}";
  EXPECT_TRUE(parse_notifies(fine, "fine.json", clips));
}

// ------------------------------------------------------------------------------------ quadratic inputs
// These finish in about a second when the work is n log n; the quadratic versions take minutes (100,000
// names: 7.4 s, so 500,000: about 3 minutes). ctest's timeout for these tests (120 s) catches a regression;
// the tests never assert on time.

TEST(HostileScale, ManyNotifyNamesParseInLinearTime) {
  const std::vector<ClipTiming> clips{{"Walk", 1.f}};
  std::string text = R"({"clips": {"Walk": [)";
  for (int i = 0; i < 500000; ++i) {
    if (i) text += ',';
    text += R"({"name": "n)";
    text += std::to_string(i);
    text += R"(", "time": 0.5})";
  }
  text += "]}}";
  auto r = parse_notifies(text, "many.json", clips);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->names.size(), 500000u);
  EXPECT_EQ(r->find_notify("n499999"), 499999);
}

// ---------------------------------------------------------------- round two: amplification and overflow
// Each case costs the file next to nothing and cost the loader or the runtime far more (the figures are the
// ones measured before the fix). Memory is asserted through memory_bytes(), work through counts; time is
// printed, and ctest's 120 s timeout catches a return of the quadratic versions.

// Class 1: quantized morph weights were checked key x target one by one; a 0-bit channel costs the file
// nothing, so 10^6 keys x 10^5 targets (about 5 MB) meant 10^11 checks. The check is per channel now.
TEST(HostileScale, QuantizedMorphWeightChecksAreLinearInTheFile) {
  const uint32_t keys = 1000000;
  const int targets = 100000;
  std::vector<float> times(keys);
  for (uint32_t k = 0; k < keys; ++k) times[k] = static_cast<float>(k) / 1000;
  std::vector<MorphWeightTracks::WeightChannel> channels(targets);  // 0 bits: every key is `min`
  const MorphWeightTracks::QuantizedTrack track{0, targets, keys};
  const auto start = std::chrono::steady_clock::now();
  auto built = MorphWeightTracks::from_quantized({&track, 1}, times, channels, {}, "many.ossa");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %u keys x %d zero-bit targets checked in %.3f s\n", keys, targets, seconds);
  ASSERT_TRUE(built) << built.error();
  // The range is still checked: one channel whose top decodes past the weight range is refused.
  channels[targets - 1] = {0.f, 1e30f, 8, {0, 0, 0}};
  std::vector<uint8_t> packed(static_cast<size_t>(keys) * 1, 0);  // 8 bits a key for that channel
  auto refused = MorphWeightTracks::from_quantized({&track, 1}, times, channels, packed, "many.ossa");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("outside"), std::string::npos) << refused.error();
}

// Class 2: a quantized clip without animated channels could declare one segment per frame: 2^23 frames of
// 32-byte segments (268 MB; 2^24 frames, 521 MB) from a few hundred bytes. Such a clip is one segment; its
// memory is what it holds.
TEST(HostileScale, EmptySegmentsCostNoMemory) {
  Skeleton skeleton = test::two_joint_skeleton();
  const int frames = (1 << 23) + 1;  // 2048 s at 4096 fps: exact in float
  const float rate = 4096, duration = 2048;
  ASSERT_EQ(Clip::frame_count_for(duration, rate), frames);
  Clip::QuantizedParts parts;
  parts.frame_count = frames;
  parts.segment_frames = 1;
  auto clip = Clip::from_quantized("empty", duration, rate, skeleton.rest_pose(), parts);
  ASSERT_TRUE(clip) << clip.error();
  EXPECT_EQ(clip->segment_frames(), frames);
  EXPECT_LT(clip->memory_bytes(), size_t{4096});
  // The same through a .ossa: the file says 1 frame per segment.
  OssaFile file;
  file.skeleton = skeleton;
  file.clips.push_back(std::move(clip).value());
  file.root_motion.resize(1);
  std::vector<uint8_t> bytes = encode_ossa(file);
  // After the frame count: the segment length (ossa_file.h's clip section; the name here is "empty").
  const size_t segment_frames_at = 8 + 5 + 4 + 4 + 4 + 4 + 4;
  test::patch_ossa_section(bytes, kClipSection, segment_frames_at, uint32_t{1});
  auto loaded = decode_ossa(bytes, "segments.ossa");
  ASSERT_TRUE(loaded) << loaded.error();
  std::printf("  a %zu-byte file declaring %d one-frame segments holds %zu bytes in memory\n", bytes.size(),
              frames, loaded->clips[0].memory_bytes());
  EXPECT_LT(loaded->clips[0].memory_bytes(), size_t{4096});
  std::vector<JointPose> out(2);
  SamplingCache cache;
  EXPECT_TRUE((SampleJob{&loaded->clips[0], duration / 2, &cache, out}.run()));
}

// Class 3: a very short looping clip with many notifies walked every notify on each pass of a step (up to
// 100,000 passes): a 1 ms clip with 100,000 instants and a 1 s step swept 10^8 notify crossings. A step now
// sweeps at most about Playhead::kMaxSweptNotifies crossings plus one pass.
TEST(HostileScale, AStepSweepsABoundedNumberOfNotifyCrossings) {
  ClipNotifies notifies;
  const int count = 100000;
  for (int i = 0; i < count; ++i) notifies.instants.push_back({0, 0.001f * i / count, 0, "", {}});
  Playhead playhead;
  playhead.start(0.001f, LoopMode::kRepeat, 0, 0, &notifies);
  EventBuffer events(1024);
  size_t swept = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int step = 0; step < 20; ++step) {
    events.clear();
    playhead.advance(1.0, events);
    swept = std::max(swept, events.events().size() + events.dropped());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  20 steps of 1,000 passes over %d notifies: at most %zu crossings a step, %.3f s\n", count,
              swept, seconds);
  EXPECT_GE(swept, size_t{count}) << "a step over whole passes still fires every notify of a pass";
  EXPECT_LE(swept, static_cast<size_t>(Playhead::kMaxSweptNotifies) + 3 * count);
  EXPECT_GT(playhead.loops(), 20 * 999) << "the skipped passes still count as loops";
}

// A step inside one pass fires only what it crosses, in order, from a long list (binary searches). Times
// on a 1/1024 s grid are exact in float.
TEST(HostileScale, AShortStepFiresOnlyWhatItCrosses) {
  ClipNotifies notifies;
  for (int i = 0; i < 100000; ++i) notifies.instants.push_back({0, i / 1024.f, 0, "", {}});
  notifies.states.push_back({0, 29.5f, 1.f, "", {}});
  Playhead playhead;
  playhead.start(100, LoopMode::kRepeat, 0, 30.f, &notifies);
  EventBuffer events(1024);
  playhead.advance(0, events);  // the start point: its instant, and the state it starts inside
  ASSERT_EQ(events.events().size(), 2u);
  EXPECT_EQ(events.events()[0].type, EventType::kBegin);
  EXPECT_EQ(events.events()[1].notify, 30 * 1024);
  events.clear();
  playhead.advance(5 / 1024.0, events);  // (30, 30 + 5/1024]: five instants
  ASSERT_EQ(events.events().size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(events.events()[i].type, EventType::kInstant);
    EXPECT_EQ(events.events()[i].notify, 30 * 1024 + 1 + static_cast<int>(i));
  }
  events.clear();
  playhead.advance(0.6, events);  // past 30.5: the state ends among the instants, in order
  bool ended = false;
  float last = 0;
  for (const PlaybackEvent& e : events.events()) {
    EXPECT_GE(e.time, last);
    last = e.time;
    ended |= e.type == EventType::kEnd && e.notify == 0;
  }
  EXPECT_TRUE(ended);
}

// Absurdly short clips play as a pose: their notifies fire once, then playback finishes (documented minimum
// Playhead::kMinDuration).
TEST(HostileScale, ClipsShorterThanTheMinimumPlayAsAPose) {
  ClipNotifies notifies;
  for (int i = 0; i < 1000; ++i) notifies.instants.push_back({0, 1e-6f * i / 1000, 0, "", {}});
  Playhead playhead;
  playhead.start(1e-6f, LoopMode::kRepeat, 0, 0, &notifies);
  EventBuffer events(4096);
  playhead.advance(1 / 60.0, events);
  size_t instants = 0;
  for (const PlaybackEvent& e : events.events()) instants += e.type == EventType::kInstant;
  EXPECT_EQ(instants, 1000u);
  EXPECT_TRUE(playhead.finished());
}

// A NUL in a notify name ("\u0000" in the JSON) would cut the name short wherever it is printed.
TEST(HostileJson, NotifyNamesWithNulAreRefused) {
  const std::vector<ClipTiming> clips{{"Walk", 1.f}};
  auto r =
      parse_notifies(R"({"clips": {"Walk": [{"name": "Foot\u0000L", "time": 0.5}]}})", "nul.json", clips);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("NUL"), std::string::npos) << r.error();
}

// Class 4: finite numbers that overflow once used. Ranges (ossa/asset/value_ranges.h) are checked where
// assets are built, so the importer and the .ossa reader refuse the same things.
TEST(HostileNumbers, HugeButFiniteSkeletonValuesAreRefused) {
  for (int field = 0; field < 3; ++field) {
    RawSkeleton raw;
    raw.joints.resize(2);
    raw.joints[0].name = "root";
    raw.joints[1].name = "far";
    raw.joints[1].parent = 0;
    if (field == 0) raw.joints[1].rest.translation = {3e38f, 0, 0};
    if (field == 1) raw.joints[1].rest.scale = {1, 3e38f, 1};
    if (field == 2) raw.joints[1].inverse_bind.m[12] = 3e38f;
    auto built = Skeleton::build(raw);
    ASSERT_FALSE(built) << "field " << field;
    EXPECT_NE(built.error().find("'far'"), std::string::npos) << built.error();
  }
  // A rotation of any finite length is a rotation: normalised, not refused (a zero one is refused).
  RawSkeleton raw;
  raw.joints.resize(1);
  raw.joints[0].name = "long";
  raw.joints[0].rest.rotation = {3e38f, 0, 0, 0};
  auto built = Skeleton::build(raw);
  ASSERT_TRUE(built) << built.error();
  EXPECT_EQ(built->rest_pose()[0].rotation[0], 1.f);
  raw.joints[0].rest.rotation = {0, 0, 0, 0};
  EXPECT_FALSE(Skeleton::build(raw));
}

TEST(HostileNumbers, KeyedValuesAreRangeCheckedAndRotationsNormalised) {
  // One joint: translation, rotation and scale channels with one key each (4 floats a key).
  auto keyed = [](std::vector<float> values) {
    return Clip::from_keys("k", 1, 1, {0, 1, 2, 3}, {0, 0, 0}, std::move(values));
  };
  auto fine = keyed({1, 2, 3, 0, 0, 0, 2, 0, 1, 1, 1, 0});  // rotation (0, 0, 2, 0): length 2
  ASSERT_TRUE(fine) << fine.error();
  std::vector<JointPose> out(1);
  SamplingCache cache;
  ASSERT_TRUE((SampleJob{&*fine, 0, &cache, out}.run()));
  EXPECT_FLOAT_EQ(out[0].rotation[2], 1.f) << "a keyed rotation is normalised on load";
  EXPECT_FALSE(keyed({3e38f, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0}));
  EXPECT_FALSE(keyed({0, 0, 0, 0, 0, 0, 0, 1, 1, -3e38f, 1, 0}));
  EXPECT_FALSE(keyed({0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0})) << "a zero rotation";
  std::vector<JointPose> frames(2);
  frames[1].translation[1] = 2e7f;
  EXPECT_FALSE(Clip::from_frames("f", 0.1f, 10, 1, frames));
}

TEST(HostileNumbers, MeshAndMorphValuesAreRangeChecked) {
  Skeleton skeleton = test::two_joint_skeleton();
  auto mesh = [&](auto edit) {
    RawMesh raw;
    raw.name = "m";
    raw.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    raw.indices = {0, 1, 2};
    raw.influences_per_vertex = 1;
    raw.influence_joints = {0, 0, 0};
    raw.influence_weights = {1, 1, 1};
    raw.joint_remap = {0};
    raw.inverse_binds = {Mat4{}};
    raw.morph_targets = {{"t", {1}, {{0, 1, 0}}, {}, {}}};
    raw.morph_default_weights = {0};
    edit(raw);
    return SkinnedMesh::build(raw, skeleton);
  };
  EXPECT_TRUE(mesh([](RawMesh&) {}));
  EXPECT_FALSE(mesh([](RawMesh& m) { m.influence_weights[1] = -5; })) << "a negative skin weight";
  EXPECT_FALSE(mesh([](RawMesh& m) { m.influence_weights[1] = 3e38f; }));
  EXPECT_FALSE(mesh([](RawMesh& m) { m.positions[2].y = 3e38f; }));
  EXPECT_FALSE(mesh([](RawMesh& m) { m.inverse_binds[0].m[0] = 3e38f; }));
  EXPECT_FALSE(mesh([](RawMesh& m) { m.morph_default_weights[0] = 3e38f; }));
  EXPECT_FALSE(mesh([](RawMesh& m) { m.morph_targets[0].position_deltas[0].x = 3e38f; }));
  std::vector<RawMorphTarget> many(MorphTargets::kMaxTargets + 1,
                                   RawMorphTarget{"t", {0}, {{0, 1, 0}}, {}, {}});
  EXPECT_FALSE(mesh([&](RawMesh& m) {
    m.morph_targets = many;
    m.morph_default_weights.assign(many.size(), 0.f);
  })) << "more morph targets than the importer allows";
}

#ifdef OSSA_HAS_IMPORT
// ------------------------------------------------------------- round three: glTF work counted before assimp
// assimp's glTF reader compares names pairwise (a skin's bones, a channel's node against the tree, a node's
// children) and recurses per tree level: these files took 5-26 s to be refused or crashed the reader. Each is
// refused now by Ossa's count (gltf_limits.h), which reads only the JSON; the message proves assimp never ran
// (its own refusals read differently), and the time is printed.
// A skinned triangle on node `nodes`, with `joints` of the nodes in its skin, under a tree in which node i's
// parent is (i - 1) / fan; `channels` rotation channels (on nodes 0, 1, ...) in one clip.
std::string write_busy_gltf(const std::string& dir, const char* name, int nodes, int fan, int joints,
                            int channels) {
  test::GltfBuilder b;
  auto& d = b.doc();
  for (int i = 0; i < nodes; ++i) d["nodes"].push_back({{"name", std::string(1, 'n') + std::to_string(i)}});
  for (int i = 1; i < nodes; ++i) d["nodes"][(i - 1) / fan]["children"].push_back(i);
  const int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  const int influences = b.add_u16({0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
  const int weights = b.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
  d["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", positions}, {"JOINTS_0", influences}, {"WEIGHTS_0", weights}}}}}}}};
  std::vector<float> identities;
  for (int j = 0; j < joints; ++j)
    for (int k = 0; k < 16; ++k) identities.push_back(k % 5 == 0 ? 1.f : 0.f);
  const int ibm = b.add_floats(identities, "MAT4");
  nlohmann::json skin_joints = nlohmann::json::array();
  for (int j = 0; j < joints; ++j) skin_joints.push_back(j);
  d["skins"] = {{{"joints", skin_joints}, {"inverseBindMatrices", ibm}}};
  b.add_node({{"name", "skinned"}, {"mesh", 0}, {"skin", 0}});
  d["scenes"][0]["nodes"] = {0, nodes};
  if (channels > 0) {
    const int times = b.add_floats({0, 1}, "SCALAR", true);
    const int rotations = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1}, "VEC4");
    nlohmann::json list = nlohmann::json::array();
    for (int c = 0; c < channels; ++c)
      list.push_back({{"sampler", 0}, {"target", {{"node", c % nodes}, {"path", "rotation"}}}});
    d["animations"] = {
        {{"name", "Busy"}, {"samplers", {{{"input", times}, {"output", rotations}}}}, {"channels", list}}};
  }
  const std::string path = (fs::path(dir) / name).string();
  b.write(path);
  return path;
}

// Imports `path` (guarded, as users do) and expects a refusal that mentions `words`; prints the time.
void expect_refused_quickly(const std::string& path, const std::string& words) {
  const auto start = std::chrono::steady_clock::now();
  auto r = import_file(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("  %s (%.1f MB): %.2f s\n", fs::path(path).filename().string().c_str(),
              static_cast<double>(fs::file_size(path)) / 1e6, seconds);
  ASSERT_FALSE(r) << path;
  EXPECT_NE(r.error().find(words), std::string::npos) << r.error();
  EXPECT_NE(r.error().find("Ossa's limit"), std::string::npos) << r.error();
}

TEST(HostileGltfWork, ASkinOfSeventyThousandJointsIsRefusedBeforeAssimpReadsIt) {
  const std::string dir = test::temp_dir("gltf_work_skin");
  expect_refused_quickly(write_busy_gltf(dir, "skin.gltf", 70000, 100, 70000, 0), "bone");
  fs::remove_all(dir);
}

TEST(HostileGltfWork, FortyThousandChannelsOverFortyThousandNodesAreRefused) {
  const std::string dir = test::temp_dir("gltf_work_channels");
  expect_refused_quickly(write_busy_gltf(dir, "channels.gltf", 40000, 100, 3, 40000), "channels");
  fs::remove_all(dir);
}

TEST(HostileGltfWork, EightyThousandChildrenOfOneNodeAreRefused) {
  const std::string dir = test::temp_dir("gltf_work_children");
  expect_refused_quickly(write_busy_gltf(dir, "children.gltf", 80000, 80000, 3, 0), "children");
  fs::remove_all(dir);
}

TEST(HostileGltfWork, NodeTreesTooDeepOrNotTreesAreRefused) {
  const std::string dir = test::temp_dir("gltf_work_tree");
  // A chain 20,000 deep crashed assimp's recursive reader (the guard reported it; unguarded it was a crash).
  expect_refused_quickly(write_busy_gltf(dir, "deep.gltf", 20000, 1, 3, 0), "depth");
  for (const char* shape : {"cycle", "two parents"}) {
    test::GltfBuilder b;
    b.add_node({{"name", "a"}, {"children", {1}}});
    b.add_node({{"name", "b"}, {"children", {std::string(shape) == "cycle" ? 0 : 2}}});
    b.add_node({{"name", "c"}});
    if (std::string(shape) == "two parents") b.doc()["nodes"][0]["children"].push_back(2);
    b.doc()["scenes"][0]["nodes"] = {0};
    const std::string path = (fs::path(dir) / "tree.gltf").string();
    b.write(path);
    auto r = import_file(path);
    ASSERT_FALSE(r) << shape;
    EXPECT_NE(r.error().find(std::string(shape) == "cycle" ? "cycle" : "two parents"), std::string::npos)
        << r.error();
  }
  fs::remove_all(dir);
}

// What real characters hold stays far inside the counts: 4,000 joints in one skin (real rigs have 50-1,500),
// 12,000 channels over them, 512 levels deep: imported, every joint and channel there.
TEST(HostileGltfWork, LargeButRealisticFilesStillImport) {
  const std::string dir = test::temp_dir("gltf_work_fine");
  const std::string wide = write_busy_gltf(dir, "wide.gltf", 4000, 100, 4000, 12000);
  auto r = import_file(wide);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r->skeleton.joints.size(), 4000u);
  ASSERT_EQ(r->clips.size(), 1u);
  auto deep =
      import_file(write_busy_gltf(dir, "deep.gltf", static_cast<int>(detail::kMaxGltfNodeDepth), 1, 3, 0));
  ASSERT_TRUE(deep) << deep.error();
  fs::remove_all(dir);
}

// Names in import messages and warnings come from the file: they show escaped (ossa/core/printable.h), never
// as bytes that drive a terminal. A bone named with a right-to-left override and a mesh named with a
// terminal-title sequence: the bone's inverse bind is singular (a warning names it), then its node lies 3e38
// away (an error names it).
TEST(HostileMessages, NamesFromTheFileAreEscapedInImportWarningsAndErrors) {
  const std::string dir = test::temp_dir("hostile_names");
  auto write = [&](float distance) {
    test::GltfBuilder b;
    auto& d = b.doc();
    b.add_node({{"name",
                 "b\xe2\x80\xae"
                 "gpj.exe"},
                {"translation", {0, distance, 0}}});
    const int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
    const int influences = b.add_u16({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC4");
    const int weights = b.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
    d["meshes"] = {
        {{"name", "Body\x1b]0;owned\x07"},
         {"primitives",
          {{{"attributes", {{"POSITION", positions}, {"JOINTS_0", influences}, {"WEIGHTS_0", weights}}}}}}}};
    const int ibm = b.add_floats(std::vector<float>(16, 0.f), "MAT4");
    d["skins"] = {{{"joints", {0}}, {"inverseBindMatrices", ibm}}};
    b.add_node({{"name", "Body\x1b]0;owned\x07"}, {"mesh", 0}, {"skin", 0}});
    d["scenes"][0]["nodes"] = {0, 1};
    const std::string path = (fs::path(dir) / "names.gltf").string();
    b.write(path);
    return path;
  };
  auto expect_escaped = [](const std::string& text) {
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_EQ(text.find("\xe2\x80\xae"), std::string::npos) << text;
  };
  auto warned = import_file(write(1));
  ASSERT_TRUE(warned) << warned.error();
  bool named = false;
  for (const std::string& warning : warned->warnings) {
    expect_escaped(warning);
    named = named || warning.find("'b\\u202Egpj.exe' has a singular") != std::string::npos;
  }
  EXPECT_TRUE(named) << (warned->warnings.empty() ? "no warning" : warned->warnings[0]);
  auto refused = import_file(write(3e38f));
  ASSERT_FALSE(refused);
  expect_escaped(refused.error());
  EXPECT_NE(refused.error().find("b\\u202Egpj.exe"), std::string::npos) << refused.error();
  fs::remove_all(dir);
}
#endif  // OSSA_HAS_IMPORT
}  // namespace
}  // namespace ossa
