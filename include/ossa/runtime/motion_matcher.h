// ossa/runtime/motion_matcher.h — a character driven by a stick, its motion picked from a MotionDatabase.
//
// Use: build a MotionSearchIndex of the database once; give each character a MotionMatcher (it allocates at
// construction only); each frame call update() with the stick, the run button and dt, then draw locals() (the
// pose in place) under root() (where the character stands and faces in the world).
//
// Per update:
//  1. The desired trajectory. The stick (x to the right, y forward; axes below) times
//     the walk or run speed is the goal velocity of a critically damped spring on the simulated root's
//     velocity (Holden's "spring-damper trajectory": velocity_halflife), and the stick's direction the goal
//     of one on its facing (facing_halflife). The spring's closed form predicts where the root will be 20, 40
//     and 60 database frames ahead.
//  2. The search, every `search_interval` seconds, at once when the stick's goal velocity changes by over
//     `retrigger_speed`, and whenever the current frame may no longer be matched (its clip's end is near):
//     the query is the current frame's pose features and the predicted trajectory in the character's frame.
//     The current frame wins ties (MotionSearchJob); a match within `min_jump_frames` of it in the same clip
//     is not a jump, and neither is one that lowers the cost by less than `jump_gain` of the current frame's,
//     so a character already on about the best motion keeps playing it (each jump costs some foot sliding).
//  3. A jump is hidden by inertialization (ossa/runtime/inertialization.h) over `transition_duration`: one
//     pose sampled per frame. `transition = kCrossfade` blends the old motion, played on, into the new one
//     instead (two poses sampled while it lasts; a jump during a crossfade drops the older motion), and a
//     duration of 0 cuts: both for comparison.
//  4. The root follows the animation's root motion (the simulation root stored per database frame), then is
//     pulled towards the simulated root by at most `max_correction_speed` m/s and `max_correction_turn`
//     rad/s: the animation moves the character, and the stick's intent keeps it on course within that bound.
//
//  5. Foot locking: a foot the playing database frame marks as planted (MotionDatabase::contacts) is held
//     where it was when the plant began, by two-bone IK on its leg (the foot keeps the animation's
//     orientation), so that neither jumps nor the root's correction slide it; on release the offset from the
//     animation fades smoothly. Legs are the feet's parent and grandparent.
//
// World axes: +Y up; the stick's +y is the world's +Z (forward at yaw 0), its +x the world's -X (to the right
// of a character facing +Z). No allocation in update().
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/motion_database.h"
#include "ossa/runtime/inertialization.h"
#include "ossa/runtime/motion_search.h"

namespace ossa {

enum class MotionTransition { kInertialize, kCrossfade };

struct MotionMatcherSettings {
  float walk_speed = 1.2f, run_speed = 3.8f;  // m/s at full stick (the shared mocap's walks and runs)
  float velocity_halflife = 0.27f, facing_halflife = 0.27f;  // seconds (Holden's defaults)
  float search_interval = 0.1f;                              // seconds: 6 frames at 60 fps
  float retrigger_speed = 0.5f;  // m/s of change of the goal velocity that searches at once
  int min_jump_frames = 4;       // a match this close ahead of or behind the current frame is not a jump
  float jump_gain = 0.1f;        // a jump must lower the cost by this share of the current frame's cost
  MotionTransition transition = MotionTransition::kInertialize;
  float transition_duration = 0.2f;   // seconds; 0: hard cuts
  float max_correction_speed = 0.1f;  // m/s: the most the root is pulled towards the simulation
  float max_correction_turn = 0.5f;   // rad/s
  // Foot locking (step 5 above): where the database marks a foot planted. A locked foot lets go when the
  // animation's foot lifts or moves over unlock_distance from it, and its offset then fades with a critically
  // damped spring of unlock_halflife.
  bool foot_locking = true;
  float unlock_distance = 0.2f;  // m
  float unlock_halflife = 0.1f;  // s
};

struct MotionMatcherStats {
  int searches = 0, jumps = 0;
  int locks = 0, early_unlocks = 0;  // plants held; releases because the animation's foot went too far
  float last_cost = 0;
};

class MotionMatcher {
 public:
  MotionMatcher(const CharacterAsset& character, const MotionDatabase& database,
                const MotionSearchIndex& index, const MotionMatcherSettings& settings = {});

  // One frame. `stick`: each axis in [-1, 1] (longer vectors are cut to length 1); `run`: run speed.
  void update(Vec2 stick, bool run, float dt);

  // In place: the simulation root at the origin. The joints above the hips hold the identity and the hips
  // their whole model transform (a skeleton's hips should have no siblings under those joints).
  std::span<const JointPose> locals() const { return shown_; }
  RootDelta root() const { return root_; }  // the character in the world (x, z, yaw)
  RootDelta simulation() const { return {sim_position_.x, sim_position_.z, sim_yaw_}; }
  // The desired trajectory: the simulated root 20, 40 and 60 database frames ahead, in the world.
  std::span<const RootDelta, 3> desired_trajectory() const { return desired_; }
  int frame() const { return frame_; }  // the database frame playing
  int clip() const;                     // the character's clip playing
  float clip_time() const { return time_; }
  const MotionMatcherStats& stats() const { return stats_; }
  const MotionMatcherSettings& settings() const { return settings_; }

 private:
  void predict(float horizon, Vec3& position, float& yaw) const;
  void build_query(float* query) const;
  void sample(int range, float time, std::span<JointPose> out);
  RootDelta root_at(int range, float time) const;
  void jump_to(int frame);
  void lock_feet(float dt);
  void crossfade(float dt);

  const CharacterAsset* character_;
  const MotionDatabase* database_;
  const MotionSearchIndex* index_;
  MotionMatcherSettings settings_;
  SamplingCache cache_;
  std::vector<JointPose> pose_, before_, shown_;
  Inertializer inertializer_;
  int fade_range_ = -1;  // the motion faded out by a crossfade, or -1
  float fade_time_ = 0, fade_elapsed_ = 0;
  int range_ = 0, frame_ = 0;
  float time_ = 0, since_search_ = 0;
  Vec3 sim_position_{}, sim_velocity_{}, sim_acceleration_{}, goal_velocity_{};
  float sim_yaw_ = 0, sim_yaw_rate_ = 0, goal_yaw_ = 0;
  RootDelta root_{};
  RootDelta desired_[3] = {};
  MotionMatcherStats stats_;
  bool started_ = false;
  struct FootLock {
    int foot = -1, knee = -1, thigh = -1;
    bool locked = false, let_go_early = false;
    Vec3 lock{}, offset{}, offset_velocity{};  // world; offset: shown minus animated while released
    Vec3 animated{};                           // the animation's foot last update (world)
  };
  FootLock feet_[2];
};

}  // namespace ossa
