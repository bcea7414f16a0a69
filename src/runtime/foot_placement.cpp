#include "ossa/runtime/foot_placement.h"

#include <algorithm>
#include <cmath>

#include "ossa/runtime/ik_job.h"
#include "ossa/runtime/local_to_model_job.h"

namespace ossa {
namespace {

bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// True when `ancestor` is `joint` or above it.
bool is_ancestor(std::span<const int> parents, int ancestor, int joint) {
  for (int j = joint; j >= 0; j = parents[j])
    if (j == ancestor) return true;
  return false;
}

Quat rotation_of(const Mat4& m) {
  return decompose(m).rotation;
}

// local rotation <- local rotation * correction (the IK jobs' convention).
void apply(JointPose& pose, Quat correction) {
  float* r = pose.rotation;
  const Quat out = normalize(Quat{r[0], r[1], r[2], r[3]} * correction);
  r[0] = out.x, r[1] = out.y, r[2] = out.z, r[3] = out.w;
}

}  // namespace

bool FootPlacementJob::validate() const {
  if (!skeleton || !ground.height) return false;
  const int n = skeleton->joint_count();
  if (static_cast<int>(locals.size()) != n || static_cast<int>(model.size()) != n) return false;
  if (legs.empty() || legs.size() > static_cast<size_t>(kMaxLegs)) return false;
  if ((!targets.empty() && targets.size() != legs.size()) ||
      (!reached.empty() && reached.size() != legs.size()))
    return false;
  if (!finite(forward) || std::hypot(forward.x, forward.z) < 1e-6f) return false;
  if (!(max_drop >= 0) || !std::isfinite(max_drop) || !(weight >= 0 && weight <= 1)) return false;
  if (pelvis < -1 || pelvis >= n) return false;
  const std::span<const int> parents = skeleton->parents();
  auto in_range = [n](int j) { return j >= 0 && j < n; };
  for (const LegJoints& leg : legs) {
    if (!in_range(leg.thigh) || !in_range(leg.calf) || !in_range(leg.foot)) return false;
    if (parents[leg.calf] != leg.thigh || parents[leg.foot] != leg.calf) return false;
    if (leg.toe != -1 && (!in_range(leg.toe) || parents[leg.toe] != leg.foot)) return false;
    if (pelvis >= 0 && (pelvis == leg.thigh || !is_ancestor(parents, pelvis, leg.thigh))) return false;
  }
  return true;
}

bool FootPlacementJob::run() const {
  if (!validate()) return false;
  const Mat4 identity;
  const Mat4& world = root ? *root : identity;
  const float floor = world.m[13];
  const std::span<const int> parents = skeleton->parents();
  const size_t leg_count = legs.size();

  // Targets: each foot (and toe) over the ground under it, as high above it as the clip has it above its
  // floor.
  Vec3 foot_target[kMaxLegs], toe_target[kMaxLegs];
  float drop = 0;
  for (size_t i = 0; i < leg_count; ++i) {
    const Vec3 foot = model[legs[i].foot].translation();
    foot_target[i] = {foot.x, ground(foot.x, foot.z) + foot.y - floor, foot.z};
    if (legs[i].toe >= 0) {
      const Vec3 toe = model[legs[i].toe].translation();
      toe_target[i] = {toe.x, ground(toe.x, toe.z) + toe.y - floor, toe.z};
    }
    drop = std::min(drop, foot_target[i].y - foot.y);
  }
  drop = std::isfinite(drop) ? std::max(drop, -max_drop) * weight : 0;
  if (pelvis_drop) *pelvis_drop = pelvis >= 0 ? drop : 0;

  // The pelvis down by `drop` (a world offset, into its parent's frame), then its subtree updated.
  if (pelvis >= 0 && drop < 0) {
    const Mat4& parent = parents[pelvis] >= 0 ? model[parents[pelvis]] : world;
    Mat4 parent_inverse;  // a direction: the linear part's inverse is enough
    invert_linear(parent, parent_inverse);
    const Vec3 down = transform_vector(parent_inverse, {0, drop, 0});
    for (int a = 0; a < 3; ++a) locals[pelvis].translation[a] += (&down.x)[a];
    LocalToModelJob{skeleton, locals, model, root, pelvis}.run();
  }

  const Vec3 level_forward = normalize(Vec3{forward.x, 0, forward.z});
  for (size_t i = 0; i < leg_count; ++i) {
    const LegJoints& leg = legs[i];
    const Vec3 hip = model[leg.thigh].translation(), knee = model[leg.calf].translation();
    Vec3 hinge = cross(knee - hip, model[leg.foot].translation() - knee);
    if (length(hinge) < 1e-6f * std::max(length(knee - hip), 1e-12f))
      hinge = cross(knee - hip, level_forward);
    Quat fix[2];
    bool leg_reached = false;
    TwoBoneIkJob ik;
    ik.start_joint = &model[leg.thigh], ik.mid_joint = &model[leg.calf], ik.end_joint = &model[leg.foot];
    ik.target = foot_target[i];
    ik.pole_vector = level_forward;
    ik.mid_axis = rotate(conjugate(rotation_of(model[leg.calf])), hinge);
    ik.weight = weight;
    ik.start_correction = fix, ik.mid_correction = fix + 1, ik.reached = &leg_reached;
    if (ik.run()) {  // refused only for a degenerate leg (zero-length bones): left as animated
      apply(locals[leg.thigh], fix[0]);
      apply(locals[leg.calf], fix[1]);
      LocalToModelJob{skeleton, locals, model, root, leg.thigh}.run();
    }
    if (!targets.empty()) targets[i] = foot_target[i];
    if (!reached.empty()) reached[i] = leg_reached;
    if (leg.toe < 0) continue;

    // The toe: heel to toe towards the toe's target, the foot's up towards the ground's normal.
    const Vec3 at = toe_target[i];
    const float h = 0.01f;
    const Vec3 normal = normalize(Vec3{ground(at.x - h, at.z) - ground(at.x + h, at.z), 2 * h,
                                       ground(at.x, at.z - h) - ground(at.x, at.z + h)});
    AimIkJob aim;
    aim.joint = &model[leg.foot];
    aim.target = at;
    const float* toe = locals[leg.toe].translation;  // the toe, in the foot's frame
    aim.forward = {toe[0], toe[1], toe[2]};
    aim.up = rotate(conjugate(rotation_of(model[leg.foot])), {0, 1, 0});  // world up, in the foot's frame
    aim.pole_vector = finite(normal) ? normal : Vec3{0, 1, 0};
    aim.weight = weight;
    aim.joint_correction = fix;
    if (aim.run()) {
      apply(locals[leg.foot], fix[0]);
      LocalToModelJob{skeleton, locals, model, root, leg.foot}.run();
    }
  }
  return true;
}

}  // namespace ossa
