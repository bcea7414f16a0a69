// Internal: the two-bone solver on model positions and rotations. TwoBoneIkJob (model matrices in) and
// RetargetJob's contacts (rotations already at hand) share it; it builds no matrices, decomposes none and, on
// its common path (weight 1, no twist, no softening), calls no trigonometry: every turn is made from the
// cosine and sine of its angle (see ik_job.cpp).
#pragma once

#include "ossa/core/math.h"

namespace ossa::detail {

struct TwoBoneChain {
  Vec3 start, mid, end;               // model positions
  Quat start_rotation, mid_rotation;  // model rotations, unit
};

struct TwoBoneSolution {
  Quat start_correction, mid_correction;  // local: local_rotation = local_rotation * correction, unit
  Vec3 end;                               // where the end joint lands (weight 1 only; else the old end)
  bool bent = false;                      // false: degenerate input, identity corrections
};

// hinge: the mid joint's hinge in model space, unit. weight in (0, 1]; soften in (0, 1]. Degenerate input
// (zero-length bones, a target at the start and the end there too, non-finite lengths) gives identity
// corrections. The caller has checked that every input is finite.
TwoBoneSolution solve_two_bone(const TwoBoneChain& chain, Vec3 target, Vec3 pole, Vec3 hinge, float weight,
                               float soften, float twist_angle);

}  // namespace ossa::detail
