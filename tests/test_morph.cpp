// Morph targets on the runtime side: MorphJob against a brute-force dense loop and its validation, weight
// tracks sampled by hand values in every clip layout, the Animator's blending of weights (crossfade, layers,
// the game's overrides) with hand-computed numbers, and the checks that keep mismatched data out.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "ossa/offline/compression.h"
#include "ossa/offline/morph_compression.h"
#include "ossa/offline/retarget.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"

#ifdef OSSA_HAS_IMPORT  // the import tests (the runtime-only builds have no importer)
#include <filesystem>

#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/import/import.h"
#include "reference/reference_eval.h"
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
    const Vec3 t = normalize(Vec3{u(rng), u(rng), u(rng)});
    m.tangents.push_back({t.x, t.y, t.z, v % 2 ? -1.f : 1.f});
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
      if (t != 1) target.tangent_deltas.push_back({u(rng), u(rng), u(rng)});  // target 1: none (zeros)
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

  // Brute force: every vertex, every target, searching whether the target lists it. Tangents: glTF's
  // morphed tangent, xyz + sum of weighted deltas, w (the bitangent sign) as it was.
  std::vector<Vec3> positions = raw.positions, normals = raw.normals;
  std::vector<Vec4> tangents = raw.tangents;
  for (size_t v = 0; v < positions.size(); ++v)
    for (size_t t = 0; t < raw.morph_targets.size(); ++t) {
      const RawMorphTarget& target = raw.morph_targets[t];
      for (size_t e = 0; e < target.vertices.size(); ++e)
        if (target.vertices[e] == v) {
          positions[v] = positions[v] + target.position_deltas[e] * weights[t];
          normals[v] = normals[v] + target.normal_deltas[e] * weights[t];
          if (!target.tangent_deltas.empty()) {
            tangents[v].x += target.tangent_deltas[e].x * weights[t];
            tangents[v].y += target.tangent_deltas[e].y * weights[t];
            tangents[v].z += target.tangent_deltas[e].z * weights[t];
          }
        }
    }

  ASSERT_FALSE(mesh.morph_targets().tangent_deltas().empty());
  std::vector<float> out_p(mesh.positions().size()), out_n(mesh.normals().size()),
      out_t(mesh.tangents().size());
  MorphJob job = MorphJob::for_mesh(mesh, weights);
  job.out_positions = out_p;
  job.out_normals = out_n;
  job.out_tangents = out_t;
  ASSERT_TRUE(job.validate());
  ASSERT_TRUE(job.run());
  for (size_t v = 0; v < positions.size(); ++v) {
    EXPECT_NEAR(out_p[v * 3 + 0], positions[v].x, 1e-6f) << v;
    EXPECT_NEAR(out_p[v * 3 + 1], positions[v].y, 1e-6f) << v;
    EXPECT_NEAR(out_p[v * 3 + 2], positions[v].z, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 0], normals[v].x, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 1], normals[v].y, 1e-6f) << v;
    EXPECT_NEAR(out_n[v * 3 + 2], normals[v].z, 1e-6f) << v;
    EXPECT_NEAR(out_t[v * 4 + 0], tangents[v].x, 1e-6f) << v;
    EXPECT_NEAR(out_t[v * 4 + 1], tangents[v].y, 1e-6f) << v;
    EXPECT_NEAR(out_t[v * 4 + 2], tangents[v].z, 1e-6f) << v;
    EXPECT_EQ(out_t[v * 4 + 3], tangents[v].w) << v;
  }
  // Positions only (no normal or tangent output) gives the same positions.
  std::vector<float> only_p(out_p.size());
  job.out_positions = only_p;
  job.out_normals = {};
  job.out_tangents = {};
  ASSERT_TRUE(job.run());
  EXPECT_EQ(only_p, out_p);
}

