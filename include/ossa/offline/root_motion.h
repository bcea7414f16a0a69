// ossa/offline/root_motion.h — taking root motion out of clips, offline (ossa::offline): the tracks
// (ossa/asset/root_motion.h) a game plays with its in-place clips.
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/root_motion.h"
#include "ossa/asset/skeleton.h"
#include "ossa/core/result.h"

namespace ossa {

struct InPlaceClip {
  Clip clip;
  RootMotionTrack track;
};

// root_joint -1: default_root_joint().
Result<InPlaceClip> extract_root_motion(const Clip& clip, const Skeleton& skeleton, int root_joint = -1);

// Every clip of a character at once (default root joint), in clip order: what an Animator or a
// BlendSpacePlayer takes as its clips and root-motion tracks. The error names the clip that failed.
struct InPlaceClips {
  std::vector<Clip> clips;
  std::vector<RootMotionTrack> tracks;
};
Result<InPlaceClips> extract_root_motion(std::span<const Clip> clips, const Skeleton& skeleton);
// The joint called "root" (any case, or "<namespace>:root"), else the first joint that has a parent.
int default_root_joint(const Skeleton& skeleton);

}  // namespace ossa
