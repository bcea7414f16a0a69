// Animation state machines (ossa/runtime/anim_graph.h) against truths written here, not taken from the
// runtime: a reference model of the documented rules (graph events over thousands of random graphs and input
// sequences), the Animator and BlendJob for poses, the notify rules, inertialized transitions, every
// load-time error, and threads.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracle_compare.h"
#include "ossa/import/load_character.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/blend_job.h"
#include "ossa/runtime/sample_job.h"
#include "test_paths.h"

namespace ossa {
namespace {

using json = nlohmann::json;

const LoadedCharacter& sample() {
  static const std::shared_ptr<const LoadedCharacter> loaded = [] {
    ModelLoadOptions options;
    options.import.isolate = false;
    auto c = load_character(test::source_dir() + "/assets/sample/ossa_sample.fbx", options);
    EXPECT_TRUE(c) << c.error();
    return c ? std::move(c).value() : nullptr;
  }();
  return *loaded;
}

std::shared_ptr<const AnimGraph> parse(const std::string& text) {
  auto g = AnimGraph::parse(text, sample().asset, "test");
  EXPECT_TRUE(g) << g.error();
  return g ? std::move(g).value() : nullptr;
}

// ---- A reference model of the rules (graph events only), written from the documentation ----

struct RefState {
  bool empty = false, loop = true;
  float speed = 1, length = 1;
};
struct RefCondition {
  int parameter = 0;
  std::string op;  // "set", "unset", "<", "<=", ">", ">=", "==", "!="
  float value = 0;
};
struct RefTransition {
  int from = -1, to = 0;
  std::vector<RefCondition> when;
  bool exit = false;
  float exit_time = 0, duration = 0, offset = 0;
  bool sync = false;
};
struct RefLayer {
  int entry = 0;
  std::vector<RefState> states;
  std::vector<RefTransition> transitions;
};
struct RefEvent {
  AnimGraphEvent::Type type;
  int layer, state, from, transition;
  float time;
};

class Reference {
 public:
  Reference(std::vector<RefLayer> layers, std::vector<int> types, std::vector<float> values)
      : layers_(std::move(layers)), types_(std::move(types)), values_(std::move(values)) {
    run_.resize(layers_.size());
    for (size_t l = 0; l < layers_.size(); ++l) run_[l].state = layers_[l].entry;
  }
  void set(int p, float v) { values_[p] = v; }
  std::vector<RefEvent> update(float dt_in) {
    std::vector<RefEvent> out;
    const double dt = dt_in > 0 ? dt_in : 0.0;
    for (size_t li = 0; li < layers_.size(); ++li) {
      const int l = static_cast<int>(li);
      Run& r = run_[li];
      const RefLayer& layer = layers_[li];
      if (!r.started)
        r.started = true, out.push_back({AnimGraphEvent::kStateEnter, l, layer.entry, -1, -1, 0});
      // 1. advance
      const RefState& s = layer.states[r.state];
      r.before = r.time;
      if (!s.empty) {
        r.time += dt * s.speed / s.length;
        if (!s.loop) r.time = std::min(1.0, std::max(0.0, r.time));
      }
      if (r.blending) {
        r.elapsed += dt;
        if (r.elapsed >= r.duration) {
          out.push_back({AnimGraphEvent::kTransitionEnd, l, r.state, r.from, r.transition, float(r.time)});
          r.blending = false;
        }
      }
      // 2. one transition
      int chosen = -1;
      for (size_t t = 0; t < layer.transitions.size() && chosen < 0; ++t) {
        const RefTransition& tr = layer.transitions[t];
        if (tr.from == -1 && tr.to != r.state && eligible(tr, layer, r)) chosen = static_cast<int>(t);
      }
      for (size_t t = 0; t < layer.transitions.size() && chosen < 0; ++t) {
        const RefTransition& tr = layer.transitions[t];
        if (tr.from == r.state && eligible(tr, layer, r)) chosen = static_cast<int>(t);
      }
      if (chosen < 0) continue;
      const RefTransition& tr = layer.transitions[chosen];
      if (r.blending)
        out.push_back(
            {AnimGraphEvent::kTransitionInterrupted, l, r.state, r.from, r.transition, float(r.time)});
      out.push_back({AnimGraphEvent::kStateExit, l, r.state, -1, chosen, float(r.time)});
      const double start = tr.sync ? r.time - std::floor(r.time) : tr.offset;
      out.push_back({AnimGraphEvent::kStateEnter, l, tr.to, -1, chosen, float(start)});
      out.push_back({AnimGraphEvent::kTransitionBegin, l, tr.to, r.state, chosen, float(start)});
      for (const RefCondition& c : tr.when)
        if (types_[c.parameter] == 2 && c.op == "set") values_[c.parameter] = 0;
      r.from = r.state, r.transition = chosen, r.state = tr.to;
      r.time = r.before = start;
      r.elapsed = 0, r.duration = tr.duration;
      r.blending = tr.duration > 0;
      if (!r.blending)
        out.push_back({AnimGraphEvent::kTransitionEnd, l, r.state, r.from, chosen, float(start)});
    }
    return out;
  }

