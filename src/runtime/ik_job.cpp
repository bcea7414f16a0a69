#include "ossa/runtime/ik_job.h"

#include <algorithm>
#include <cmath>

namespace ossa {
namespace {
bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// The rotation part of a model matrix (columns normalised: scale removed).
Quat rotation_of(const Mat4& m) {
  return decompose(m).rotation;
}

// The angle between two directions, accurate near 0 and pi too (acos of a dot product loses half the digits
// there: 4e-4 rad for a straight chain in float).
float angle_between(Vec3 a, Vec3 b) {
  return std::atan2(length(cross(a, b)), dot(a, b));
}

// The angle between sides p and q of a triangle whose third side is r (law of cosines), accurate for flat
// triangles: atan2 of 4 x area (Kahan's Heron formula) and p^2 + q^2 - r^2, where acos would lose half the
// digits.
float triangle_angle(float p, float q, float r) {
  float s[3] = {p, q, r};
  std::sort(s, s + 3);  // s[2] >= s[1] >= s[0]
  const float a = s[2], b = s[1], c = s[0];
  const float product = (a + (b + c)) * (c - (a - b)) * (c + (a - b)) * (a + (b - c));
  const float four_area = std::sqrt(std::max(product, 0.f));
  return std::atan2(four_area, p * p + q * q - r * r);
}

// The shortest rotation taking direction a onto direction b (both non-zero); about `fallback` when opposite.
Quat rotation_between(Vec3 a, Vec3 b, Vec3 fallback) {
  a = normalize(a), b = normalize(b);
  Vec3 axis = cross(a, b);
  const float angle = angle_between(a, b);
  if (length(axis) < 1e-7f) {
    if (dot(a, b) > 0) return {};
    axis = cross(a, fallback);
    if (length(axis) < 1e-7f) axis = cross(a, std::fabs(a.x) < 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0});
  }
  return quat_from_axis_angle(normalize(axis), angle);
}

// A model-space rotation q about a joint whose model rotation is r, as a correction of its local rotation.
Quat local_correction(Quat r, Quat q) {
  return normalize(conjugate(r) * q * r);
}
}  // namespace

bool TwoBoneIkJob::validate() const {
  if (!start_joint || !mid_joint || !end_joint || !start_correction || !mid_correction) return false;
  if (!is_finite(*start_joint) || !is_finite(*mid_joint) || !is_finite(*end_joint)) return false;
  if (!finite(target) || !finite(pole_vector) || !finite(mid_axis)) return false;
  return std::isfinite(weight) && std::isfinite(twist_angle) && std::isfinite(soften) && soften > 0 &&
         soften <= 1 && length(mid_axis) > 1e-12f;
}

bool TwoBoneIkJob::run() const {
  if (!validate()) return false;
  *start_correction = {};
  *mid_correction = {};
  if (reached) *reached = false;
  const Vec3 a = start_joint->translation(), b = mid_joint->translation(), c = end_joint->translation();
  const float upper = length(b - a), lower = length(c - b), chain = upper + lower;
  const float w = std::clamp(weight, 0.f, 1.f);
  if (upper < 1e-12f || lower < 1e-12f || w == 0) return true;  // nothing to bend: no correction

  // The distance to reach, within what the chain spans, eased after `soften` of the full reach.
  Vec3 to_target = target - a;
  float distance = length(to_target);
  if (distance < 1e-12f) to_target = c - a, distance = 0;  // a target at the start: keep the current line
  if (length(to_target) < 1e-12f) return true;
  const float shortest = std::fabs(upper - lower), soft_start = soften * chain;
  float reach = distance;
  if (soften < 1 && reach > soft_start) {
    const float range = chain - soft_start;
    reach = soft_start + range * (1 - std::exp(-(reach - soft_start) / range));
  }
  reach = std::clamp(reach, shortest, chain);

  // 1. The mid joint about its hinge: from the current interior angle to the one that spans `reach`.
  const Quat mid_rotation = rotation_of(*mid_joint);
  const Vec3 hinge = normalize(rotate(mid_rotation, normalize(mid_axis)));
  const Vec3 to_start = a - b, to_end = c - b;
  const float current = angle_between(to_start, to_end);
  // Out of reach: exactly straight (a triangle this flat would turn a rounding of its sides into 1e-4 rad).
  const float wanted = reach >= chain ? 3.14159265358979f : triangle_angle(upper, lower, reach);
  // Turning the end side about the hinge opens the angle when the hinge follows to_start x to_end.
  const float side = dot(cross(to_start, to_end), hinge) >= 0 ? 1.f : -1.f;
  const Quat mid_turn = quat_from_axis_angle(hinge, (wanted - current) * side);
  const Vec3 end_bent = b + rotate(mid_turn, to_end);

  // 2. The start joint: the chain's end onto the target line, then the mid joint towards the pole, plus
  // twist.
  const Vec3 axis = normalize(to_target);
  const Quat aim = rotation_between(end_bent - a, axis, pole_vector);
  Quat swing = aim;
  const Vec3 mid_now = rotate(aim, b - a);
  const Vec3 mid_off_axis = mid_now - axis * dot(mid_now, axis);
  const Vec3 pole_off_axis = pole_vector - axis * dot(pole_vector, axis);
  if (length(mid_off_axis) > 1e-7f * chain && length(pole_off_axis) > 1e-7f) {
    const Vec3 m = normalize(mid_off_axis), p = normalize(pole_off_axis);
    const float angle = std::atan2(dot(cross(m, p), axis), std::clamp(dot(m, p), -1.f, 1.f));
    swing = quat_from_axis_angle(axis, angle) * swing;
  }
  if (twist_angle != 0) swing = quat_from_axis_angle(axis, twist_angle) * swing;

  // Model-space turns as local corrections (the mid joint's after the start joint's turn), then weighted.
  const Quat start_rotation = rotation_of(*start_joint);
  Quat start_fix = local_correction(start_rotation, swing);
  Quat mid_fix = local_correction(mid_rotation, mid_turn);
  if (w < 1) {
    start_fix = slerp(Quat{}, start_fix, w);
    mid_fix = slerp(Quat{}, mid_fix, w);
  }
  *start_correction = normalize(start_fix);
  *mid_correction = normalize(mid_fix);
  if (reached) {
    const Vec3 end_final = a + rotate(swing, end_bent - a);
    *reached = w == 1 && length(end_final - target) <= 1e-5f * chain;
  }
  return true;
}

