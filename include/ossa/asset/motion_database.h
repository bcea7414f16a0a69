// ossa/asset/motion_database.h — the frames a motion matcher picks from, as feature vectors.
//
// Motion matching (Clavet, GDC 2016; Holden, "Code vs Data Driven Displacement", 2018) asks every few frames
// which frame of all the animation best continues the current pose and goes where the player wants to go. A
// MotionDatabase holds, for every frame of the clips it was built from (build_motion_database(),
// ossa/offline/motion_database.h), the features that question compares, in the frame of the character's
// simulation root at that frame (on the ground under the hips, facing where the hips face; +Y up, +Z forward,
// +X to the character's left):
//
//   dims   group                     units   what
//   0-2    left foot position        m       the left foot joint's position
//   3-5    right foot position       m
//   6-8    left foot velocity        m/s     central difference over one database frame
//   9-11   right foot velocity       m/s
//   12-14  hips velocity             m/s
//   15-20  trajectory positions      m       the root's ground position (x, z) 20, 40 and 60 frames ahead
//   21-26  trajectory directions     -       the root's facing (x, z, unit) at the same frames
//
// Stored normalised: dim d holds (raw - offset[d]) * scale[d], where offset is the group's per-dim mean over
// the database and scale = weight(group) / (the group's standard deviation, averaged over its dims), so that
// the squared distance between two feature vectors weighs each group as the config asked, whatever its unit.
// A frame too close to its clip's end to have 60 frames of future, or inside a range tagged "mm_exclude", is
// never matched (kExcludedTag); other tags (up to 31 names) are bits a query may require. Foot contacts are
// stored per frame beside the features, not among them (they steer foot locking, not the search).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ossa/asset/root_motion.h"

namespace ossa {

struct MotionDatabase {
  static constexpr int kFeatures = 27;
  static constexpr int kStride = 28;  // floats per frame: the features and one 0, four SIMD lanes a step
  enum Group {
    kLeftFootPosition,
    kRightFootPosition,
    kLeftFootVelocity,
    kRightFootVelocity,
    kHipsVelocity,
    kTrajectoryPositions,
    kTrajectoryDirections,
    kGroupCount
  };
  static constexpr int kGroupFirst[kGroupCount + 1] = {0, 3, 6, 9, 12, 15, 21, 27};
  static constexpr uint32_t kExcludedTag = 1u << 31;
  static constexpr int kMaxTags = 31;

  // Frames [first, first + count) of the database are `clip` at times start + k / frame_rate, k < count.
  struct Range {
    int clip = -1;
    int first = 0, count = 0;
    float start = 0;
  };

  float frame_rate = 60;
  int trajectory_frames[3] = {20, 40, 60};
  int left_foot = -1, right_foot = -1, hips = -1;  // the joints the features follow
  std::vector<Range> ranges;
  std::vector<float> features;       // frame_count() * kStride, normalised; the 28th float of each frame is 0
  std::vector<float> offset, scale;  // kFeatures each: normalised = (raw - offset) * scale
  std::vector<uint32_t> tags;        // per frame: bit t is tag_names[t]; kExcludedTag: never matched
  std::vector<std::string> tag_names;
  std::vector<RootDelta> roots;  // per frame: the simulation root (ground x, z and facing yaw) in the clip
  // Per frame (or empty: none known): bit 0 when the left foot is planted there, bit 1 the right. A matcher
  // locks planted feet where they are, so that jumps and its root correction do not slide them.
  std::vector<uint8_t> contacts;

  int frame_count() const { return static_cast<int>(tags.size()); }
  const float* frame_features(int frame) const {
    return features.data() + static_cast<size_t>(frame) * kStride;
  }
  // The range that holds `frame`, or -1.
  int range_of(int frame) const;
  // Raw features (kFeatures floats, the units above) into the database's normalised form (kStride floats).
  void normalize(const float* raw, float* out) const;
  // "" when the arrays agree with each other (sizes, ranges covering the frames in order, finite values).
  std::string check() const;
};

}  // namespace ossa