 private:
  struct Run {
    int state = 0, from = -1, transition = -1;
    double time = 0, before = 0, elapsed = 0;
    float duration = 0;
    bool blending = false, started = false;
  };
  bool eligible(const RefTransition& tr, const RefLayer& layer, const Run& r) const {
    for (const RefCondition& c : tr.when) {
      const float v = values_[c.parameter];
      const bool ok = c.op == "set"     ? v != 0
                      : c.op == "unset" ? v == 0
                      : c.op == "<"     ? v < c.value
                      : c.op == "<="    ? v <= c.value
                      : c.op == ">"     ? v > c.value
                      : c.op == ">="    ? v >= c.value
                      : c.op == "=="    ? v == c.value
                                        : v != c.value;
      if (!ok) return false;
    }
    if (!tr.exit) return true;
    const RefState& s = layer.states[r.state];
    if (s.empty) return false;
    if (!s.loop) return r.time >= tr.exit_time;
    // Points k + e in (before, time] forwards, [time, before) backwards.
    const double e = tr.exit_time - std::floor(tr.exit_time);
    if (r.time > r.before) return std::floor(r.time - e) > std::floor(r.before - e);
    if (r.time < r.before) return std::ceil(r.time - e) < std::ceil(r.before - e);
    return false;
  }

