// ossa/runtime/blend_space.h — blend spaces: clips placed at parameter values, mixed by where a parameter is.
//
// snippet: examples/building_blocks.cpp blend_space
//   const float speeds[] = {0.f, 1.5f};  // idle and walk, by speed in m/s
//   const int clips[] = {asset.find_clip("Idle"), asset.find_clip("Walk")};
//   auto space = ossa::BlendSpace::build_1d(speeds);
//   if (!space) return std::fprintf(stderr, "%s\n", space.error().c_str()), 1;
//   auto player = ossa::BlendSpacePlayer::create(asset, *space, clips);
//   if (!player) return std::fprintf(stderr, "%s\n", player.error().c_str()), 1;
//   if (!player->set_parameter(0.75f)) return 1;  // each frame: the game's speed,
//   player->update(1 / 60.f);                     // then player->locals(), events(), root_delta()
// (2D: BlendSpace::build_2d of (x, y) points, e.g. direction and speed; set_parameter(x, y).)
//
// BlendSpace (weights only). 1D: samples at values on one axis; a parameter between two neighbours weighs
// them by linear interpolation, one beyond the ends weighs the end sample 1. 2D: samples at (x, y) points;
// build_2d makes a Delaunay triangulation of them once (cocircular points, e.g. a grid, are triangulated by a
// fan of their circle), a parameter inside a triangle weighs its corners by barycentric coordinates, one
// outside the convex hull is first moved to the nearest point of the hull (weights of that edge's two ends).
// Guarantees, for any finite parameter: weights >= 0 summing to 1 (within float rounding), weight exactly 1
// on a sample when the parameter is that sample's point, continuous in the parameter. A NaN parameter gives
// weight 1 on sample 0 and evaluate() returns false. build_* refuses (with a message naming the samples)
// duplicate points, non-finite or out-of-range coordinates (|v| > kMaxCoordinate), no samples, more than
// kMaxSamples2D in 2D, and 2D points that are all on one line (use a 1D space). A single 1D sample is
// allowed (weight 1 always). build_* allocates; evaluate() does not.
//
// BlendSpacePlayer (a pose source, next to Animator, not inside it): one looping clip per sample, advanced
// in phase the way Unreal's sync groups do. The leader is the sample of highest weight (the lowest index on
// a tie); the shared phase moves at the weighted rate: the leader advances by step * L_leader / L_blend with
// L_blend = sum of weight * clip length, so a half walk (1 s) / half run (0.6 s) cycle lasts 0.8 s. Every
// other clip follows the leader's phase. Phase is normalised time (t / length), or, with sync markers (names
// of instant notifies such as "FootL", "FootR") in both the leader and a follower, the marker phase: the
// leader's last marker and its fraction of the way to the next marker; the follower goes to the same
// fraction after its own marker of that name (of several, the one nearest where it would otherwise be), so
// clips of different lengths and different marker spacing put their feet down on the same update. A clip
// without markers (or without the leader's current marker name) follows normalised time.
// Notifies: the leader's notifies always fire; another clip's fire while its weight is at or above
// notify_weight_threshold (default 1: the leader alone, so two blended walk cycles do not both report a
// step). A clip that stops counting ends its open states. Loop events count as notifies (only from clips
// that count). Root motion: the weighted sum of each clip's RootMotionTrack::delta over the clip time it
// swept this update. The player owns per-sample playheads, sampling caches and poses (sized at
// construction); set_parameter() and update() do not allocate. Times are seconds; parameters are in the
// units the samples were placed in.
#pragma once

#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/notifies.h"
#include "ossa/asset/root_motion.h"
#include "ossa/core/result.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/playhead.h"

namespace ossa {

struct BlendPoint {
  float x = 0, y = 0;
};

class BlendSpace {
 public:
  static constexpr int kMaxSamples2D = 64;        // the triangulation is built by brute force at build time
  static constexpr float kMaxCoordinate = 1e6f;   // sample coordinates beyond this are refused
  static constexpr float kMinSeparation = 1e-6f;  // 1D samples closer than this are refused

  static Result<BlendSpace> build_1d(std::span<const float> positions);
  static Result<BlendSpace> build_2d(std::span<const BlendPoint> points);

  int dimensions() const { return dimensions_; }
  int sample_count() const { return static_cast<int>(points_.size()); }
  BlendPoint sample_point(int sample) const { return points_[sample]; }
  int triangle_count() const { return static_cast<int>(triangles_.size()); }

