#include "baseline/naive_animator.h"

#include <functional>
#include <map>

namespace ossa::baseline {

NaiveAnimator::NaiveAnimator(const ImportedScene& scene, int clip) : clip_(&scene.clips.at(clip)) {
  const auto& joints = scene.skeleton.joints;
  nodes_.resize(joints.size());
  for (size_t j = 0; j < joints.size(); ++j) {
    nodes_[j].name = joints[j].name;
    nodes_[j].rest = joints[j].rest;
    if (joints[j].parent >= 0)
      nodes_[joints[j].parent].children.push_back(static_cast<int>(j));
    else
      roots_.push_back(static_cast<int>(j));
    bone_offsets_.emplace_back(joints[j].name, joints[j].inverse_bind);
  }
  for (const RawTrack& t : clip_->tracks) track_names_.push_back(joints[t.joint].name);
  final_.resize(joints.size());
}

void NaiveAnimator::update(float time) {
  // The channel map, rebuilt every frame from names.
  std::map<std::string, const RawTrack*> channels;
  for (size_t i = 0; i < clip_->tracks.size(); ++i) channels[track_names_[i]] = &clip_->tracks[i];

  auto interpolate_vec3 = [](const std::vector<float>& times, const std::vector<Vec3>& values, float t,
                             Vec3 dflt) {
    if (values.empty()) return dflt;
    if (values.size() == 1 || t <= times.front()) return values.front();
    for (size_t k = 0; k + 1 < times.size(); ++k)  // linear search from the start
      if (t < times[k + 1]) return lerp(values[k], values[k + 1], (t - times[k]) / (times[k + 1] - times[k]));
    return values.back();
  };
  auto interpolate_quat = [](const std::vector<float>& times, const std::vector<Quat>& values, float t,
                             Quat dflt) {
    if (values.empty()) return dflt;
    if (values.size() == 1 || t <= times.front()) return values.front();
    for (size_t k = 0; k + 1 < times.size(); ++k)
      if (t < times[k + 1])
        return slerp(values[k], values[k + 1], (t - times[k]) / (times[k + 1] - times[k]));
    return values.back();
  };

  std::function<void(int, const Mat4&)> walk = [&](int node, const Mat4& parent) {
    const Node& n = nodes_[node];
    Mat4 local = n.rest.to_matrix();
    auto it = channels.find(n.name);
    if (it != channels.end()) {
      const RawTrack* tr = it->second;
      Mat4 t = translation_matrix(
          interpolate_vec3(tr->translation_times, tr->translations, time, n.rest.translation));
      Mat4 r = rotation_matrix(interpolate_quat(tr->rotation_times, tr->rotations, time, n.rest.rotation));
      Mat4 s = scale_matrix(interpolate_vec3(tr->scale_times, tr->scales, time, n.rest.scale));
      local = t * r * s;
    }
    Mat4 global = parent * local;
    for (size_t b = 0; b < bone_offsets_.size(); ++b)  // bone lookup by name
      if (bone_offsets_[b].first == n.name) final_[b] = global * bone_offsets_[b].second;
    for (int child : n.children) walk(child, global);
  };
  for (int root : roots_) walk(root, Mat4{});
}

}  // namespace ossa::baseline
