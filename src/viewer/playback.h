// What the viewer plays: one character's Animator driven by the viewer's controls, with the events it fired.
//
// Playback owns the Animator and rebuilds it when what it was made with changes (notifies edited in the
// viewer, root motion switched on or off), keeping the clip, time, speed, loop mode and layer. Root motion
// on: the clips play in place (extract_root_motion) and the character travels by Animator::root_delta(), the
// path it took kept for drawing; off: the clips play as authored. A blend space (BlendSpacePlayer) can drive
// the pose instead of the base clip, its parameter set from the viewer's pad; foot placement
// (FootPlacementJob) can plant the feet on a ground the viewer chooses (flat, or the example's slope and step
// scaled to the character). model() is what to draw either way. Plain C++ (no GL, no ImGui).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/notifies.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/blend_space.h"
#include "ossa/runtime/foot_placement.h"
#include "ossa/serialize/load.h"

namespace ossa::viewer {

// One fired event, as `ossa play` prints it: the update (step) it fired in since the clip was played.
struct LoggedEvent {
  long long step = 0;
  std::string clip;
  std::string name;  // "" for loop and finished
  EventType type = EventType::kInstant;
  float time = 0;
  int loop = 0;
  std::string payload;
};

class Playback {
 public:
  static constexpr size_t kMaxLoggedEvents = 2000;  // the oldest are dropped

  explicit Playback(std::shared_ptr<const LoadedCharacter> character);

  const LoadedCharacter& character() const { return *character_; }
  const CharacterAsset& asset() const { return character_->asset; }
  // The skeleton and clips the Animator plays: asset(), or its clips in place while root motion is on.
  const CharacterAsset& animated_asset() const { return root_motion_ ? in_place_ : character_->asset; }
  const Animator& animator() const { return *animator_; }

  // The notifies the Animator fires (the document's, after each edit).
  void set_notifies(NotifySet notifies);
  const NotifySet& notifies() const { return notifies_; }

  // The base clip from `start_time` (false: not a clip). The event log's step count restarts.
  bool play(int clip, float start_time = 0);
  bool crossfade(int clip, float duration, bool sync);
  int clip() const { return animator_->clip(); }
  float time() const { return animator_->time(); }
  // The clip whose notifies the timeline shows: the base clip (while fading, the one fading in).
  const Clip* current_clip() const;

  void set_paused(bool paused);
  bool paused() const { return paused_; }
  void set_speed(float speed);
  float speed() const { return speed_; }
  void set_loop_mode(LoopMode mode);  // applies from the next play(), and now (restarting at the same time)
  LoopMode loop_mode() const { return loop_mode_; }

  void seek(float time);  // moves the playhead without firing events (scrubbing)
  // Plays only [in, out) of the base clip, over and over: an update that reaches `out` (or `in` playing
  // backwards) goes on from the other end, firing the notifies inside the range each pass and none outside.
  // A playhead outside the range goes to its start. False (nothing changes) unless 0 <= in < out <= the
  // clip's duration; clear_loop_range() plays the whole clip again. Playing or crossfading to a clip clears
  // it; the range repeats whatever the loop mode, in the direction of the speed.
  bool set_loop_range(float in, float out);
  void clear_loop_range() { range_in_ = range_out_ = 0; }
  bool has_loop_range() const { return range_out_ > range_in_; }
  float loop_in() const { return range_in_; }
  float loop_out() const { return range_out_; }
  // Frames of the base clip: forward runs updates (events fire as in play); backward seeks.
  void step_frames(int frames);

  // "" when done, else why not (a clip that cannot be played in place, e.g. keyed).
  std::string set_root_motion(bool on);
  bool root_motion() const { return root_motion_; }
  // Where root motion took the character (lifted onto the ground under it while feet are placed).
  const Mat4& world() const { return feet_on_ ? placed_world_ : world_; }
  const std::vector<Vec3>& path() const { return path_; }  // ground positions it travelled (x, 0, z)
  void reset_travel();

  // An override layer playing `clip` at `weight` on the subtree of `mask_joint` (-1: every joint); -1 clip
  // removes it. False for an invalid clip or joint.
  bool set_layer(int clip, float weight, int mask_joint);
  int layer_clip() const { return layer_clip_; }
  float layer_weight() const { return layer_weight_; }
  int layer_joint() const { return layer_joint_; }

  // A blend space of `clips` at `points` (1 or 2 dimensions; 1D reads x) drives the pose instead of the base
  // clip, aligned by `sync_markers`; its events are logged. "" when made, else why not (the space's own
  // message). An empty `clips` turns it off.
  std::string set_blend_space(std::vector<int> clips, std::vector<BlendPoint> points, int dimensions,
                              std::vector<std::string> sync_markers = {});
  bool blend_space_on() const { return blend_ != nullptr; }
  const BlendSpace* blend_space() const { return blend_ ? &blend_->space : nullptr; }
  std::span<const int> blend_clips() const { return blend_clips_; }
  std::span<const float> blend_weights() const;
  int blend_leader() const { return blend_ ? blend_->player->leader() : -1; }
  void set_blend_parameter(float x, float y);  // non-finite values are ignored
  BlendPoint blend_parameter() const { return blend_parameter_; }

