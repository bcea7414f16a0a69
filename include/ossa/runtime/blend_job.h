// ossa/runtime/blend_job.h — several local poses -> one: weighted layers, per-joint masks, additive layers.
//
// Per joint j, each layer contributes with weight w = layer.weight * (joint_weights.empty() ? 1 :
// joint_weights[j]). Normal layers are averaged: translation and scale linearly, rotations by normalised sum
// after aligning each to the first one's hemisphere (nlerp generalised to n poses). Where their total weight
// is below 1 the rest pose fills the remainder, so fading a lone layer out returns to the rest pose. Additive
// layers (deltas from make_additive_clip) then apply on top: translation += w * dt, rotation = rotation *
// nlerp(identity, dr, w), scale *= 1 + w * (ds - 1). No allocation, no exceptions.
#pragma once

#include <span>

#include "ossa/runtime/pose.h"

namespace ossa {

struct BlendLayer {
  std::span<const JointPose> pose;
  float weight = 1;
  std::span<const float> joint_weights;  // optional per-joint mask, 0-1
};

struct BlendJob {
  std::span<const BlendLayer> layers;
  std::span<const BlendLayer> additive_layers;
  std::span<const JointPose> rest_pose;
  std::span<JointPose> output;

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