  std::vector<RefLayer> layers_;
  std::vector<int> types_;  // 0 float, 1 bool, 2 trigger
  std::vector<float> values_;
  std::vector<Run> run_;
};

// A random graph over the sample's clips, as JSON and as the reference's tables.
struct RandomGraph {
  std::string text;
  std::vector<RefLayer> layers;
};

const char* const kClips[] = {"Idle", "Walk", "Turn", "Wave"};
const char* const kParameters[] = {"f0", "f1", "b0", "b1", "t0", "t1"};
const int kTypes[] = {0, 0, 1, 1, 2, 2};

RandomGraph random_graph(std::mt19937& rng) {
  auto uniform = [&](float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  RandomGraph g;
  json doc;
  doc["parameters"] = {{"f0", {{"type", "float"}}},   {"f1", {{"type", "float"}, {"default", 0.5}}},
                       {"b0", {{"type", "bool"}}},    {"b1", {{"type", "bool"}, {"default", true}}},
                       {"t0", {{"type", "trigger"}}}, {"t1", {{"type", "trigger"}}}};
  const int layer_count = 1 + pick(3);
  for (int l = 0; l < layer_count; ++l) {
    RefLayer ref;
    json layer = {{"name", "L" + std::to_string(l)}};
    if (l > 0) layer["mask"] = {{"root", chance(0.5) ? "spine_02" : "thigh_l"}};
    if (l > 0 && chance(0.5)) layer["weight"] = "f1";
    const int states = 2 + pick(5);
    for (int s = 0; s < states; ++s) {
      RefState rs;
      json state = {{"name", "S" + std::to_string(s)}};
      if (chance(0.2)) {
        state["empty"] = true;
        rs.empty = true;
      } else {
        const char* clip = kClips[pick(4)];
        state["clip"] = clip;
        rs.length = std::max(sample().asset.clips[sample().asset.find_clip(clip)].duration(), 1e-4f);
        rs.loop = chance(0.6);
        state["loop"] = rs.loop;
        const float speeds[] = {1, 0.5f, 2, -1, 1.3f};
        rs.speed = speeds[pick(5)];
        state["speed"] = rs.speed;
      }
      layer["states"].push_back(state);
      ref.states.push_back(rs);
    }
    ref.entry = pick(states);
    layer["entry"] = "S" + std::to_string(ref.entry);
    const int transitions = 1 + pick(10);
    layer["transitions"] = json::array();
    for (int t = 0; t < transitions; ++t) {
      RefTransition rt;
      json tr;
      rt.from = chance(0.2) ? -1 : pick(states);
      rt.to = pick(states);
      tr["from"] = rt.from < 0 ? "*" : "S" + std::to_string(rt.from);
      tr["to"] = "S" + std::to_string(rt.to);
      const int conditions = pick(3);
      for (int c = 0; c < conditions; ++c) {
        RefCondition rc;
        rc.parameter = pick(6);
        if (kTypes[rc.parameter] == 0) {
          const char* ops[] = {"<", "<=", ">", ">=", "==", "!="};
          rc.op = ops[pick(6)];
          rc.value = chance(0.2) ? 0.5f : uniform(-1, 1);
          tr["when"].push_back({kParameters[rc.parameter], rc.op, rc.value});
        } else {
          const bool negate = chance(0.3);
          rc.op = negate ? "unset" : "set";
          tr["when"].push_back(std::string(negate ? "!" : "") + kParameters[rc.parameter]);
        }
        rt.when.push_back(rc);
      }
      if (rt.when.empty() || chance(0.4)) {
        rt.exit = true;
        rt.exit_time = chance(0.1) ? 0.f : uniform(0, 1.5f);
        tr["exit_time"] = rt.exit_time;
      }
      rt.duration = chance(0.25) ? 0.f : uniform(0.02f, 0.5f);
      tr["duration"] = rt.duration;
      if (chance(0.3)) rt.offset = uniform(0, 1), tr["offset"] = rt.offset;
      if (chance(0.2)) rt.sync = true, tr["sync"] = true;
      layer["transitions"].push_back(tr);
      ref.transitions.push_back(rt);
    }
    doc["layers"].push_back(layer);
    g.layers.push_back(std::move(ref));
  }
  g.text = doc.dump();
  return g;
}

// The runtime's graph events (notifies left out) against the reference's, over thousands of random graphs
// and input sequences: random dt, parameter changes, triggers, exit times, looping and one-shot states,
// interruptions.
TEST(AnimGraph, RuntimeFollowsTheReferenceModelOnRandomGraphs) {
  std::mt19937 rng(20261202);
  int graphs = 0, refused = 0, transitions = 0, interruptions = 0, exits = 0;
  for (int g = 0; g < 2000; ++g) {
    const RandomGraph random = random_graph(rng);
    auto graph = AnimGraph::parse(random.text, sample().asset, "random");
    if (!graph) {
      // Only the documented refusal can happen here: a cycle of self-firing exit-time-0 transitions.
      ASSERT_NE(graph.error().find("never settle"), std::string::npos) << graph.error() << "\n"
                                                                       << random.text;
      ++refused;
      continue;
    }
    ++graphs;
    std::vector<float> defaults;  // in kParameters' order (the reference's)
    for (const char* name : kParameters)
      defaults.push_back((*graph)->parameters()[(*graph)->find_parameter(name)].default_value);
    Reference ref(random.layers, std::vector<int>(std::begin(kTypes), std::end(kTypes)), defaults);
    AnimGraphInstance anim(*graph, sample().asset, &sample().notifies);
    for (int step = 0; step < 150; ++step) {
      for (int p = 0; p < 6; ++p) {
        if (!std::bernoulli_distribution(0.15)(rng)) continue;
        const int handle = anim.parameter(kParameters[p]);
        ASSERT_GE(handle, 0);
        if (kTypes[p] == 0) {
          const float v = std::bernoulli_distribution(0.2)(rng)
                              ? 0.5f
                              : std::uniform_real_distribution<float>(-1.5f, 1.5f)(rng);
          ASSERT_TRUE(anim.set_float(handle, v));
          ref.set(p, v);
        } else if (kTypes[p] == 1) {
          const bool v = std::bernoulli_distribution(0.5)(rng);
          ASSERT_TRUE(anim.set_bool(handle, v));
          ref.set(p, v ? 1.f : 0.f);
        } else if (std::bernoulli_distribution(0.85)(rng)) {
          ASSERT_TRUE(anim.set_trigger(handle));
          ref.set(p, 1);
        } else {
          ASSERT_TRUE(anim.reset_trigger(handle));
          ref.set(p, 0);
        }
      }
      const float dt =
          std::bernoulli_distribution(0.05)(rng) ? 0.f : std::uniform_real_distribution<float>(0, 0.15f)(rng);
      const std::vector<RefEvent> expected = ref.update(dt);
      anim.update(dt);
      std::vector<AnimGraphEvent> got;
      for (const AnimGraphEvent& e : anim.events())
        if (e.type != AnimGraphEvent::kNotify) got.push_back(e);
      if (got.size() != expected.size()) {
        for (const RefEvent& e : expected)
          std::printf("expected type %d layer %d state %d from %d transition %d time %f\n", int(e.type),
                      e.layer, e.state, e.from, e.transition, e.time);
        for (const AnimGraphEvent& e : got)
          std::printf("got type %d layer %d state %d from %d transition %d time %f\n", int(e.type), e.layer,
                      e.state, e.from_state, e.transition, e.time);
      }
      ASSERT_EQ(got.size(), expected.size()) << "graph " << g << " step " << step << "\n" << random.text;
      for (size_t i = 0; i < got.size(); ++i) {
        const AnimGraphEvent& a = got[i];
        const RefEvent& b = expected[i];
        ASSERT_EQ(a.type, b.type) << "graph " << g << " step " << step << " event " << i;
        ASSERT_EQ(a.layer, b.layer);
        ASSERT_EQ(a.state, b.state) << "graph " << g << " step " << step;
        ASSERT_EQ(a.from_state, b.from);
        ASSERT_EQ(a.transition, b.transition);
        ASSERT_NEAR(a.time, b.time, 1e-4f) << "graph " << g << " step " << step;
        transitions += a.type == AnimGraphEvent::kTransitionBegin;
        interruptions += a.type == AnimGraphEvent::kTransitionInterrupted;
        exits += a.type == AnimGraphEvent::kStateExit;
      }
    }
  }
  std::printf("reference model: %d graphs (%d refused as never settling), %d transitions, %d interrupted\n",
              graphs, refused, transitions, interruptions);
  EXPECT_GT(graphs, 1500);
  EXPECT_GT(transitions, 20000);
  EXPECT_GT(interruptions, 1000);
  EXPECT_EQ(exits, transitions);
}

// ---- Poses, against the Animator and BlendJob ----

std::string one_clip_graph(const std::string& clip) {
  return R"({"layers": [{"name": "base", "entry": "A", "states": [{"name": "A", "clip": ")" + clip +
         R"("}]}]})";
}