TEST(Morph, JobRefusesWhatWouldReadOrWriteOutOfBounds) {
  const std::vector<float> base = {0, 0, 0, 1, 1, 1};  // 2 vertices
  const std::vector<uint32_t> first = {0, 1}, good_vertex = {1}, bad_vertex = {2};
  const std::vector<float> delta = {1, 2, 3}, weight = {1};
  std::vector<float> out(6);
  MorphJob job;
  job.base_positions = base;
  job.target_first = first;
  job.vertices = good_vertex;
  job.position_deltas = delta;
  job.weights = weight;
  job.out_positions = out;
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
  // Tangents: 4 floats per vertex in and out, 3 per entry of deltas.
  const std::vector<float> base_tangents = {1, 0, 0, 1, 0, 1, 0, -1}, tangent_delta = {0.5f, 0, 0};
  std::vector<float> out_tangents(8);
  MorphJob with_tangents = job;
  with_tangents.base_tangents = base_tangents;
  with_tangents.tangent_deltas = tangent_delta;
  with_tangents.out_tangents = out_tangents;
  ASSERT_TRUE(with_tangents.run());
  EXPECT_EQ(out_tangents, (std::vector<float>{1, 0, 0, 1, 0.5f, 1, 0, -1}));
  bad = with_tangents;
  bad.base_tangents = std::span<const float>(base_tangents).first(6);  // 3 floats a vertex
  EXPECT_FALSE(bad.validate());
  bad = with_tangents;
  bad.out_tangents = std::span<float>(out_tangents).first(4);
  EXPECT_FALSE(bad.validate());
  bad = with_tangents;
  bad.tangent_deltas = std::span<const float>(tangent_delta).first(2);
  EXPECT_FALSE(bad.validate());
  bad = with_tangents;
  bad.base_tangents = {};  // an output without an input
  EXPECT_FALSE(bad.validate());
  // No targets at all: a copy.
  MorphJob none;
  none.base_positions = base;
  none.out_positions = out;
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

TEST(Morph, RootMotionExtractionKeepsTheWeights) {
  // (`ossa convert --root-motion` went through it and wrote clips without their weights.)
  CharacterAsset c = morph_character({weight_clip("A", 0, 1, {0, 1, 1, 0.5f})});
  auto in_place = extract_root_motion(c.clips[0], c.skeleton);
  ASSERT_TRUE(in_place) << in_place.error();
  ASSERT_EQ(in_place->clip.morph_weights().tracks().size(), 1u);
  float out[2];
  in_place->clip.morph_weights().sample(0, 0.25f, out);
  EXPECT_NEAR(out[0], 0.25f, 1e-6f);
  EXPECT_NEAR(out[1], 0.875f, 1e-6f);
}

// Retargeting a clip onto another character carries its morph weights by name: truth is the source's own
// sampling of the same-named target at the same time (at keys, between keys and at a step).
TEST(Morph, RetargetingCarriesWeightsByMeshAndTargetName) {
  std::mt19937 rng(5);
  RawMesh face = random_morph_mesh(6, 2, rng), brows = random_morph_mesh(6, 3, rng);  // t0 t1 / t0 t1 t2
  brows.name = "brows";
  face.morph_default_weights = {0, 0};
  brows.morph_default_weights = {0, 0, 0};
  RawClip clip = weight_clip("A", 0, 1, {0, 1, 1, 0.5f});  // face: t0 0 -> 1, t1 1 -> 0.5
  RawMorphTrack steps;                                     // brows: keys at 0, 0.5 (twice: a step) and 1
  steps.mesh = 1;
  steps.times = {0, 0.5f, 0.5f, 1};
  steps.weights = {0, 0, 0, 0.2f, 0.3f, 0.4f, 0.9f, 0.8f, 0.7f, 0.1f, 0.1f, 0.1f};
  clip.morph_tracks.push_back(steps);
  auto source = CharacterAsset::build(one_joint(), std::vector<RawClip>{clip},
                                      std::vector<RawMesh>{face, brows}, "source", {Clip::Layout::kKeyed, 0});
  ASSERT_TRUE(source) << source.error();
  // The target's face lists its targets in another order, lacks t1 and has one the source lacks; its "jaw"
  // mesh has t2, which only the source's brows animate.
  RawMesh target_face = random_morph_mesh(4, 3, rng), jaw = random_morph_mesh(4, 1, rng);
  target_face.morph_targets[0].name = "t9";
  target_face.morph_targets[1].name = "t0";
  target_face.morph_targets[2].name = "t2";
  target_face.morph_default_weights = {0.25f, 0, 0};
  jaw.name = "jaw";
  jaw.morph_targets[0].name = "t2";
  auto target = CharacterAsset::build(one_joint(), {}, std::vector<RawMesh>{target_face, jaw}, "target");
  ASSERT_TRUE(target) << target.error();
  std::vector<std::string> unmatched;
  auto moved = retarget_clip(source->clips[0], *source, *target, &unmatched);
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(unmatched, (std::vector<std::string>{"face/t1", "brows/t0", "brows/t1"}));
  const MorphWeightTracks& from = source->clips[0].morph_weights();
  const MorphWeightTracks& to = moved->morph_weights();
  ASSERT_EQ(to.tracks().size(), 2u);
  auto weight = [](const MorphWeightTracks& w, int mesh, int targets, float time, int target) {
    std::vector<float> out(static_cast<size_t>(targets), -1.f);
    w.sample_mesh(mesh, time, out);
    return out[static_cast<size_t>(target)];
  };
  for (float time : {0.f, 0.1f, 0.25f, 0.49f, 0.5f, 0.51f, 0.75f, 1.f}) {
    SCOPED_TRACE(time);
    EXPECT_FLOAT_EQ(weight(to, 0, 3, time, 0), 0.25f);                           // t9: its default
    EXPECT_NEAR(weight(to, 0, 3, time, 1), weight(from, 0, 2, time, 0), 1e-6f);  // t0 from the face
    EXPECT_NEAR(weight(to, 0, 3, time, 2), weight(from, 1, 3, time, 2), 1e-6f);  // t2 from the brows
    EXPECT_NEAR(weight(to, 1, 1, time, 0), weight(from, 1, 3, time, 2), 1e-6f);
  }
  // The step at 0.5 survives: just before it the brows' t2 is near 0.4, at it 0.7.
  EXPECT_NEAR(weight(to, 1, 1, 0.4999f, 0), 0.4f, 1e-3f);
  EXPECT_FLOAT_EQ(weight(to, 1, 1, 0.5f, 0), 0.7f);
}

TEST(Morph, CrossfadeBlendsWeightsWithTheJointsWeights) {
  // A holds the joint at x = 0 and weights (1, 0); B holds x = 1 and weights (0, 1).
  CharacterAsset c =
      morph_character({weight_clip("A", 0, 0, {1, 0, 1, 0}), weight_clip("B", 1, 1, {0, 1, 0, 1})});
  Animator a(c);
  EXPECT_EQ(a.mesh_morph_weights(0).size(), 2u);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[0], 0.1f);  // before any update: the defaults
  EXPECT_TRUE(a.play(0));
  a.update(0.1f);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[0], 1.f);
  EXPECT_FLOAT_EQ(a.mesh_morph_weights(0)[1], 0.f);
  EXPECT_TRUE(a.crossfade(1, 0.4f));
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
  EXPECT_TRUE(a.play(0));
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

