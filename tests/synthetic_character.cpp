#include "synthetic_character.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

namespace ossa::test {
namespace {

constexpr float kPi = 3.14159265f;

Quat random_rotation(std::mt19937& rng) {
  std::normal_distribution<float> n;
  return normalize(Quat{n(rng), n(rng), n(rng), n(rng)});
}

Vec3 random_unit(std::mt19937& rng) {
  std::normal_distribution<float> n;
  return normalize(Vec3{n(rng), n(rng), n(rng)});
}

RawClip make_clip(const RawSkeleton& skeleton, const char* name, float duration, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(0, 1);
  RawClip clip;
  clip.name = name;
  clip.duration = duration;
  clip.ticks_per_second = 30;
  const int keys = static_cast<int>(std::lround(duration * 30)) + 1;
  for (int j = 0; j < static_cast<int>(skeleton.joints.size()); ++j) {
    const Transform& rest = skeleton.joints[j].rest;
    RawTrack track;
    track.joint = j;
    const Vec3 axis = random_unit(rng);
    const float amplitude = 0.2f + 1.2f * unit(rng), phase = 2 * kPi * unit(rng);
    const Vec3 offset{0.05f * unit(rng), 0.05f * unit(rng), 0.05f * unit(rng)};
    const bool scaled = j % 5 == 3;  // some joints scale, non-uniformly
    for (int k = 0; k < keys; ++k) {
      const float t = duration * static_cast<float>(k) / static_cast<float>(keys - 1);
      const float s = std::sin(2 * kPi * t / duration + phase);
      track.rotation_times.push_back(t);
      track.rotations.push_back(rest.rotation * quat_from_axis_angle(axis, amplitude * s));
      track.translation_times.push_back(t);
      track.translations.push_back(rest.translation + offset * s);
      if (scaled) {
        track.scale_times.push_back(t);
        track.scales.push_back(rest.scale * Vec3{1 + 0.2f * s, 1 - 0.1f * s, 1 + 0.05f * s});
      }
    }
    clip.tracks.push_back(std::move(track));
  }
  return clip;
}

RawMesh make_mesh(const char* name, const std::vector<Mat4>& model, const std::vector<int>& remap,
                  int vertices, int influences, bool tangents, std::mt19937& rng) {
  std::uniform_real_distribution<float> unit(0, 1);
  RawMesh mesh;
  mesh.name = name;
  mesh.node_joint = 0;
  mesh.skinned = true;
  mesh.influences_per_vertex = influences;
  mesh.joint_remap = remap;
  for (int joint : remap) mesh.inverse_binds.push_back(inverse(model[joint]));
  std::uniform_int_distribution<int> slot(0, static_cast<int>(remap.size()) - 1);
  for (int v = 0; v < vertices; ++v) {
    mesh.positions.push_back({2 * unit(rng) - 1, 2 * unit(rng), 2 * unit(rng) - 1});
    mesh.normals.push_back(random_unit(rng));
    if (tangents) {
      const Vec3 t = random_unit(rng);
      mesh.tangents.push_back({t.x, t.y, t.z, v % 2 ? 1.f : -1.f});
    }
    // Strongest first, summing to 1.
    std::vector<float> w(influences);
    float sum = 0;
    for (float& x : w) sum += x = 0.05f + unit(rng);
    std::sort(w.begin(), w.end(), [](float a, float b) { return a > b; });
    for (int i = 0; i < influences; ++i) {
      mesh.influence_joints.push_back(static_cast<uint16_t>(slot(rng)));
      mesh.influence_weights.push_back(w[i] / sum);
    }
  }
  for (int v = 0; v + 2 < vertices; v += 3)
    mesh.indices.insert(mesh.indices.end(), {uint32_t(v), uint32_t(v + 1), uint32_t(v + 2)});
  return mesh;
}

}  // namespace

SyntheticScene synthetic_scene(int joints, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(0, 1);
  SyntheticScene scene;
  std::vector<Mat4> model;
  std::vector<int> path;  // root to the previous joint: a joint's parent is on it (depth-first order)
  for (int j = 0; j < joints; ++j) {
    RawJoint joint;
    joint.name = j == 0 ? "root" : "joint" + std::to_string(j);
    // Mostly chains (a joint follows its parent); every sixth joint branches off an earlier joint of the
    // path.
    if (j % 6 == 0 && path.size() > 1)
      path.resize(1 + static_cast<size_t>(unit(rng) * static_cast<float>(path.size() - 1)));
    joint.parent = path.empty() ? -1 : path.back();
    path.push_back(j);
    joint.rest.translation = {0.3f * unit(rng) - 0.15f, 0.1f + 0.2f * unit(rng), 0.3f * unit(rng) - 0.15f};
    joint.rest.rotation = random_rotation(rng);
    if (j % 7 == 2) joint.rest.scale = {0.8f + 0.4f * unit(rng), 0.8f + 0.4f * unit(rng), 1.1f};
    joint.weighted = true;
    model.push_back(joint.parent >= 0 ? model[joint.parent] * joint.rest.to_matrix()
                                      : joint.rest.to_matrix());
    joint.inverse_bind = inverse(model.back());
    scene.skeleton.joints.push_back(std::move(joint));
  }
  const struct {
    const char* name;
    float duration;
  } clips[] = {
      {"Armature|Walk", 1.0f}, {"Armature|Wave", 1.5f}, {"Armature|Idle", 2.0f}, {"Armature|Turn", 1.2f}};
  for (const auto& c : clips) scene.clips.push_back(make_clip(scene.skeleton, c.name, c.duration, rng));

  std::vector<int> all(joints), some;
  for (int j = 0; j < joints; ++j) all[j] = j;
  for (int j = joints - 1; j >= 0; j -= 3) some.push_back(j);  // a remapped palette, in another order
  scene.meshes.push_back(make_mesh("Body", model, all, 997, 4, true, rng));
  scene.meshes.push_back(make_mesh("Cape", model, some, 301, 2, false, rng));
  return scene;
}

CharacterAsset synthetic_character(int joints, uint32_t seed, const CharacterBuildOptions& options) {
  const SyntheticScene scene = synthetic_scene(joints, seed);
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "synthetic", options);
  if (!asset) {
    std::fprintf(stderr, "synthetic_character: %s\n", asset.error().c_str());
    std::abort();
  }
  return std::move(asset).value();
}