TEST(AnimGraph, OneStateIsTheAnimatorPlayingItsClip) {
  const CharacterAsset& asset = sample().asset;
  AnimGraphInstance anim(parse(one_clip_graph("Walk")), asset, &sample().notifies);
  Animator reference(asset, &sample().notifies);
  ASSERT_TRUE(reference.play(asset.find_clip("Walk")));
  for (int step = 0; step < 100; ++step) {
    const float dt = 0.013f * static_cast<float>(step % 7);
    anim.update(dt);
    reference.update(dt);
    for (size_t j = 0; j < anim.locals().size(); ++j)
      for (int c = 0; c < 4; ++c) ASSERT_EQ(anim.locals()[j].rotation[c], reference.locals()[j].rotation[c]);
    for (size_t j = 0; j < reference.model().size(); ++j)
      for (int c = 0; c < 16; ++c) ASSERT_EQ(anim.animator().model()[j].m[c], reference.model()[j].m[c]);
    // The same notifies, in the same order.
    std::vector<std::string> got, want;
    for (const AnimGraphEvent& e : anim.events())
      if (e.type == AnimGraphEvent::kNotify)
        got.push_back(std::to_string(int(e.notify.type)) + (e.notify.name ? *e.notify.name : ""));
    for (const AnimEvent& e : reference.events())
      want.push_back(std::to_string(int(e.type)) + (e.name ? *e.name : ""));
    ASSERT_EQ(got, want) << "step " << step;
  }
}

// Mid-transition, the layer's pose is the two clips' poses blended at weight elapsed / duration, each clip at
// its own time (the target started at `offset`); an upper layer masked to the left arm changes only the arm.
TEST(AnimGraph, BlendsAndMasksAreTheBlendJobsOfTheClipPoses) {
  const CharacterAsset& asset = sample().asset;
  auto graph = parse(R"({"parameters": {"go": {"type": "trigger"}, "w": {"type": "float", "default": 0.6}},
    "layers": [
      {"name": "base", "entry": "Idle", "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "Walk"}],
       "transitions": [{"from": "Idle", "to": "Walk", "when": ["go"], "duration": 0.4, "offset": 0.25}]},
      {"name": "arm", "mask": {"root": "upperarm_l"}, "weight": "w", "entry": "Wave",
       "states": [{"name": "Wave", "clip": "Wave"}]}]})");
  AnimGraphInstance anim(graph, asset, &sample().notifies);
  anim.update(0.3f);
  ASSERT_TRUE(anim.set_trigger(anim.parameter("go")));
  anim.update(0.1f);  // fires: Walk enters at 0.25 of its length, weight 0
  EXPECT_EQ(anim.value(anim.parameter("go")), 0) << "the trigger is consumed";
  anim.update(0.1f);  // weight 0.25
  const int idle = asset.find_clip("Idle"), walk = asset.find_clip("Walk"), wave = asset.find_clip("Wave");
  auto sampled = [&](int clip, float t) {
    std::vector<JointPose> pose(asset.skeleton.joint_count());
    SamplingCache cache;
    EXPECT_TRUE((SampleJob{.clip = &asset.clips[clip], .time = t, .cache = &cache, .output = pose}.run()));
    return pose;
  };
  const std::vector<JointPose> a = sampled(idle, 0.5f),
                               b = sampled(walk, 0.25f * asset.clips[walk].duration() + 0.1f),
                               c = sampled(wave, 0.5f);
  std::vector<JointPose> base(a.size()), expected(a.size());
  const BlendLayer pair[2] = {{a, 0.75f, {}}, {b, 0.25f, {}}};
  ASSERT_TRUE((BlendJob{pair, {}, asset.skeleton.rest_pose(), base}.run()));
  std::vector<float> keep(a.size(), 1.f), take(a.size(), 0.f);
  const int arm = asset.skeleton.find_joint("upperarm_l");
  for (int j = arm; j < asset.skeleton.subtree_end(arm); ++j) keep[j] = 0.4f, take[j] = 1.f;
  const BlendLayer over[2] = {{base, 1.f, keep}, {c, 0.6f, take}};
  ASSERT_TRUE((BlendJob{over, {}, asset.skeleton.rest_pose(), expected}.run()));
  float worst = 0;
  for (size_t j = 0; j < a.size(); ++j)
    for (int k = 0; k < 4; ++k)
      worst = std::max(worst, std::fabs(anim.locals()[j].rotation[k] - expected[j].rotation[k]));
  EXPECT_LT(worst, 1e-5f);
  for (int j = 0; j < arm; ++j)
    for (int k = 0; k < 4; ++k) ASSERT_NEAR(anim.locals()[j].rotation[k], base[j].rotation[k], 1e-6f) << j;
}

