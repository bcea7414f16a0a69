// ossa/offline/clip_builder.h — clips made from other clips, offline (ossa::offline).
//
// The builders from raw keys are Clip's own (Clip::build_fixed_rate, Clip::build_keyed in ossa/asset/clip.h)
// and are defined here too, in ossa::offline: a game that loads .ossa files links ossa::runtime alone and
// never runs them.
#pragma once

#include <span>

#include "ossa/asset/clip.h"
#include "ossa/core/result.h"

namespace ossa {

// The clip as deltas from `reference` (one pose per joint, e.g. the clip's first frame or the rest pose), for
// additive layers: translation - ref, conjugate(ref rotation) * rotation, scale / ref scale. Fixed-rate only.
Result<Clip> make_additive_clip(const Clip& clip, std::span<const JointPose> reference);

}  // namespace ossa