CharacterAsset synthetic_morph_character(int targets, uint32_t seed, int influences) {
  SyntheticScene scene = synthetic_scene(33, seed);
  for (RawMesh& mesh : scene.meshes) {
    const int k = mesh.influences_per_vertex;
    if (influences <= 0 || influences >= k) continue;
    std::vector<uint16_t> joints;
    std::vector<float> weights;
    for (size_t v = 0; v < mesh.positions.size(); ++v) {
      float sum = 0;
      for (int i = 0; i < influences; ++i) sum += mesh.influence_weights[v * k + i];
      for (int i = 0; i < influences; ++i) {
        joints.push_back(mesh.influence_joints[v * k + i]);
        weights.push_back(sum > 0 ? mesh.influence_weights[v * k + i] / sum : (i == 0 ? 1.f : 0.f));
      }
    }
    mesh.influences_per_vertex = influences;
    mesh.influence_joints = std::move(joints);
    mesh.influence_weights = std::move(weights);
  }
  std::mt19937 rng(seed * 7 + 1);
  std::uniform_real_distribution<float> unit(0, 1);
  auto add_target = [&](RawMesh& mesh, int first, int count, float keep, bool normals_and_tangents) {
    RawMorphTarget target;
    target.name = "target" + std::to_string(mesh.morph_targets.size());
    const int n = static_cast<int>(mesh.positions.size());
    for (int v = first; v < std::min(n, first + count); ++v) {
      if (unit(rng) > keep) continue;
      target.vertices.push_back(static_cast<uint32_t>(v));
      target.position_deltas.push_back(random_unit(rng) * (0.15f + 0.35f * unit(rng)));
      if (normals_and_tangents) {
        target.normal_deltas.push_back(random_unit(rng) * 0.6f);
        target.tangent_deltas.push_back(random_unit(rng) * 0.8f);
      }
    }
    mesh.morph_targets.push_back(std::move(target));
    mesh.morph_default_weights.push_back(0);
  };
  RawMesh& body = scene.meshes[0];
  body.material = 0;  // tilted_normal_map(): the tangents show
  const int body_vertices = static_cast<int>(body.positions.size());
  for (int t = 0; t + 1 < targets; ++t)
    add_target(body, static_cast<int>(unit(rng) * static_cast<float>(body_vertices - 150)), 150,
               t % 2 ? 1.f : 0.67f, true);
  if (targets > 0) add_target(body, 0, body_vertices, 0.05f, true);  // scattered: a window of the whole mesh
  for (int t = 0; t < 3; ++t) add_target(scene.meshes[1], 40 * t, 120, 0.8f, false);
  if (targets >= 3) {
    RawMorphTrack track;
    track.mesh = 0;
    for (int k = 0; k <= 4; ++k) {
      track.times.push_back(0.25f * static_cast<float>(k));
      for (int t = 0; t < targets; ++t)
        track.weights.push_back(t < 3 ? std::sin(static_cast<float>(k + t) * 1.3f) : 0.f);
    }
    scene.clips[0].morph_tracks.push_back(std::move(track));
  }
  auto asset = CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "synthetic morph", {});
  if (!asset) {
    std::fprintf(stderr, "synthetic_morph_character: %s\n", asset.error().c_str());
    std::abort();
  }
  return std::move(asset).value();
}

RawSkeleton two_joint_raw_skeleton() {
  RawSkeleton raw;
  raw.joints.resize(2);
  raw.joints[0].name = "root";
  raw.joints[1].name = "child";
  raw.joints[1].parent = 0;
  raw.joints[1].rest.translation = {0, 1, 0};
  return raw;
}

Skeleton two_joint_skeleton() {
  return std::move(Skeleton::build(two_joint_raw_skeleton())).value();
}

}  // namespace ossa::test
