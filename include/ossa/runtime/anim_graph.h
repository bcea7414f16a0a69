// ossa/runtime/anim_graph.h — animation state machines: the data-driven AnimInstance a game drives with
// parameters.
//
// snippet: examples/anim_graph.cpp anim_graph
//   auto graph = ossa::AnimGraph::load(graph_path, hero.asset);  // NAME.animgraph.json, checked whole
//   if (!graph) return std::fprintf(stderr, "%s\n", graph.error().c_str()), 1;
//   ossa::AnimGraphInstance anim(*graph, hero.asset, &hero.notifies);          // one per character
//   const int speed = anim.parameter("speed"), wave = anim.parameter("wave");  // handles: once, by name
//   if (speed < 0 || wave < 0) return std::fprintf(stderr, "the graph lacks speed or wave\n"), 1;
//   for (int frame = 0; frame < 240; ++frame) {  // your frame loop
//     anim.set_float(speed, frame < 120 ? frame / 60.f : 0.f);
//     anim.set_bool(wave, frame >= 150);
//     anim.update(1 / 60.f);
//     for (const ossa::AnimGraphEvent& e : anim.events())
//       if (e.type == ossa::AnimGraphEvent::kStateEnter)
//         std::printf("%s\n", anim.state_name(e).c_str()), ++entered;
//     for (int m = 0; m < anim.animator().mesh_count(); ++m) upload(m, anim.animator().mesh_palette(m));
//   }
//
// The asset (JSON; docs/anim-graphs.md has the whole format): parameters (float, bool, trigger) with
// defaults, and layers, each with states (a clip with `loop` and `speed`, a 1D or 2D blend space driven by
// float parameters, or `empty`), an entry state and transitions ({"from": STATE or "*", "to", "when": [...],
// "exit_time", "duration", "offset", "sync", "blend": "crossfade" or "inertialize"}). Override layers take a
// joint mask ("mask": {"root": JOINT}: that joint's subtree) and a weight (a number, or a float parameter's
// name); "additive": true adds the layer's pose (additive clips, see make_additive_clip) instead.
//
// Per update(dt), for each layer in order (the rules, exactly):
//  1. The playheads of the current state and of the states still fading out advance by dt x their speed,
//     and the running blend by dt; a blend that completes here fires transition_end and drops the states it
//     faded out (their open notify states end).
//  2. At most one transition fires: the "*" transitions first, then the current state's, each group in file
//     order; the first whose conditions all hold. A "*" transition never fires into the current state.
//  3. Conditions (`when`, all must hold): "name" (a bool true, or a trigger set), "!name" (a bool false, or a
//     trigger not set), [name, op, number] (op one of < <= > >= == != on a float). `exit_time` e is measured
//     in normalised time (time / duration) of the current state: a non-looping state is eligible while it is
//     at e or past it; a looping state on an update in which it reaches or crosses a point whose fractional
//     normalised time is e, once per loop (either direction). An empty state has no time (never eligible). A
//     transition with exit_time and no `when` fires by itself at that time.
//  4. Firing: transition_interrupted (when a blend was running: its whole pose then fades out as one, its
//     weights frozen), state_exit (from), state_enter (to), transition_begin. The target starts at normalised
//     time `offset` (default 0), or with "sync": true at the source's fractional normalised time; its weight
//     goes from 0 to 1 linearly over `duration` seconds counted from the next update (0: at once, and
//     transition_end fires right after transition_begin). The target does not advance in the update in which
//     it is entered. With "blend": "inertialize" the layer switches at once instead (as with duration 0:
//     transition_end right after transition_begin, the states it left dropped), and the instance's output
//     pose goes from the one shown last to the new one by inertialization (ossa/runtime/inertialization.h)
//     over `duration` seconds, this update's dt the first of them: one pose evaluated per frame, the output
//     continuous at the switch and exactly the graph's own pose from the duration on. As in Bollo's original,
//     the new pose's velocity at the switch is taken as zero (the graph does not evaluate its states a frame
//     back): the shown pose keeps its position and velocity, then changes velocity by the new state's own
//     (Animator::inertialize samples its clip a frame back and is continuous in velocity too). Several firing
//     in one update (in different layers) share one transition, of the longest duration; a crossfade firing
//     during one lets it decay.
//  5. The triggers named by the transition that fired are cleared; other triggers stay set until consumed or
//     reset_trigger().
//  6. Notifies: a clip state fires its clip's notifies while its weight in the layer times the layer's weight
//     is at or above 0.5 (the state being blended in: from 1e-5), the Animator's rules; a blend-space state
//     fires its leader's. They come out as AnimGraphEvent::kNotify with the AnimEvent inside.
// Layers then compose as the Animator's layers do: the base layer over the rest pose (empty states show the
// rest pose), each further layer over the result by its weight and mask (empty states show what is below).
//
// Costs: AnimGraph::parse allocates; an AnimGraphInstance allocates at construction only (each state's
// players, kMaxActiveStates per layer); update() does no allocation and no string lookup. Instances of one
// graph share it (immutable): update them on as many threads as you like, one instance per thread at a time.
// More than kMaxActiveStates states in one layer (interruptions faster than their blends) drops the oldest,
// lightest one. A graph with an inertialized transition keeps the output pose and its velocity every update
// (a rotation vector per joint); other graphs do not pay for it. Load-time checks (each a clear error naming
// the item, nothing partial): unknown clips, states, parameters, types or keys; duplicate names; a missing
// entry state; a condition on a parameter of the wrong type; a transition with neither `when` nor
// `exit_time`; a cycle of transitions that fire by themselves at exit time 0; NaN, infinite, negative or
// absurd numbers; JSON nested deeper than 64.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/result.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/blend_space.h"
#include "ossa/runtime/inertialization.h"
#include "ossa/runtime/playhead.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {

