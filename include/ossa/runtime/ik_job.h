// ossa/runtime/ik_job.h — two-bone (arms, legs) and aim (heads, eyes) inverse kinematics, in the job style.
//
// snippet: examples/building_blocks.cpp two_bone_ik
//   const int elbow = skeleton.parents()[hand], shoulder = skeleton.parents()[elbow];
//   ossa::Quat fix[2];  // local rotation corrections of the shoulder and the elbow
//   const ossa::TwoBoneIkJob ik{.start_joint = &model[shoulder],
//                               .mid_joint = &model[elbow],
//                               .end_joint = &model[hand],
//                               .target = grip,             // model space
//                               .pole_vector = {0, 0, -1},  // the elbow bends towards it
//                               .mid_axis = {0, 0, 1},      // the elbow's hinge, in its own frame
//                               .start_correction = &fix[0],
//                               .mid_correction = &fix[1]};
//   if (!ik.run()) return 1;
//   apply(locals[shoulder], fix[0]);
//   apply(locals[elbow], fix[1]);
//   if (!ossa::LocalToModelJob{
//           .skeleton = &skeleton, .input = locals, .output = model, .root = &world, .from = shoulder}
//            .run())
//     return 1;  // the arm's sub-tree, updated
//
// The mid joint turns about its hinge (mid_axis, in its own frame) until start-end spans the distance to the
// target (law of cosines); then the start joint turns the chain onto the target, and about the start-target
// axis so that the mid joint lies towards pole_vector (model space), plus twist_angle. Unreachable targets
// give the straight chain pointing at them; `soften` (< 1) eases the last part of the reach so the chain does
// not snap straight. Corrections are local: local_rotation = local_rotation * correction. Degenerate input
// (zero-length bones, a target at the start joint, the pole along the start-target axis) gives the identity
// corrections or keeps the current plane, never NaN; validate() refuses null pointers and non-finite input.
//
// snippet: examples/building_blocks.cpp aim_ik
//   ossa::Quat turn;
//   const ossa::AimIkJob aim{.joint = &model[head],
//                            .target = look_at,           // model space
//                            .forward = {0, 0, 1},        // the axis that aims, in the joint's frame
//                            .up = {0, 1, 0},             // turned towards pole_vector about the aim
//                            .offset = {0, 0.07f, 0.1f},  // the eyes: the aim ray starts here
//                            .pole_vector = {0, 1, 0},    // model space
//                            .joint_correction = &turn};
//   if (!aim.run()) return 1;
//   apply(locals[head], turn);
//   if (!ossa::LocalToModelJob{
//           .skeleton = &skeleton, .input = locals, .output = model, .root = &world, .from = head}
//            .run())
//     return 1;
//
// The joint turns so that the ray from `offset` along `forward` (both in its frame) passes through the
// target: the forward line is rotated about the joint until it crosses the sphere through the target, and
// that crossing onto the target. Then it turns about the joint-target axis (the aim axis itself when offset
// is zero), the only turn that keeps the aim, until `up` lies in the plane of that axis and pole_vector, on
// the pole's side; plus twist_angle about the same axis. The joint's scale (from its model matrix) applies to
// offset and the axes (exact when the scale above the joint is uniform). A target at the joint or inside the
// offset sphere (no ray from the offset along forward can reach it) gives the identity and reached = false;
// up or pole along the aim axis keeps the current roll. Never NaN; validate() refuses null pointers, zero
// axes and non-finite input.
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

struct AimIkJob {
  const Mat4* joint = nullptr;  // the joint's model-space matrix
  Vec3 target;                  // model space
  Vec3 forward{0, 0, 1};        // the axis that aims, in the joint's frame (any length but zero)
  Vec3 up{0, 1, 0};             // in the joint's frame: turned towards pole_vector about the aim axis
  Vec3 offset;                  // in the joint's frame: where the aim ray starts (0: the joint itself)
  Vec3 pole_vector{0, 1, 0};    // model space
  float twist_angle = 0;        // radians about the joint-target axis
  float weight = 1;             // 0: no change, 1: the full correction (slerped between)

  Quat* joint_correction = nullptr;  // output: local_rotation = local_rotation * correction
  bool* reached = nullptr;           // optional: the ray can pass through the target and weight is 1

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
