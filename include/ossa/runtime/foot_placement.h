// ossa/runtime/foot_placement.h — feet planted on the game's ground: the pelvis lowered so both feet stay
// reachable, two-bone IK on each leg, the toes turned onto the slope with an aim.
//
// (ground_for_job: your height function, `float(const void* context, float x, float z)`, world y under
// (x, z); legs: thigh, calf, foot and toe joints per leg)
// snippet: examples/foot_placement.cpp foot_placement_job
//   ossa::FootPlacementJob feet;
//   feet.skeleton = &skeleton, feet.locals = locals, feet.model = model, feet.pelvis = pelvis;
//   feet.legs = legs, feet.ground = {ground_for_job, nullptr}, feet.forward = forward;
//   bool reached[2];
//   float drop[1] = {0};  // how far the pelvis went down
//   feet.reached = reached, feet.pelvis_drop = drop;
// then each frame, after LocalToModelJob: feet.run().
//
// Each animated foot is moved onto the ground under it, keeping its height above the floor it was authored
// on (the floor is the height of `root`, where the character stands): a planted foot stays at ankle height
// above the ground, a lifted one as far above it as in the clip. The pelvis goes down by how far the lowest
// target lies under its foot (at most max_drop), then each leg is solved with TwoBoneIkJob (hinge: the leg
// plane's normal, or thigh x forward when the leg is straight; pole: forward) and each toe with AimIkJob
// (heel to toe towards the toe's target, the foot's up towards the ground's normal, taken from the height
// function by central differences over 1 cm). The corrections go into `locals` and the affected subtrees of
// `model` are updated (partial LocalToModelJob), so `model` stays exactly what LocalToModelJob gives for the
// new locals. Legs are direct chains: parent(calf) = thigh, parent(foot) = calf, parent(toe) = foot, and the
// pelvis (if any) is an ancestor of every thigh. validate() is false for anything else, for spans of the
// wrong size, more than kMaxLegs legs, a missing height function, a non-finite or vertical `forward`, or
// max_drop/weight out of range. run() does not allocate.
#pragma once

#include <span>

#include "ossa/asset/skeleton.h"
#include "ossa/core/math.h"
#include "ossa/runtime/pose.h"

namespace ossa {

struct LegJoints {
  int thigh = -1, calf = -1, foot = -1;
  int toe = -1;  // -1: the foot is not aimed
};

// The game's ground: world height under (x, z). Plain function + context so that a call never allocates.
struct GroundFunction {
  float (*height)(const void* context, float x, float z) = nullptr;
  const void* context = nullptr;
  float operator()(float x, float z) const { return height(context, x, z); }
};

struct FootPlacementJob {
  static constexpr int kMaxLegs = 8;

  const Skeleton* skeleton = nullptr;
  std::span<JointPose> locals;  // in: the animated pose; out: with the corrections
  std::span<Mat4> model;        // in: LocalToModelJob of locals under *root; out: updated
  const Mat4* root = nullptr;   // where the character stands (as given to LocalToModelJob); null: identity
  int pelvis = -1;              // lowered to keep the feet reachable; -1: never moved
  std::span<const LegJoints> legs;
  GroundFunction ground;
  Vec3 forward{0, 0, 1};   // world space: the knees bend towards it (heel to toe, level)
  float max_drop = 0.25f;  // model units: how far the pelvis may go down
  float weight = 1;        // 0: the animated pose; 1: planted; between: the IK corrections slerped

  std::span<Vec3> targets;       // optional output, one per leg: where its foot was sent
  std::span<bool> reached;       // optional output, one per leg: the foot is on its target
  float* pelvis_drop = nullptr;  // optional output: how far the pelvis went (<= 0, model units)

  bool validate() const;
  bool run() const;
};

}  // namespace ossa
