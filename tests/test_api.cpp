// The public API used the way a new user uses it (issue 11): the obvious calls either work or fail loudly.
// Palette misuse, clip lookup by name, Result misuse, the crossfade notify rule, loading in one call.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "oracle_compare.h"
#include "ossa/ossa.h"
#include "reference/reference_eval.h"  // the test oracle: not in the umbrella header

namespace ossa {
namespace {

std::string sample(const char* name) {
  return test::source_dir() + "/assets/sample/" + name;
}

CharacterAsset load_sample(const char* name) {
  ImportOptions options;
  options.isolate = false;  // our own file
  auto scene = import_file(sample(name), options);
  EXPECT_TRUE(scene) << scene.error();
  auto asset = CharacterAsset::build(*scene);
  EXPECT_TRUE(asset) << asset.error();
  return std::move(asset).value();
}

// What `animator.h` used to suggest: skin a mesh with the animator's skeleton palette. The Body mesh has 26
// palette slots, the skeleton 32 joints: slot k is not joint k, so the result was 2.3 m off and run()
// returned true. A palette of the wrong length must fail validate().
TEST(PaletteMisuse, SkeletonPaletteOnAMeshFailsValidate) {
  CharacterAsset asset = load_sample("ossa_sample.glb");
  Animator anim(asset);
  EXPECT_TRUE(anim.play(0));
  anim.update(0.25f);
  const SkinnedMesh& body = asset.meshes[0];
  ASSERT_NE(body.joint_remap().size(), anim.skeleton_palette().size());
  std::vector<float> out(static_cast<size_t>(body.vertex_count()) * 3);
  SkinningJob job = SkinningJob::for_mesh(body, anim.skeleton_palette());
  job.out_positions = out;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());
}

// A hand-filled job (not for_mesh) must state the mesh's slot count: with the skeleton palette and no slot
// count, the Body was skinned 1.18 m off and run() returned true.
TEST(PaletteMisuse, HandFilledJobWithoutTheSlotCountFailsValidate) {
  CharacterAsset asset = load_sample("ossa_sample.glb");
  Animator anim(asset);
  ASSERT_TRUE(anim.play(0));
  anim.update(0.25f);
  const SkinnedMesh& body = asset.meshes[0];
  std::vector<float> out(static_cast<size_t>(body.vertex_count()) * 3);
  SkinningJob job;
  job.vertex_count = body.vertex_count();
  job.influences = body.influences();
  job.joint_indices = body.joint_indices();
  job.joint_weights = body.joint_weights();
  job.palette = anim.skeleton_palette();
  job.in_positions = body.positions();
  job.out_positions = out;
  EXPECT_FALSE(job.validate()) << "no slot count given";
  job.palette_slots = body.inverse_binds().size();
  EXPECT_FALSE(job.validate()) << "a skeleton palette for a mesh's slots";
  job.palette = anim.mesh_palette(0);
  EXPECT_TRUE(job.run());
}

// Every stream is a span that validate() measures: a 100-vertex output for the 3,343-vertex Body passed
// validate() and run() wrote past it (SEGV); an interleaved stream whose span ends one vertex short too.
TEST(SkinningJobMisuse, ShortBuffersFailValidate) {
  CharacterAsset asset = load_sample("ossa_sample.glb");
  Animator anim(asset);
  anim.update(0);
  const SkinnedMesh& body = asset.meshes[0];
  ASSERT_GT(body.vertex_count(), 100);
  const size_t n = static_cast<size_t>(body.vertex_count());
  std::vector<float> short_out(100 * 3, -1.f);
  SkinningJob job = SkinningJob::for_mesh(body, anim.mesh_palette(0));
  job.out_positions = short_out;
  EXPECT_FALSE(job.validate());
  EXPECT_FALSE(job.run());
  EXPECT_EQ(short_out.back(), -1.f);

  // Interleaved position + normal, 24 bytes a vertex; the last normal's span is 1 float short.
  std::vector<float> interleaved(n * 6);
  job.out_positions = strided_span(interleaved.data(), 24, n, 3);
  job.out_positions_stride = 24;
  job.out_normals = strided_span(interleaved.data() + 3, 24, n, 3).first((n - 1) * 6 + 2);
  job.out_normals_stride = 24;
  EXPECT_FALSE(job.validate());
  job.out_normals = strided_span(interleaved.data() + 3, 24, n, 3);
  EXPECT_TRUE(job.validate());
  job.out_normals_stride = 10;  // smaller than a normal
  EXPECT_FALSE(job.validate());
  job.out_normals_stride = 24;
  job.in_positions = body.positions().first(body.positions().size() - 3);  // one input vertex short
  EXPECT_FALSE(job.validate());
}

// An output without its input was left untouched while run() returned true; for_mesh filled positions only.
TEST(SkinningJobMisuse, ForMeshFillsEveryStreamAndAnOutputNeedsItsInput) {
  CharacterAsset asset = load_sample("ossa_sample.glb");
  Animator anim(asset);
  ASSERT_TRUE(anim.play(asset.find_clip("Walk")));
  anim.update(0.3f);
  const SkinnedMesh& body = asset.meshes[0];
  ASSERT_FALSE(body.normals().empty());
  ASSERT_FALSE(body.tangents().empty());
  const size_t n = static_cast<size_t>(body.vertex_count());
  SkinningJob job = SkinningJob::for_mesh(body, anim.mesh_palette(0));
  EXPECT_EQ(job.in_normals.size(), body.normals().size());
  EXPECT_EQ(job.in_tangents.size(), body.tangents().size());
  std::vector<float> positions(n * 3), normals(n * 3, 7.f), tangents(n * 4, 7.f);
  job.out_positions = positions;
  job.out_normals = normals;
  job.out_tangents = tangents;
  ASSERT_TRUE(job.run());
  // Independent truth through the positions path (verified against Blender): M * (n, 0) is
  // M * (n, 1) - M * (0, 1), two position-only runs. Tangents likewise, their w copied.
  auto positions_only = [&](std::span<const float> in) {
    std::vector<float> out(n * 3);
    SkinningJob p = SkinningJob::for_mesh(body, anim.mesh_palette(0));
    p.in_positions = in;
    p.out_positions = out;
    EXPECT_TRUE(p.run());
    return out;
  };
  const std::vector<float> zeros(n * 3, 0.f);
  std::vector<float> tangent_xyz(n * 3);
  for (size_t v = 0; v < n; ++v)
    for (int c = 0; c < 3; ++c) tangent_xyz[v * 3 + c] = body.tangents()[v * 4 + c];
  const std::vector<float> origin = positions_only(zeros), moved_n = positions_only(body.normals()),
                           moved_t = positions_only(tangent_xyz);
  for (size_t v = 0; v < n; ++v) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_NEAR(normals[v * 3 + c], moved_n[v * 3 + c] - origin[v * 3 + c], 1e-5f) << "vertex " << v;
      ASSERT_NEAR(tangents[v * 4 + c], moved_t[v * 3 + c] - origin[v * 3 + c], 1e-5f) << "vertex " << v;
    }
    ASSERT_EQ(tangents[v * 4 + 3], body.tangents()[v * 4 + 3]) << "vertex " << v;
  }
  job.in_normals = {};  // normals out, nothing to read: refused
  EXPECT_FALSE(job.validate());
  job.out_normals = {};  // neither: not produced
  job.in_tangents = {};
  job.out_tangents = {};
  EXPECT_TRUE(job.run());
}

