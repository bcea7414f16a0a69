// ossa/asset/skeleton.h — the immutable runtime skeleton, shared by every character that uses it.
//
// Built once from an imported RawSkeleton; read-only afterwards, so any number of threads may read it.
// Joints are ordered parents first (parents()[j] < j, -1 for roots) and every sub-tree is contiguous,
// which LocalToModelJob relies on. Names are kept for tools; per-frame code never looks them up.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/joint_pose.h"
#include "ossa/asset/raw.h"
#include "ossa/core/result.h"

namespace ossa {

class Skeleton {
 public:
  static Result<Skeleton> build(const RawSkeleton& raw);

  int joint_count() const { return static_cast<int>(parents_.size()); }
  std::span<const int> parents() const { return parents_; }
  std::span<const JointPose> rest_pose() const { return rest_; }
  std::span<const Mat4> inverse_binds() const { return inverse_binds_; }  // per joint, model -> joint space
  const std::string& name(int joint) const { return names_[joint]; }
  int find_joint(std::string_view name) const;  // -1 when absent; linear: for tools, not per frame
  // One past the last joint of the sub-tree rooted at `joint` (sub-trees are contiguous).
  int subtree_end(int joint) const;

 private:
  std::vector<int> parents_;
  std::vector<JointPose> rest_;
  std::vector<Mat4> inverse_binds_;
  std::vector<std::string> names_;
};

}  // namespace ossa