// Notifies under the Animator's weight rules: the state being blended in fires from its first update (Wave's
// WaveStart at t = 0), the state blended out keeps firing while its weight is at least 0.5.
TEST(AnimGraph, NotifiesFollowTheAnimatorsWeightRules) {
  const CharacterAsset& asset = sample().asset;
  auto graph = parse(R"({"parameters": {"go": {"type": "trigger"}},
    "layers": [{"name": "base", "entry": "Walk", "states": [{"name": "Walk", "clip": "Walk"}, {"name": "Wave", "clip": "Wave"}],
       "transitions": [{"from": "Walk", "to": "Wave", "when": ["go"], "duration": 1.0}]}]})");
  AnimGraphInstance anim(graph, asset, &sample().notifies);
  anim.update(0.1f);
  ASSERT_TRUE(anim.set_trigger(anim.parameter("go")));
  anim.update(0.1f);                              // fires
  std::vector<std::pair<int, std::string>> seen;  // (step, name) of notifies
  for (int step = 0; step < 12; ++step) {
    anim.update(0.1f);
    for (const AnimGraphEvent& e : anim.events())
      if (e.type == AnimGraphEvent::kNotify && e.notify.name)
        seen.push_back({step, anim.state_name(e) + ":" + *e.notify.name});
  }
  bool wave_start = false, foot_after_half = false;
  for (const auto& [step, name] : seen) {
    if (name == "Wave:WaveStart") wave_start |= step == 0;
    // Walk's weight falls under 0.5 after 0.5 s of the 1 s fade: none of its notifies after step 4.
    if (name.starts_with("Walk:") && step > 5) foot_after_half = true;
  }
  EXPECT_TRUE(wave_start) << "WaveStart fires on the first update of the fade";
  EXPECT_FALSE(foot_after_half);
}

// A blend-space state that stops counting (faded out under 0.5) ends its open notify states: every begin has
// its end. Walk's ArmSwing (0.2 s to 0.5 s) is open when the fade to Wave starts at 0.3 s.
TEST(AnimGraph, BlendSpaceStatesCloseTheirNotifyStates) {
  const CharacterAsset& asset = sample().asset;
  auto graph =
      parse(R"({"parameters": {"go": {"type": "trigger"}, "speed": {"type": "float", "default": 1.5}},
    "layers": [{"name": "base", "entry": "Move",
      "states": [{"name": "Move", "blend1d": {"parameter": "speed", "points": [["Idle", 0], ["Walk", 1.5]]}},
                 {"name": "Wave", "clip": "Wave"}],
      "transitions": [{"from": "Move", "to": "Wave", "when": ["go"], "duration": 0.1}]}]})");
  AnimGraphInstance anim(graph, asset, &sample().notifies);
  int begins = 0, ends = 0;
  auto count = [&] {
    for (const AnimGraphEvent& e : anim.events())
      if (e.type == AnimGraphEvent::kNotify && e.notify.name && *e.notify.name == "ArmSwing" &&
          anim.state_name(e) == "Move") {
        begins += e.notify.type == EventType::kBegin;
        ends += e.notify.type == EventType::kEnd;
      }
  };
  for (int i = 0; i < 10; ++i) anim.update(0.03f), count();
  ASSERT_EQ(begins, 1) << "ArmSwing is open before the fade";
  ASSERT_EQ(ends, 0);
  ASSERT_TRUE(anim.set_trigger(anim.parameter("go")));
  for (int i = 0; i < 10; ++i) anim.update(0.03f), count();
  EXPECT_EQ(ends, begins) << "the state faded out closed ArmSwing";
}