// The right way has a name: Animator::mesh_palette(m), the mesh's own slots (PaletteJob with joint_remap).
TEST(PaletteMisuse, AnimatorMeshPalettesSkinLikeTheReference) {
  ImportOptions options;
  options.isolate = false;
  auto scene = import_file(sample("ossa_sample.glb"), options);
  ASSERT_TRUE(scene) << scene.error();
  auto asset = CharacterAsset::build(*scene, {Clip::Layout::kKeyed, 0});
  ASSERT_TRUE(asset) << asset.error();
  Animator anim(*asset);
  const int walk = asset->find_clip("Walk");
  ASSERT_GE(walk, 0);
  ASSERT_TRUE(anim.play(walk));
  anim.update(0.3f);
  ASSERT_EQ(anim.mesh_count(), static_cast<int>(asset->meshes.size()));
  EXPECT_TRUE(anim.mesh_palette(-1).empty());
  EXPECT_TRUE(anim.mesh_palette(anim.mesh_count()).empty());
  // Reference: the raw clip's keys at the same time, skinned the obviously-correct way.
  const RawClip& raw = scene->clips[scene->find_clip("Walk")];
  const auto local = reference::sample_clip(scene->skeleton, raw, anim.time());
  const auto model = reference::local_to_model(scene->skeleton, local);
  const float size = 2.0f;  // the sample is about 2 m tall
  for (int m = 0; m < anim.mesh_count(); ++m) {
    const SkinnedMesh& mesh = asset->meshes[m];
    ASSERT_EQ(anim.mesh_palette(m).size(), mesh.joint_remap().size());
    std::vector<float> out(static_cast<size_t>(mesh.vertex_count()) * 3);
    SkinningJob job = SkinningJob::for_mesh(mesh, anim.mesh_palette(m));
    job.out_positions = out;
    ASSERT_TRUE(job.run()) << mesh.name();
    const auto expected = reference::skin_mesh(scene->meshes[m], model).positions;
    float worst = 0;
    for (int v = 0; v < mesh.vertex_count(); ++v)
      for (int a = 0; a < 3; ++a) worst = std::max(worst, std::fabs(out[v * 3 + a] - (&expected[v].x)[a]));
    EXPECT_LT(worst, 1e-5f * size) << mesh.name();
  }
}

