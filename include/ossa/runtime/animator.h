// ossa/runtime/animator.h — the per-character animation instance a game drives every frame.
//
// snippet: examples/quick_start.cpp quick_start
//   auto loaded = ossa::load_character(argv[1]);  // a model file or .ossa; load_ossa_character: .ossa only
//   if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
//   const ossa::LoadedCharacter& hero = **loaded;  // shared, read-only: any number of animators may use it
//   ossa::Animator anim = hero.animator();         // its notifies (sidecar or embedded) attached
//   auto on_step = [&](const ossa::AnimEvent& e) { ++steps, std::printf("step at %.2f s\n", e.time); };
//   if (!anim.on("FootL", on_step)) return std::fprintf(stderr, "no notify 'FootL'\n"), 1;
//   if (!anim.play(hero.asset.find_clip("Walk"))) return std::fprintf(stderr, "no clip 'Walk'\n"), 1;
//   for (int frame = 0; frame < 120; ++frame) {  // your frame loop
//     anim.update(1 / 60.f);
//     anim.dispatch();  // calls the handlers of this update's notifies
//     for (int m = 0; m < anim.mesh_count(); ++m) upload(m, anim.mesh_palette(m));  // the mesh's own slots
//   }
// (CPU skinning instead: ossa::SkinningJob::for_mesh(asset.meshes[m], anim.mesh_palette(m)).)
//
// Palettes: a mesh's vertices index its own palette slots (SkinnedMesh::joint_remap() maps slot -> joint),
// so skin mesh m with mesh_palette(m) (slot k = model[remap[k]] * mesh inverse_bind[k]). palette() has one
// matrix per skeleton joint (model[j] * skeleton inverse_bind[j]): for drawing joints or a mesh whose slots
// are the joints; SkinningJob::for_mesh refuses it for a mesh with another slot count.
//
// A base clip plays (with crossfades to the next one, optionally time-synchronised), and up to kMaxLayers
// layers go on top: override layers with a per-joint mask (upper body waves while the legs walk) or additive
// layers (see make_additive_clip). Clips are indices into asset.clips; find them by name with
// CharacterAsset::find_clip ("Walk" finds "Armature|Walk"). play(), crossfade() and inertialize() return
// false, and change nothing, for an index that is not a clip.
//
// Switching clips: play() jumps to the new clip; crossfade() evaluates both clips for its duration and
// blends them; inertialize() (ossa/runtime/inertialization.h) switches to the new clip at once and evaluates
// only it, showing it plus an offset from the pose shown last that decays to zero over the duration: the
// pose and its velocity are continuous at the switch, at the cost of one clip per frame instead of two. The
// offset applies to the base clips' pose, before layers (which go on as they were); morph weights switch to
// the new clip's directly, and root motion is the new clip's from the switch on.
//
// Notifies: a clip's notifies fire while its weight is at or above notify_weight_threshold (default 0.5);
// when its weight drops below it, or it stops or is replaced, its active states end. The exception is the
// clip being blended in by a crossfade: its notifies count from notify_blend_in_threshold (default 1e-5,
// Unreal's rule of a per-clip trigger threshold near zero), so a notify at its t = 0 ("WaveStart") fires on
// the first update of the fade, and the clip blended out keeps firing until its weight falls under 0.5 (both
// may fire during a fade). Set notify_blend_in_threshold = notify_weight_threshold for one rule for both.
// Morph targets: each mesh's weights (mesh_morph_weights(m)) come from the clips like the joints: the base
// clips' weights blended with the crossfade's weights (a mesh a clip does not animate counts at its default
// weights), then each layer whose clip animates the mesh: override layers lerp towards theirs by the layer
// weight (masks are per joint and do not apply), additive layers add weight x (theirs - default). Last, the
// game's expression layer: set_morph_override() replaces a target's weight, set_morph_offset() adds to it
// (both kept until changed; clear_morph_overrides() drops them). Apply the weights with
// ossa::MorphJob::for_mesh(asset.meshes[m], hero.mesh_morph_weights(m)) before skinning.
// Root motion: with root-motion tracks given (extract_root_motion), the base clip's travel is reported per
// update by root_delta() instead of moving the pose. Buffers are sized at construction and on play();
// update() does not allocate. Events carry pointers into the NotifySet, valid while it lives.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/notifies.h"
#include "ossa/asset/root_motion.h"
#include "ossa/runtime/inertialization.h"
#include "ossa/runtime/playhead.h"

namespace ossa {

struct AnimEvent {
  int clip = -1;
  int name_id = -1;                   // index into NotifySet::names; -1 for loop/finished
  const std::string* name = nullptr;  // the notify's name; null for loop/finished
  EventType type = EventType::kInstant;
  float time = 0;                               // clip time at which it fired
  int loop = 0;                                 // completed loops so far
  const std::string* payload = nullptr;         // JSON text, empty string when none; null for loop/finished
  std::span<const NotifyField> payload_fields;  // the payload object's members (Notify::fields)