// A transition with "blend": "inertialize" switches state at once (as a crossfade of duration 0 does) and
// inertializes the output: the first pose after the switch lies within 5e-3 model units of the last two poses
// extrapolated (measured: 1.0e-3 at 60 Hz, the new state's own velocity over one frame, which the graph takes
// as zero at the switch), where the instant switch lands over ten times as far (0.43); from the duration on,
// the output is the instant switch's, bit for bit.
TEST(AnimGraph, InertializedTransitionIsContinuousThenTheTargetsPose) {
  const CharacterAsset& asset = sample().asset;
  auto graph = [](const std::string& blend) {
    return parse(R"({"parameters": {"go": {"type": "trigger"}},
      "layers": [{"name": "base", "entry": "Walk", "states": [{"name": "Walk", "clip": "Walk"}, {"name": "Wave", "clip": "Wave"}],
         "transitions": [{"from": "Walk", "to": "Wave", "when": ["go"], )" +
                 blend + "}]}]}");
  };
  const auto inert_graph = graph(R"("duration": 0.3, "blend": "inertialize")"),
             instant_graph = graph(R"("duration": 0, "blend": "crossfade")");
  ASSERT_TRUE(inert_graph && instant_graph);
  AnimGraphInstance inert(inert_graph, asset), instant(instant_graph, asset);
  constexpr float dt = 1 / 60.f;
  std::vector<Vec3> before, last;
  auto positions = [](const AnimGraphInstance& a) {
    std::vector<Vec3> out;
    for (const Mat4& m : a.animator().model()) out.push_back(m.translation());
    return out;
  };
  for (int f = 0; f < 20; ++f) {
    inert.update(dt), instant.update(dt);
    before = last, last = positions(inert);
  }
  ASSERT_TRUE(inert.set_trigger(inert.parameter("go")));
  ASSERT_TRUE(instant.set_trigger(instant.parameter("go")));
  inert.update(dt), instant.update(dt);  // fires
  const int wave = inert_graph->find_state(0, "Wave");
  EXPECT_EQ(inert.current_state(0), wave);
  EXPECT_FALSE(inert.blending(0)) << "the layer switched at once";
  float inert_error = 0, instant_jump = 0;
  const std::vector<Vec3> a = positions(inert), b = positions(instant);
  for (size_t j = 0; j < last.size(); ++j) {
    const Vec3 extrapolated = last[j] * 2.f - before[j];
    inert_error = std::max(inert_error, length(a[j] - extrapolated));
    instant_jump = std::max(instant_jump, length(b[j] - extrapolated));
  }
  std::printf("switch: instant %.4f units from the extrapolated pose, inertialized %.5f units\n",
              instant_jump, inert_error);
  EXPECT_LT(inert_error, 5e-3f);
  EXPECT_GT(instant_jump, 10 * inert_error);
  for (int f = 1; f < 30; ++f) {
    inert.update(dt), instant.update(dt);
    if (f < 18) continue;  // 0.3 s after the switch, and on
    for (size_t j = 0; j < inert.locals().size(); ++j)
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(inert.locals()[j].rotation[k], instant.locals()[j].rotation[k]) << f;
  }
}

// ---- Load-time errors: each names the item ----

TEST(AnimGraph, EveryLoadErrorNamesTheItem) {
  const std::string ok_states = R"("states": [{"name": "A", "clip": "Walk"}, {"name": "B", "clip": "Idle"}])";
  auto layer = [&](const std::string& rest) {
    return R"({"parameters": {"speed": {"type": "float"}, "jump": {"type": "trigger"}, "on": {"type": "bool"}},
               "layers": [{"name": "base", "entry": "A", )" +
           ok_states + rest + "}]}";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Run"}]}]})",
       "no clip 'Run'"},
      {layer(R"(, "transitions": [{"from": "A", "to": "C", "when": ["jump"]}])"), "no state 'C'"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["fly"]}])"), "no parameter 'fly'"},
      {R"({"parameters": {"x": {"type": "double"}}, "layers": []})", "unknown type 'double'"},
      {layer(R"(, "colour": 1)"), "unknown key 'colour'"},
      {R"({"layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk"}, {"name": "A", "clip": "Idle"}]}]})",
       "two states named 'A'"},
      {R"({"layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk"}]},
                      {"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk"}]}]})",
       "two layers named 'b'"},
      {R"({"parameters": {"x": {"type": "float"}, "x": {"type": "bool"}}, "layers": []})",
       "'x' is given twice"},
      {R"({"layers": [{"name": "b", "states": [{"name": "A", "clip": "Walk"}]}]})", "needs an entry state"},
      {R"({"layers": [{"name": "b", "entry": "Z", "states": [{"name": "A", "clip": "Walk"}]}]})",
       "entry state 'Z' is not one of its states"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["speed"]}])"),
       "'speed' is a float, not a bool"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": [["on", ">", 1]]}])"),
       "'on' is a bool, not a float"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B"}])"), "needs conditions (when) or an exit_time"},
      {layer(
           R"(, "transitions": [{"from": "A", "to": "B", "exit_time": 0}, {"from": "B", "to": "A", "exit_time": 0}])"),
       "never settle"},
      {layer(
           R"(, "transitions": [{"from": "*", "to": "B", "exit_time": 0}, {"from": "*", "to": "A", "exit_time": 0}])"),
       "never settle"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["jump"], "duration": -1}])"),
       "duration: must be"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["jump"], "duration": 1e300}])"),
       "duration: must be"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": [["speed", "~", 1]]}])"),
       "unknown operator '~'"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["jump"], "blend": "fade"}])"),
       "transition 1 (A -> B): blend must be \"crossfade\" or \"inertialize\", not 'fade'"},
      {layer(R"(, "transitions": [{"from": "A", "to": "B", "when": ["jump"], "blend": 1}])"),
       "transition 1 (A -> B): blend must be \"crossfade\" or \"inertialize\""},
      {layer(R"(, "mask": {"root": "tail"})"), "no joint 'tail'"},
      {std::string(100, '[') + std::string(100, ']'), "nest"},
      {"{", "not valid JSON"},
      {R"({"layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "blend1d": {"parameter": "nope", "points": [["Walk", 0]]}}]}]})",
       "no parameter 'nope'"},
      {R"({"parameters": {"s": {"type": "float"}}, "layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "blend1d": {"parameter": "s", "points": [["Walk", 0], ["Idle", 0]]}}]}]})",
       "blend1d"},
  };
  for (const auto& [text, expected] : cases) {
    auto g = AnimGraph::parse(text, sample().asset, "case.json");
    ASSERT_FALSE(g) << text;
    EXPECT_NE(g.error().find(expected), std::string::npos)
        << "expected '" << expected << "' in: " << g.error();
    EXPECT_EQ(g.error().rfind("case.json", 0), 0u) << g.error();
  }
}

