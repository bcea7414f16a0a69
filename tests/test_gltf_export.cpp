// glTF export (ossa/serialize/gltf_export.h), checked by Ossa's own importer: the export of each character,
// imported again, gives the source's joints and skinned vertices within 1e-6 of the model's size at key times
// and between keys. (The Khronos validator and three.js check the same exports: tests/gltf/.)
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "oracle_compare.h"
#include "ossa/import/load_character.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/gltf_export.h"
#include "synthetic_character.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

std::shared_ptr<const LoadedCharacter> load_keyed(const std::string& path) {
  ModelLoadOptions options;
  options.import.isolate = false;
  options.build.layout = Clip::Layout::kKeyed;
  auto loaded = load_character(path, options);
  EXPECT_TRUE(loaded) << loaded.error();
  return loaded ? *loaded : nullptr;
}

// A character's joints (model space) and skinned, morphed vertices at one time of one clip (-1: rest).
struct Evaluation {
  std::vector<Mat4> model;
  std::vector<std::vector<float>> vertices;  // per mesh
};

Evaluation evaluate(const LoadedCharacter& c, int clip, float time) {
  const Skeleton& skeleton = c.asset.skeleton;
  std::vector<JointPose> locals(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  SamplingCache cache;
  const Clip* sampled = clip >= 0 ? &c.asset.clips[clip] : nullptr;
  if (sampled) SampleJob{sampled, time, &cache, locals}.run();
  Evaluation out;
  out.model.resize(skeleton.joint_count());
  LocalToModelJob{&skeleton, locals, out.model}.run();
  for (size_t m = 0; m < c.asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = c.asset.meshes[m];
    const MorphTargets& targets = mesh.morph_targets();
    std::vector<float> weights(targets.default_weights().begin(), targets.default_weights().end());
    if (sampled) sampled->morph_weights().sample_mesh(static_cast<int>(m), time, weights);
    std::vector<float> morphed(mesh.positions().begin(), mesh.positions().end()), skinned(morphed.size());
    MorphJob morph = MorphJob::for_mesh(mesh, weights);
    morph.out_positions = morphed;
    morph.run();
    std::vector<Mat4> palette(mesh.inverse_binds().size());
    PaletteJob{out.model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run();
    SkinningJob job = SkinningJob::for_mesh(mesh, palette);
    job.in_positions = morphed;
    job.out_positions = skinned;
    job.run();
    out.vertices.push_back(std::move(skinned));
  }
  return out;
}

// The diagonal of the rest vertices' box (the joints' when there are no meshes).
float model_size(const LoadedCharacter& c) {
  Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
  auto add = [&](Vec3 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  };
  for (const SkinnedMesh& mesh : c.asset.meshes)
    for (size_t i = 0; i + 2 < mesh.positions().size(); i += 3)
      add({mesh.positions()[i], mesh.positions()[i + 1], mesh.positions()[i + 2]});
  if (c.asset.meshes.empty())
    for (const Mat4& m : evaluate(c, -1, 0).model) add(m.translation());
  return length(Vec3{hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
}

// Times to compare: the clip's start and end, and 9 between (most fall between keys).
std::vector<float> probe_times(const Clip& clip) {
  std::vector<float> times = {0, clip.duration()};
  for (int k = 0; k < 9; ++k) times.push_back(clip.duration() * (0.013f + 0.1097f * k));
  return times;
}

std::array<float, 3> position_key(std::span<const float> positions, size_t vertex) {
  return {positions[vertex * 3], positions[vertex * 3 + 1], positions[vertex * 3 + 2]};
}

struct RoundTrip {
  double worst_joint = 0, worst_vertex = 0;  // fractions of the model's size
  int samples = 0;
};

// Exports `source` into `folder` as NAME.glb (and NAME.gltf), imports both back and compares.
RoundTrip round_trip(const LoadedCharacter& source, const std::string& name, bool frame_times_only = false) {
  RoundTrip result;
  const fs::path folder = fs::path(::testing::TempDir()) / "ossa_gltf_export";
  fs::create_directories(folder);
  const float size = model_size(source);
  for (const char* ext : {".glb", ".gltf"}) {
    const std::string path = (folder / (name + ext)).string();
    auto written = write_gltf(source, path);
    EXPECT_TRUE(written) << written.error();
    if (!written) return result;
    auto back = load_keyed(path);
    if (!back) return result;
    EXPECT_EQ(back->asset.clips.size(), source.asset.clips.size()) << path;
    EXPECT_EQ(back->asset.meshes.size(), source.asset.meshes.size()) << path;
    if (back->asset.meshes.size() != source.asset.meshes.size()) return result;
    // Each mesh's vertices by bind position, and every source position must come back.
    std::vector<std::map<std::array<float, 3>, std::vector<size_t>>> same_place(source.asset.meshes.size());
    for (size_t m = 0; m < source.asset.meshes.size(); ++m) {
      const auto positions = source.asset.meshes[m].positions();
      for (size_t v = 0; v < positions.size() / 3; ++v)
        same_place[m][position_key(positions, v)].push_back(v);
      std::set<std::array<float, 3>> drawn, back_positions;  // (the importer drops vertices no triangle uses)
      for (uint32_t v : source.asset.meshes[m].indices()) drawn.insert(position_key(positions, v));
      for (size_t v = 0; v < back->asset.meshes[m].positions().size() / 3; ++v)
        back_positions.insert(position_key(back->asset.meshes[m].positions(), v));
      EXPECT_EQ(back_positions, drawn) << path << ": mesh " << m;
    }
    std::vector<int> joint_in_back;
    for (int j = 0; j < source.asset.skeleton.joint_count(); ++j) {
      joint_in_back.push_back(back->asset.skeleton.find_joint(source.asset.skeleton.name(j)));
      EXPECT_GE(joint_in_back.back(), 0) << path << ": joint " << source.asset.skeleton.name(j);
      if (joint_in_back.back() < 0) return result;
    }
    for (int c = -1; c < static_cast<int>(source.asset.clips.size()); ++c) {
      const int back_clip = c < 0 ? -1 : back->asset.find_clip(source.asset.clips[c].name());
      EXPECT_TRUE(c < 0 || back_clip >= 0) << path << ": clip " << source.asset.clips[c].name();
      std::vector<float> times = c < 0 ? std::vector<float>{0} : probe_times(source.asset.clips[c]);
      if (frame_times_only && c >= 0) {
        const Clip& clip = source.asset.clips[c];
        times.clear();
        for (int f = 0; f < clip.frame_count(); f += std::max(1, clip.frame_count() / 9))
          times.push_back(f + 1 == clip.frame_count() ? clip.duration() : f / clip.frame_rate());
      }
      for (float t : times) {
        const Evaluation a = evaluate(source, c, t), b = evaluate(*back, back_clip, t);
        for (size_t j = 0; j < a.model.size(); ++j)
          result.worst_joint = std::max<double>(
              result.worst_joint,
              length(a.model[j].translation() - b.model[joint_in_back[j]].translation()) / size);
        for (size_t m = 0; m < a.vertices.size(); ++m) {
          // Ossa's importer joins identical vertices, so the export's come back fewer: each is compared with
          // the source's vertices at the same bind position (the closest of them, when several share it).
          for (size_t i = 0; i + 2 < b.vertices[m].size(); i += 3) {
            const auto found = same_place[m].find(position_key(back->asset.meshes[m].positions(), i / 3));
            EXPECT_NE(found, same_place[m].end()) << path << ": mesh " << m << " vertex " << i / 3;
            if (found == same_place[m].end()) return result;
            double closest = INFINITY;
            for (size_t v : found->second)
              closest =
                  std::min<double>(closest, length(Vec3{a.vertices[m][v * 3] - b.vertices[m][i],
                                                        a.vertices[m][v * 3 + 1] - b.vertices[m][i + 1],
                                                        a.vertices[m][v * 3 + 2] - b.vertices[m][i + 2]}));
            result.worst_vertex = std::max(result.worst_vertex, closest / size);
          }
        }
        ++result.samples;
      }
    }
  }
  std::printf("  %-40s %4d samples: joints within %.2e, vertices within %.2e of the model's size\n",
              name.c_str(), result.samples, result.worst_joint, result.worst_vertex);
  return result;
}

constexpr double kRoundTripTolerance = 1e-6;  // of the model's size

std::vector<std::string> exported_models() {
  std::vector<std::string> files = animated_models();
  files.push_back(source_dir() + "/assets/sample/ossa_face.glb");
  files.push_back(source_dir() + "/assets/sample/ossa_face_step.glb");
  files.push_back(source_dir() + "/assets/sample/ossa_face.fbx");
  files.push_back(source_dir() + "/assets/sample/ossa_sample.dae");
  if (std::string shared = shared_dir(); !shared.empty())
    for (const char* f : {"RobotExpressive.glb", "maya_game_sausage_7500_ascii_combined.fbx",
                          "morph/AnimatedMorphCube.gltf", "morph/AnimatedMorphSphere.gltf"})
      files.push_back(shared + "/models/" + f);
  return files;
}

TEST(GltfExport, RoundTripsEveryModelThroughOssasImporter) {
  for (const std::string& file : exported_models()) {
    SCOPED_TRACE(file);
    auto source = load_keyed(file);
    ASSERT_TRUE(source);
    const RoundTrip r = round_trip(*source, fs::path(file).stem().string());
    EXPECT_GT(r.samples, 0);
    EXPECT_LE(r.worst_joint, kRoundTripTolerance);
    EXPECT_LE(r.worst_vertex, kRoundTripTolerance);
  }
  if (shared_dir().empty())
    GTEST_SKIP() << "../shared/models not found: only the bundled models were exported";
}

TEST(GltfExport, RoundTripsSyntheticCharactersAtTheirFrames) {
  // Fixed-rate clips are written frame by frame and compared at their frames. The source samples through the
  // fixed-rate kernel, the re-import through the keyed one: at SIMD levels the two round differently (up to
  // 1.2e-7 per rotation component, RuntimeJobs.SimdPathsAgreeWithScalar), which the synthetic characters'
  // random chains of up to 70 joints carry to 1.4e-6 of their size (5e-7 with the scalar kernels).
  constexpr double kSyntheticTolerance = 2e-6;
  for (int joints : {1, 33, 70}) {
    LoadedCharacter c;
    c.asset = synthetic_character(joints, 7);
    const RoundTrip r = round_trip(c, "synthetic_" + std::to_string(joints), true);
    EXPECT_LE(r.worst_joint, kSyntheticTolerance);
    EXPECT_LE(r.worst_vertex, kSyntheticTolerance);
  }
  LoadedCharacter morph;
  morph.asset = synthetic_morph_character(12, 5, 4);
  const RoundTrip r = round_trip(morph, "synthetic_morph", true);
  EXPECT_LE(r.worst_vertex, kSyntheticTolerance);
}

TEST(GltfExport, KeepsNotifiesAndRootMotionForOssa) {
  auto sample = load_keyed(source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(sample && sample->has_notifies());
  // Root motion: fixed-rate clips, taken out as `ossa convert --root-motion` does.
  ModelLoadOptions options;
  options.import.isolate = false;
  auto fixed = load_character(source_dir() + "/assets/sample/ossa_sample.fbx", options);
  ASSERT_TRUE(fixed) << fixed.error();
  LoadedCharacter moving = **fixed;
  auto in_place = extract_root_motion(moving.asset.clips, moving.asset.skeleton);
  ASSERT_TRUE(in_place) << in_place.error();
  moving.asset.clips = std::move(in_place->clips);
  moving.root_motion = std::move(in_place->tracks);

  const std::string path = (fs::path(::testing::TempDir()) / "ossa_gltf_notifies.glb").string();
  ASSERT_TRUE(write_gltf(moving, path));
  ModelLoadOptions no_sidecar = options;
  no_sidecar.sidecar = false;
  auto back = load_character(path, no_sidecar);
  ASSERT_TRUE(back) << back.error();
  const LoadedCharacter& b = **back;
  // Notifies: the same names at the same times, clip by clip.
  ASSERT_EQ(b.notifies.clips.size(), moving.asset.clips.size());
  int compared = 0;
  for (size_t c = 0; c < moving.notifies.clips.size(); ++c) {
    const auto& want = moving.notifies.clips[c].instants;
    const auto& got = b.notifies.clips[b.asset.find_clip(moving.asset.clips[c].name())].instants;
    ASSERT_EQ(got.size(), want.size()) << moving.asset.clips[c].name();
    for (size_t i = 0; i < want.size(); ++i, ++compared) {
      EXPECT_EQ(b.notifies.names[got[i].name_id], moving.notifies.names[want[i].name_id]);
      EXPECT_FLOAT_EQ(got[i].time, want[i].time);
      EXPECT_EQ(got[i].payload.empty(), want[i].payload.empty());
    }
  }
  EXPECT_GT(compared, 0);
  // Root motion: taken out again, the same travel (within 1e-5 of the distance covered, a millimetre on
  // the sample) and the same in-place clip.
  ASSERT_EQ(b.root_motion.size(), moving.root_motion.size());
  for (size_t c = 0; c < moving.root_motion.size(); ++c) {
    const RootDelta want = moving.root_motion[c].total(), got = b.root_motion[c].total();
    const float travel = std::max(1.0f, std::hypot(want.x, want.z));
    EXPECT_NEAR(got.x, want.x, 1e-5f * travel) << moving.asset.clips[c].name();
    EXPECT_NEAR(got.z, want.z, 1e-5f * travel) << moving.asset.clips[c].name();
    EXPECT_NEAR(got.yaw, want.yaw, 1e-5f) << moving.asset.clips[c].name();
  }
}

// --compress: KHR_mesh_quantization and reduced keys. The error it reports is checked independently by
// three.js (tests/gltf/check_export.mjs --compress: joints within the bound); here, that it is smaller and
// says so.
TEST(GltfExport, CompressedIsSmallerWithinItsBound) {
  for (const std::string& file : {source_dir() + "/assets/sample/ossa_sample.fbx",
                                  source_dir() + "/assets/bench/ossa_humanoid70.glb"}) {
    SCOPED_TRACE(file);
    auto source = load_keyed(file);
    ASSERT_TRUE(source);
    auto plain = encode_gltf(*source);
    GltfExportOptions options;
    options.compress = true;
    auto small = encode_gltf(*source, options);
    ASSERT_TRUE(plain && small);
    const size_t plain_bytes = plain->files[0].bytes.size(), small_bytes = small->files[0].bytes.size();
    std::printf("  %s: %zu -> %zu bytes (%.2f:1), joint keys %zu -> %zu, error %.4f mm\n", file.c_str(),
                plain_bytes, small_bytes, double(plain_bytes) / small_bytes, small->joint_keys_full,
                small->joint_keys, small->worst_error * 1000);
    EXPECT_LT(small_bytes, plain_bytes * 85 / 100);
    EXPECT_LT(small->joint_keys, small->joint_keys_full);
    EXPECT_EQ(small->joint_keys_full, plain->joint_keys);
    EXPECT_GT(small->worst_error, 0);
    EXPECT_LE(small->worst_error, options.tolerance);
    const std::string json(
        small->files[0].bytes.begin() + 20,
        small->files[0].bytes.begin() + 20 + *reinterpret_cast<const uint32_t*>(&small->files[0].bytes[12]));
    EXPECT_NE(json.find("\"extensionsRequired\":[\"KHR_mesh_quantization\"]"), std::string::npos);
  }
}

// assimp 5.2 reads KHR_mesh_quantization's integers as garbage ("position is not finite"): Ossa's importer
// says what the file needs instead, for its own compressed exports as for anyone's.
TEST(GltfExport, ImportingACompressedExportNamesTheExtension) {
  auto source = load_keyed(source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(source);
  GltfExportOptions options;
  options.compress = true;
  const std::string path = (fs::path(::testing::TempDir()) / "ossa_gltf_compressed.glb").string();
  ASSERT_TRUE(write_gltf(*source, path, options));
  ImportOptions import;
  import.isolate = false;
  auto scene = import_file(path, import);
  ASSERT_FALSE(scene);
  EXPECT_NE(scene.error().find("KHR_mesh_quantization"), std::string::npos) << scene.error();
  EXPECT_NE(scene.error().find("without --compress"), std::string::npos) << scene.error();
}

// The extras are read from files anyone may write: a bad notify is an error naming the file, a root-motion
// joint the skeleton lacks too, and extras of the wrong shape are ignored.
TEST(GltfExport, ExtrasFromElsewhereAreCheckedLikeASidecar) {
  auto sample = load_keyed(source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(sample);
  const fs::path folder = fs::path(::testing::TempDir()) / "ossa_gltf_extras";
  fs::create_directories(folder);
  const std::string path = (folder / "hero.gltf").string();
  ASSERT_TRUE(write_gltf(*sample, path));
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto load_with = [&](const std::string& from, const std::string& to, bool every = false) {
    std::string edited = text;
    size_t at = edited.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    for (; at != std::string::npos; at = every ? edited.find(from, at + to.size()) : std::string::npos)
      edited.replace(at, from.size(), to);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << edited;
    ModelLoadOptions options;
    options.import.isolate = false;
    options.sidecar = false;
    return load_character(path, options);
  };
  const std::string notifies = "\"notifies\":";
  auto bad_notify = load_with(notifies, notifies + " [{\"name\": \"Late\", \"time\": 1e9}], \"x\":");
  ASSERT_FALSE(bad_notify);
  EXPECT_NE(bad_notify.error().find("hero.gltf (animation extras)"), std::string::npos) << bad_notify.error();
  const std::string extras = "\"ossa\": {";
  auto wrong_shape = load_with(notifies, "\"notifies_renamed\":", true);
  ASSERT_TRUE(wrong_shape) << wrong_shape.error();
  EXPECT_FALSE((*wrong_shape)->has_notifies());
  auto bad_joint = load_with(extras, extras + "\"rootMotion\": {\"joint\": \"NoSuchJoint\"}, ");
  ASSERT_FALSE(bad_joint);
  EXPECT_NE(bad_joint.error().find("NoSuchJoint"), std::string::npos) << bad_joint.error();
  fs::remove_all(folder);
}

// A STEP source keeps its interpolation: the importer's hold keys become STEP's own keys again (the round
// trip and three.js check the values).
TEST(GltfExport, StepChannelsAreWrittenAsStep) {
  auto face = load_keyed(source_dir() + "/assets/sample/ossa_face_step.glb");
  auto smooth = load_keyed(source_dir() + "/assets/sample/ossa_face.glb");
  ASSERT_TRUE(face && smooth);
  auto count = [](const LoadedCharacter& c, const std::string& interpolation) {
    auto exported = encode_gltf(c);
    EXPECT_TRUE(exported) << exported.error();
    const auto& glb = exported->files[0].bytes;
    uint32_t json_length = 0;
    std::memcpy(&json_length, &glb[12], 4);
    const auto doc = nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + json_length);
    int n = 0;
    for (const auto& animation : doc["animations"])
      for (const auto& sampler : animation["samplers"]) n += sampler["interpolation"] == interpolation;
    return n;
  };
  EXPECT_GT(count(*face, "STEP"), 0);
  EXPECT_EQ(count(*smooth, "STEP"), 0);
}

TEST(GltfExport, SaysWhatItDropsAndRefusesWhatGltfCannotHold) {
  auto sample = load_keyed(source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(sample);
  LoadedCharacter c = *sample;
  c.textures.push_back({"hero.tga", "", false, {'T', 'G', 'A', 0}, "tga"});
  c.materials.push_back({"Odd", {2, 0.5f, 0.5f, 1}, static_cast<int>(c.textures.size()) - 1, -1, -1});
  auto exported = encode_gltf(c);
  ASSERT_TRUE(exported) << exported.error();
  const std::string all = [&] {
    std::string s;
    for (const std::string& line : exported->dropped) s += line + "\n";
    return s;
  }();
  EXPECT_NE(all.find("hero.tga"), std::string::npos) << all;
  EXPECT_NE(all.find("clamped"), std::string::npos) << all;

  c.left_handed = true;
  auto refused = encode_gltf(c);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("left-handed"), std::string::npos) << refused.error();
}

TEST(GltfExport, ReplacesNamesThatAreNotUtf8AndSaysSo) {
  SyntheticScene scene = synthetic_scene(5, 3);
  scene.skeleton.joints[2].name = "bad\xff\xfe name";
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "synthetic");
  ASSERT_TRUE(asset) << asset.error();
  LoadedCharacter c;
  c.asset = std::move(asset).value();
  auto exported = encode_gltf(c);
  ASSERT_TRUE(exported) << exported.error();
  ASSERT_FALSE(exported->dropped.empty());
  EXPECT_NE(exported->dropped.back().find("UTF-8"), std::string::npos) << exported->dropped.back();
  const auto& glb = exported->files[0].bytes;
  uint32_t json_length = 0;
  std::memcpy(&json_length, &glb[12], 4);
  const auto doc = nlohmann::json::parse(glb.begin() + 20, glb.begin() + 20 + json_length);  // strict UTF-8
  EXPECT_EQ(doc["nodes"][2]["name"], "bad\xef\xbf\xbd\xef\xbf\xbd name");
}

TEST(GltfExport, AFailedWriteLeavesNoSideFilesBehind) {
  auto sample = load_keyed(source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(sample);
  const fs::path folder = fs::path(::testing::TempDir()) / "ossa_gltf_partial";
  fs::remove_all(folder);
  fs::create_directories(folder / "hero.gltf");  // the main file cannot replace a folder
  auto written = write_gltf(*sample, (folder / "hero.gltf").string());
  ASSERT_FALSE(written);
  std::vector<std::string> left;
  for (const auto& entry : fs::directory_iterator(folder)) left.push_back(entry.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"hero.gltf"}) << written.error();
  fs::remove_all(folder);
}

TEST(GltfExport, NeverWritesOverItsInput) {
  const fs::path folder = fs::path(::testing::TempDir()) / "ossa_gltf_input";
  fs::create_directories(folder);
  const fs::path input = folder / "hero.glb";
  fs::copy_file(source_dir() + "/assets/sample/ossa_sample.glb", input, fs::copy_options::overwrite_existing);
  const auto before = fs::file_size(input);
  auto c = load_keyed(input.string());
  ASSERT_TRUE(c);
  auto refused = write_gltf(*c, input.string());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("input"), std::string::npos) << refused.error();
  EXPECT_EQ(fs::file_size(input), before);
}

}  // namespace
}  // namespace ossa::test
