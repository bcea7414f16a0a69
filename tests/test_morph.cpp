// Morph targets on the runtime side: MorphJob against a brute-force dense loop and its validation, weight
// tracks sampled by hand values in every clip layout, the Animator's blending of weights (crossfade, layers,
// the game's overrides) with hand-computed numbers, and the checks that keep mismatched data out.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ossa/asset/compression.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/serialize/ossa_file.h"

#ifdef OSSA_HAS_IMPORT  // the import tests (the runtime-only builds have no importer)
#include <filesystem>

#include "gltf_builder.h"
#include "ossa/import/import.h"
#include "ossa/reference/reference_eval.h"
#endif

namespace ossa {
namespace {

// A mesh of `vertices` vertices (one joint, rigid) with `targets` random sparse targets.
RawMesh random_morph_mesh(int vertices, int targets, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1, 1);
  std::bernoulli_distribution moves(0.3);
  RawMesh m;
  m.name = "face";
  m.node_joint = 0;
  for (int v = 0; v < vertices; ++v) {
    m.positions.push_back({u(rng), u(rng), u(rng)});
    m.normals.push_back(normalize(Vec3{u(rng), u(rng), u(rng)}));
  }
  m.influences_per_vertex = 1;
  m.influence_joints.assign(vertices, 0);
  m.influence_weights.assign(vertices, 1.f);
  m.joint_remap = {0};
  m.inverse_binds = {Mat4{}};
  for (int t = 0; t < targets; ++t) {
    RawMorphTarget target;
    target.name = "t";  // (GCC 12 warns falsely on "t" + std::to_string(t))
    target.name += std::to_string(t);
    for (int v = 0; v < vertices; ++v) {
      if (!moves(rng)) continue;
      target.vertices.push_back(static_cast<uint32_t>(v));
      target.position_deltas.push_back({u(rng), u(rng), u(rng)});
      target.normal_deltas.push_back({u(rng), u(rng), u(rng)});
    }
    m.morph_targets.push_back(std::move(target));
    m.morph_default_weights.push_back(0);
  }
  return m;
}

RawSkeleton one_joint() {
  RawSkeleton s;
  s.joints.resize(1);
  s.joints[0].name = "root";
  return s;
}

TEST(Morph, JobMatchesABruteForceLoop) {
  std::mt19937 rng(7);
  RawMesh raw = random_morph_mesh(200, 6, rng);
  Skeleton skeleton = std::move(Skeleton::build(one_joint())).value();
  SkinnedMesh mesh = std::move(SkinnedMesh::build(raw, skeleton)).value();
  ASSERT_EQ(mesh.morph_targets().count(), 6);
  const std::vector<float> weights = {0.5f, 0.f, -0.25f, 1.f, 0.75f, 2.f};  // zero, negative, beyond 1

  // Brute force: every vertex, every target, searching whether the target lists it.
  std::vector<Vec3> positions = raw.positions, normals = raw.normals;
  for (size_t v = 0; v < positions.size(); ++v)
    for (size_t t = 0; t < raw.morph_targets.size(); ++t) {
      const RawMorphTarget& target = raw.morph_targets[t];
      for (size_t e = 0; e < target.vertices.size(); ++e)
        if (target.vertices[e] == v) {
          positions[v] = positions[v] + target.position_deltas[e] * weights[t];
          normals[v] = normals[v] + target.normal_deltas[e] * weights[t];
        }
    }

  std::vector<float> out_p(mesh.positions().size()), out_n(mesh.normals().size());
  MorphJob job = MorphJob::for_mesh(mesh, weights);
  job.out_positions = out_p;
  job.out_normals = out_n;
  ASSERT_TRUE(job.validate());
  ASSERT_TRUE(job.run());
  for (size_t v = 0; v < positions.size(); ++v) {
    EXPECT_NEAR(out_p[v * 3 + 0], positions[v].x, 1e-6f) << v;
    EXPECT_NEAR(out_p[v * 3 + 1], positions[v].y, 1e-6f) << v;
    EXPECT_NEAR(out_p[v * 3 + 2], positions[v].z, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 0], normals[v].x, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 1], normals[v].y, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 2], normals[v].z, 1e-6f) << v;
  }
  // Positions only (no normal output) gives the same positions.
  std::vector<float> only_p(out_p.size());
  job.out_positions = only_p;
  job.out_normals = {};
  ASSERT_TRUE(job.run());
  EXPECT_EQ(only_p, out_p);
}