  // A payload member by key, no JSON parser needed: with {"sound": "step", "volume": 0.8},
  // payload_string("sound") is "step" and payload_number("volume") is 0.8. `fallback` when the payload has
  // no member of that name and kind.
  std::string_view payload_string(std::string_view key, std::string_view fallback = {}) const;
  double payload_number(std::string_view key, double fallback = 0) const;
};

// How a crossfade times the clip it fades to.
enum class FadeSync : uint8_t {
  kNone,   // the new clip starts at its start
  kPhase,  // both advance at the same normalised rate, the new clip from the current one's ratio (walk -> run
           // without foot sliding)
};

class Animator {
 public:
  static constexpr int kMaxLayers = 4;

  // `root_motion`: one track per clip of `asset` (the clips played in place), or empty for no root motion.
  Animator(const CharacterAsset& asset, const NotifySet* notifies = nullptr,
           std::span<const RootMotionTrack> root_motion = {});
  // Holds `owner` (what owns the asset, notifies and tracks) as long as this Animator or a copy lives:
  // LoadedCharacter::animator() passes the character, so a temporary handle cannot leave it dangling.
  void keep_alive(std::shared_ptr<const void> owner) { owner_ = std::move(owner); }

  // Base clip. passes: 0 = forever (ignored for once). False (nothing changes) when `clip` is not an index
  // into asset.clips, e.g. the -1 of a failed find_clip.
  [[nodiscard]] bool play(int clip, LoopMode mode = LoopMode::kRepeat, int passes = 0, float start_time = 0);
  // Fades from the current base clip to `clip` over `duration` seconds (plays it at once when nothing plays
  // or duration <= 0), timed by `sync`. False (nothing changes) for an invalid clip.
  [[nodiscard]] bool crossfade(int clip, float duration, FadeSync sync = FadeSync::kNone,
                               LoopMode mode = LoopMode::kRepeat, int passes = 0);
  // Switches the base clip to `clip` at once, as play() does (the previous clips' notify states end), and
  // shows the pose going from the one shown last to the new clip by inertialization over `duration` seconds:
  // continuous in pose and velocity, and the clip exactly from the duration on. The new clip's velocity at
  // the switch comes from sampling it at its start and one frame (the last update's dt, 1/60 s before any)
  // before it: a looping clip's end, a non-looping clip's start. Plays it at once when nothing has been shown
  // yet (no update) or duration <= 0. One started during another replaces it from the pose shown; play() ends
  // it, crossfade() lets it decay. Morph weights switch directly. False (nothing changes) for an invalid
  // clip.
  [[nodiscard]] bool inertialize(int clip, float duration, LoopMode mode = LoopMode::kRepeat, int passes = 0);
  void stop();  // ends states; the pose goes back to rest
  void pause() { paused_ = true; }
  void resume() { paused_ = false; }
  void seek(float seconds);
  void seek_ratio(float ratio);
  void set_speed(float speed) { speed_ = speed; }  // negative plays backwards
  float speed() const { return speed_; }

  // Layers over the base. mask: per-joint weights (size joint_count) kept by reference, or empty for all
  // joints. Returns the layer slot, or -1 when all kMaxLayers are in use or the clip is invalid.
  int add_layer(int clip, float weight, std::span<const float> mask = {}, bool additive = false,
                LoopMode mode = LoopMode::kRepeat);
  void set_layer_weight(int layer, float weight);
  void remove_layer(int layer);

  float notify_weight_threshold = 0.5f;     // notifies of the base clip (outside fades), of the clip
                                            // blended out, and of layers count at this weight and above
  float notify_blend_in_threshold = 1e-5f;  // ... and of the clip being blended in by a crossfade

  // Advances every playing clip by dt seconds, collects events, samples, blends, computes model space, the
  // skeleton palette and every mesh's palette. Returns false when nothing plays (the rest pose is produced).
  bool update(float dt);

  // A pose made elsewhere (an AnimGraphInstance, your own blend tree) through this Animator's outputs:
  // model(), the skeleton palette and every mesh's palette, as update() makes them. False (nothing changes)
  // unless `locals` has one pose per joint. No allocation.
  bool apply_pose(std::span<const JointPose> locals);
  std::span<const AnimEvent> events() const { return events_; }  // this update's, in order
  size_t events_dropped() const { return dropped_; }
  // Calls `handler` for this notify's events in dispatch(). False (nothing registered) for a name no clip
  // has, e.g. a typo: check it.
  [[nodiscard]] bool on(std::string_view notify_name, std::function<void(const AnimEvent&)> handler);
  void dispatch() const;  // calls the handlers registered for this update's events

