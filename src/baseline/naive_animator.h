// baseline/naive_animator.h — the per-frame update as a typical tutorial writes it, kept only to be
// measured.
//
// Every frame it rebuilds a std::map from channel name to keys, walks the hierarchy with a recursive
// std::function, searches keys linearly, looks bones up by name and composes matrices one by one. It gives
// the same poses as the runtime jobs (it is tested to), but allocates and hashes strings per joint per frame:
// `ossa bench` reports it as `naive_update_ns` to show what the job design buys. Do not use it in a game.
#pragma once

#include <string>
#include <vector>

#include "ossa/import/imported_scene.h"

namespace ossa::baseline {

class NaiveAnimator {
 public:
  NaiveAnimator(const ImportedScene& scene, int clip);
  void update(float time);  // writes final_matrices(): model * inverse bind, per joint
  const std::vector<Mat4>& final_matrices() const { return final_; }

 private:
  struct Node {
    std::string name;
    Transform rest;
    std::vector<int> children;
  };
  std::vector<Node> nodes_;
  std::vector<int> roots_;
  std::vector<std::string> track_names_;
  const RawClip* clip_ = nullptr;
  std::vector<std::pair<std::string, Mat4>> bone_offsets_;  // name -> inverse bind, as tutorials keep it
  std::vector<Mat4> final_;
};

}  // namespace ossa::baseline