struct AnimGraphParameter {
  enum Type : uint8_t { kFloat, kBool, kTrigger } type = kFloat;
  std::string name;
  float default_value = 0;  // bools and triggers: 0 or 1
};

struct AnimGraphCondition {
  enum Op : uint8_t { kSet, kNotSet, kLess, kLessEqual, kGreater, kGreaterEqual, kEqual, kNotEqual };
  int parameter = -1;
  Op op = kSet;
  float value = 0;  // the comparisons' right side
};

struct AnimGraphTransition {
  int from = -1;  // state index in the layer; -1: any state ("*")
  int to = -1;
  std::vector<AnimGraphCondition> when;
  bool has_exit_time = false;
  float exit_time = 0;  // normalised
  float duration = 0;   // seconds
  float offset = 0;     // normalised start of the target
  bool sync = false;    // start the target at the source's fractional normalised time
  // How the pose goes to the target: a crossfade of the layer's states over `duration`, or at once with the
  // output inertialized over `duration` ("blend": "inertialize").
  enum Blend : uint8_t { kCrossfade, kInertialize } blend = kCrossfade;
  // The layer's crossfade, in seconds: 0 (at once) for an inertialized transition.
  float fade_duration() const { return blend == kCrossfade ? duration : 0.f; }
};

struct AnimGraphState {
  enum Kind : uint8_t { kClip, kBlend1D, kBlend2D, kEmpty } kind = kClip;
  std::string name;
  int clip = -1;  // kClip
  bool loop = true;
  float speed = 1;
  // Blend spaces: the space, the clip of each sample, the float parameters that drive it, sync markers.
  BlendSpace space;
  std::vector<int> clips;
  int parameter_x = -1, parameter_y = -1;
  std::vector<std::string> sync_markers;
};

struct AnimGraphLayer {
  std::string name;
  std::vector<AnimGraphState> states;
  std::vector<AnimGraphTransition> transitions;  // in file order
  int entry = 0;
  std::vector<float> mask;  // per joint (empty: every joint)
  bool additive = false;
  float weight = 1;           // when weight_parameter < 0
  int weight_parameter = -1;  // a float parameter
};

class AnimGraph {
 public:
  // The graph for `asset`'s clips and joints; `source_name` names the text in errors.
  static Result<std::shared_ptr<const AnimGraph>> parse(std::string_view json_text,
                                                        const CharacterAsset& asset,
                                                        const std::string& source_name = "graph");
  static Result<std::shared_ptr<const AnimGraph>> load(const std::string& path, const CharacterAsset& asset);

  std::span<const AnimGraphParameter> parameters() const { return parameters_; }
  std::span<const AnimGraphLayer> layers() const { return layers_; }
  int find_parameter(std::string_view name) const;  // -1 when absent
  int find_state(int layer, std::string_view name) const;

  static constexpr long long kMaxFileBytes = 16ll << 20;
  static constexpr int kMaxStates = 1024, kMaxTransitions = 4096, kMaxLayers = 16, kMaxParameters = 1024;

 private:
  std::vector<AnimGraphParameter> parameters_;
  std::vector<AnimGraphLayer> layers_;
};