  // Feet planted on the ground (FootPlacementJob) with the legs find_legs() finds. "" when on, else why not.
  enum class Ground { kFlat, kSlopeAndStep };
  std::string set_foot_placement(bool on, Ground ground = Ground::kSlopeAndStep);
  bool foot_placement() const { return feet_on_; }
  Ground ground() const { return ground_; }
  // World height of the ground under (x, z): 0 when flat; the foot_placement example's slope and 12 cm step
  // at z = 1.5, scaled by the character's height over 1.8 m.
  float ground_height(float x, float z) const;
  std::span<const LegJoints> legs() const { return legs_; }
  int pelvis() const { return pelvis_; }
  // Legs by name: joints called "...foot..." (not toes, balls or ends) whose parent and grandparent make a
  // chain; the toe is the foot's first child. pelvis: the lowest joint above every thigh (-1 when none).
  static std::vector<LegJoints> find_legs(const Skeleton& skeleton, int& pelvis);

  // The pose to draw (model space of the character, under world()): the Animator's, or the blend space's,
  // after foot placement.
  std::span<const Mat4> model() const;
  std::span<const JointPose> locals() const;

  // The expression layer (Animator::set_morph_override): `weight` replaces the clips' weight of `target` of
  // mesh `mesh`; NaN removes it. Kept across Animator rebuilds. False for a mesh or target that does not
  // exist.
  bool set_morph_override(int mesh, int target, float weight);
  float morph_override(int mesh, int target) const;  // NaN when none
  // Mesh `mesh`'s morph weights after the last update (the base clip's and layers', overrides applied).
  std::span<const float> morph_weights(int mesh) const { return animator_->mesh_morph_weights(mesh); }

  // Advances by dt (unless paused) and logs the events.
  void update(float dt);
  long long step() const { return step_; }
  const std::deque<LoggedEvent>& events() const { return events_; }
  void clear_events() { events_.clear(); }
  double last_update_ms() const { return last_update_ms_; }

  // The model-space pose of `clip` of `asset` at `time` (clamped into the clip), as sampling and
  // LocalToModelJob give it: onion-skin ghosts and motion trails, without moving the playhead. False for a
  // clip that is not one. `cache` keeps a keyed clip's search positions between calls.
  static bool pose_at(const CharacterAsset& asset, int clip, float time, SamplingCache& cache,
                      std::vector<JointPose>& locals, std::vector<Mat4>& model);

  // 1 for `joint` and every joint below it, 0 elsewhere (skeletons are ordered parents first).
  static std::vector<float> subtree_mask(const Skeleton& skeleton, int joint);

 private:
  void rebuild_animator();  // a new Animator with the current settings, at the current clip and time
  void rebuild_blend();     // the same for the blend space player
  void advance(float dt);   // one update of the animator or blend space, its events logged
  void log_events(std::span<const AnimEvent> events);
  void finish_pose();  // model()/locals() of the current source, feet placed
  static float ground_for_job(const void* playback, float x, float z);

  struct Blend {
    BlendSpace space;
    std::optional<BlendSpacePlayer> player;  // made once `space` has its final address
  };

  std::shared_ptr<const LoadedCharacter> character_;
  NotifySet notifies_;
  CharacterAsset in_place_;              // skeleton and clips played in place (root motion on)
  std::vector<RootMotionTrack> tracks_;  // one per clip of in_place_
  std::unique_ptr<Animator> animator_;
  bool root_motion_ = false, paused_ = false;
  float speed_ = 1;
  float range_in_ = 0, range_out_ = 0;  // the loop range (none when out <= in)
  LoopMode loop_mode_ = LoopMode::kRepeat;
  int layer_clip_ = -1, layer_joint_ = -1, layer_slot_ = -1;
  float layer_weight_ = 1;
  std::vector<float> layer_mask_;
  Mat4 world_;
  std::vector<Vec3> path_;
  long long step_ = 0;
  std::deque<LoggedEvent> events_;
  std::unique_ptr<Blend> blend_;
  std::vector<int> blend_clips_;
  std::vector<BlendPoint> blend_points_;
  std::vector<std::string> blend_markers_;
  int blend_dimensions_ = 1;
  std::string blend_error_;
  BlendPoint blend_parameter_;
  bool feet_on_ = false;
  Ground ground_ = Ground::kSlopeAndStep;
  std::vector<LegJoints> legs_;
  int pelvis_ = -1;
  Vec3 forward_{0, 0, 1};
  float ground_scale_ = 1;
  Mat4 placed_world_;
  std::vector<std::vector<float>> morph_overrides_;  // per mesh, per target; NaN: none
  std::vector<JointPose> locals_;                    // the pose of blend space or foot placement
  std::vector<Mat4> model_;
  bool own_pose_ = false;  // model_/locals_ hold the pose (else the Animator's)
  double last_update_ms_ = 0;
};

}  // namespace ossa::viewer