TEST(Morph, JobRefusesWhatWouldReadOrWriteOutOfBounds) {
  const std::vector<float> base = {0, 0, 0, 1, 1, 1};  // 2 vertices
  const std::vector<uint32_t> first = {0, 1}, good_vertex = {1}, bad_vertex = {2};
  const std::vector<float> delta = {1, 2, 3}, weight = {1};
  std::vector<float> out(6);
  MorphJob job{base, {}, first, good_vertex, delta, {}, weight, out, {}};
  ASSERT_TRUE(job.run());
  EXPECT_EQ(out, (std::vector<float>{0, 0, 0, 2, 3, 4}));

  MorphJob bad = job;
  bad.vertices = bad_vertex;
  EXPECT_FALSE(bad.validate());
  EXPECT_FALSE(bad.run());
  bad = job;
  bad.weights = {};
  EXPECT_FALSE(bad.validate());
  bad = job;
  const std::vector<uint32_t> past = {0, 2};  // claims 2 entries, there is 1
  bad.target_first = past;
  EXPECT_FALSE(bad.validate());
  bad = job;
  bad.position_deltas = std::span<const float>(delta).first(2);
  EXPECT_FALSE(bad.validate());
  bad = job;
  bad.out_positions = std::span<float>(out).first(3);
  EXPECT_FALSE(bad.validate());
  // No targets at all: a copy.
  MorphJob none{base, {}, {}, {}, {}, {}, {}, out, {}};
  EXPECT_TRUE(none.run());
  EXPECT_EQ(out, base);
}

// One joint moving along x from 0 to 1 over 1 s, and one mesh's 2 targets weighted (a0, a1) -> (b0, b1).
RawClip weight_clip(const char* name, float joint_from, float joint_to, std::vector<float> weights) {
  RawClip c;
  c.name = name;
  c.duration = 1;
  RawTrack t;
  t.joint = 0;
  t.translation_times = {0, 1};
  t.translations = {{joint_from, 0, 0}, {joint_to, 0, 0}};
  c.tracks.push_back(t);
  RawMorphTrack m;
  m.mesh = 0;
  m.times = {0, 1};
  m.weights = std::move(weights);
  c.morph_tracks.push_back(m);
  return c;
}

CharacterAsset morph_character(std::vector<RawClip> clips, Clip::Layout layout = Clip::Layout::kFixedRate) {
  std::mt19937 rng(3);
  std::vector<RawMesh> meshes = {random_morph_mesh(10, 2, rng)};
  meshes[0].morph_default_weights = {0.1f, 0.2f};
  return std::move(CharacterAsset::build(one_joint(), clips, meshes, "test", {layout, 0})).value();
}

TEST(Morph, WeightTracksSampleLinearlyInEveryLayout) {
  std::vector<RawClip> clips = {weight_clip("A", 0, 1, {0, 1, 1, 0.5f})};
  for (Clip::Layout layout : {Clip::Layout::kFixedRate, Clip::Layout::kKeyed}) {
    CharacterAsset c = morph_character(clips, layout);
    const MorphWeightTracks& w = c.clips[0].morph_weights();
    ASSERT_EQ(w.tracks().size(), 1u);
    float out[2];
    w.sample(0, 0.25f, out);
    EXPECT_NEAR(out[0], 0.25f, 1e-6f);
    EXPECT_NEAR(out[1], 0.875f, 1e-6f);
    w.sample(0, -1.f, out);  // clamped before the first key
    EXPECT_EQ(out[0], 0.f);
    w.sample(0, 5.f, out);  // and after the last
    EXPECT_EQ(out[1], 0.5f);
  }
  // Compression keeps the weight keys as they are.
  CharacterAsset c = morph_character(clips);
  auto compressed = compress_clip(c.clips[0], c.skeleton);
  ASSERT_TRUE(compressed) << compressed.error();
  float out[2];
  compressed->morph_weights().sample(0, 0.5f, out);
  EXPECT_NEAR(out[0], 0.5f, 1e-6f);
  EXPECT_NEAR(out[1], 0.75f, 1e-6f);
}