  // weights: sample_count() floats, all written. 1D reads x only. False when `weights` is too small (nothing
  // written) or a coordinate is NaN (weight 1 on sample 0); infinities clamp like any far parameter.
  bool evaluate(float x, float y, std::span<float> weights) const;

 private:
  struct Triangle {
    int v[3];
  };
  struct Edge {
    int a, b;
  };
  void evaluate_1d(double x, std::span<float> weights) const;
  void evaluate_2d(double x, double y, std::span<float> weights) const;

  int dimensions_ = 1;
  std::vector<BlendPoint> points_;   // as given, in sample order
  std::vector<int> order_;           // 1D: samples sorted by position
  std::vector<Triangle> triangles_;  // 2D: counter-clockwise
  std::vector<Edge> hull_;           // 2D: edges that belong to one triangle only
};

class BlendSpacePlayer {
 public:
  // `clips[i]`: the asset clip of sample i (clips.size() == space.sample_count()). `root_motion`: one track
  // per clip of `asset`, or empty. `sync_markers`: notify names that mark phase (copied). The asset,
  // notifies, tracks and space are kept by reference and must outlive the player. Fails for a clip index out
  // of range or a clip count that does not match the space.
  static Result<BlendSpacePlayer> create(const CharacterAsset& asset, const BlendSpace& space,
                                         std::span<const int> clips, const NotifySet* notifies = nullptr,
                                         std::span<const RootMotionTrack> root_motion = {},
                                         std::span<const std::string> sync_markers = {});

  // Movable, not copyable: a copy would not keep the reserved event and segment buffers.
  BlendSpacePlayer(BlendSpacePlayer&&) = default;
  BlendSpacePlayer& operator=(BlendSpacePlayer&&) = default;
  BlendSpacePlayer(const BlendSpacePlayer&) = delete;
  BlendSpacePlayer& operator=(const BlendSpacePlayer&) = delete;

  // Non-finite values are ignored (the previous parameter stays) and false is returned.
  bool set_parameter(float x, float y = 0);
  void set_speed(float speed) { speed_ = std::isfinite(speed) ? speed : speed_; }  // negative: backwards

  float notify_weight_threshold = 1.f;  // non-leader clips' notifies count at this weight and above

  // Ends every clip's open notify states: their end events become events() (the last update's are replaced).
  // For a caller that stops counting this player's notifies (an AnimGraph state fading out), so that none
  // stays open. No allocation.
  void end_states();
  // Every clip back to normalised time `phase` (its fractional part; the clips' open notify states end
  // unreported), as after create(). No allocation.
  void restart(float phase);
  // Evaluates the weights, advances every clip in phase, collects events and root motion, samples the clips
  // of weight > 0 and blends them into locals(). Non-finite dt counts as 0.
  void update(float dt);

  std::span<const float> weights() const { return weights_; }  // per sample, of the last update
  int leader() const { return leader_; }                       // sample index
  float clip_time(int sample) const { return samples_[sample].playhead.time(); }
  std::span<const JointPose> locals() const { return locals_; }  // LocalToModelJob turns it into model space
  std::span<const AnimEvent> events() const { return events_; }
  size_t events_dropped() const { return dropped_; }
  RootDelta root_delta() const { return root_delta_; }

 private:
  struct Sample {
    int clip = -1;
    float duration = 0;
    Playhead playhead;
    SamplingCache cache;
    std::vector<JointPose> pose;
    std::vector<float> marker_times;  // sorted sync-marker times in this clip
    std::vector<int> marker_names;    // their name ids, parallel
    bool notify_active = false;
  };
  struct MarkerPhase {
    int name = -1;  // name id of the marker that starts the segment; -1: normalised phase
    double fraction = 0;
  };

  BlendSpacePlayer() = default;
  MarkerPhase marker_phase(const Sample& s, double time) const;
  double synced_time(const Sample& leader, const Sample& follower, double expected) const;
  void collect(const Sample& s);

  const CharacterAsset* asset_ = nullptr;
  const BlendSpace* space_ = nullptr;
  const NotifySet* notifies_ = nullptr;
  std::span<const RootMotionTrack> root_motion_;
  std::vector<Sample> samples_;
  std::vector<float> weights_;
  std::vector<BlendLayer> layers_;  // capacity: one per sample
  std::vector<JointPose> locals_;
  EventBuffer scratch_;
  std::vector<AnimEvent> events_;
  size_t dropped_ = 0;
  RootDelta root_delta_;
  float x_ = 0, y_ = 0, speed_ = 1;
  int leader_ = 0;
};

}  // namespace ossa