// One lookup rule: exact name, else the unique "<prefix>|name". Blender's FBX exporter names the sample's
// clips "Armature|Walk" and so on.
TEST(ClipLookup, ShortNamesFindBlenderTakesEverywhere) {
  CharacterAsset asset = load_sample("ossa_sample.fbx");
  const int exact = asset.find_clip("Armature|Walk");
  ASSERT_GE(exact, 0);
  EXPECT_EQ(asset.find_clip("Walk"), exact);
  EXPECT_EQ(asset.find_clip("alk"), -1);  // a suffix only counts after '|'
  EXPECT_EQ(asset.find_clip("Nope"), -1);
  std::vector<std::string> names;
  for (const Clip& c : asset.clips) names.push_back(c.name());
  EXPECT_EQ(match_clip_name(names, "Walk"), exact);
  EXPECT_EQ(match_clip_name({"A|Walk", "B|Walk"}, "Walk"), -1);  // ambiguous
  EXPECT_EQ(match_clip_name({"A|Walk", "Walk"}, "Walk"), 1);     // exact wins
}

TEST(ClipLookup, InvalidClipIndicesAreErrorsTheCallerSees) {
  CharacterAsset asset = load_sample("ossa_sample.glb");
  Animator anim(asset);
  EXPECT_FALSE(anim.play(asset.find_clip("NoSuchClip")));
  EXPECT_FALSE(anim.play(static_cast<int>(asset.clips.size())));
  EXPECT_FALSE(anim.playing());
  ASSERT_TRUE(anim.play(0));
  EXPECT_FALSE(anim.crossfade(-1, 0.3f));
  EXPECT_EQ(anim.clip(), 0);  // still playing the first clip
  EXPECT_TRUE(anim.crossfade(1, 0.3f));
  EXPECT_EQ(anim.clip(), 1);
}

TEST(ResultMisuse, ValueOfAnErrorStopsWithTheMessage) {
  auto failed = Result<std::vector<int>>::failure("hero.fbx: no such file");
  EXPECT_DEATH((void)failed.value().size(), "hero.fbx: no such file");
  EXPECT_DEATH((void)*failed, "hero.fbx: no such file");
  EXPECT_DEATH((void)std::move(failed).value(), "hero.fbx: no such file");
}

