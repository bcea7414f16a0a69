// What the viewer plays: one character's Animator driven by the viewer's controls, with the events it fired.
//
// Playback owns the Animator and rebuilds it when what it was made with changes (notifies edited in the
// viewer, root motion switched on or off), keeping the clip, time, speed, loop mode and layer. Root motion
// on: the clips play in place (extract_root_motion) and the character travels by Animator::root_delta(), the
// path it took kept for drawing; off: the clips play as authored. Plain C++ (no GL, no ImGui).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ossa/asset/notifies.h"
#include "ossa/runtime/animator.h"
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
  // Frames of the base clip: forward runs updates (events fire as in play); backward seeks.
  void step_frames(int frames);

  // "" when done, else why not (a clip that cannot be played in place, e.g. keyed).
  std::string set_root_motion(bool on);
  bool root_motion() const { return root_motion_; }
  const Mat4& world() const { return world_; }             // where root motion took the character
  const std::vector<Vec3>& path() const { return path_; }  // ground positions it travelled (x, 0, z)
  void reset_travel();

  // An override layer playing `clip` at `weight` on the subtree of `mask_joint` (-1: every joint); -1 clip
  // removes it. False for an invalid clip or joint.
  bool set_layer(int clip, float weight, int mask_joint);
  int layer_clip() const { return layer_clip_; }
  float layer_weight() const { return layer_weight_; }
  int layer_joint() const { return layer_joint_; }

  // Advances by dt (unless paused) and logs the events.
  void update(float dt);
  long long step() const { return step_; }
  const std::deque<LoggedEvent>& events() const { return events_; }
  void clear_events() { events_.clear(); }
  double last_update_ms() const { return last_update_ms_; }

  // 1 for `joint` and every joint below it, 0 elsewhere (skeletons are ordered parents first).
  static std::vector<float> subtree_mask(const Skeleton& skeleton, int joint);

 private:
  void rebuild_animator();  // a new Animator with the current settings, at the current clip and time
  void log_events();

  std::shared_ptr<const LoadedCharacter> character_;
  NotifySet notifies_;
  CharacterAsset in_place_;              // skeleton and clips played in place (root motion on)
  std::vector<RootMotionTrack> tracks_;  // one per clip of in_place_
  std::unique_ptr<Animator> animator_;
  bool root_motion_ = false, paused_ = false;
  float speed_ = 1;
  LoopMode loop_mode_ = LoopMode::kRepeat;
  int layer_clip_ = -1, layer_joint_ = -1, layer_slot_ = -1;
  float layer_weight_ = 1;
  std::vector<float> layer_mask_;
  Mat4 world_;
  std::vector<Vec3> path_;
  long long step_ = 0;
  std::deque<LoggedEvent> events_;
  double last_update_ms_ = 0;
};

}  // namespace ossa::viewer
