// RetargetJob and ContactTrack (ossa/runtime/retarget.h): the per-frame side of retargeting. The rig, the
// bone map, contact finding and bakes are offline work (src/offline/retarget.cpp).
#include "ossa/runtime/retarget.h"

#include <algorithm>
#include <cmath>

#include "pose_parts.h"
#include "quat_inline.h"
#include "two_bone_solve.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace ossa {
using detail::conj;
using detail::mul;
using detail::rot;
using detail::rotation_of;
using detail::translation_of;
using detail::unit;

bool RetargetJob::validate() const {
  if (!rig || !rig->source || !rig->target || !scratch) return false;
  const size_t sn = static_cast<size_t>(rig->source->joint_count()),
               tn = static_cast<size_t>(rig->target->joint_count());
  if (source.size() != sn || output.size() != tn || rig->steps.size() != tn || rig->frame.size() != tn ||
      rig->transfer.size() != tn || rig->source_of.size() != tn || rig->per_joint.size() > tn ||
      rig->positioned.size() > tn || rig->transfer_groups.size() > (tn + 3) / 4 ||
      rig->source_tracked.size() > sn || scratch->frame.size() != tn || scratch->target_model.size() != tn ||
      scratch->target_position.size() != tn || scratch->source_model.size() != sn ||
      scratch->source_position.size() != sn)
    return false;
  if (contact_weights.empty()) return true;
  if (contact_weights.size() != rig->contacts.size()) return false;
  return std::all_of(contact_weights.begin(), contact_weights.end(),
                     [](float w) { return w >= 0 && w <= 1; });  // false for NaN too
}

namespace {

inline void write(const Quat& q, float* out) {
  out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}
// The product of the source's local rotations at path[0, n), from the top down.
inline Quat product(std::span<const JointPose> source, const int* path, int n) {
  if (n == 0) return {};
  Quat q = rotation_of(source[path[0]]);
  for (int i = 1; i < n; ++i) q = mul(q, rotation_of(source[path[i]]));
  return q;
}

// A group's four source rotations turned by their Transfer matrices and normalised: one square root and one
// division for four joints. The rest of each pose is the target's rest.
inline void transfer_group(const RetargetRig::TransferGroup& g, std::span<const JointPose> source,
                           std::span<const JointPose> rest, std::span<JointPose> output) {
#if defined(__SSE2__)
  __m128 x = _mm_loadu_ps(source[g.source[0]].rotation), y = _mm_loadu_ps(source[g.source[1]].rotation),
         z = _mm_loadu_ps(source[g.source[2]].rotation), w = _mm_loadu_ps(source[g.source[3]].rotation);
  _MM_TRANSPOSE4_PS(x, y, z, w);  // now component-major: x holds the four joints' x
  __m128 r[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm_mul_ps(_mm_load_ps(g.column[0][i]), x);
    r[i] = _mm_add_ps(r[i], _mm_mul_ps(_mm_load_ps(g.column[1][i]), y));
    r[i] = _mm_add_ps(r[i], _mm_mul_ps(_mm_load_ps(g.column[2][i]), z));
    r[i] = _mm_add_ps(r[i], _mm_mul_ps(_mm_load_ps(g.column[3][i]), w));
  }
  __m128 norm = _mm_mul_ps(r[0], r[0]);
  norm = _mm_add_ps(norm, _mm_mul_ps(r[1], r[1]));
  norm = _mm_add_ps(norm, _mm_mul_ps(r[2], r[2]));
  norm = _mm_add_ps(norm, _mm_mul_ps(r[3], r[3]));
  const __m128 inverse = _mm_div_ps(_mm_set1_ps(1.f), _mm_sqrt_ps(norm));
  for (__m128& c : r) c = _mm_mul_ps(c, inverse);
  _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]);  // back to one quaternion per register
  for (int l = 0; l < 4; ++l) {
    JointPose& out = output[g.target[l]];
    out = rest[g.target[l]];
    _mm_storeu_ps(out.rotation, r[l]);
  }