TEST(ResultMisuse, OssaFileCharacterWorksOnAnLvalue) {
  ImportOptions options;
  options.isolate = false;
  auto scene = import_file(sample("ossa_sample.glb"), options);
  ASSERT_TRUE(scene) << scene.error();
  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset) << asset.error();
  OssaFile file;
  file.skeleton = asset->skeleton;
  file.clips = asset->clips;
  file.meshes = asset->meshes;
  file.materials = scene->materials;
  file.textures = scene->textures;
  auto decoded = decode_ossa(encode_ossa(file), "memory.ossa");
  ASSERT_TRUE(decoded) << decoded.error();
  auto character = decoded->character();  // no std::move(*decoded) needed
  ASSERT_TRUE(character) << character.error();
  EXPECT_EQ(character->clips.size(), asset->clips.size());
  EXPECT_TRUE(decoded->skeleton.has_value());  // the file is left as it was
  EXPECT_FALSE(OssaFile{}.character());        // no skeleton: an error, not a crash
}

// One call: a model file with its sidecar notifies, ready for an Animator; payloads reach the handlers.
TEST(LoadCharacter, ModelFileWithItsSidecarNotifies) {
  ModelLoadOptions options;
  options.import.isolate = false;
  auto hero = load_character(sample("ossa_sample.fbx"), options);
  ASSERT_TRUE(hero) << hero.error();
  EXPECT_TRUE(hero->has_notifies()) << "Result<shared_ptr>'s -> reaches the character";
  const LoadedCharacter& c = **hero;
  ASSERT_TRUE(c.has_notifies());  // assets/sample/ossa_sample.notifies.json
  EXPECT_FALSE(c.materials.empty());
  Animator anim = c.animator();
  std::string payload, sound;
  ASSERT_TRUE(
      anim.on("FootL", [&](const AnimEvent& e) { payload = *e.payload, sound = e.payload_string("sound"); }));
  ASSERT_TRUE(anim.play(c.asset.find_clip("Walk")));  // "Armature|Walk" in the FBX
  anim.update(0.1f);
  anim.dispatch();
  EXPECT_NE(payload.find("step_grass"), std::string::npos) << payload;
  EXPECT_EQ(sound, "step_grass");
  EXPECT_FALSE(anim.on("footL", [](const AnimEvent&) {})) << "a misspelt name is an error";
  EXPECT_FALSE(load_character(sample("no_such_file.fbx"), options));
}

// The same for a .ossa file: notifies embedded by convert, found by load_character (magic bytes) and by the
// runtime-only load_ossa_character.
TEST(LoadCharacter, OssaFileWithEmbeddedNotifies) {
  ModelLoadOptions options;
  options.import.isolate = false;
  options.sidecar = false;
  auto model = load_character(sample("ossa_sample.glb"), options);
  ASSERT_TRUE(model) << model.error();
  EXPECT_FALSE(model->has_notifies());
  OssaFile file;
  file.skeleton = model->asset.skeleton;
  file.clips = model->asset.clips;
  file.meshes = model->asset.meshes;
  file.materials = model->materials;
  file.textures = model->textures;
  file.notifies_json =
      R"({"clips": {"Wave": [{"name": "WaveStart", "ratio": 0.0, "payload": {"hand": "r"}}]}})";
  const std::string path = ::testing::TempDir() + "api_embedded.ossa";
  const std::string sidecar = ::testing::TempDir() + "api_embedded.notifies.json";
  std::filesystem::remove(sidecar);
  ASSERT_TRUE(write_ossa(file, path));
  for (bool runtime_only : {true, false}) {
    auto hero = runtime_only ? load_ossa_character(path) : load_character(path);
    ASSERT_TRUE(hero) << hero.error();
    ASSERT_TRUE(hero->has_notifies());
    Animator anim = hero->animator();
    int fired = 0;
    ASSERT_TRUE(anim.on("WaveStart", [&](const AnimEvent& e) { fired += *e.payload == R"({"hand":"r"})"; }));
    ASSERT_TRUE(anim.play(hero->asset.find_clip("Wave")));
    anim.update(0.05f);
    anim.dispatch();
    EXPECT_EQ(fired, 1);
  }
  // A sidecar beside the .ossa (what `ossa view` authors) wins over the embedded notifies, in every loader as
  // in the viewer and `ossa play` (tests/CMakeLists.txt, Cli.play_prefers_the_sidecar).
  std::ofstream(sidecar) << R"({"clips": {"Wave": [{"name": "EditedStart", "ratio": 0.0}]}})";
  for (bool runtime_only : {true, false}) {
    auto hero = runtime_only ? load_ossa_character(path) : load_character(path);
    ASSERT_TRUE(hero) << hero.error();
    EXPECT_LT(hero->notifies.find_notify("WaveStart"), 0) << "the embedded notifies were used";
    Animator anim = hero->animator();
    int fired = 0;
    ASSERT_TRUE(anim.on("EditedStart", [&](const AnimEvent&) { ++fired; }));
    ASSERT_TRUE(anim.play(hero->asset.find_clip("Wave")));
    anim.update(0.05f);
    anim.dispatch();
    EXPECT_EQ(fired, 1) << (runtime_only ? "load_ossa_character" : "load_character");
  }
  std::filesystem::remove(sidecar);

  // The obvious one-liner: the temporary shared_ptr dies at the semicolon, the Animator keeps the character
  // (it was a use-after-free on the first update, which ASan reports).
  Animator one_liner = load_ossa_character(path).value()->animator();
  ASSERT_TRUE(one_liner.play(0));
  EXPECT_TRUE(one_liner.update(0.1f));
  std::weak_ptr<const LoadedCharacter> weak;
  {
    auto hero = load_ossa_character(path);
    ASSERT_TRUE(hero) << hero.error();
    weak = *hero;
    one_liner = hero->animator();
  }
  EXPECT_FALSE(weak.expired()) << "the Animator does not hold its character";
  { Animator last = std::move(one_liner); }  // the last Animator on it goes: so does the character
  EXPECT_TRUE(weak.expired());
}

