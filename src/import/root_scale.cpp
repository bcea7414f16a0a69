#include "root_scale.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace ossa::detail {
namespace {

bool same(float a, float b) {
  return std::fabs(a - b) <= 1e-6f * std::max(std::fabs(a), std::fabs(b));
}

bool uniform(const Vec3& s, float k) {
  return same(s.x, k) && same(s.y, k) && same(s.z, k);
}

}  // namespace

int fold_root_scale(ImportedScene& scene) {
  std::vector<RawJoint>& joints = scene.skeleton.joints;
  // factor[j]: the folded scale above joint j (parents come before children).
  std::vector<float> factor(joints.size(), 1.f);
  std::vector<bool> folded_root(joints.size(), false);
  int folded = 0;
  for (size_t r = 0; r < joints.size(); ++r) {
    if (joints[r].parent >= 0) continue;
    const float k = joints[r].rest.scale.x;
    if (!(k > 0) || same(k, 1.f) || !uniform(joints[r].rest.scale, k)) continue;
    bool constant = true;
    for (const RawClip& clip : scene.clips)
      for (const RawTrack& track : clip.tracks)
        if (track.joint == static_cast<int>(r))
          for (const Vec3& s : track.scales) constant = constant && uniform(s, k);
    if (!constant) continue;
    folded_root[r] = true;
    ++folded;
    char line[160];
    std::snprintf(line, sizeof line, "; root '%s' scale %g folded into bone lengths", joints[r].name.c_str(),
                  static_cast<double>(k));
    scene.space.note += line;
  }
  if (folded == 0) return 0;

  for (size_t j = 0; j < joints.size(); ++j) {
    const int p = joints[j].parent;
    if (p < 0) {
      factor[j] = folded_root[j] ? joints[j].rest.scale.x : 1.f;
      if (folded_root[j]) joints[j].rest.scale = {1, 1, 1};
    } else {
      factor[j] = factor[p];
      joints[j].rest.translation = joints[j].rest.translation * factor[p];
    }
    if (factor[j] != 1.f)
      joints[j].inverse_bind = scale_matrix({factor[j], factor[j], factor[j]}) * joints[j].inverse_bind;
  }
  for (RawMesh& mesh : scene.meshes)
    for (size_t slot = 0; slot < mesh.joint_remap.size() && slot < mesh.inverse_binds.size(); ++slot) {
      const int j = mesh.joint_remap[slot];
      if (j < 0 || j >= static_cast<int>(joints.size()) || factor[j] == 1.f) continue;
      mesh.inverse_binds[slot] = scale_matrix({factor[j], factor[j], factor[j]}) * mesh.inverse_binds[slot];
    }
  for (RawClip& clip : scene.clips)
    for (RawTrack& track : clip.tracks) {
      if (track.joint < 0 || track.joint >= static_cast<int>(joints.size())) continue;
      const int p = joints[track.joint].parent;
      if (p < 0 && folded_root[track.joint])
        for (Vec3& s : track.scales) s = {1, 1, 1};
      else if (p >= 0 && factor[p] != 1.f)
        for (Vec3& t : track.translations) t = t * factor[p];
    }
  return folded;
}

}  // namespace ossa::detail