// ----------------------------------------------------------------------------- .ossa and compression

// Every mesh's vertices posed by `clip` at `time` as a game poses them: joints sampled, morph weights (the
// mesh's defaults, then the clip's), MorphJob, then SkinningJob. Positions, 3 floats per vertex, per mesh.
std::vector<std::vector<float>> posed_vertices(const Skeleton& skeleton, std::span<const SkinnedMesh> meshes,
                                               const Clip& clip, float time) {
  std::vector<JointPose> locals(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  std::vector<Mat4> model(skeleton.joint_count());
  SamplingCache cache;
  EXPECT_TRUE((SampleJob{&clip, time, &cache, locals}.run()));
  EXPECT_TRUE((LocalToModelJob{&skeleton, locals, model}.run()));
  std::vector<std::vector<float>> out;
  for (size_t m = 0; m < meshes.size(); ++m) {
    const SkinnedMesh& mesh = meshes[m];
    const auto defaults = mesh.morph_targets().default_weights();
    std::vector<float> weights(defaults.begin(), defaults.end());
    clip.morph_weights().sample_mesh(static_cast<int>(m), time, weights);
    std::vector<float> morphed(mesh.positions().size()), skinned(mesh.positions().size());
    MorphJob morph = MorphJob::for_mesh(mesh, weights);
    morph.out_positions = morphed;
    EXPECT_TRUE(morph.run());
    std::vector<Mat4> palette(mesh.inverse_binds().size());
    EXPECT_TRUE((PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run()));
    SkinningJob skin = SkinningJob::for_mesh(mesh, palette);
    skin.in_positions = morphed;
    skin.out_positions = skinned;
    EXPECT_TRUE(skin.run());
    out.push_back(std::move(skinned));
  }
  return out;
}

// Largest distance between the same vertex of `a` and `b` (posed_vertices of the same meshes).
double max_displacement(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  double worst = 0;
  for (size_t m = 0; m < a.size(); ++m)
    for (size_t v = 0; v + 2 < a[m].size(); v += 3) {
      const double dx = a[m][v] - b[m][v], dy = a[m][v + 1] - b[m][v + 1], dz = a[m][v + 2] - b[m][v + 2];
      worst = std::max(worst, std::sqrt(dx * dx + dy * dy + dz * dz));
    }
  return worst;
}

// Frame times of a fixed-rate clip and the midpoints between them.
std::vector<float> frame_and_midpoint_times(const Clip& clip) {
  std::vector<float> times;
  for (int f = 0; f < clip.frame_count(); ++f) {
    const float t = std::min(clip.duration(), static_cast<float>(f) / clip.frame_rate());
    times.push_back(t);
    if (f + 1 < clip.frame_count())
      times.push_back(std::min(clip.duration(), (static_cast<float>(f) + 0.5f) / clip.frame_rate()));
  }
  return times;
}

// Morph targets on the synthetic character's meshes (3 on "Body", 2 on "Cape"; each moves about a third of
// the vertices by up to `reach`), and in every clip a weight track per mesh, keyed at 30 fps, swinging
// beyond [0, 1].
void add_morphs(test::SyntheticScene& scene, float reach, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::bernoulli_distribution moves(0.35);
  const int target_counts[] = {3, 2};
  for (size_t m = 0; m < scene.meshes.size() && m < 2; ++m) {
    RawMesh& mesh = scene.meshes[m];
    for (int t = 0; t < target_counts[m]; ++t) {
      RawMorphTarget target;
      target.name = "shape";
      target.name += std::to_string(t);
      for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
        if (!moves(rng)) continue;
        target.vertices.push_back(v);
        target.position_deltas.push_back(Vec3{u(rng), u(rng), u(rng)} * (reach * 0.577f));
        target.normal_deltas.push_back(Vec3{u(rng), u(rng), u(rng)} * 0.2f);
      }
      mesh.morph_targets.push_back(std::move(target));
      mesh.morph_default_weights.push_back(0.25f * static_cast<float>(t));
    }
  }
  for (RawClip& clip : scene.clips)
    for (int m = 0; m < 2; ++m) {
      RawMorphTrack track;
      track.mesh = m;
      const int keys = static_cast<int>(std::lround(clip.duration * 30)) + 1;
      for (int k = 0; k < keys; ++k) {
        const float time = clip.duration * static_cast<float>(k) / static_cast<float>(keys - 1);
        track.times.push_back(time);
        for (int t = 0; t < target_counts[m]; ++t)
          track.weights.push_back(0.5f + 0.7f * std::sin(5.f * time + 1.3f * static_cast<float>(t + m)));
      }
      clip.morph_tracks.push_back(std::move(track));
    }
}

