// ossa/asset/root_motion.h — root motion: the character's travel taken out of a clip into its own track.
//
// extract_root_motion() (ossa/offline/root_motion.h) reads the root joint's model-space translation
// (horizontal: x, z) and heading (yaw about +Y) at every frame of a fixed-rate clip, stores them as a
// RootMotionTrack, and returns the clip played in place: the root keeps its frame-0 offset and heading, and
// its vertical motion (bobbing) stays in the pose. At run time the game moves the character by the per-update
// delta (Animator::root_delta(), or RootMotionTrack::delta() composed over the playhead's segments), so loops
// and reverse play add up exactly.
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/clip.h"

namespace ossa {

// A planar rigid motion: translation (x, z) and yaw (radians about +Y), composed as (t1, y1) then (t2, y2) =
// (t1 + rotate_yaw(y1, t2), y1 + y2).
struct RootDelta {
  float x = 0, z = 0, yaw = 0;
  RootDelta then(const RootDelta& next) const;
  RootDelta inverse() const;
};

struct RootMotionTrack {
  int joint = -1;
  float frame_rate = 0, duration = 0;
  std::vector<RootDelta> frames;                // absolute (x, z, unwrapped yaw) per frame
  RootDelta at(float time) const;               // interpolated, clamped to the clip
  RootDelta delta(float from, float to) const;  // motion from `from` to `to` in the frame at `from`
  RootDelta total() const { return delta(0, duration); }
};

}  // namespace ossa
