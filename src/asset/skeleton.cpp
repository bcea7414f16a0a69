#include "ossa/asset/skeleton.h"

#include "ossa/asset/value_ranges.h"

namespace ossa {
namespace {
// "" when the joint's rest translation, scale and inverse bind lie within value_ranges.h.
std::string check_joint(const RawJoint& joint) {
  using namespace value_ranges;
  const Transform& t = joint.rest;
  for (float v : {t.translation.x, t.translation.y, t.translation.z})
    if (!within(v, kMaxCoordinate)) return "rest translation outside +-1e7";
  for (float v : {t.scale.x, t.scale.y, t.scale.z})
    if (!within(v, kMaxScale)) return "rest scale outside +-1e4";
  for (float v : joint.inverse_bind.m)
    if (!within(v, kMaxCoordinate)) return "inverse bind matrix entry outside +-1e7";
  return {};
}
}  // namespace

Result<Skeleton> Skeleton::build(const RawSkeleton& raw) {
  Skeleton s;
  const size_t n = raw.joints.size();
  if (n == 0) return Result<Skeleton>::failure("skeleton has no joints");
  if (n > 65535) return Result<Skeleton>::failure("skeleton has more than 65535 joints");
  s.parents_.reserve(n);
  s.rest_.reserve(n);
  s.inverse_binds_.reserve(n);
  s.names_.reserve(n);
  // Joints must be in depth-first pre-order (every sub-tree contiguous): a joint's parent is on the path from
  // the root to the previous joint.
  std::vector<int> path;
  for (size_t j = 0; j < n; ++j) {
    const RawJoint& joint = raw.joints[j];
    while (!path.empty() && path.back() != joint.parent) path.pop_back();
    if (joint.parent >= 0 && path.empty())
      return Result<Skeleton>::failure("joint '" + joint.name + "': joints are not in depth-first order");
    path.push_back(static_cast<int>(j));
    if (std::string e = check_joint(joint); !e.empty())
      return Result<Skeleton>::failure("joint '" + joint.name + "': " + e);
    s.parents_.push_back(joint.parent);
    s.rest_.push_back(to_joint_pose(joint.rest));
    if (!value_ranges::normalize_rotation(s.rest_.back().rotation))
      return Result<Skeleton>::failure("joint '" + joint.name + "': rest rotation is not a rotation");
    flush_denormals(s.rest_.back());
    s.inverse_binds_.push_back(joint.inverse_bind);
    flush_denormals(s.inverse_binds_.back());
    s.names_.push_back(joint.name);
  }
  return s;
}

int RawSkeleton::find_joint(std::string_view name) const {
  for (size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == name) return static_cast<int>(i);
  return -1;
}

int Skeleton::find_joint(std::string_view name) const {
  for (size_t j = 0; j < names_.size(); ++j)
    if (names_[j] == name) return static_cast<int>(j);
  return -1;
}

int Skeleton::subtree_end(int joint) const {
  int end = joint + 1;
  while (end < joint_count() && parents_[end] >= joint) ++end;
  return end;
}

}  // namespace ossa