CharacterAsset synthetic_morph_character(Clip::Layout layout, float reach = 0.3f) {
  test::SyntheticScene scene = test::synthetic_scene(33, 4);
  add_morphs(scene, reach, 9);
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "synthetic", {layout, 0});
  EXPECT_TRUE(asset) << asset.error();
  return std::move(asset).value();
}

// Each fixed-rate clip of `asset` compressed with its meshes (morph weights quantised).
std::vector<Clip> compress_with_meshes(const CharacterAsset& asset, const CompressionSettings& base,
                                       std::vector<CompressionStats>* stats = nullptr) {
  CompressionSettings settings = base;
  settings.meshes = asset.meshes;
  std::vector<Clip> out;
  for (const Clip& clip : asset.clips) {
    CompressionStats s;
    auto compressed = compress_clip(clip, asset.skeleton, settings, &s);
    EXPECT_TRUE(compressed) << compressed.error();
    if (!compressed) return {};
    EXPECT_TRUE(compressed->morph_weights().quantized());
    out.push_back(std::move(compressed).value());
    if (stats) stats->push_back(s);
  }
  return out;
}

// `asset`'s skeleton and meshes with `clips` (and `materials`, which the meshes index) as a .ossa file.
OssaFile ossa_file_of(const CharacterAsset& asset, std::vector<Clip> clips,
                      std::vector<Material> materials = {}) {
  OssaFile file;
  file.skeleton = asset.skeleton;
  file.meshes = asset.meshes;
  file.clips = std::move(clips);
  file.materials = std::move(materials);
  return file;
}

TEST(MorphOssa, TargetsAndWeightsRoundTripInEveryLayout) {
  for (int layout = 0; layout < 3; ++layout) {
    CharacterAsset asset =
        synthetic_morph_character(layout == 0 ? Clip::Layout::kKeyed : Clip::Layout::kFixedRate);
    OssaFile file = ossa_file_of(asset, layout == 2 ? compress_with_meshes(asset, {}) : asset.clips);
    ASSERT_EQ(file.clips.size(), asset.clips.size());
    const std::vector<uint8_t> bytes = encode_ossa(file);
    auto decoded = decode_ossa(bytes, "morph.ossa");
    ASSERT_TRUE(decoded) << decoded.error();
    EXPECT_EQ(encode_ossa(*decoded), bytes) << "layout " << layout;  // nothing lost or reordered
    ASSERT_EQ(decoded->meshes.size(), file.meshes.size());
    for (size_t m = 0; m < file.meshes.size(); ++m) {
      const MorphTargets& a = file.meshes[m].morph_targets();
      const MorphTargets& b = decoded->meshes[m].morph_targets();
      ASSERT_EQ(b.count(), m == 0 ? 3 : 2);
      EXPECT_TRUE(std::equal(a.names().begin(), a.names().end(), b.names().begin(), b.names().end()));
      EXPECT_TRUE(std::ranges::equal(a.vertices(), b.vertices()));
      EXPECT_TRUE(std::ranges::equal(a.position_deltas(), b.position_deltas()));
      EXPECT_TRUE(std::ranges::equal(a.normal_deltas(), b.normal_deltas()));
      EXPECT_TRUE(std::ranges::equal(a.default_weights(), b.default_weights()));
    }
    // Posed through the runtime jobs (what `ossa eval --vertices` prints): bit for bit the same.
    for (size_t c = 0; c < file.clips.size(); ++c) {
      const Clip& clip = file.clips[c];
      EXPECT_EQ(decoded->clips[c].morph_weights().quantized(), layout == 2);
      for (float f : {0.f, 0.13f, 0.5f, 0.871f, 1.f}) {
        auto a = posed_vertices(*file.skeleton, file.meshes, clip, clip.duration() * f);
        auto b = posed_vertices(*decoded->skeleton, decoded->meshes, decoded->clips[c], clip.duration() * f);
        ASSERT_EQ(a, b) << "layout " << layout << " clip " << clip.name() << " at " << f;
      }
    }
    // And the character loads as a whole.
    EXPECT_TRUE(std::move(*decoded).character());
  }
}

TEST(MorphCompression, WeightErrorsMoveVerticesWithinTheirShareOfTheTolerance) {
  // Large deltas (up to 2 m) on a character whose joints turn and scale non-uniformly.
  CharacterAsset asset = synthetic_morph_character(Clip::Layout::kFixedRate, 2.f);
  CompressionSettings settings;
  settings.tolerance = 2e-4f;
  std::vector<CompressionStats> stats;
  std::vector<Clip> compressed = compress_with_meshes(asset, settings, &stats);
  ASSERT_EQ(compressed.size(), asset.clips.size());
  const double share = kMorphToleranceShare * settings.tolerance;
  for (size_t c = 0; c < compressed.size(); ++c) {
    // The joints kept the rest of the tolerance (their own measure, virtual vertices).
    EXPECT_LE(stats[c].max_error, (1 - kMorphToleranceShare) * settings.tolerance);
    EXPECT_LE(stats[c].morph_error_bound, share);
    // The weights' part of the displacement: the compressed clip's joints, with its weights against the
    // exact ones, over every frame and between frames, morphed then skinned.
    const Clip exact_weights = Clip::with_morph_weights(compressed[c], asset.clips[c].morph_weights());
    double worst = 0;
    for (float t : frame_and_midpoint_times(asset.clips[c]))
      worst =
          std::max(worst, max_displacement(posed_vertices(asset.skeleton, asset.meshes, compressed[c], t),
                                           posed_vertices(asset.skeleton, asset.meshes, exact_weights, t)));
    EXPECT_LE(worst, share * 1.001) << asset.clips[c].name();
    EXPECT_GT(worst, 0.05 * share) << "the weights were hardly quantised";
  }
}