TEST(Morph, CrossfadeBlendsWeightsWithTheJointsWeights) {
  // A holds the joint at x = 0 and weights (1, 0); B holds x = 1 and weights (0, 1).
  CharacterAsset c =
      morph_character({weight_clip("A", 0, 0, {1, 0, 1, 0}), weight_clip("B", 1, 1, {0, 1, 0, 1})});
  Animator a(c);
  EXPECT_EQ(a.mesh_morph_weights(0).size(), 2u);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[0], 0.1f);  // before any update: the defaults
  a.play(0);
  a.update(0.1f);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[0], 1.f);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[1], 0.f);
  a.crossfade(1, 0.4f);
  a.update(0.1f);  // B weighs 0.25: the joint is at 0.25, the weights (0.75, 0.25)
  EXPECT_NEAR(a.locals()[0].translation[0], 0.25f, 1e-6f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.75f, 1e-6f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[1], 0.25f, 1e-6f);
  a.update(0.1f);  // 0.5
  EXPECT_NEAR(a.locals()[0].translation[0], 0.5f, 1e-6f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.5f, 1e-6f);
  a.update(0.3f);  // fade complete
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.f, 1e-6f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[1], 1.f, 1e-6f);
  a.stop();
  a.update(0.1f);  // nothing plays: the defaults again
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[1], 0.2f);
}

TEST(Morph, LayersAndTheGamesOverridesApplyOnTop) {
  RawClip no_morph = weight_clip("Still", 0, 0, {});
  no_morph.morph_tracks.clear();
  CharacterAsset c = morph_character({weight_clip("Base", 0, 0, {0.2f, 0.4f, 0.2f, 0.4f}),
                                      weight_clip("Smile", 0, 0, {1, 1, 1, 1}), no_morph});
  Animator a(c);
  a.play(0);
  int smile = a.add_layer(1, 0.5f);
  int still = a.add_layer(2, 1.f);  // animates no weights: changes none
  ASSERT_GE(smile, 0);
  ASSERT_GE(still, 0);
  a.update(0.1f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.6f, 1e-6f);  // lerp(0.2, 1, 0.5)
  EXPECT_NEAR(a.mesh_morph_weights(0)[1], 0.7f, 1e-6f);
  a.remove_layer(smile);
  a.add_layer(1, 0.5f, {}, /*additive=*/true);  // adds 0.5 x (1 - default)
  a.update(0.1f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.2f + 0.5f * 0.9f, 1e-6f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[1], 0.4f + 0.5f * 0.8f, 1e-6f);

  // The expression layer: target 0 replaced, target 1 offset.
  EXPECT_TRUE(a.set_morph_override(0, 0, 0.9f));
  EXPECT_TRUE(a.set_morph_offset(0, 1, -0.1f));
  EXPECT_FALSE(a.set_morph_override(0, 2, 1.f));  // no such target
  EXPECT_FALSE(a.set_morph_override(1, 0, 1.f));  // no such mesh
  a.update(0.1f);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[0], 0.9f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[1], 0.4f + 0.5f * 0.8f - 0.1f, 1e-6f);
  a.clear_morph_overrides();
  a.update(0.1f);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.2f + 0.5f * 0.9f, 1e-6f);
}

