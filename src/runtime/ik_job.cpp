#include "ossa/runtime/ik_job.h"

#include <algorithm>
#include <cmath>

#include "quat_inline.h"
#include "two_bone_solve.h"

namespace ossa {
using detail::conj;
using detail::mul;
using detail::rot;
using detail::unit;

namespace {
bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

// The rotation part of a model matrix (columns normalised: scale removed).
Quat rotation_of(const Mat4& m) {
  return decompose(m).rotation;
}

// The turn by theta about the unit axis n, from (c, s) = r (cos theta, sin theta) for any r > 0. Its
// quaternion is proportional to (r + c, s n) and to (s, (r - c) n) (the half-angle identities); each is used
// on the side where it does not cancel, so no angle is ever formed.
Quat turn_from_cos_sin(Vec3 n, float c, float s) {
  const float r = std::sqrt(c * c + s * s);
  if (!(r > 0)) return {};
  if (c >= 0) return unit({n.x * s, n.y * s, n.z * s, r + c});
  const float k = r - c;
  return unit({n.x * k, n.y * k, n.z * k, s});
}

// The shortest turn taking direction u onto the unit direction v: with a = u / |u|, proportional to
// (1 + a.v, a x v). Where that cancels (a.v < 0), a x v is short and gives the axis badly (its rounding tilts
// a half turn off a by up to 1e-7 / |a x v| rad), so the turn is made of a half turn about the axis made
// square to a, which takes a onto -a exactly, then the short turn from -a onto v about the same axis.
// Directions opposite within rounding turn half way round an axis across a, towards `fallback` where it has
// one.
Quat arc_between(Vec3 u, Vec3 v, Vec3 fallback) {
  const float u_length = length(u);
  if (!(u_length > 0)) return {};
  const Vec3 a = u * (1 / u_length), axis = cross(a, v);
  const float d = dot(a, v);
  if (d >= 0) return unit({axis.x, axis.y, axis.z, 1 + d});
  Vec3 across = axis - a * dot(axis, a);
  if (dot(across, across) < 1e-12f) {
    across = cross(a, fallback);
    if (length(across) < 1e-7f) across = cross(a, std::fabs(a.x) < 0.9f ? Vec3{1, 0, 0} : Vec3{0, 1, 0});
  }
  across = normalize(across);
  return mul(unit({-axis.x, -axis.y, -axis.z, 1 - d}), Quat{across.x, across.y, across.z, 0});
}
}  // namespace

namespace detail {

// In units of the chain's length (no square overflows, thresholds relative). The mid joint turns about its
// hinge by (wanted - current) interior angle, both known by cosine and sine (dot and cross of the bones; the
// law of cosines with Kahan's area for the wanted one, accurate for flat triangles); the start joint takes
// the bent end onto the target line (shortest arc), then turns about that line until the mid joint lies
// towards the pole, plus twist.
TwoBoneSolution solve_two_bone(const TwoBoneChain& chain, Vec3 target, Vec3 pole, Vec3 hinge, float weight,
                               float soften, float twist_angle) {
  TwoBoneSolution out{{}, {}, chain.end, false};
  const Vec3 a = chain.start;
  const float upper = length(chain.mid - a), lower = length(chain.end - chain.mid),
              chain_length = upper + lower;
  if (!(upper >= 1e-12f) || !(lower >= 1e-12f) || !(chain_length <= 3e38f) || !(weight > 0)) return out;
  const float k = 1 / chain_length;
  const Vec3 ab = (chain.mid - a) * k, bc = (chain.end - chain.mid) * k;
  const float p = upper * k, q = lower * k, full = p + q;  // full is 1 within rounding

  // The distance to reach, within what the chain spans, eased after `soften` of the full reach.
  Vec3 to_target = (target - a) * k;
  float distance = length(to_target);
  if (!(distance <= 3e38f)) return out;
  if (distance < 1e-12f) to_target = ab + bc, distance = 0;  // a target at the start: keep the current line
  if (length(to_target) < 1e-12f) return out;
  float reach = distance;
  if (soften < 1 && reach > soften * full) {
    const float soft_start = soften * full, range = full - soft_start;
    reach = soft_start + range * (1 - std::exp(-(reach - soft_start) / range));
  }
  reach = std::clamp(reach, std::fabs(p - q), full);

  // 1. The mid joint about its hinge. Out of reach: exactly straight (cos -1, sin 0; a triangle this flat
  // would turn a rounding of its sides into 1e-4 rad).
  const Vec3 to_start = ab * -1.f, normal = cross(to_start, bc);
  const float cos_now = dot(to_start, bc), sin_now = length(normal);  // times p q
  float cos_wanted = -1, sin_wanted = 0;                              // times 2 p q
  if (reach < full) {
    float s[3] = {p, q, reach};
    std::sort(s, s + 3);  // s[2] >= s[1] >= s[0]
    const float x = s[2], y = s[1], z = s[0];
    const float product = (x + (y + z)) * (z - (x - y)) * (z + (x - y)) * (x + (y - z));
    sin_wanted = std::sqrt(std::max(product, 0.f));  // 4 x area = 2 p q sin
    cos_wanted = p * p + q * q - reach * reach;
  }
  // Turning the end bone about the hinge opens the angle when the hinge follows to_start x to_end.
  const float side = dot(normal, hinge) >= 0 ? 1.f : -1.f;
  const Quat mid_turn = turn_from_cos_sin(hinge, cos_wanted * cos_now + sin_wanted * sin_now,
                                          side * (sin_wanted * cos_now - cos_wanted * sin_now));
  const Vec3 end_bent = ab + rot(mid_turn, bc);  // from the start joint

  // 2. The start joint: the bent end onto the target line, then the mid joint towards the pole, plus twist.
  const Vec3 axis = normalize(to_target);
  Quat swing = arc_between(end_bent, axis, pole);
  const Vec3 mid_now = rot(swing, ab);
  const Vec3 mid_off_axis = mid_now - axis * dot(mid_now, axis);
  const Vec3 pole_off_axis = pole - axis * dot(pole, axis);
  const float pole_off = length(pole_off_axis);
  if (length(mid_off_axis) > 1e-7f && pole_off > 1e-7f) {
    const Vec3 towards = pole_off_axis * (1 / pole_off);
    swing = mul(turn_from_cos_sin(axis, dot(mid_off_axis, towards), dot(cross(mid_off_axis, towards), axis)),
                swing);
  }
  if (twist_angle != 0) swing = mul(quat_from_axis_angle(axis, twist_angle), swing);

  // Model-space turns as local corrections (the mid joint's after the start joint's turn), then weighted.
  out.start_correction = unit(mul(mul(conj(chain.start_rotation), swing), chain.start_rotation));
  out.mid_correction = unit(mul(mul(conj(chain.mid_rotation), mid_turn), chain.mid_rotation));
  if (weight < 1) {
    out.start_correction = normalize(slerp(Quat{}, out.start_correction, weight));
    out.mid_correction = normalize(slerp(Quat{}, out.mid_correction, weight));
  } else {
    out.end = a + rot(swing, end_bent) * chain_length;
  }
  out.bent = true;
  return out;
}

}  // namespace detail

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
  const float w = std::clamp(weight, 0.f, 1.f);
  if (w == 0) return true;
  const Quat mid_rotation = rotation_of(*mid_joint);
  const detail::TwoBoneChain chain{start_joint->translation(), mid_joint->translation(),
                                   end_joint->translation(), rotation_of(*start_joint), mid_rotation};
  const Vec3 hinge = normalize(rotate(mid_rotation, normalize(mid_axis)));
  const detail::TwoBoneSolution solved =
      detail::solve_two_bone(chain, target, pole_vector, hinge, w, soften, twist_angle);
  *start_correction = solved.start_correction;
  *mid_correction = solved.mid_correction;
  if (reached) {
    const float chain_length = length(chain.mid - chain.start) + length(chain.end - chain.mid);
    *reached = solved.bent && w == 1 && length(solved.end - target) <= 1e-5f * chain_length;
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
  Quat turn = arc_between(crossing, t * (1 / distance), u);

  // About the joint-target axis (keeps the aim): up into the plane of that axis and the pole, then twist.
  const Vec3 axis = t * (1 / distance);
  const Vec3 up_now = rotate(turn, u);
  const Vec3 up_off_axis = up_now - axis * dot(up_now, axis);
  const Vec3 pole_off_axis = pole - axis * dot(pole, axis);
  if (length(up_off_axis) > 1e-6f * length(up_now) && length(pole_off_axis) > 1e-6f * length(pole)) {
    const Vec3 a = normalize(up_off_axis), b = normalize(pole_off_axis);
    turn = mul(turn_from_cos_sin(axis, dot(a, b), dot(cross(a, b), axis)), turn);
  }
  if (twist_angle != 0) turn = mul(quat_from_axis_angle(axis, twist_angle), turn);

  // In this frame the model-space turn is already the local correction (it applies between R and S).
  *joint_correction = normalize(w < 1 ? slerp(Quat{}, turn, w) : turn);
  if (reached) *reached = w == 1;
  return true;
}

}  // namespace ossa