// One joint scaled (3, 1, 0.5) by the clip (1 at bind time), a strip of vertices, one target moving them
// along x by up to 2 m: skinning triples the weights' error, and the bound must account for it.
TEST(MorphCompression, TheBoundIncludesTheSkinningScale) {
  std::mt19937 rng(11);
  RawMesh mesh = random_morph_mesh(60, 1, rng);
  for (size_t e = 0; e < mesh.morph_targets[0].vertices.size(); ++e)
    mesh.morph_targets[0].position_deltas[e] = {2.f * static_cast<float>(e % 7) / 6.f, 0, 0};
  RawClip clip;
  clip.name = "Squash";
  clip.duration = 2;
  RawTrack scale;
  scale.joint = 0;
  scale.scale_times = {0, 2};
  scale.scales = {{3, 1, 0.5f}, {3, 1, 0.5f}};
  clip.tracks.push_back(scale);
  RawMorphTrack weights;
  weights.mesh = 0;
  for (int k = 0; k <= 60; ++k) {
    weights.times.push_back(static_cast<float>(k) / 30.f);
    weights.weights.push_back(0.5f + 0.5f * std::sin(0.37f * static_cast<float>(k * k)));
  }
  clip.morph_tracks.push_back(weights);
  std::vector<RawClip> clips = {clip};
  std::vector<RawMesh> meshes = {mesh};
  auto asset = CharacterAsset::build(one_joint(), clips, meshes, "squash", {Clip::Layout::kFixedRate, 30});
  ASSERT_TRUE(asset) << asset.error();
  EXPECT_NEAR(morph_skinning_scale(asset->clips[0], asset->skeleton, asset->meshes[0]), 3.f, 1e-4f);
  CompressionSettings settings;
  std::vector<CompressionStats> stats;
  std::vector<Clip> compressed = compress_with_meshes(*asset, settings, &stats);
  ASSERT_EQ(compressed.size(), 1u);
  EXPECT_EQ(stats[0].max_error, 0.0);  // the scale is a constant: the joints are exact
  const MorphWeightTracks::WeightChannel channel = compressed[0].morph_weights().channels()[0];
  EXPECT_GT(channel.bits, 0);
  EXPECT_LE(channel.bits, MorphWeightTracks::kMaxQuantizedBits);
  double worst = 0;
  for (float t : frame_and_midpoint_times(asset->clips[0]))
    worst =
        std::max(worst, max_displacement(posed_vertices(asset->skeleton, asset->meshes, compressed[0], t),
                                         posed_vertices(asset->skeleton, asset->meshes, asset->clips[0], t)));
  const double share = kMorphToleranceShare * settings.tolerance;
  EXPECT_LE(worst, share * 1.001);
  // Rounding reaches at least half a step, and a step is chosen at over half the allowed error: a bound
  // that left out the scale of 3 would show here as more than 0.75 of the share.
  EXPECT_GT(worst, 0.3 * share);
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

// A bone and the mesh node under it share a name (three.js's RobotExpressive: "Head"). The weight channel
// names the node; it binds to the mesh that has targets, never to the bone (where it was dropped, 14 warnings
// on RobotExpressive, the face 5 % of the model's size away from Blender with animated weights).
TEST(MorphImport, WeightChannelsBindToTheMeshWhenABoneSharesItsName) {
  const std::string dir = test::temp_dir("morph_shared_name");
  test::GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Head"}, {"children", {1}}, {"translation", {0, 1, 0}}});
  b.add_node({{"name", "Head"}, {"mesh", 0}});
  d["scenes"][0]["nodes"] = {0};
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  int moves = b.add_floats({0, 0, 0, 0, 1, 0, 0, 0, 0}, "VEC3", true);
  nlohmann::json primitive = {{"attributes", {{"POSITION", positions}}},
                              {"targets", nlohmann::json::array({{{"POSITION", moves}}})}};
  d["meshes"] = nlohmann::json::array(
      {{{"name", "Face"}, {"primitives", nlohmann::json::array({primitive})}, {"weights", {0}}}});
  int times = b.add_floats({0, 1}, "SCALAR", true);
  int weights = b.add_floats({0, 1}, "SCALAR");
  nlohmann::json sampler = {{"input", times}, {"output", weights}, {"interpolation", "LINEAR"}};
  nlohmann::json channel = {{"sampler", 0}, {"target", {{"node", 1}, {"path", "weights"}}}};
  d["animations"] = nlohmann::json::array({{{"name", "Smile"},
                                            {"samplers", nlohmann::json::array({sampler})},
                                            {"channels", nlohmann::json::array({channel})}}});
  b.write(dir + "/shared_name.gltf");
  auto scene = import_file(dir + "/shared_name.gltf");
  ASSERT_TRUE(scene) << scene.error();
  for (const std::string& w : scene->warnings) EXPECT_EQ(w.find("morph weights"), std::string::npos) << w;
  ASSERT_EQ(scene->meshes.size(), 1u);
  ASSERT_EQ(scene->clips.size(), 1u);
  ASSERT_EQ(scene->clips[0].morph_tracks.size(), 1u) << "the weights went to the bone and were dropped";
  EXPECT_EQ(scene->clips[0].morph_tracks[0].mesh, 0);
  EXPECT_EQ(scene->clips[0].morph_tracks[0].weights, (std::vector<float>{0, 1}));
  std::filesystem::remove_all(dir);
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
  EXPECT_TRUE(a.play(0));
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

// Two triangles (4 vertices, base tangents of both signs) under a node translated by (5, 0, 0) and scaled
// 2x, with two targets that move tangents: "withNormal" has POSITION, NORMAL and TANGENT (assimp reads its
// tangents), "tangentOnly" POSITION and TANGENT (assimp 5.2.5 drops its tangents; gltf_morph_tangents.h
// reads them). The clip turns the node from 0 to 90 degrees about +Y and weights (0, 0) -> (1, 0.5) over 1 s.
struct TangentMorphFile {
  std::vector<Vec3> positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}};
  std::vector<Vec4> tangents = {{1, 0, 0, 1}, {0, 1, 0, -1}, {1, 0, 0, 1}, {0.6f, 0.8f, 0, 1}};
  // Per target, per vertex (the file's order): TANGENT deltas; zeros are not moved.
  std::vector<std::vector<Vec3>> tangent_deltas = {{{0, 0.5f, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0.25f}},
                                                   {{0, 0, 0}, {0.3f, 0, 0.1f}, {0, 0.2f, 0.4f}, {0, 0, 0}}};
  std::string path;
};
TangentMorphFile tangent_morph_file(const std::string& dir) {
  TangentMorphFile f;
  test::GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Panel"}, {"mesh", 0}, {"translation", {5, 0, 0}}, {"scale", {2, 2, 2}}});
  d["scenes"][0]["nodes"] = {0};
  auto flat = [](const auto& values, int n) {
    std::vector<float> out;
    for (const auto& v : values) {
      const float* p = &v.x;
      out.insert(out.end(), p, p + n);
    }
    return out;
  };
  const int positions = b.add_floats(flat(f.positions, 3), "VEC3", true);
  const int normals = b.add_floats({0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}, "VEC3");
  const int tangents = b.add_floats(flat(f.tangents, 4), "VEC4");
  const int uvs = b.add_floats({0, 0, 1, 0, 0, 1, 1, 1}, "VEC2");
  const int indices = b.add_u16({0, 1, 2, 2, 1, 3}, "SCALAR");
  const int moved = b.add_floats({0, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC3", true);
  const int normal_moved = b.add_floats({0.1f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC3");
  const int moved1 = b.add_floats({0, 0, 0, 0, 0, -0.25f, 0, 0, 0, 0, 0, 0}, "VEC3", true);
  const int tangent0 = b.add_floats(flat(f.tangent_deltas[0], 3), "VEC3");
  const int tangent1 = b.add_floats(flat(f.tangent_deltas[1], 3), "VEC3");
  nlohmann::json primitive = {
      {"attributes",
       {{"POSITION", positions}, {"NORMAL", normals}, {"TANGENT", tangents}, {"TEXCOORD_0", uvs}}},
      {"indices", indices},
      {"targets",
       nlohmann::json::array({{{"POSITION", moved}, {"NORMAL", normal_moved}, {"TANGENT", tangent0}},
                              {{"POSITION", moved1}, {"TANGENT", tangent1}}})}};
  d["meshes"] = nlohmann::json::array({{{"name", "PanelMesh"},
                                        {"primitives", nlohmann::json::array({primitive})},
                                        {"weights", {0, 0}},
                                        {"extras", {{"targetNames", {"withNormal", "tangentOnly"}}}}}});
  const int times = b.add_floats({0, 1}, "SCALAR", true);
  const int weights = b.add_floats({0, 0, 1, 0.5f}, "SCALAR");
  const float half = std::sqrt(0.5f);
  const int rotations = b.add_floats({0, 0, 0, 1, 0, half, 0, half}, "VEC4");
  nlohmann::json samplers = nlohmann::json::array(
      {{{"input", times}, {"output", weights}}, {{"input", times}, {"output", rotations}}});
  nlohmann::json channels =
      nlohmann::json::array({{{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}},
                             {{"sampler", 1}, {"target", {{"node", 0}, {"path", "rotation"}}}}});
  d["animations"] =
      nlohmann::json::array({{{"name", "Turn"}, {"samplers", samplers}, {"channels", channels}}});
  f.path = (std::filesystem::path(dir) / "panel.gltf").string();
  b.write(f.path);
  return f;
}

// The file's vertex at `file_position` among the imported mesh's (model space: 2 x + (5, 0, 0)).
int imported_vertex(const RawMesh& mesh, Vec3 file_position) {
  const Vec3 want = file_position * 2.f + Vec3{5, 0, 0};
  for (size_t v = 0; v < mesh.positions.size(); ++v)
    if (length(mesh.positions[v] - want) < 1e-6f) return static_cast<int>(v);
  ADD_FAILURE() << "no vertex at the file's " << file_position.x << ", " << file_position.y;
  return 0;
}

// Each vertex's tangent (xyz, w) at `time`: the Animator's weights, MorphJob, then PaletteJob + SkinningJob.
std::vector<float> skinned_tangents(const CharacterAsset& asset, float time) {
  Animator a(asset);
  EXPECT_TRUE(a.play(0));
  a.update(time);
  const SkinnedMesh& mesh = asset.meshes[0];
  std::vector<float> positions(mesh.positions().size()), normals(mesh.normals().size()),
      tangents(mesh.tangents().size());
  MorphJob morph = MorphJob::for_mesh(mesh, a.mesh_morph_weights(0));
  morph.out_positions = positions;
  morph.out_normals = normals;
  morph.out_tangents = tangents;
  EXPECT_TRUE(morph.run());
  std::vector<Mat4> palette(mesh.inverse_binds().size());
  EXPECT_TRUE((PaletteJob{a.model(), mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run()));
  std::vector<float> out_p(positions.size()), out_n(normals.size()), out_t(tangents.size());
  SkinningJob skin = SkinningJob::for_mesh(mesh, palette);
  skin.in_positions = positions;
  skin.in_normals = normals;
  skin.in_tangents = tangents;
  skin.out_positions = out_p;
  skin.out_normals = out_n;
  skin.out_tangents = out_t;
  EXPECT_TRUE(skin.run());
  return out_t;
}

// glTF's morphed tangent (xyz = base + sum w_i delta_i, w unchanged), computed here from the file's numbers,
// through the node's turn: against the import, the asset and MorphJob + SkinningJob, and the same after a
// .ossa round trip. Both kinds of target count: the one assimp reads and the one it drops.
TEST(MorphImport, TangentDeltasFollowTheGltfFormulaThroughSkinningAndOssa) {
  const std::string dir = test::temp_dir("morph_tangents");
  const TangentMorphFile file = tangent_morph_file(dir);
  auto scene = import_file(file.path);
  ASSERT_TRUE(scene) << scene.error();
  ASSERT_EQ(scene->meshes.size(), 1u);
  const RawMesh& mesh = scene->meshes[0];
  ASSERT_EQ(mesh.morph_targets.size(), 2u);
  ASSERT_EQ(mesh.tangents.size(), 4u);
  for (const std::string& w : scene->warnings) EXPECT_EQ(w.find("TANGENT"), std::string::npos) << w;
  // Each target stores a delta for just the vertices its TANGENT (or POSITION) moves; the scale of 2 cancels
  // (the base tangent was normalised after it), so the deltas are the file's.
  for (size_t t = 0; t < 2; ++t) {
    const RawMorphTarget& target = mesh.morph_targets[t];
    ASSERT_EQ(target.tangent_deltas.size(), target.vertices.size()) << t;
    EXPECT_EQ(target.vertices.size(), 2u) << t;
    for (size_t fv = 0; fv < 4; ++fv) {
      const Vec3 want = file.tangent_deltas[t][fv];
      const uint32_t v = static_cast<uint32_t>(imported_vertex(mesh, file.positions[fv]));
      const auto at = std::find(target.vertices.begin(), target.vertices.end(), v);
      const Vec3 got =
          at == target.vertices.end() ? Vec3{0, 0, 0} : target.tangent_deltas[at - target.vertices.begin()];
      EXPECT_NEAR(got.x, want.x, 1e-6f) << t << " " << fv;
      EXPECT_NEAR(got.y, want.y, 1e-6f) << t << " " << fv;
      EXPECT_NEAR(got.z, want.z, 1e-6f) << t << " " << fv;
    }
  }

  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset) << asset.error();
  ASSERT_EQ(asset->meshes[0].morph_targets().tangent_deltas().size(), 12u);
  auto decoded = decode_ossa(encode_ossa(ossa_file_of(*asset, asset->clips, scene->materials)), "panel.ossa");
  ASSERT_TRUE(decoded) << decoded.error();
  auto reloaded = decoded->character();
  ASSERT_TRUE(reloaded) << reloaded.error();
  ASSERT_EQ(reloaded->meshes[0].morph_targets().tangent_deltas().size(), 12u);

  // At 0.5 s: weights (0.5, 0.25), the node turned 45 degrees about +Y.
  const float time = 0.5f, w[2] = {0.5f, 0.25f}, c = std::sqrt(0.5f);
  const std::vector<float> imported = skinned_tangents(*asset, time),
                           through_ossa = skinned_tangents(*reloaded, time);
  EXPECT_EQ(through_ossa, imported);
  for (size_t fv = 0; fv < 4; ++fv) {
    const Vec4 base = file.tangents[fv];
    Vec3 morphed{base.x, base.y, base.z};
    for (int t = 0; t < 2; ++t) morphed = morphed + file.tangent_deltas[t][fv] * w[t];
    const Vec3 want{c * morphed.x + c * morphed.z, morphed.y, -c * morphed.x + c * morphed.z};
    const size_t v = static_cast<size_t>(imported_vertex(mesh, file.positions[fv]));
    EXPECT_NEAR(imported[v * 4 + 0], want.x, 1e-5f) << fv;
    EXPECT_NEAR(imported[v * 4 + 1], want.y, 1e-5f) << fv;
    EXPECT_NEAR(imported[v * 4 + 2], want.z, 1e-5f) << fv;
    EXPECT_EQ(imported[v * 4 + 3], base.w) << fv;
  }
  std::filesystem::remove_all(dir);
}

// The Khronos morph files Blender evaluated (../shared/models/morph), when present.
std::vector<std::string> oracle_morph_models() {
  std::vector<std::string> out;
  const std::string shared = test::shared_dir();
  for (const char* stem : {"AnimatedMorphCube", "AnimatedMorphSphere"}) {
    const auto path = std::filesystem::path(shared) / "models" / "morph" / (std::string(stem) + ".gltf");
    if (!shared.empty() && std::filesystem::exists(path)) out.push_back(path.string());
  }
  return out;
}

TEST(MorphOssa, OracleModelsThroughOssaMatchTheModelFile) {
  const auto models = oracle_morph_models();
  if (models.empty()) GTEST_SKIP() << "no ../shared/models/morph";
  for (const std::string& path : models) {
    auto scene = import_file(path);
    ASSERT_TRUE(scene) << scene.error();
    auto asset = CharacterAsset::build(*scene, {Clip::Layout::kKeyed, 0});
    ASSERT_TRUE(asset) << asset.error();
    auto decoded = decode_ossa(encode_ossa(ossa_file_of(*asset, asset->clips, scene->materials)), path);
    ASSERT_TRUE(decoded) << decoded.error();
    ASSERT_FALSE(decoded->meshes[0].morph_targets().empty());
    ASSERT_FALSE(decoded->clips[0].morph_weights().empty());
    // `ossa eval --vertices` on the model (the reference evaluator) and on the .ossa (the runtime jobs), at
    // keys and between them.
    const RawClip& raw = scene->clips[0];
    double worst = 0;
    for (int i = 0; i <= 40; ++i) {
      const float t = raw.duration * static_cast<float>(i) / 40.f + (i % 2 ? 0.013f : 0.f);
      auto ours = posed_vertices(*decoded->skeleton, decoded->meshes, decoded->clips[0], t);
      auto model =
          reference::local_to_model(scene->skeleton, reference::sample_clip(scene->skeleton, raw, t));
      for (size_t m = 0; m < scene->meshes.size(); ++m) {
        auto weights = reference::sample_morph_weights(scene->meshes[m], static_cast<int>(m), &raw, t);
        auto reference_mesh = reference::skin_mesh(scene->meshes[m], model, weights);
        for (size_t v = 0; v < reference_mesh.positions.size(); ++v) {
          const Vec3 p = reference_mesh.positions[v];
          const Vec3 q{ours[m][v * 3], ours[m][v * 3 + 1], ours[m][v * 3 + 2]};
          worst = std::max(worst, static_cast<double>(length(p - q)));
        }
      }
    }
    EXPECT_LT(worst, 1e-6) << path;  // metres, on models about 2 m across
  }
}

TEST(MorphCompression, OracleModelsStayWithinTheTolerance) {
  const auto models = oracle_morph_models();
  if (models.empty()) GTEST_SKIP() << "no ../shared/models/morph";
  for (const std::string& path : models) {
    auto scene = import_file(path);
    ASSERT_TRUE(scene) << scene.error();
    auto asset = CharacterAsset::build(*scene);
    ASSERT_TRUE(asset) << asset.error();
    CompressionSettings settings;  // 0.01 cm
    std::vector<Clip> compressed = compress_with_meshes(*asset, settings);
    ASSERT_EQ(compressed.size(), asset->clips.size());
    for (size_t c = 0; c < compressed.size(); ++c) {
      // Brute force: every frame and between frames, morphed then skinned, against the fixed-rate clip.
      double worst = 0;
      for (float t : frame_and_midpoint_times(asset->clips[c]))
        worst = std::max(
            worst, max_displacement(posed_vertices(asset->skeleton, asset->meshes, compressed[c], t),
                                    posed_vertices(asset->skeleton, asset->meshes, asset->clips[c], t)));
      EXPECT_LE(worst, settings.tolerance) << path;
      EXPECT_GT(worst, 0.0) << path << ": the weights were not quantised";
      // Stored in a .ossa, the compressed weights come back as they were.
      auto decoded = decode_ossa(encode_ossa(ossa_file_of(*asset, {compressed[c]}, scene->materials)), path);
      ASSERT_TRUE(decoded) << decoded.error();
      const float t = asset->clips[c].duration() * 0.37f;
      EXPECT_EQ(posed_vertices(*decoded->skeleton, decoded->meshes, decoded->clips[0], t),
                posed_vertices(asset->skeleton, asset->meshes, compressed[c], t));
    }
  }
}

TEST(MorphImport, AWeightForATargetTheMeshLacksIsAnErrorNamingTheFile) {
  const std::string dir = test::temp_dir("morph_import_bad");
  const std::string path = morph_triangle(dir, "three_weights.gltf", 3);
  auto scene = import_file(path);
  ASSERT_FALSE(scene);
  EXPECT_NE(scene.error().find("three_weights.gltf"), std::string::npos) << scene.error();
  EXPECT_NE(scene.error().find("3 per key for a mesh with 2 morph targets"), std::string::npos)
      << scene.error();
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace ossa