TEST(Morph, MismatchedDataIsRefused) {
  std::mt19937 rng(5);
  Skeleton skeleton = std::move(Skeleton::build(one_joint())).value();
  RawMesh raw = random_morph_mesh(10, 2, rng);
  RawMesh bad = raw;
  bad.morph_targets[1].vertices.back() = 10;  // past the last vertex
  EXPECT_FALSE(SkinnedMesh::build(bad, skeleton));
  bad = raw;
  bad.morph_default_weights.pop_back();
  EXPECT_FALSE(SkinnedMesh::build(bad, skeleton));
  bad = raw;
  bad.morph_targets[0].position_deltas[0].x = std::nanf("");
  EXPECT_FALSE(SkinnedMesh::build(bad, skeleton));
  // A weight track with 3 weights per key for a mesh of 2 targets.
  std::vector<RawClip> clips = {weight_clip("A", 0, 0, {0, 0, 0, 1, 1, 1})};
  std::vector<RawMesh> meshes = {raw};
  auto asset = CharacterAsset::build(one_joint(), clips, meshes, "three.gltf");
  ASSERT_FALSE(asset);
  EXPECT_NE(asset.error().find("three.gltf"), std::string::npos) << asset.error();
  // Keys whose weights do not divide into the key times.
  clips[0].morph_tracks[0].weights = {0, 0, 1};
  EXPECT_FALSE(CharacterAsset::build(one_joint(), clips, meshes, "odd.gltf"));
}

TEST(Morph, OssaWriterRefusesWhatItCannotStore) {
  CharacterAsset c = morph_character({weight_clip("A", 0, 1, {0, 1, 1, 0})});
  OssaFile file;
  file.skeleton = c.skeleton;
  file.meshes = c.meshes;
  const std::string path = ::testing::TempDir() + "morph_refused.ossa";
  auto written = write_ossa(file, path);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("'face' has morph targets"), std::string::npos) << written.error();
  file.meshes.clear();
  file.clips = c.clips;
  written = write_ossa(file, path);
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().find("clip 'A'"), std::string::npos) << written.error();
}

