// ossa/offline/motion_database.h — building a motion-matching database from a character's clips, offline
// (ossa::offline). What the features are: ossa/asset/motion_database.h.
//
// Each source clip (or a part of it) is sampled at the database's frame rate; per frame the builder places
// the simulation root on the ground under the hips, facing the way the hips face (the horizontal
// perpendicular of the line from the right thigh to the left one; the thighs are the feet's grandparents),
// smoothed over `root_smoothing` seconds (a Gaussian, so that the hips' sway does not steer the trajectory),
// and computes the features in that root's frame. Velocities are central differences over one frame
// (one-sided at the ends).
#pragma once

#include <span>
#include <string>

#include "ossa/asset/character.h"
#include "ossa/asset/motion_database.h"
#include "ossa/core/result.h"

namespace ossa {

struct MotionDatabaseConfig {
  float frame_rate = 60;
  // Per feature group (MotionDatabase::Group order): Holden's defaults, feet positions a little under the
  // rest and the facing directions above them.
  float weights[MotionDatabase::kGroupCount] = {0.75f, 0.75f, 1, 1, 1, 1, 1.5f};
  float root_smoothing = 0.1f;  // seconds: the Gaussian's standard deviation
  // A foot is planted (MotionDatabase::contacts) where it is within contact_height of its lowest height in
  // the source and moves over the ground slower than contact_speed.
  float contact_height = 0.03f;  // m
  float contact_speed = 0.25f;   // m/s
  // Joint names; empty: found by name (a joint named like "foot" with a left or right mark; "hips" or
  // "pelvis").
  std::string left_foot, right_foot, hips;
};

// A clip of the character, or the part [start, end) of it in seconds (end < 0: to the clip's end).
struct MotionSource {
  int clip = -1;
  float start = 0, end = -1;
};

// A tagged stretch of a source clip (seconds, clip time): "mm_exclude" is never matched, any other name is a
// tag a query can require.
struct MotionTagRange {
  int clip = -1;
  std::string name;
  float start = 0, end = 0;
};

Result<MotionDatabase> build_motion_database(const CharacterAsset& character,
                                             std::span<const MotionSource> sources,
                                             std::span<const MotionTagRange> tags = {},
                                             const MotionDatabaseConfig& config = {});

// The joints build_motion_database() would follow: {left foot, right foot, hips}, -1 where none is found.
struct MotionJoints {
  int left_foot = -1, right_foot = -1, hips = -1;
};
MotionJoints find_motion_joints(const Skeleton& skeleton, const MotionDatabaseConfig& config = {});

}  // namespace ossa