// The installed headers show what a user calls, not how a clip decodes (ozz keeps its decoders out of sight).
template <class C>
concept ExposesDecodeSteps = requires {
  typename C::DecodeStep;
};
static_assert(!ExposesDecodeSteps<Clip>, "Clip's decoding tables belong in src/asset/clip_decoder.h");

// A notify payload's top-level members, read without a JSON parser: strings, numbers, booleans; anything
// else as JSON text; the fallback for a missing member or one of another kind.
TEST(NotifyPayload, MembersAreReadableWithoutAJsonParser) {
  const std::vector<ClipTiming> clips = {{"Walk", 1.0f}};
  auto set = parse_notifies(
      R"({"clips": {"Walk": [{"name": "Step", "time": 0.5, "payload": {"sound": "grass", "volume": 0.8,
          "left": true, "tags": [1, 2], "nested": {"a": 1}}}, {"name": "Plain", "time": 0.2}]}})",
      "payload.json", clips);
  ASSERT_TRUE(set) << set.error();
  ASSERT_EQ(set->find_notify("Step"), 0);
  EXPECT_EQ(set->find_notify("step"), -1);
  const Notify* step = nullptr;
  for (const Notify& n : set->clips[0].instants)
    if (n.name_id == set->find_notify("Step")) step = &n;
  ASSERT_NE(step, nullptr);
  AnimEvent e;
  e.payload_fields = step->fields;
  EXPECT_EQ(e.payload_string("sound"), "grass");
  EXPECT_DOUBLE_EQ(e.payload_number("volume"), 0.8);
  EXPECT_DOUBLE_EQ(e.payload_number("left"), 1.0);
  EXPECT_EQ(e.payload_string("volume", "?"), "?") << "a number is not a string";
  EXPECT_DOUBLE_EQ(e.payload_number("sound", -1), -1) << "a string is not a number";
  EXPECT_DOUBLE_EQ(e.payload_number("missing", 7), 7);
  EXPECT_EQ(e.payload_string("missing", "none"), "none");
  const auto tags = std::find_if(step->fields.begin(), step->fields.end(),
                                 [](const NotifyField& f) { return f.key == "tags"; });
  ASSERT_NE(tags, step->fields.end());
  EXPECT_EQ(tags->text, "[1,2]");
  AnimEvent plain;
  EXPECT_EQ(plain.payload_string("sound", "none"), "none");
}

}  // namespace
}  // namespace ossa
