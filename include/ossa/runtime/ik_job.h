// ossa/runtime/ik_job.h — two-bone inverse kinematics (arms, legs), in the job style.
//
//   TwoBoneIkJob ik;                        // model-space input, local corrections out
//   ik.start_joint = &model[shoulder]; ik.mid_joint = &model[elbow]; ik.end_joint = &model[hand];
//   ik.target = grip; ik.pole_vector = {0, 0, -1};  ik.mid_axis = {0, 0, 1};   // the elbow's hinge, local
//   Quat fix[2];
//   ik.start_correction = fix; ik.mid_correction = fix + 1;
//   if (ik.run()) { multiply locals[shoulder].rotation by fix[0], locals[elbow].rotation by fix[1], then
//                   LocalToModelJob{..., from = shoulder}.run() updates the arm's sub-tree }
//
// The mid joint turns about its hinge (mid_axis, in its own frame) until start-end spans the distance to the
// target (law of cosines); then the start joint turns the chain onto the target, and about the start-target
// axis so that the mid joint lies towards pole_vector (model space), plus twist_angle. Unreachable targets
// give the straight chain pointing at them; `soften` (< 1) eases the last part of the reach so the chain does
// not snap straight. Corrections are local: local_rotation = local_rotation * correction. Degenerate input
// (zero-length bones, a target at the start joint, the pole along the start-target axis) gives the identity
// corrections or keeps the current plane, never NaN; validate() refuses null pointers and non-finite input.
#pragma once

#include "ossa/core/math.h"

namespace ossa {

struct TwoBoneIkJob {
  const Mat4* start_joint = nullptr;  // model-space matrices of the chain (rotation and translation used)
  const Mat4* mid_joint = nullptr;
  const Mat4* end_joint = nullptr;
  Vec3 target;                // model space
  Vec3 pole_vector{0, 1, 0};  // model space: the side the mid joint bends towards
  Vec3 mid_axis{0, 0, 1};     // the mid joint's hinge axis, in the mid joint's frame
  float weight = 1;           // 0: no change, 1: the full correction (slerped between)
  float soften = 1;           // in (0, 1]: the reach fraction after which the approach eases (1: none)
  float twist_angle = 0;      // radians about the start-target axis

  Quat* start_correction = nullptr;  // outputs
  Quat* mid_correction = nullptr;
  bool* reached = nullptr;  // optional: the end joint ends on the target (within 1e-5 of the chain length)

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
