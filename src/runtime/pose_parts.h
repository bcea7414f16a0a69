// Internal: a JointPose's parts as core math types (retargeting's job and its offline rig building).
#pragma once

#include "ossa/asset/joint_pose.h"

namespace ossa::detail {

inline Quat rotation_of(const JointPose& p) {
  return {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]};
}
inline Vec3 translation_of(const JointPose& p) {
  return {p.translation[0], p.translation[1], p.translation[2]};
}
inline Vec3 scale_of(const JointPose& p) {
  return {p.scale[0], p.scale[1], p.scale[2]};
}

}  // namespace ossa::detail