  std::span<const JointPose> locals() const { return locals_; }
  std::span<const Mat4> model() const { return model_; }
  // The skeleton's palette: [j] = model[j] * skeleton inverse_bind[j], one per joint. Not for skinning a
  // mesh (its vertices index its own slots): use mesh_palette().
  std::span<const Mat4> skeleton_palette() const { return palette_; }
  // Mesh m's skinning palette (asset.meshes[m]): slot k = model[joint_remap[k]] * inverse_binds[k]; what
  // SkinningJob::for_mesh and a GPU skinning shader take. Empty for an m that is not a mesh.
  std::span<const Mat4> mesh_palette(int mesh) const;
  int mesh_count() const { return static_cast<int>(mesh_palette_offset_.size()) - 1; }
  // Mesh m's morph target weights after this update (one per target; empty for a mesh without targets).
  std::span<const float> mesh_morph_weights(int mesh) const;
  // Every mesh's morph weights, mesh after mesh (mesh m's are mesh_morph_weights(m)): what
  // CharacterRenderer::draw_palette and draw_cpu take.
  std::span<const float> morph_weights() const { return morph_weights_; }
  // The expression layer, driven by code. False (nothing changes) for a mesh or target that does not exist.
  // An override replaces the clips' weight (NaN removes it); an offset is added after it (0 removes it).
  bool set_morph_override(int mesh, int target, float weight);
  bool set_morph_offset(int mesh, int target, float offset);
  void clear_morph_overrides();
  RootDelta root_delta() const { return root_delta_; }

  int clip() const { return base_[current_].clip; }
  float time() const { return base_[current_].playhead.time(); }
  int loops() const { return base_[current_].playhead.loops(); }
  bool finished() const { return base_[current_].playhead.finished(); }
  bool playing() const { return base_[current_].clip >= 0 && !finished(); }

 private:
  std::shared_ptr<const void> owner_;  // keep_alive()
  struct Track {
    int clip = -1;
    Playhead playhead;
    SamplingCache cache;
    std::vector<JointPose> pose;
    std::vector<float> morph;  // every mesh's morph weights sampled from the clip (morph_offset_ layout)
    float weight = 0;
    bool notify_active = false;  // weight at or above the threshold last update
  };
  struct Layer {
    Track track;
    std::span<const float> mask;
    bool additive = false;
    bool used = false;
  };

  void start_track(Track& t, int clip, LoopMode mode, int passes, float time);
  void advance_track(Track& t, double delta, float threshold);
  void end_track_states(Track& t);
  void collect(const Track& t);
  void finish_pose();  // locals_ -> model_, palette_, mesh palettes
  bool sample_track(Track& t);
  void sample_morph(Track& t, bool defaults_first);
  void update_morph_weights(Track& old, Track& cur);
  int morph_slot(int mesh, int target) const;  // index into morph_weights_, or -1

  const CharacterAsset* asset_;
  const NotifySet* notifies_;
  std::span<const RootMotionTrack> root_motion_;
  std::array<Track, 2> base_;  // current and (while fading) previous
  int current_ = 0;
  bool fading_ = false, sync_ = false, paused_ = false;
  float fade_time_ = 0, fade_duration_ = 0, speed_ = 1;
  std::array<Layer, kMaxLayers> layers_;
  EventBuffer scratch_;
  std::vector<AnimEvent> events_;
  size_t dropped_ = 0;
  std::vector<std::function<void(const AnimEvent&)>> handlers_;
  std::vector<JointPose> locals_, blended_;
  std::vector<float> mask_scratch_;
  std::vector<Mat4> model_, palette_;
  std::vector<Mat4> mesh_palettes_;          // every mesh's slots, one after the other
  std::vector<size_t> mesh_palette_offset_;  // mesh m: [offset[m], offset[m + 1])
  RootDelta root_delta_;
  // inertialize(): the transition, and the base pose of the last two updates (`shown_[shown_last_]` the
  // latest; `shown_count_` of them valid) with the last update's non-zero step, from which a transition
  // starts. Kept in two plain copies rather than by feeding the Inertializer every frame (which computes a
  // rotation vector per joint): only the frames in a transition pay for it.
  Inertializer inertializer_;
  std::array<std::vector<JointPose>, 2> shown_;
  std::vector<JointPose> inertia_before_;  // the new clip one frame before its start
  int shown_last_ = 0, shown_count_ = 0;
  float last_step_ = 0;  // seconds; 0: none yet
  // Morph weights of all meshes, one after the other: mesh m's targets at [offset[m], offset[m + 1]).
  std::vector<size_t> morph_offset_;
  std::vector<float> morph_defaults_, morph_weights_, morph_override_, morph_add_;
};

}  // namespace ossa
