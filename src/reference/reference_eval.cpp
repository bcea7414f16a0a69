#include "reference/reference_eval.h"

#include <algorithm>

namespace ossa::reference {
namespace {
// Index i of the key pair [i, i+1] around `time` and the blend factor; i+1 == i at the ends (clamped).
struct KeySpan {
  size_t a = 0, b = 0;
  float t = 0;
};
KeySpan find_span(const std::vector<float>& times, float time) {
  KeySpan s;
  if (times.size() < 2 || time <= times.front()) return s;
  if (time >= times.back()) {
    s.a = s.b = times.size() - 1;
    return s;
  }
  size_t hi = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), time) - times.begin());
  s.a = hi - 1;
  s.b = hi;
  float dt = times[s.b] - times[s.a];
  s.t = dt > 0 ? (time - times[s.a]) / dt : 0.f;
  return s;
}
}  // namespace

Vec3 sample_vec3(const std::vector<float>& times, const std::vector<Vec3>& values, float time,
                 Vec3 fallback) {
  if (values.empty()) return fallback;
  KeySpan s = find_span(times, time);
  return lerp(values[s.a], values[s.b], s.t);
}

Quat sample_quat(const std::vector<float>& times, const std::vector<Quat>& values, float time,
                 Quat fallback) {
  if (values.empty()) return fallback;
  KeySpan s = find_span(times, time);
  return slerp(values[s.a], values[s.b], s.t);
}

std::vector<Transform> rest_pose(const RawSkeleton& skeleton) {
  std::vector<Transform> local(skeleton.joints.size());
  for (size_t j = 0; j < local.size(); ++j) local[j] = skeleton.joints[j].rest;
  return local;
}

std::vector<Transform> sample_clip(const RawSkeleton& skeleton, const RawClip& clip, float time) {
  std::vector<Transform> local = rest_pose(skeleton);
  for (const RawTrack& track : clip.tracks) {
    if (track.joint < 0 || static_cast<size_t>(track.joint) >= local.size()) continue;
    Transform& t = local[track.joint];
    t.translation = sample_vec3(track.translation_times, track.translations, time, t.translation);
    t.rotation = sample_quat(track.rotation_times, track.rotations, time, t.rotation);
    t.scale = sample_vec3(track.scale_times, track.scales, time, t.scale);
  }
  return local;
}

std::vector<Mat4> local_to_model(const RawSkeleton& skeleton, const std::vector<Transform>& local) {
  std::vector<Mat4> model(skeleton.joints.size());
  for (size_t j = 0; j < model.size(); ++j) {
    Mat4 m = local[j].to_matrix();
    int p = skeleton.joints[j].parent;
    model[j] = p >= 0 ? model[p] * m : m;
  }
  return model;
}

std::vector<Mat4> bind_pose_model(const RawSkeleton& skeleton) {
  std::vector<Mat4> model(skeleton.joints.size());
  for (size_t j = 0; j < model.size(); ++j) {
    const RawJoint& joint = skeleton.joints[j];
    if (joint.has_file_bind) {
      model[j] = inverse(joint.inverse_bind);
    } else {
      Mat4 m = joint.rest.to_matrix();
      model[j] = joint.parent >= 0 ? model[joint.parent] * m : m;
    }
  }
  return model;
}

std::vector<float> sample_morph_weights(const RawMesh& mesh, int mesh_index, const RawClip* clip,
                                        float time) {
  std::vector<float> weights = mesh.morph_default_weights;
  if (!clip) return weights;
  const size_t targets = weights.size();
  for (const RawMorphTrack& track : clip->morph_tracks) {
    if (track.mesh != mesh_index || targets == 0 || track.weights.size() != track.times.size() * targets)
      continue;
    KeySpan s = find_span(track.times, time);
    for (size_t t = 0; t < targets; ++t) {
      const float a = track.weights[s.a * targets + t], b = track.weights[s.b * targets + t];
      weights[t] = a + (b - a) * s.t;
    }
  }
  return weights;
}

SkinnedVertices skin_mesh(const RawMesh& mesh, const std::vector<Mat4>& model,
                          const std::vector<float>& morph_weights) {
  // Morph first: every target's deltas, weighted, onto a copy of the bind-time vertices.
  std::vector<Vec3> positions = mesh.positions, normals = mesh.normals;
  for (size_t t = 0; t < mesh.morph_targets.size() && t < morph_weights.size(); ++t) {
    const RawMorphTarget& target = mesh.morph_targets[t];
    const float w = morph_weights[t];
    for (size_t e = 0; e < target.vertices.size(); ++e) {
      positions[target.vertices[e]] = positions[target.vertices[e]] + target.position_deltas[e] * w;
      if (!normals.empty() && !target.normal_deltas.empty())
        normals[target.vertices[e]] = normals[target.vertices[e]] + target.normal_deltas[e] * w;
    }
  }
  std::vector<Mat4> palette(mesh.joint_remap.size());
  for (size_t s = 0; s < palette.size(); ++s) palette[s] = model[mesh.joint_remap[s]] * mesh.inverse_binds[s];
  SkinnedVertices out;
  const size_t n = mesh.positions.size();
  const int k = mesh.influences_per_vertex;
  out.positions.resize(n);
  if (!mesh.normals.empty()) out.normals.resize(n);
  for (size_t v = 0; v < n; ++v) {
    Mat4 blended;
    for (float& x : blended.m) x = 0;
    for (int i = 0; i < k; ++i) {
      float w = mesh.influence_weights[v * k + i];
      if (w == 0) continue;
      const Mat4& p = palette[mesh.influence_joints[v * k + i]];
      for (int e = 0; e < 16; ++e) blended.m[e] += w * p.m[e];
    }
    out.positions[v] = transform_point(blended, positions[v]);
    if (!mesh.normals.empty())
      out.normals[v] = normalize(transform_vector(normal_matrix(blended), normals[v]));
  }
  return out;
}

}  // namespace ossa::reference