#else
  for (int l = 0; l < 4; ++l) {  // the same sums in the same order
    const float* q = source[g.source[l]].rotation;
    float r[4];
    for (int i = 0; i < 4; ++i)
      r[i] = g.column[0][i][l] * q[0] + g.column[1][i][l] * q[1] + g.column[2][i][l] * q[2] +
             g.column[3][i][l] * q[3];
    JointPose& out = output[g.target[l]];
    out = rest[g.target[l]];
    write(unit({r[0], r[1], r[2], r[3]}), out.rotation);
  }
#endif
}
}  // namespace

bool RetargetJob::run() const {
  if (!validate()) return false;
  using Step = RetargetRig::Step;
  const Skeleton& src = *rig->source;
  const Skeleton& dst = *rig->target;
  const std::span<const int> source_parents = src.parents(), target_parents = dst.parents();
  const std::span<const JointPose> rest = dst.rest_pose();
  const Step* steps = rig->steps.data();
  const int* path = rig->path.data();
  const Quat* constant_frame = rig->frame.data();
  Quat* frame = scratch->frame.data();
  Quat* sm = scratch->source_model.data();
  Quat* tm = scratch->target_model.data();
  Vec3* sp = scratch->source_position.data();
  Vec3* tp = scratch->target_position.data();
  auto frame_of = [&](int j) {
    return j < 0 ? Quat{} : steps[j].dynamic_frame ? frame[j] : constant_frame[j];
  };

  // The source in model space where the target needs positions: the hips' chain and the contact limbs.
  for (const int j : rig->source_tracked) {
    const int p = source_parents[j];
    const Quat r = rotation_of(source[j]);
    sm[j] = p < 0 ? r : mul(sm[p], r);
    sp[j] = p < 0 ? translation_of(source[j]) : sp[p] + rot(sm[p], translation_of(source[j]));
  }
  for (const RetargetRig::TransferGroup& group : rig->transfer_groups)
    transfer_group(group, source, rest, output);
  for (const int t : rig->per_joint) {
    const Step& step = steps[t];
    const int p = target_parents[t];
    JointPose& out = output[t];
    if (step.kind == Step::kCopy) {
      out = source[step.source];  // the same joint on both sides: its whole pose
      continue;
    }
    out = rest[t];
    if (step.kind == Step::kRest) {
      if (step.dynamic_frame) frame[t] = mul(frame_of(p), rotation_of(out));
      continue;
    }
    Quat here = constant_frame[t];
    if (step.kind == Step::kChain) {
      // The source's turn from top to end's parent since rest, seen in the target top's frame.
      const Quat bend =
          mul(product(source, path + step.bend_first, step.bend_count), step.inverse_source_rest);
      const Quat top = constant_frame[step.top];
      Quat turn = mul(mul(conj(top), bend), top);
      if (turn.w < 0) turn = {-turn.x, -turn.y, -turn.z, -turn.w};
      here = frame[t] = mul(mul(top, nlerp(Quat{}, turn, step.fraction)), step.rest_to_here);
    }
    const int* joints = path + step.first;
    Quat relative = product(source, joints + step.up, step.down);
    if (step.up) relative = mul(conj(product(source, joints, step.up)), relative);
    if (step.kind == Step::kMapped && (p < 0 || !steps[p].dynamic_frame)) {
      const float(&m)[4][4] = rig->transfer[t].column;
      const float q[4] = {relative.x, relative.y, relative.z, relative.w};
      float r[4];
      for (int i = 0; i < 4; ++i) r[i] = m[0][i] * q[0] + m[1][i] * q[1] + m[2][i] * q[2] + m[3][i] * q[3];
      write(unit({r[0], r[1], r[2], r[3]}), out.rotation);
    } else {
      write(unit(mul(mul(conj(frame_of(p)), relative), here)), out.rotation);
    }
  }
  // The target in model space along the same chains; the hips (and the mapped joints above) travel.
  for (const int t : rig->positioned) {
    const Step& step = steps[t];
    const int p = target_parents[t];
    JointPose& out = output[t];
    const Quat parent = p < 0 ? Quat{} : tm[p];
    const Vec3 parent_position = p < 0 ? Vec3{} : tp[p];
    if (step.carries) {
      const Vec3 travel = sp[step.source] - step.source_rest_position;
      const Vec3 local =
          rot(conj(parent), step.target_rest_position + travel * rig->hips_scale - parent_position);
      out.translation[0] = local.x, out.translation[1] = local.y, out.translation[2] = local.z;
    }
    tm[t] = mul(parent, rotation_of(out));
    tp[t] = parent_position + rot(parent, translation_of(out));
  }

  // Contacts: each limb bent towards where the source's end is, scaled, as much as it is planted.
  for (size_t i = 0; i < contact_weights.size(); ++i) {
    const RetargetRig::Contact& c = rig->contacts[i];
    if (contact_weights[i] <= 0) continue;
    const Vec3 goal = c.target_rest + (sp[c.source_end] - c.source_rest) * rig->hips_scale;
    const Vec3 a = tp[c.start], b = tp[c.mid], e = tp[c.end];
    const Vec3 limb = e - a, to_mid = b - a;
    const float reach = length(to_mid) + length(e - b);
    if (dot(limb, limb) < 1e-12f) continue;
    // Bend in the plane the retargeted limb has; a straight limb bends where the rig says.
    Vec3 pole = to_mid - limb * (dot(to_mid, limb) / dot(limb, limb));
    if (length(pole) < 1e-3f * reach) pole = rot(tm[c.start], c.pole_in_start);
    const Vec3 hinge = cross(limb, pole);
    const float hinge_length = length(hinge);
    if (hinge_length < 1e-12f) continue;
    const detail::TwoBoneSolution solved = detail::solve_two_bone(
        {a, b, e, tm[c.start], tm[c.mid]}, goal, pole, hinge * (1 / hinge_length), contact_weights[i], 1, 0);
    if (!solved.bent) continue;
    const Quat start_fix = solved.start_correction, mid_fix = solved.mid_correction;
    // The corrections, and the end joint's model rotation kept.
    const Quat start_model = unit(mul(tm[c.start], start_fix));
    const Quat mid_model = unit(mul(mul(start_model, rotation_of(output[c.mid])), mid_fix));
    write(unit(mul(rotation_of(output[c.start]), start_fix)), output[c.start].rotation);
    write(unit(mul(rotation_of(output[c.mid]), mid_fix)), output[c.mid].rotation);
    write(unit(mul(conj(mid_model), tm[c.end])), output[c.end].rotation);
    tm[c.start] = start_model, tm[c.mid] = mid_model;
    tp[c.mid] = a + rot(start_model, translation_of(output[c.mid]));
    tp[c.end] = tp[c.mid] + rot(mid_model, translation_of(output[c.end]));
  }
  return true;
}

void ContactTrack::sample(float time, std::span<float> out) const {
  const int frames = frame_count();
  if (frames == 0 || out.size() != static_cast<size_t>(contacts)) {
    std::fill(out.begin(), out.end(), 0.f);
    return;
  }
  const float f = std::clamp(time * frame_rate, 0.f, static_cast<float>(frames - 1));
  const int f0 = std::min(static_cast<int>(f), frames - 1), f1 = std::min(f0 + 1, frames - 1);
  const float u = f - static_cast<float>(f0);
  for (int c = 0; c < contacts; ++c)
    out[c] = weights[static_cast<size_t>(f0) * contacts + c] * (1 - u) +
             weights[static_cast<size_t>(f1) * contacts + c] * u;
}

}  // namespace ossa