bool AimIkJob::validate() const {
  if (!joint || !joint_correction || !is_finite(*joint)) return false;
  if (!finite(target) || !finite(forward) || !finite(up) || !finite(offset) || !finite(pole_vector))
    return false;
  return std::isfinite(weight) && std::isfinite(twist_angle) && length(forward) > 1e-12f &&
         length(up) > 1e-12f;
}

bool AimIkJob::run() const {
  if (!validate()) return false;
  *joint_correction = {};
  if (reached) *reached = false;
  const float w = std::clamp(weight, 0.f, 1.f);
  if (w == 0) return true;

  // Work in the joint's rotated frame (model = T * R * S): the correction turns S-scaled local vectors.
  const Transform frame = decompose(*joint);
  const Quat to_frame = conjugate(frame.rotation);
  const Vec3 t = rotate(to_frame, target - frame.translation);
  const Vec3 pole = rotate(to_frame, pole_vector);
  const Vec3 o = offset * frame.scale, u = up * frame.scale, f_scaled = forward * frame.scale;
  if (!finite(t) || !finite(pole) || !finite(o) || !finite(u) || !finite(f_scaled)) return true;  // overflow
  const float distance = length(t);
  if (!(distance >= 1e-12f) || !(length(f_scaled) >= 1e-12f)) return true;
  const Vec3 f = normalize(f_scaled);

  // The forward line through o crosses the sphere of radius |t| (about the joint) at o + f * ahead; turning
  // that point onto t puts the target on the ray. None in front of o: the target is inside the offset sphere.
  const float along = dot(o, f);
  const Vec3 o_off_line = o - f * along;
  const float off_line2 = dot(o_off_line, o_off_line), distance2 = distance * distance;
  if (!(off_line2 < distance2)) return true;
  const float ahead = std::sqrt(distance2 - off_line2) - along;
  if (!(ahead > 1e-6f * distance)) return true;
  const Vec3 crossing = o + f * ahead;
  Quat turn = rotation_between(crossing, t, u);

  // About the joint-target axis (keeps the aim): up into the plane of that axis and the pole, then twist.
  const Vec3 axis = t * (1 / distance);
  const Vec3 up_now = rotate(turn, u);
  const Vec3 up_off_axis = up_now - axis * dot(up_now, axis);
  const Vec3 pole_off_axis = pole - axis * dot(pole, axis);
  if (length(up_off_axis) > 1e-6f * length(up_now) && length(pole_off_axis) > 1e-6f * length(pole)) {
    const Vec3 a = normalize(up_off_axis), b = normalize(pole_off_axis);
    turn = quat_from_axis_angle(axis, std::atan2(dot(cross(a, b), axis), dot(a, b))) * turn;
  }
  if (twist_angle != 0) turn = quat_from_axis_angle(axis, twist_angle) * turn;

  // In this frame the model-space turn is already the local correction (it applies between R and S).
  *joint_correction = normalize(w < 1 ? slerp(Quat{}, turn, w) : turn);
  if (reached) *reached = w == 1;
  return true;
}

}  // namespace ossa