struct AnimGraphEvent {
  enum Type : uint8_t {
    kStateEnter,
    kStateExit,
    kTransitionBegin,
    kTransitionEnd,
    kTransitionInterrupted,
    kNotify,  // a clip's notify or loop event: `notify`
  } type = kStateEnter;
  int layer = 0;
  int state = -1;       // entered or exited; the transition's target; the notify's state
  int from_state = -1;  // transitions: their source state
  int transition = -1;  // index into the layer's transitions (begin, end, interrupted: the one that ran)
  float time = 0;       // normalised time of `state` (notifies: the clip time, in notify.time)
  AnimEvent notify;
};
// "state_enter", "state_exit", "transition_begin", "transition_end", "transition_interrupted", "notify".
const char* to_string(AnimGraphEvent::Type type);

class AnimGraphInstance {
 public:
  static constexpr int kMaxActiveStates = 8;  // per layer: the current state and those fading out
  static constexpr size_t kEventCapacity = 256;

  // Keeps `graph`, and `asset` and `notifies` by reference (they must outlive it).
  AnimGraphInstance(std::shared_ptr<const AnimGraph> graph, const CharacterAsset& asset,
                    const NotifySet* notifies = nullptr);

  const AnimGraph& graph() const { return *graph_; }
  // A parameter's handle (look it up once), or -1 for a name the graph lacks.
  int parameter(std::string_view name) const { return graph_->find_parameter(name); }
  // False (nothing changes) for a handle that is not a parameter of that type, or a non-finite float.
  bool set_float(int parameter, float value);
  bool set_bool(int parameter, bool value);
  bool set_trigger(int parameter);
  bool reset_trigger(int parameter);
  float value(int parameter) const;  // floats; bools and triggers as 0 or 1; 0 for a bad handle

  // Advances every layer by dt (non-finite or negative: 0) under the rules above, then blends the pose into
  // animator() (model space and palettes).
  void update(float dt);
  std::span<const AnimGraphEvent> events() const { return events_; }  // this update's, in order
  size_t events_dropped() const { return dropped_; }

  int current_state(int layer) const;  // the state transitions leave from (a blend's target)
  float state_time(int layer) const;   // its normalised time (unwrapped: 2.25 is a quarter into a 3rd loop)
  bool blending(int layer) const;      // a transition's blend is running
  // The states playing in a layer and their weights in it (current last), for tools that draw the graph.
  int active_count(int layer) const;
  int active_state(int layer, int i) const;
  float active_weight(int layer, int i) const;

  const Animator& animator() const { return animator_; }  // model(), skeleton_palette(), mesh_palette(m)
  std::span<const JointPose> locals() const { return pose_; }

  // A state's name, for printing events.
  const std::string& state_name(const AnimGraphEvent& e) const;

 private:
  // A state playing in a layer (the current one, or one fading out).
  struct Active {
    int state = -1;
    int player = -1;               // blend spaces: index into the layer's players of that state
    float weight = 0, frozen = 0;  // weight this update; share of the interrupted mix (fading states)
    double norm = 0, prev_norm = 0;
    Playhead playhead;
    SamplingCache cache;
    std::vector<JointPose> pose;
    bool notify_active = false;
  };
  struct LayerState {
    std::vector<Active> active;  // kMaxActiveStates slots; [0, count) in use, the current one last
    int count = 0;
    bool blending = false, entered = false;
    double elapsed = 0;
    float duration = 0;
    int transition = -1, from = -1;
    std::vector<std::vector<BlendSpacePlayer>> players;  // per state: blend spaces' players (2 each)
    std::vector<std::vector<uint8_t>> player_used;
  };
  void enter(LayerState& layer, int layer_index, const AnimGraphTransition* t, int transition, int to,
             double start);
  void advance(LayerState& layer, int layer_index, Active& a, double dt, float weight, bool blend_in);
  void end_notifies(LayerState& layer, int layer_index, Active& a);
  bool holds(const AnimGraphTransition& t, const LayerState& layer) const;
  void push(const AnimGraphEvent& e);
  void push_notifies(std::span<const AnimEvent> notifies, int layer_index, const Active& a);  // as kNotify
  bool is(int parameter, int type) const;  // a handle of this graph's, of that AnimGraphParameter::Type
  void drop(LayerState& layer, int layer_index, int i);

  std::shared_ptr<const AnimGraph> graph_;
  const CharacterAsset* asset_;
  const NotifySet* notifies_;
  std::vector<float> values_;
  std::vector<LayerState> layers_;
  std::vector<AnimGraphEvent> events_;
  size_t dropped_ = 0;
  EventBuffer scratch_;
  std::vector<AnimEvent> notify_scratch_;
  std::vector<JointPose> pose_, below_, blended_;
  std::vector<float> keep_, take_;
  std::vector<BlendLayer> blend_layers_;
  // Inertialized transitions: on the output pose, kept up to date only when the graph has one.
  Inertializer inertializer_;
  bool inertialized_ = false;
  Animator animator_;
};

}  // namespace ossa