// A list over its limit is refused as soon as its entry over the limit is read, in time linear in the text:
// 120,000 states (4.3 MB) took 7.5 s to refuse and 450,000 (under the 16 MB a graph file may have) about 2
// minutes, the duplicate-key check running in nlohmann's callback parser, which is quadratic in a list's
// length (ctest's 120 s timeout catches a return of it). Also a nested list with no limit of its own, and a
// parameters object of over 1,024 names.
TEST(AnimGraph, ListsOverTheirLimitsAreRefusedInLinearTime) {
  auto many = [](int n, const std::string& head, auto entry, const std::string& tail) {
    std::string text = head;
    for (int i = 0; i < n; ++i)
      text += (i ? "," : ""), text += entry(i);  // not "," + entry(i): GCC 12 warns (-Wrestrict)
    return text + tail;
  };
  const std::string states = many(
      450000, R"({"layers": [{"name": "b", "entry": "S0", "states": [)",
      [](int i) { return R"({"name": "S)" + std::to_string(i) + R"(", "clip": "Walk"})"; }, "]}]}");
  const std::string transitions = many(
      300000,
      R"({"parameters": {"go": {"type": "trigger"}}, "layers": [{"name": "b", "entry": "A",
          "states": [{"name": "A", "clip": "Walk"}, {"name": "B", "clip": "Idle"}], "transitions": [)",
      [](int) { return std::string(R"({"from": "A", "to": "B", "when": ["go"]})"); }, "]}]}");
  const std::string parameters = many(
      300000, R"({"parameters": {)",
      [](int i) { return R"("p)" + std::to_string(i) + R"(": {"type": "float"})"; },
      R"(}, "layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk"}]}]})");
  const std::string nested = many(
      2000000, R"({"layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk", "x": [)",
      [](int) { return std::string("0"); }, "]}]}]}");
  for (const auto& [text, expected] :
       {std::pair{states, "over 1,024 states"}, std::pair{transitions, "over 4,096 transitions"},
        std::pair{parameters, "over 1,024 parameters"},
        std::pair{nested, "over 4,096 entries in one list"}}) {
    const auto start = std::chrono::steady_clock::now();
    auto g = AnimGraph::parse(text, sample().asset, "many.json");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_FALSE(g) << expected;
    EXPECT_NE(g.error().find(expected), std::string::npos) << g.error();
    std::printf("  %.1f MB refused in %.3f s: %s\n", static_cast<double>(text.size()) / 1e6, seconds,
                g.error().c_str());
  }
}

