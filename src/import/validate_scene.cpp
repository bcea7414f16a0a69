#include <algorithm>
#include <cmath>
#include <string>

#include "ossa/asset/value_ranges.h"
#include "ossa/import/imported_scene.h"

namespace ossa {
namespace {
// Finite and within value_ranges.h's widest range (10^7): a finite 3e38 overflows once used. The builders
// check the narrower ranges (scales, weights) when the asset is made.
bool finite(float v) {
  return value_ranges::within(v, value_ranges::kMaxCoordinate);
}
bool finite(Vec2 v) {
  return finite(v.x) && finite(v.y);
}
bool finite(Vec3 v) {
  return finite(v.x) && finite(v.y) && finite(v.z);
}
bool finite(Vec4 v) {
  return finite(v.x) && finite(v.y) && finite(v.z) && finite(v.w);
}
bool finite(Quat q) {
  return finite(q.x) && finite(q.y) && finite(q.z) && finite(q.w);
}
bool finite(const Mat4& m) {
  return std::all_of(std::begin(m.m), std::end(m.m), [](float v) { return finite(v); });
}
bool finite(const Transform& t) {
  return finite(t.translation) && finite(t.rotation) && finite(t.scale);
}

template <class T>
bool all_finite(const std::vector<T>& values) {
  return std::all_of(values.begin(), values.end(), [](const T& v) { return finite(v); });
}
}  // namespace

std::string validate_scene(const ImportedScene& scene) {
  const auto& joints = scene.skeleton.joints;
  for (size_t j = 0; j < joints.size(); ++j) {
    const RawJoint& joint = joints[j];
    const std::string where = "joint '" + joint.name + "'";
    if (joint.parent >= static_cast<int>(j) || joint.parent < -1)
      return where + ": parent does not come before it";
    if (!finite(joint.rest)) return where + ": rest transform is not finite or past +-1e7";
    if (!finite(joint.inverse_bind)) return where + ": inverse bind matrix is not finite or past +-1e7";
  }
  for (const RawMesh& mesh : scene.meshes) {
    const std::string where = "mesh '" + mesh.name + "'";
    const size_t n = mesh.positions.size();
    if (!all_finite(mesh.positions) || !all_finite(mesh.normals) || !all_finite(mesh.tangents) ||
        !all_finite(mesh.uvs))
      return where + ": a vertex attribute is not finite or past +-1e7";
    if ((!mesh.normals.empty() && mesh.normals.size() != n) ||
        (!mesh.tangents.empty() && mesh.tangents.size() != n) || (!mesh.uvs.empty() && mesh.uvs.size() != n))
      return where + ": vertex streams differ in length";
    if (mesh.indices.size() % 3 != 0) return where + ": index count is not a multiple of 3";
    for (uint32_t i : mesh.indices)
      if (i >= n) return where + ": index " + std::to_string(i) + " past " + std::to_string(n) + " vertices";
    if (mesh.joint_remap.size() != mesh.inverse_binds.size())
      return where + ": joint remap and inverse binds differ";
    for (int j : mesh.joint_remap)
      if (j < 0 || j >= static_cast<int>(joints.size())) return where + ": joint remap out of range";
    for (const Mat4& m : mesh.inverse_binds)
      if (!finite(m)) return where + ": inverse bind matrix is not finite or past +-1e7";
    const int k = mesh.influences_per_vertex;
    if (k < 1 || k > 8) return where + ": influences per vertex must be 1-8";
    if (mesh.influence_joints.size() != n * k || mesh.influence_weights.size() != n * k)
      return where + ": influence streams have the wrong length";
    for (size_t v = 0; v < n; ++v) {
      float sum = 0;
      for (int i = 0; i < k; ++i) {
        float w = mesh.influence_weights[v * k + i];
        if (!finite(w) || w < 0) return where + ": vertex " + std::to_string(v) + " has an invalid weight";
        if (mesh.influence_joints[v * k + i] >= mesh.joint_remap.size())
          return where + ": vertex " + std::to_string(v) + " uses a joint slot out of range";
        sum += w;
      }
      if (std::fabs(sum - 1.f) > 1e-4f)
        return where + ": vertex " + std::to_string(v) + " weights do not sum to 1";
    }
    if (mesh.morph_default_weights.size() != mesh.morph_targets.size())
      return where + ": morph default weights and targets differ in count";
    if (!all_finite(mesh.morph_default_weights))
      return where + ": a morph default weight is not finite or past +-1e7";
    for (const RawMorphTarget& t : mesh.morph_targets) {
      const std::string tw = where + ", morph target '" + t.name + "'";
      if (t.position_deltas.size() != t.vertices.size() ||
          (!t.normal_deltas.empty() && t.normal_deltas.size() != t.vertices.size()) ||
          (!t.tangent_deltas.empty() && t.tangent_deltas.size() != t.vertices.size()))
        return tw + ": deltas and vertices differ in count";
      if (!t.tangent_deltas.empty() && mesh.tangents.empty()) return tw + ": tangent deltas without tangents";
      for (size_t i = 0; i < t.vertices.size(); ++i)
        if (t.vertices[i] >= n || (i > 0 && t.vertices[i] <= t.vertices[i - 1]))
          return tw + ": vertex indices out of range or not ascending";
      if (!all_finite(t.position_deltas) || !all_finite(t.normal_deltas) || !all_finite(t.tangent_deltas))
        return tw + ": a delta is not finite or past +-1e7";
    }
    if (mesh.node_joint >= static_cast<int>(joints.size())) return where + ": node joint out of range";
    if (mesh.material >= static_cast<int>(scene.materials.size())) return where + ": material out of range";
  }
  for (const RawClip& clip : scene.clips) {
    const std::string where = "clip '" + clip.name + "'";
    if (!finite(clip.duration) || clip.duration < 0) return where + ": invalid duration";
    for (const RawTrack& t : clip.tracks) {
      if (t.joint < 0 || t.joint >= static_cast<int>(joints.size()))
        return where + ": track joint out of range";
      const std::string tw = where + ", joint '" + joints[t.joint].name + "'";
      if (t.translation_times.size() != t.translations.size() ||
          t.rotation_times.size() != t.rotations.size() || t.scale_times.size() != t.scales.size())
        return tw + ": key times and values differ in count";
      for (const auto* times : {&t.translation_times, &t.rotation_times, &t.scale_times}) {
        if (!all_finite(*times)) return tw + ": key time is not finite or past +-1e7";
        if (!std::is_sorted(times->begin(), times->end())) return tw + ": key times are not ascending";
      }
      if (!all_finite(t.translations) || !all_finite(t.rotations) || !all_finite(t.scales))
        return tw + ": key value is not finite or past +-1e7";
    }
  }
  for (const RawClip& clip : scene.clips) {
    for (const RawMorphTrack& t : clip.morph_tracks) {
      const std::string where = "clip '" + clip.name + "'";
      if (t.mesh < 0 || t.mesh >= static_cast<int>(scene.meshes.size()))
        return where + ": morph weight track mesh out of range";
      const size_t targets = scene.meshes[t.mesh].morph_targets.size();
      const std::string tw = where + ", morph weights of mesh '" + scene.meshes[t.mesh].name + "'";
      if (targets == 0 || t.weights.size() != t.times.size() * targets)
        return tw + ": weights do not match the key times and the mesh's targets";
      if (!all_finite(t.times) || !all_finite(t.weights)) return tw + ": a key is not finite or past +-1e7";
      if (!std::is_sorted(t.times.begin(), t.times.end())) return tw + ": key times are not ascending";
    }
  }
  for (const Material& m : scene.materials) {
    for (int tex : {m.diffuse_texture, m.normal_texture, m.specular_texture})
      if (tex >= static_cast<int>(scene.textures.size()))
        return "material '" + m.name + "': texture out of range";
  }
  return {};
}

}  // namespace ossa