#ifdef OSSA_HAS_IMPORT
// A triangle under a node translated by (5, 0, 0) and scaled 2x, with two targets: the first moves vertex 1
// (at (1, 0, 0)) by (0, 1, 0) in the file, the second nothing; mesh weights (0.5, 0); a clip animating them
// (0, 0) -> (1, 0.5) over 1 s. `weights_per_key`: 2, or 3 for a clip that names a target the mesh lacks.
std::string morph_triangle(const std::string& dir, const std::string& name, int weights_per_key = 2) {
  test::GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Tri"}, {"mesh", 0}, {"translation", {5, 0, 0}}, {"scale", {2, 2, 2}}});
  d["scenes"][0]["nodes"] = {0};
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  int moves = b.add_floats({0, 0, 0, 0, 1, 0, 0, 0, 0}, "VEC3", true);
  int still = b.add_floats({0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC3", true);
  nlohmann::json primitive = {
      {"attributes", {{"POSITION", positions}}},
      {"targets", nlohmann::json::array({{{"POSITION", moves}}, {{"POSITION", still}}})}};
  d["meshes"] = nlohmann::json::array(
      {{{"name", "TriMesh"}, {"primitives", nlohmann::json::array({primitive})}, {"weights", {0.5, 0}}}});
  int times = b.add_floats({0, 1}, "SCALAR", true);
  std::vector<float> values = {0, 0, 1, 0.5f};
  if (weights_per_key == 3) values = {0, 0, 0, 1, 0.5f, 1};
  int weights = b.add_floats(values, "SCALAR");
  nlohmann::json sampler = {{"input", times}, {"output", weights}, {"interpolation", "LINEAR"}};
  nlohmann::json channel = {{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}};
  d["animations"] = nlohmann::json::array({{{"name", "Blink"},
                                            {"samplers", nlohmann::json::array({sampler})},
                                            {"channels", nlohmann::json::array({channel})}}});
  std::string path = (std::filesystem::path(dir) / name).string();
  b.write(path);
  return path;
}

TEST(MorphImport, TargetsAreSparseDeltasInModelSpaceAndWeightsAreKeyed) {
  const std::string dir = test::temp_dir("morph_import");
  auto scene = import_file(morph_triangle(dir, "tri.gltf"));
  ASSERT_TRUE(scene) << scene.error();
  ASSERT_EQ(scene->meshes.size(), 1u);
  const RawMesh& mesh = scene->meshes[0];
  ASSERT_EQ(mesh.morph_targets.size(), 2u);
  EXPECT_EQ(mesh.morph_default_weights, (std::vector<float>{0.5f, 0.f}));
  // assimp hands over absolute positions; we keep the difference, through the node's scale (not its
  // translation), and only for the vertex that moves.
  const RawMorphTarget& moves = mesh.morph_targets[0];
  ASSERT_EQ(moves.vertices.size(), 1u);
  const Vec3 moved = mesh.positions[moves.vertices[0]];
  EXPECT_NEAR(moved.x, 7.f, 1e-6f);  // the vertex at (1, 0, 0) in the file: (7, 0, 0) in model space
  EXPECT_NEAR(moved.y, 0.f, 1e-6f);
  EXPECT_NEAR(moves.position_deltas[0].x, 0.f, 1e-6f);
  EXPECT_NEAR(moves.position_deltas[0].y, 2.f, 1e-6f);
  EXPECT_NEAR(moves.position_deltas[0].z, 0.f, 1e-6f);
  EXPECT_TRUE(mesh.morph_targets[1].vertices.empty());  // all zeros: nothing stored
  ASSERT_EQ(scene->clips.size(), 1u);
  ASSERT_EQ(scene->clips[0].morph_tracks.size(), 1u);
  const RawMorphTrack& track = scene->clips[0].morph_tracks[0];
  EXPECT_EQ(track.mesh, 0);
  EXPECT_EQ(track.times, (std::vector<float>{0.f, 1.f}));
  EXPECT_EQ(track.weights, (std::vector<float>{0, 0, 1, 0.5f}));
  EXPECT_NEAR(scene->clips[0].duration, 1.f, 1e-6f);

  // The reference evaluation at t = 0.5: weight 0.5 moves the vertex up by 0.5 x 2.
  auto weights = reference::sample_morph_weights(mesh, 0, &scene->clips[0], 0.5f);
  EXPECT_EQ(weights, (std::vector<float>{0.5f, 0.25f}));
  auto model = reference::local_to_model(scene->skeleton,
                                         reference::sample_clip(scene->skeleton, scene->clips[0], 0.5f));
  auto skinned = reference::skin_mesh(mesh, model, weights);
  EXPECT_NEAR(skinned.positions[moves.vertices[0]].y, 1.f, 1e-5f);

  // And the runtime: the asset carries them, the Animator samples them, MorphJob applies them.
  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset) << asset.error();
  Animator a(*asset);
  a.play(0);
  a.update(0.5f);
  ASSERT_EQ(a.mesh_morph_weights(0).size(), 2u);
  EXPECT_NEAR(a.mesh_morph_weights(0)[0], 0.5f, 1e-6f);
  std::vector<float> out(asset->meshes[0].positions().size());
  MorphJob job = MorphJob::for_mesh(asset->meshes[0], a.mesh_morph_weights(0));
  job.out_positions = out;
  ASSERT_TRUE(job.run());
  EXPECT_NEAR(out[moves.vertices[0] * 3 + 1], 1.f, 1e-5f);
  std::filesystem::remove_all(dir);
}

TEST(MorphImport, AWeightForATargetTheMeshLacksIsAnErrorNamingTheFile) {
  const std::string dir = test::temp_dir("morph_import_bad");
  const std::string path = morph_triangle(dir, "three_weights.gltf", 3);
  auto scene = import_file(path);
  ASSERT_FALSE(scene);
  EXPECT_NE(scene.error().find("three_weights.gltf"), std::string::npos) << scene.error();
  EXPECT_NE(scene.error().find("target 2 of 2"), std::string::npos) << scene.error();
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace ossa
