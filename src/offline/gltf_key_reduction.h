// Internal: a clip's joint keys reduced within an error bound on virtual vertices (the glTF export's
// --compress).
//
// The bound is the one `.ossa` compression uses (ossa/offline/compression.h): points `shell` from each joint
// along its three axes, both ways, moved in model space by no more than `tolerance` at any time. Rotations
// are rounded to normalized 16-bit when asked and when that alone keeps within half the bound. Each channel
// drops the keys that linear interpolation between the keys kept reproduces within a share of the bound
// (translation: the share; rotation and scale: the share over the joint's reach, the farthest virtual vertex
// of its sub-tree); then the whole clip is evaluated against the full keys at every key time and half-way
// between them, and while it misses the bound the share is halved (after 12 halvings every key is kept, with
// float rotations: the full keys themselves).
#pragma once

#include <vector>

#include "ossa/asset/skeleton.h"

namespace ossa::detail {

struct JointChannel {
  int joint = 0;
  int kind = 0;               // 0 translation, 1 rotation (x, y, z, w), 2 scale
  std::vector<float> times;   // ascending
  std::vector<float> values;  // 3 or 4 a key
  bool step = false;          // STEP: each key holds until the next (kept as it is)
};

struct KeyReduction {
  std::vector<JointChannel> channels;  // the kept keys (rotations rounded when `short_rotations`)
  bool short_rotations = false;        // rotations are exact multiples of 1/32767 (written as 16-bit)
  double worst_error = 0;              // metres, at the virtual vertices
};

// `channels`: a clip's animated channels; joints without one hold the skeleton's rest pose.
KeyReduction reduce_keys(const std::vector<JointChannel>& channels, const Skeleton& skeleton, float tolerance,
                         float shell, bool short_rotations);

}  // namespace ossa::detail
