// ossa/offline/mirror.h — a clip mirrored left to right, offline (ossa::offline): twice the motion for a
// motion-matching database, a left-handed wave from a right-handed one.
//
// The mirror plane is the character's YZ plane (x -> -x: +X is the character's left, as it faces +Z). Every
// joint takes its mirror joint's motion: the joint of the same name with the side swapped ("_L"/"_R",
// ".L"/".R", "Left"/"Right", "l_"/"r_" and lowercase forms), or itself when none is found. In model space the
// mirrored joint sits at the reflection of its mirror's position and turns, from its own rest orientation, by
// the reflection of its mirror's turn from its rest: so a rig whose rest pose is symmetric mirrors exactly,
// whatever its joints' local axes. Scale is kept as each joint's own (rigs whose chains carry non-uniform
// scale are not mirrored exactly). The clip is sampled at `frame_rate` (0: the clip's own rate when
// fixed-rate, else 60).
#pragma once

#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/core/result.h"

namespace ossa {

// For each joint, the joint whose motion it takes (itself when no name with the other side exists).
std::vector<int> mirror_joints(const Skeleton& skeleton);
Result<Clip> mirror_clip(const Clip& clip, const Skeleton& skeleton, float frame_rate = 0);

}  // namespace ossa