// Parameters by handle: a wrong type or a bad handle changes nothing.
TEST(AnimGraph, ParametersAreSetByHandleOfTheRightType) {
  AnimGraphInstance anim(
      parse(
          R"({"parameters": {"s": {"type": "float", "default": 2}, "b": {"type": "bool", "default": true}, "t": {"type": "trigger"}},
                "layers": [{"name": "b", "entry": "A", "states": [{"name": "A", "clip": "Walk"}]}]})"),
      sample().asset);
  const int s = anim.parameter("s"), b = anim.parameter("b"), t = anim.parameter("t");
  EXPECT_EQ(anim.value(s), 2);
  EXPECT_EQ(anim.value(b), 1);
  EXPECT_FALSE(anim.set_bool(s, true));
  EXPECT_FALSE(anim.set_float(b, 1));
  EXPECT_FALSE(anim.set_trigger(s));
  EXPECT_FALSE(anim.set_float(s, std::nanf("")));
  EXPECT_FALSE(anim.set_float(99, 1));
  EXPECT_EQ(anim.parameter("missing"), -1);
  EXPECT_TRUE(anim.set_trigger(t));
  EXPECT_EQ(anim.value(t), 1);
  EXPECT_TRUE(anim.reset_trigger(t));
  EXPECT_EQ(anim.value(t), 0);
}

// The bundled sample's graph: speed drives Idle..Walk, the turn trigger plays Turn once and returns at its
// exit time, wave raises the arm on the upper layer.
TEST(AnimGraph, TheSamplesGraphPlaysAsDocumented) {
  auto graph =
      AnimGraph::load(test::source_dir() + "/assets/sample/ossa_sample.animgraph.json", sample().asset);
  ASSERT_TRUE(graph) << graph.error();
  AnimGraphInstance anim(*graph, sample().asset, &sample().notifies);
  std::vector<std::string> entered;
  auto run = [&](int steps) {
    for (int i = 0; i < steps; ++i) {
      anim.update(1 / 30.f);
      for (const AnimGraphEvent& e : anim.events())
        if (e.type == AnimGraphEvent::kStateEnter) entered.push_back(anim.state_name(e));
    }
  };
  run(10);
  ASSERT_TRUE(anim.set_trigger(anim.parameter("turn")));
  run(60);  // Turn (1.2 s) to 0.9, then back
  ASSERT_TRUE(anim.set_bool(anim.parameter("wave"), true));
  run(10);
  EXPECT_EQ(entered, (std::vector<std::string>{"Locomotion", "Off", "Turn", "Locomotion", "Waving"}));
  EXPECT_EQ(anim.current_state(1), (*graph)->find_state(1, "Waving"));
}

// Many characters on threads: each instance's results equal the ones it gives alone.
TEST(AnimGraph, InstancesUpdateInParallelDeterministically) {
  auto graph =
      AnimGraph::load(test::source_dir() + "/assets/sample/ossa_sample.animgraph.json", sample().asset);
  ASSERT_TRUE(graph);
  constexpr int kCharacters = 64;
  auto drive = [&](AnimGraphInstance& a, int who, int step) {
    a.set_float(a.parameter("speed"), std::fmod(0.37f * static_cast<float>(who + step), 2.f));
    if ((who + step) % 37 == 0) a.set_trigger(a.parameter("turn"));
    a.set_bool(a.parameter("wave"), ((who + step) / 20) % 2 == 0);
    a.update(1 / 60.f);
  };
  std::vector<AnimGraphInstance> alone, parallel;
  for (int i = 0; i < kCharacters; ++i) {
    alone.emplace_back(*graph, sample().asset, &sample().notifies);
    parallel.emplace_back(*graph, sample().asset, &sample().notifies);
  }
  for (int step = 0; step < 60; ++step)
    for (int i = 0; i < kCharacters; ++i) drive(alone[i], i, step);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int step = 0; step < 60; ++step)
        for (int i = t; i < kCharacters; i += 4) drive(parallel[i], i, step);
    });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kCharacters; ++i)
    for (size_t j = 0; j < alone[i].locals().size(); ++j)
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(alone[i].locals()[j].rotation[c], parallel[i].locals()[j].rotation[c]);
}

}  // namespace
}  // namespace ossa
