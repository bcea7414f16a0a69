// A character driven by a stick through its file's motion-matching database (`ossa mm build`): the viewer's
// Inspect > Motion matching. Owns the search index and the MotionMatcher, turns the matcher's output into the
// model pose and world transform the view draws, and keeps what the overlay shows (the trajectory the stick
// asks for, the one the playing frame will take, the feet's features). Plain C++ (no GL, no ImGui).
#pragma once

#include <array>
#include <memory>
#include <span>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/runtime/motion_matcher.h"
#include "ossa/runtime/motion_search.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

class MotionMatchingSession {
 public:
  // Fails when the character holds no motion database.
  static Result<std::unique_ptr<MotionMatchingSession>> make(std::shared_ptr<const LoadedCharacter> character,
                                                             const MotionMatcherSettings& settings = {});

  // One frame: the stick (x right, y forward, each in [-1, 1]) and the run button.
  void update(Vec2 stick, bool run, float dt);
  // Back to the start: the origin, facing +Z, the first matchable frame.
  void restart();

  std::span<const JointPose> locals() const { return matcher_->locals(); }
  std::span<const Mat4> model() const { return model_; }  // in place: world() puts it in the world
  const Mat4& world() const { return world_; }
  const MotionMatcher& matcher() const { return *matcher_; }
  const MotionDatabase& database() const { return *character_->motion_database; }
  const MotionMatcherSettings& settings() const { return settings_; }
  void set_settings(const MotionMatcherSettings& settings);  // restarts

  // For the overlay, on the ground in the world: the root now and where the stick wants it 20, 40 and 60
  // database frames ahead; the root now and where the playing frame's own motion takes it at those frames.
  std::array<Vec3, 4> desired() const;
  std::array<Vec3, 4> matched() const;
  // The feet now (world) and their velocities (m/s, world), from the playing frame's features.
  std::array<Vec3, 2> feet() const;
  std::array<Vec3, 2> feet_velocities() const;
  // Ground distance from where the character started (a restart starts again).
  float travelled() const;

  Vec2 stick;  // the last input, shown by the panel
  bool run = false;

 private:
  MotionMatchingSession() = default;
  Vec3 to_world(Vec3 in_root_frame) const;          // a point in the root's frame (+Z forward) into the world
  Vec3 feature(MotionDatabase::Group group) const;  // a three-dim group of the playing frame, in its units
  std::shared_ptr<const LoadedCharacter> character_;
  MotionMatcherSettings settings_;
  std::unique_ptr<MotionSearchIndex> index_;
  std::unique_ptr<MotionMatcher> matcher_;
  std::vector<Mat4> model_;
  Mat4 world_;
};

}  // namespace ossa::viewer
