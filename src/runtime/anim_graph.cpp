#include "ossa/runtime/anim_graph.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "anim_events.h"
#include "ossa/asset/clip_names.h"
#include "ossa/core/file_io.h"

namespace ossa {
namespace {

using json = nlohmann::json;
using R = Result<std::shared_ptr<const AnimGraph>>;

constexpr float kMaxSeconds = 1e6f, kMaxSpeed = 1000, kMaxValue = 1e9f;

// Parsing stops at the first error; `where` names the item ("layer 'upper', state 'Waving'").
struct Parser {
  const CharacterAsset& asset;
  std::string source;
  std::string error;
  AnimGraph* graph = nullptr;
  std::vector<AnimGraphParameter>* parameters = nullptr;

  bool fail(const std::string& where, const std::string& what) {
    if (error.empty()) error = source + ": " + where + ": " + what;
    return false;
  }
  bool keys(const json& object, const std::string& where, std::initializer_list<const char*> allowed) {
    if (!object.is_object()) return fail(where, "must be a JSON object");
    for (auto it = object.begin(); it != object.end(); ++it) {
      const std::string& key = it.key();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; }))
        return fail(where, "unknown key '" + key + "'");
    }
    return true;
  }
  bool number(const json& value, const std::string& where, float lo, float hi, float& out) {
    if (!value.is_number()) return fail(where, "must be a number");
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < lo || v > hi)
      return fail(where,
                  "must be a finite number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = static_cast<float>(v);
    return true;
  }
  bool string(const json& value, const std::string& where, std::string& out) {
    if (!value.is_string()) return fail(where, "must be a string");
    out = value.get<std::string>();
    if (out.empty()) return fail(where, "must not be empty");
    return true;
  }
  int parameter(const std::string& name, const std::string& where, AnimGraphParameter::Type type,
                bool or_trigger = false) {
    for (size_t i = 0; i < parameters->size(); ++i)
      if ((*parameters)[i].name == name) {
        const auto t = (*parameters)[i].type;
        if (t != type && !(or_trigger && t == AnimGraphParameter::kTrigger)) {
          static const char* names[] = {"float", "bool", "trigger"};
          fail(where, "parameter '" + name + "' is a " + names[t] + ", not a " + names[type] +
                          (or_trigger ? " or trigger" : ""));
          return -1;
        }
        return static_cast<int>(i);
      }
    fail(where, "no parameter '" + name + "'");
    return -1;
  }
  int clip(const json& value, const std::string& where) {
    std::string name;
    if (!string(value, where, name)) return -1;
    const int c = asset.find_clip(name);
    if (c < 0) fail(where, "no clip '" + name + "' in the character");
    return c;
  }

  bool parse_parameters(const json& doc) {
    if (!doc.is_object()) return fail("parameters", "must be an object of name: {type, default}");
    for (const auto& [name, spec] : doc.items()) {
      const std::string where = "parameter '" + name + "'";
      if (name.empty()) return fail("parameters", "a parameter has an empty name");
      if (!keys(spec, where, {"type", "default"})) return false;
      if (parameters->size() >= AnimGraph::kMaxParameters) return fail(where, "over 1,024 parameters");
      AnimGraphParameter p;
      p.name = name;
      std::string type;
      if (!spec.contains("type") || !string(spec["type"], where + " type", type))
        return fail(where, "needs a type");
      if (type == "float") {
        p.type = AnimGraphParameter::kFloat;
        if (spec.contains("default") &&
            !number(spec["default"], where + " default", -kMaxValue, kMaxValue, p.default_value))
          return false;
      } else if (type == "bool" || type == "trigger") {
        p.type = type == "bool" ? AnimGraphParameter::kBool : AnimGraphParameter::kTrigger;
        if (spec.contains("default")) {
          if (!spec["default"].is_boolean())
            return fail(where, "a " + type + "'s default must be true or false");
          p.default_value = spec["default"].get<bool>() ? 1.f : 0.f;
        }
      } else {
        return fail(where, "unknown type '" + type + "' (float, bool, trigger)");
      }
      parameters->push_back(std::move(p));
    }
    return true;
  }

  bool parse_state(const json& spec, const std::string& layer_where, AnimGraphState& state) {
    if (!spec.is_object() || !spec.contains("name"))
      return fail(layer_where, "a state must be an object with a name");
    if (!string(spec["name"], layer_where + " state name", state.name)) return false;
    const std::string where = layer_where + ", state '" + state.name + "'";
    if (!keys(spec, where, {"name", "clip", "blend1d", "blend2d", "empty", "loop", "speed"})) return false;
    const int kinds =
        spec.contains("clip") + spec.contains("blend1d") + spec.contains("blend2d") + spec.contains("empty");
    if (kinds != 1) return fail(where, "needs exactly one of clip, blend1d, blend2d, empty");
    if (spec.contains("loop")) {
      if (!spec["loop"].is_boolean()) return fail(where, "loop must be true or false");
      state.loop = spec["loop"].get<bool>();
    }
    if (spec.contains("speed") &&
        !number(spec["speed"], where + " speed", -kMaxSpeed, kMaxSpeed, state.speed))
      return false;
    if (spec.contains("empty")) {
      if (spec["empty"] != true) return fail(where, "empty must be true");
      state.kind = AnimGraphState::kEmpty;
      return true;
    }
    if (spec.contains("clip")) {
      state.kind = AnimGraphState::kClip;
      state.clip = clip(spec["clip"], where + " clip");
      return state.clip >= 0;
    }
    const bool two = spec.contains("blend2d");
    const json& blend = two ? spec["blend2d"] : spec["blend1d"];
    const std::string bw = where + (two ? " blend2d" : " blend1d");
    if (!keys(blend, bw, {"parameter", "parameters", "points", "sync_markers"})) return false;
    state.kind = two ? AnimGraphState::kBlend2D : AnimGraphState::kBlend1D;
    state.loop = true;
    if (two) {
      if (!blend.contains("parameters") || !blend["parameters"].is_array() || blend["parameters"].size() != 2)
        return fail(bw, "needs \"parameters\": [X, Y] (two float parameters)");
      std::string x, y;
      if (!string(blend["parameters"][0], bw, x) || !string(blend["parameters"][1], bw, y)) return false;
      state.parameter_x = parameter(x, bw, AnimGraphParameter::kFloat);
      state.parameter_y = parameter(y, bw, AnimGraphParameter::kFloat);
      if (state.parameter_x < 0 || state.parameter_y < 0) return false;
    } else {
      std::string x;
      if (!blend.contains("parameter") || !string(blend["parameter"], bw + " parameter", x))
        return fail(bw, "needs \"parameter\": a float parameter");
      state.parameter_x = parameter(x, bw, AnimGraphParameter::kFloat);
      if (state.parameter_x < 0) return false;
    }
    if (!blend.contains("points") || !blend["points"].is_array() || blend["points"].empty())
      return fail(bw, two ? "needs points [[CLIP, X, Y], ...]" : "needs points [[CLIP, X], ...]");
    if (blend["points"].size() > BlendSpace::kMaxSamples2D) return fail(bw, "over 64 points");
    std::vector<float> xs;
    std::vector<BlendPoint> points;
    for (const json& point : blend["points"]) {
      if (!point.is_array() || point.size() != (two ? 3u : 2u))
        return fail(bw, two ? "each point is [CLIP, X, Y]" : "each point is [CLIP, X]");
      const int c = clip(point[0], bw);
      if (c < 0) return false;
      BlendPoint p;
      if (!number(point[1], bw + " point", -BlendSpace::kMaxCoordinate, BlendSpace::kMaxCoordinate, p.x))
        return false;
      if (two &&
          !number(point[2], bw + " point", -BlendSpace::kMaxCoordinate, BlendSpace::kMaxCoordinate, p.y))
        return false;
      state.clips.push_back(c);
      xs.push_back(p.x), points.push_back(p);
    }
    auto space = two ? BlendSpace::build_2d(points) : BlendSpace::build_1d(xs);
    if (!space) return fail(bw, space.error());
    state.space = std::move(space).value();
    if (blend.contains("sync_markers")) {
      if (!blend["sync_markers"].is_array()) return fail(bw, "sync_markers must be an array of names");
      for (const json& m : blend["sync_markers"]) {
        std::string name;
        if (!string(m, bw + " sync_markers", name)) return false;
        state.sync_markers.push_back(name);
      }
    }
    return true;
  }

  bool parse_condition(const json& c, const std::string& where, AnimGraphCondition& out) {
    if (c.is_string()) {
      std::string name = c.get<std::string>();
      const bool negated = name.starts_with("!");
      if (negated) name.erase(0, 1);
      out.op = negated ? AnimGraphCondition::kNotSet : AnimGraphCondition::kSet;
      out.parameter = parameter(name, where, AnimGraphParameter::kBool, true);
      return out.parameter >= 0;
    }
    if (!c.is_array() || c.size() != 3 || !c[0].is_string() || !c[1].is_string())
      return fail(where, "a condition is \"name\", \"!name\" or [name, op, number]");
    static const std::pair<const char*, AnimGraphCondition::Op> ops[] = {
        {"<", AnimGraphCondition::kLess},    {"<=", AnimGraphCondition::kLessEqual},
        {">", AnimGraphCondition::kGreater}, {">=", AnimGraphCondition::kGreaterEqual},
        {"==", AnimGraphCondition::kEqual},  {"!=", AnimGraphCondition::kNotEqual}};
    const std::string op = c[1].get<std::string>();
    const auto* found =
        std::find_if(std::begin(ops), std::end(ops), [&](const auto& o) { return op == o.first; });
    if (found == std::end(ops)) return fail(where, "unknown operator '" + op + "' (< <= > >= == !=)");
    out.op = found->second;
    out.parameter = parameter(c[0].get<std::string>(), where, AnimGraphParameter::kFloat);
    return out.parameter >= 0 && number(c[2], where + " value", -kMaxValue, kMaxValue, out.value);
  }

  bool parse_transition(const json& spec, const std::string& layer_where, AnimGraphLayer& layer,
                        AnimGraphTransition& t, size_t index) {
    const std::string where = layer_where + ", transition " + std::to_string(index + 1);
    if (!keys(spec, where, {"from", "to", "when", "exit_time", "duration", "offset", "sync", "blend"}))
      return false;
    auto state_index = [&](const char* key, bool any) {
      std::string name;
      if (!spec.contains(key) || !string(spec[key], where + " " + key, name)) {
        fail(where, std::string("needs \"") + key + "\": a state" + (any ? " or \"*\"" : ""));
        return -2;
      }
      if (any && name == "*") return -1;
      for (size_t s = 0; s < layer.states.size(); ++s)
        if (layer.states[s].name == name) return static_cast<int>(s);
      fail(where, "no state '" + name + "' in the layer");
      return -2;
    };
    t.from = state_index("from", true);
    if (t.from < -1) return false;
    t.to = state_index("to", false);
    if (t.to < 0) return false;
    if (spec.contains("when")) {
      if (!spec["when"].is_array()) return fail(where, "when must be an array of conditions");
      for (const json& c : spec["when"]) {
        AnimGraphCondition condition;
        if (!parse_condition(c, where, condition)) return false;
        t.when.push_back(condition);
      }
    }
    if (spec.contains("exit_time")) {
      t.has_exit_time = true;
      if (!number(spec["exit_time"], where + " exit_time", 0, kMaxSeconds, t.exit_time)) return false;
    }
    if (!t.has_exit_time && t.when.empty())
      return fail(where, "needs conditions (when) or an exit_time: it would fire on every update");
    if (spec.contains("duration") &&
        !number(spec["duration"], where + " duration", 0, kMaxSeconds, t.duration))
      return false;
    if (spec.contains("offset") && !number(spec["offset"], where + " offset", 0, 1, t.offset)) return false;
    if (spec.contains("sync")) {
      if (!spec["sync"].is_boolean()) return fail(where, "sync must be true or false");
      t.sync = spec["sync"].get<bool>();
    }
    if (spec.contains("blend")) {
      const json& blend = spec["blend"];
      const std::string value = blend.is_string() ? blend.get<std::string>() : std::string();
      if (value == "crossfade" || value == "inertialize") {
        t.blend = value == "crossfade" ? AnimGraphTransition::kCrossfade : AnimGraphTransition::kInertialize;
      } else {
        const std::string from = t.from < 0 ? "*" : layer.states[t.from].name;
        return fail(where + " (" + from + " -> " + layer.states[t.to].name + ")",
                    "blend must be \"crossfade\" or \"inertialize\"" +
                        (blend.is_string() ? ", not '" + value + "'" : std::string()));
      }
    }
    return true;
  }

  // Transitions that fire by themselves at exit time 0 must not form a cycle (the layer would never settle).
  bool check_cycles(const AnimGraphLayer& layer, const std::string& where) {
    const int n = static_cast<int>(layer.states.size());
    std::vector<std::vector<int>> next(n);
    for (const AnimGraphTransition& t : layer.transitions) {
      if (!t.has_exit_time || t.exit_time != 0 || !t.when.empty()) continue;
      for (int from = 0; from < n; ++from)
        if ((t.from == from) || (t.from == -1 && from != t.to)) next[from].push_back(t.to);
    }
    std::vector<int> mark(n, 0);  // 0 new, 1 on the path, 2 done
    std::vector<std::pair<int, size_t>> stack;
    for (int root = 0; root < n; ++root) {
      if (mark[root]) continue;
      stack.push_back({root, 0});
      mark[root] = 1;
      while (!stack.empty()) {
        auto& [s, i] = stack.back();
        if (i == next[s].size()) {
          mark[s] = 2;
          stack.pop_back();
          continue;
        }
        const int to = next[s][i++];
        if (mark[to] == 1)
          return fail(where,
                      "transitions from '" + layer.states[to].name +
                          "' fire by themselves at exit time 0 in a cycle (the layer would never settle)");
        if (mark[to] == 0) mark[to] = 1, stack.push_back({to, 0});
      }
    }
    return true;
  }

  bool parse_layer(const json& spec, size_t index, AnimGraphLayer& layer) {
    const std::string fallback = "layer " + std::to_string(index + 1);
    if (!spec.is_object() || !spec.contains("name") || !string(spec["name"], fallback + " name", layer.name))
      return fail(fallback, "needs a name");
    const std::string where = "layer '" + layer.name + "'";
    if (!keys(spec, where, {"name", "entry", "states", "transitions", "mask", "weight", "additive"}))
      return false;
    if (!spec.contains("states") || !spec["states"].is_array() || spec["states"].empty())
      return fail(where, "needs states");
    if (spec["states"].size() > AnimGraph::kMaxStates) return fail(where, "over 1,024 states");
    for (const json& s : spec["states"]) {
      AnimGraphState state;
      if (!parse_state(s, where, state)) return false;
      for (const AnimGraphState& other : layer.states)
        if (other.name == state.name) return fail(where, "two states named '" + state.name + "'");
      layer.states.push_back(std::move(state));
    }
    std::string entry;
    if (!spec.contains("entry") || !string(spec["entry"], where + " entry", entry))
      return fail(where, "needs an entry state");
    layer.entry = -1;
    for (size_t s = 0; s < layer.states.size(); ++s)
      if (layer.states[s].name == entry) layer.entry = static_cast<int>(s);
    if (layer.entry < 0) return fail(where, "the entry state '" + entry + "' is not one of its states");
    if (spec.contains("transitions")) {
      if (!spec["transitions"].is_array()) return fail(where, "transitions must be an array");
      if (spec["transitions"].size() > AnimGraph::kMaxTransitions)
        return fail(where, "over 4,096 transitions");
      for (size_t i = 0; i < spec["transitions"].size(); ++i) {
        AnimGraphTransition t;
        if (!parse_transition(spec["transitions"][i], where, layer, t, i)) return false;
        layer.transitions.push_back(std::move(t));
      }
    }
    if (spec.contains("mask")) {
      if (!keys(spec["mask"], where + " mask", {"root"}) || !spec["mask"].contains("root"))
        return fail(where + " mask", "must be {\"root\": JOINT}");
      std::string root;
      if (!string(spec["mask"]["root"], where + " mask root", root)) return false;
      const int joint = asset.skeleton.find_joint(root);
      if (joint < 0) return fail(where + " mask", "no joint '" + root + "' in the skeleton");
      layer.mask.assign(static_cast<size_t>(asset.skeleton.joint_count()), 0.f);
      for (int j = joint; j < asset.skeleton.subtree_end(joint); ++j) layer.mask[j] = 1;
    }
    if (spec.contains("weight")) {
      if (spec["weight"].is_string()) {
        layer.weight_parameter =
            parameter(spec["weight"].get<std::string>(), where + " weight", AnimGraphParameter::kFloat);
        if (layer.weight_parameter < 0) return false;
      } else if (!number(spec["weight"], where + " weight", 0, 1, layer.weight)) {
        return false;
      }
    }
    if (spec.contains("additive")) {
      if (!spec["additive"].is_boolean()) return fail(where, "additive must be true or false");
      layer.additive = spec["additive"].get<bool>();
    }
    return check_cycles(layer, where);
  }
};

}  // namespace

namespace {
// The SAX pass of AnimGraph::parse: duplicate keys, and lists (or the parameters object) over the graph's
// limits, found in one pass without building anything. Other lists are capped at the largest limit.
class GraphShapeGuard {
 public:
  static std::string check(std::string_view text) {
    GraphShapeGuard guard;
    const bool ok = json::sax_parse(text, &guard, json::input_format_t::json, /*strict=*/true);
    if (!guard.refused_.empty()) return guard.refused_;
    return ok ? std::string() : std::string("not valid JSON");
  }

  bool null() { return value(); }
  bool boolean(bool) { return value(); }
  bool number_integer(json::number_integer_t) { return value(); }
  bool number_unsigned(json::number_unsigned_t) { return value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return value(); }
  bool string(json::string_t&) { return value(); }
  bool binary(json::binary_t&) { return value(); }
  bool start_object(std::size_t) { return value() && open(false); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return value() && open(true); }
  bool end_array() { return close(); }
  bool key(json::string_t& name) {
    Frame& f = frames_.back();
    if (!f.keys.insert(name).second) return refuse("the key '" + name + "' is given twice in one object");
    last_key_ = name;
    if (f.limit > 0 && ++f.count > f.limit) return refuse("over " + f.limit_text + " " + f.what);
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  struct Frame {
    bool array = false;
    size_t count = 0, limit = 0;  // entries so far; 0: no limit (objects other than "parameters")
    std::string what, limit_text;
    std::unordered_set<std::string> keys;
  };
  bool value() {  // a value starts: one more entry of the list it is in
    if (frames_.empty() || !frames_.back().array) return true;
    Frame& f = frames_.back();
    if (++f.count > f.limit) return refuse("over " + f.limit_text + " " + f.what);
    return true;
  }
  bool open(bool array) {
    Frame f;
    f.array = array;
    // A member's value takes its key's limit; a list's entries take the general one.
    const std::string key = !frames_.empty() && !frames_.back().array ? last_key_ : std::string();
    if (key == "states")
      f.limit = AnimGraph::kMaxStates, f.what = "states", f.limit_text = "1,024";
    else if (key == "transitions")
      f.limit = AnimGraph::kMaxTransitions, f.what = "transitions", f.limit_text = "4,096";
    else if (key == "layers")
      f.limit = AnimGraph::kMaxLayers, f.what = "layers", f.limit_text = "16";
    else if (key == "parameters")
      f.limit = AnimGraph::kMaxParameters, f.what = "parameters", f.limit_text = "1,024";
    else if (array)
      f.limit = AnimGraph::kMaxTransitions, f.what = "entries in one list", f.limit_text = "4,096";
    last_key_.clear();
    frames_.push_back(std::move(f));
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }
  bool refuse(std::string why) {
    refused_ = std::move(why);
    return false;
  }
  std::vector<Frame> frames_;
  std::string last_key_, refused_;
};
}  // namespace

R AnimGraph::parse(std::string_view text, const CharacterAsset& asset, const std::string& source_name) {
  if (std::string nested = json_nesting_error(text); !nested.empty())
    return R::failure(source_name + ": " + nested);
  // One linear pass over the text before the document is built (nlohmann's callback parser is quadratic in a
  // list's length: 120,000 states took 7.5 s to refuse): a key given twice in one object (JSON keeps the
  // last) is refused, and so is a list longer than the graph allows, as soon as its entry over the limit is
  // read.
  if (std::string refused = GraphShapeGuard::check(text); !refused.empty())
    return R::failure(source_name + ": " + refused);
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return R::failure(source_name + ": not valid JSON");
  auto graph = std::make_shared<AnimGraph>();
  Parser p{asset, source_name, {}, graph.get(), &graph->parameters_};
  if (!p.keys(doc, "the graph", {"parameters", "layers"})) return R::failure(p.error);
  if (doc.contains("parameters") && !p.parse_parameters(doc["parameters"])) return R::failure(p.error);
  if (!doc.contains("layers") || !doc["layers"].is_array() || doc["layers"].empty())
    return R::failure(source_name + ": needs \"layers\": [...] (at least one)");
  if (doc["layers"].size() > kMaxLayers) return R::failure(source_name + ": over 16 layers");
  for (size_t i = 0; i < doc["layers"].size(); ++i) {
    AnimGraphLayer layer;
    if (!p.parse_layer(doc["layers"][i], i, layer)) return R::failure(p.error);
    for (const AnimGraphLayer& other : graph->layers_)
      if (other.name == layer.name)
        return R::failure(source_name + ": two layers named '" + layer.name + "'");
    graph->layers_.push_back(std::move(layer));
  }
  return std::shared_ptr<const AnimGraph>(std::move(graph));
}

R AnimGraph::load(const std::string& path, const CharacterAsset& asset) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return R::failure("cannot read " + path);
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxFileBytes) return R::failure(path + ": not a graph (over 16 MB)");
  in.seekg(0);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  return parse(text, asset, path);
}

int AnimGraph::find_parameter(std::string_view name) const {
  for (size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].name == name) return static_cast<int>(i);
  return -1;
}

int AnimGraph::find_state(int layer, std::string_view name) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return -1;
  const auto& states = layers_[layer].states;
  for (size_t i = 0; i < states.size(); ++i)
    if (states[i].name == name) return static_cast<int>(i);
  return -1;
}

// ---- The instance ----

namespace {
constexpr float kNotifyWeight = 0.5f, kNotifyBlendInWeight = 1e-5f;  // the Animator's defaults
constexpr int kPlayersPerBlendState = 2;

float clip_length(const CharacterAsset& asset, const AnimGraphState& s) {
  if (s.kind != AnimGraphState::kClip) return 1;
  return std::max(asset.clips[s.clip].duration(), 1e-4f);
}
}  // namespace

AnimGraphInstance::AnimGraphInstance(std::shared_ptr<const AnimGraph> graph, const CharacterAsset& asset,
                                     const NotifySet* notifies)
    : graph_(std::move(graph)), asset_(&asset), notifies_(notifies), animator_(asset, notifies) {
  const size_t joints = static_cast<size_t>(asset.skeleton.joint_count());
  for (const AnimGraphParameter& p : graph_->parameters()) values_.push_back(p.default_value);
  events_.reserve(kEventCapacity);
  notify_scratch_.reserve(kEventCapacity);
  pose_.assign(asset.skeleton.rest_pose().begin(), asset.skeleton.rest_pose().end());
  below_ = blended_ = pose_;
  for (const AnimGraphLayer& g : graph_->layers())
    for (const AnimGraphTransition& t : g.transitions)
      inertialized_ |= t.blend == AnimGraphTransition::kInertialize;
  if (inertialized_) inertializer_ = Inertializer(static_cast<int>(joints));
  keep_.resize(joints), take_.resize(joints);
  blend_layers_.resize(kMaxActiveStates + 1);
  layers_.resize(graph_->layers().size());
  for (size_t li = 0; li < layers_.size(); ++li) {
    const AnimGraphLayer& g = graph_->layers()[li];
    LayerState& l = layers_[li];
    l.active.resize(kMaxActiveStates);
    // Notify buffers sized once: each slot started on the clips with the most instants and states.
    const ClipNotifies* most_instants = nullptr;
    const ClipNotifies* most_states = nullptr;
    for (const AnimGraphState& s : g.states)
      if (s.kind == AnimGraphState::kClip && notifies && s.clip < static_cast<int>(notifies->clips.size())) {
        const ClipNotifies& n = notifies->clips[s.clip];
        if (!most_instants || n.instants.size() > most_instants->instants.size()) most_instants = &n;
        if (!most_states || n.states.size() > most_states->states.size()) most_states = &n;
      }
    for (Active& a : l.active) {
      a.pose.assign(pose_.begin(), pose_.end());
      for (const ClipNotifies* n : {most_instants, most_states})
        if (n) a.playhead.start(1, LoopMode::kRepeat, 0, 0, n);
    }
    l.players.resize(g.states.size());
    l.player_used.resize(g.states.size());
    for (size_t s = 0; s < g.states.size(); ++s) {
      const AnimGraphState& state = g.states[s];
      if (state.kind != AnimGraphState::kBlend1D && state.kind != AnimGraphState::kBlend2D) continue;
      for (int k = 0; k < kPlayersPerBlendState; ++k) {
        auto player =
            BlendSpacePlayer::create(asset, state.space, state.clips, notifies, {}, state.sync_markers);
        if (player) l.players[s].push_back(std::move(player).value());  // clips checked at parse time
      }
      l.player_used[s].assign(l.players[s].size(), 0);
    }
    enter(l, static_cast<int>(li), nullptr, -1, g.entry, 0);
  }
}

// One place for the handle check: a parameter of the graph, of that type.
bool AnimGraphInstance::is(int p, int type) const {
  return p >= 0 && p < static_cast<int>(values_.size()) && graph_->parameters()[p].type == type;
}
bool AnimGraphInstance::set_float(int p, float v) {
  if (!is(p, AnimGraphParameter::kFloat) || !std::isfinite(v)) return false;
  values_[p] = v;
  return true;
}
bool AnimGraphInstance::set_bool(int p, bool v) {
  if (!is(p, AnimGraphParameter::kBool)) return false;
  values_[p] = v ? 1.f : 0.f;
  return true;
}
bool AnimGraphInstance::set_trigger(int p) {
  if (!is(p, AnimGraphParameter::kTrigger)) return false;
  values_[p] = 1;
  return true;
}
bool AnimGraphInstance::reset_trigger(int p) {
  if (!is(p, AnimGraphParameter::kTrigger)) return false;
  values_[p] = 0;
  return true;
}
float AnimGraphInstance::value(int p) const {
  return p >= 0 && p < static_cast<int>(values_.size()) ? values_[p] : 0.f;
}

int AnimGraphInstance::current_state(int layer) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return -1;
  const LayerState& l = layers_[layer];
  return l.count > 0 ? l.active[l.count - 1].state : -1;
}
float AnimGraphInstance::state_time(int layer) const {
  if (layer < 0 || layer >= static_cast<int>(layers_.size())) return 0;
  const LayerState& l = layers_[layer];
  return l.count > 0 ? static_cast<float>(l.active[l.count - 1].norm) : 0.f;
}
bool AnimGraphInstance::blending(int layer) const {
  return layer >= 0 && layer < static_cast<int>(layers_.size()) && layers_[layer].blending;
}
int AnimGraphInstance::active_count(int layer) const {
  return layer >= 0 && layer < static_cast<int>(layers_.size()) ? layers_[layer].count : 0;
}
int AnimGraphInstance::active_state(int layer, int i) const {
  return i >= 0 && i < active_count(layer) ? layers_[layer].active[i].state : -1;
}
float AnimGraphInstance::active_weight(int layer, int i) const {
  return i >= 0 && i < active_count(layer) ? layers_[layer].active[i].weight : 0.f;
}
const std::string& AnimGraphInstance::state_name(const AnimGraphEvent& e) const {
  static const std::string none;
  if (e.layer < 0 || e.layer >= static_cast<int>(graph_->layers().size())) return none;
  const auto& states = graph_->layers()[e.layer].states;
  return e.state >= 0 && e.state < static_cast<int>(states.size()) ? states[e.state].name : none;
}

void AnimGraphInstance::push_notifies(std::span<const AnimEvent> notifies, int layer_index, const Active& a) {
  for (const AnimEvent& n : notifies)
    push({AnimGraphEvent::kNotify, layer_index, a.state, -1, -1, static_cast<float>(a.norm), n});
}

void AnimGraphInstance::push(const AnimGraphEvent& e) {
  if (events_.size() < events_.capacity())
    events_.push_back(e);
  else
    ++dropped_;
}

void AnimGraphInstance::end_notifies(LayerState& layer, int layer_index, Active& a) {
  const AnimGraphState& s = graph_->layers()[layer_index].states[a.state];
  if (!a.notify_active) return;
  a.notify_active = false;
  if (s.kind == AnimGraphState::kClip) {
    scratch_.clear();
    a.playhead.end_states(scratch_);
    notify_scratch_.clear();
    detail::collect_events(s.clip, notifies_, scratch_, notify_scratch_, dropped_);
    push_notifies(notify_scratch_, layer_index, a);
  } else if (a.player >= 0) {
    BlendSpacePlayer& player = layer.players[a.state][a.player];
    player.end_states();
    push_notifies(player.events(), layer_index, a);
  }
}

// Removes active slot i (its open notify states end; a blend-space player is freed).
void AnimGraphInstance::drop(LayerState& layer, int layer_index, int i) {
  Active& a = layer.active[i];
  end_notifies(layer, layer_index, a);
  if (a.player >= 0) layer.player_used[a.state][a.player] = 0;
  a.player = -1;
  a.state = -1;
  std::rotate(layer.active.begin() + i, layer.active.begin() + i + 1, layer.active.begin() + layer.count);
  --layer.count;
}

void AnimGraphInstance::enter(LayerState& layer, int layer_index, const AnimGraphTransition* t,
                              int transition, int to, double start) {
  const AnimGraphState& state = graph_->layers()[layer_index].states[to];
  const bool blend = state.kind == AnimGraphState::kBlend1D || state.kind == AnimGraphState::kBlend2D;
  // Room: a slot, and for a blend space a free player of that state (the oldest user gives its up).
  if (layer.count == kMaxActiveStates) drop(layer, layer_index, 0);
  int player = -1;
  if (blend && !layer.players[to].empty()) {
    for (;;) {
      for (size_t k = 0; k < layer.player_used[to].size() && player < 0; ++k)
        if (!layer.player_used[to][k]) player = static_cast<int>(k);
      if (player >= 0) break;
      for (int i = 0; i < layer.count; ++i)
        if (layer.active[i].state == to) {
          drop(layer, layer_index, i);
          break;
        }
    }
    layer.player_used[to][player] = 1;
  }
  Active& a = layer.active[layer.count++];
  a.state = to;
  a.player = player;
  a.weight = t && t->fade_duration() > 0 ? 0.f : 1.f;
  a.frozen = 0;
  a.norm = a.prev_norm = start;
  a.notify_active = false;
  if (state.kind == AnimGraphState::kClip) {
    const Clip& clip = asset_->clips[state.clip];
    const ClipNotifies* n = notifies_ && state.clip < static_cast<int>(notifies_->clips.size())
                                ? &notifies_->clips[state.clip]
                                : nullptr;
    const double fraction = state.loop ? start - std::floor(start) : std::clamp(start, 0.0, 1.0);
    a.playhead.start(clip.duration(), state.loop ? LoopMode::kRepeat : LoopMode::kOnce, 0,
                     static_cast<float>(fraction * clip.duration()), n);
    a.cache.reset(&clip);
  } else if (blend && player >= 0) {
    layer.players[to][player].restart(static_cast<float>(start));
  }
  (void)transition;
}

void AnimGraphInstance::advance(LayerState& layer, int layer_index, Active& a, double dt, float weight,
                                bool blend_in) {
  const AnimGraphState& s = graph_->layers()[layer_index].states[a.state];
  a.prev_norm = a.norm;
  if (s.kind == AnimGraphState::kEmpty) return;
  const bool counts = weight > 0 && weight >= (blend_in ? kNotifyBlendInWeight : kNotifyWeight);
  if (s.kind == AnimGraphState::kClip) {
    const double delta = dt * s.speed;
    a.norm += delta / clip_length(*asset_, s);
    if (!s.loop) a.norm = std::clamp(a.norm, 0.0, 1.0);
    if (!counts && a.notify_active) end_notifies(layer, layer_index, a);
    a.notify_active = counts;
    scratch_.clear();
    a.playhead.advance(delta, scratch_);
    if (!counts) {
      std::vector<PlaybackEvent>& ev = scratch_.storage();
      ev.erase(std::remove_if(ev.begin(), ev.end(), [](const PlaybackEvent& e) { return e.notify >= 0; }),
               ev.end());
    }
    notify_scratch_.clear();
    detail::collect_events(s.clip, notifies_, scratch_, notify_scratch_, dropped_);
    if (!counts) {
      scratch_.clear();
      a.playhead.end_states(scratch_);  // entered while not counting: closed silently
      scratch_.clear();
    }
    push_notifies(notify_scratch_, layer_index, a);
    return;
  }
  if (a.player < 0) return;
  BlendSpacePlayer& player = layer.players[a.state][a.player];
  // The Animator's rule: a state that stops counting ends its open notify states now; one that does not count
  // leaves none open.
  if (!counts && a.notify_active) {
    player.end_states();
    push_notifies(player.events(), layer_index, a);
  }
  a.notify_active = counts;
  player.set_parameter(values_[s.parameter_x], s.parameter_y >= 0 ? values_[s.parameter_y] : 0.f);
  player.set_speed(s.speed);
  player.update(static_cast<float>(dt));
  const int leader = player.leader();
  const float length = std::max(asset_->clips[s.clips[leader]].duration(), 1e-4f);
  const double fraction = player.clip_time(leader) / length;
  double whole = std::floor(a.norm);
  const double previous = a.norm - whole;
  if (s.speed >= 0 && fraction < previous - 0.5) whole += 1;  // wrapped forwards
  if (s.speed < 0 && fraction > previous + 0.5) whole -= 1;   // wrapped backwards
  a.norm = whole + fraction;
  if (!counts) {
    player.end_states();  // entered while not counting: closed silently
    return;
  }
  push_notifies(player.events(), layer_index, a);
}

bool AnimGraphInstance::holds(const AnimGraphTransition& t, const LayerState& layer) const {
  for (const AnimGraphCondition& c : t.when) {
    const float v = values_[c.parameter];
    bool ok = false;
    switch (c.op) {
      case AnimGraphCondition::kSet:
        ok = v != 0;
        break;
      case AnimGraphCondition::kNotSet:
        ok = v == 0;
        break;
      case AnimGraphCondition::kLess:
        ok = v < c.value;
        break;
      case AnimGraphCondition::kLessEqual:
        ok = v <= c.value;
        break;
      case AnimGraphCondition::kGreater:
        ok = v > c.value;
        break;
      case AnimGraphCondition::kGreaterEqual:
        ok = v >= c.value;
        break;
      case AnimGraphCondition::kEqual:
        ok = v == c.value;
        break;
      case AnimGraphCondition::kNotEqual:
        ok = v != c.value;
        break;
    }
    if (!ok) return false;
  }
  if (!t.has_exit_time) return true;
  const Active& a = layer.active[layer.count - 1];
  const AnimGraphState& s = graph_->layers()[&layer - layers_.data()].states[a.state];
  if (s.kind == AnimGraphState::kEmpty) return false;
  if (!s.loop) return a.norm >= t.exit_time;
  // Looping: a point k + e (k whole, e the fractional part of exit_time) reached or crossed this update.
  const double e = t.exit_time - std::floor(t.exit_time);
  const double lo = std::min(a.prev_norm, a.norm), hi = std::max(a.prev_norm, a.norm);
  if (lo == hi) return false;
  const bool forward = a.norm > a.prev_norm;
  // forward: prev < k + e <= norm; backward: norm <= k + e < prev
  const double k = forward ? std::floor(hi - e) : std::ceil(lo - e);
  const double point = k + e;
  return forward ? point > lo && point <= hi : point >= lo && point < hi;
}

void AnimGraphInstance::update(float dt_in) {
  events_.clear();
  dropped_ = 0;
  const double dt = std::isfinite(dt_in) && dt_in > 0 ? dt_in : 0.0;
  const auto rest = asset_->skeleton.rest_pose();
  const size_t n = rest.size();
  std::copy(rest.begin(), rest.end(), pose_.begin());
  float inertia = 0;  // the longest inertialized transition fired in this update
  for (size_t li = 0; li < layers_.size(); ++li) {
    const int layer_index = static_cast<int>(li);
    const AnimGraphLayer& g = graph_->layers()[li];
    LayerState& l = layers_[li];
    const float layer_weight =
        g.weight_parameter >= 0 ? std::clamp(values_[g.weight_parameter], 0.f, 1.f) : g.weight;
    if (!l.entered) {
      l.entered = true;
      push({AnimGraphEvent::kStateEnter, layer_index, g.entry, -1, -1, 0.f, {}});
    }
    // 1. Advance the running blend and every state playing.
    float w = 1;
    if (l.blending) {
      l.elapsed += dt;
      w = l.duration > 0 ? static_cast<float>(std::min(1.0, l.elapsed / l.duration)) : 1.f;
    }
    for (int i = 0; i < l.count; ++i) {
      Active& a = l.active[i];
      a.weight = i == l.count - 1 ? w : a.frozen * (1 - w);
      advance(l, layer_index, a, dt, a.weight * layer_weight, l.blending && i == l.count - 1);
    }
    if (l.blending && l.elapsed >= l.duration) {
      const Active& cur = l.active[l.count - 1];
      push({AnimGraphEvent::kTransitionEnd,
            layer_index,
            cur.state,
            l.from,
            l.transition,
            static_cast<float>(cur.norm),
            {}});
      while (l.count > 1) drop(l, layer_index, 0);
      l.active[0].weight = 1;
      l.blending = false;
    }
    // 2. At most one transition: "*" first, then the current state's, in file order.
    const int current = l.active[l.count - 1].state;
    const AnimGraphTransition* fired = nullptr;
    int fired_index = -1;
    for (int pass = 0; pass < 2 && !fired; ++pass)
      for (size_t t = 0; t < g.transitions.size(); ++t) {
        const AnimGraphTransition& tr = g.transitions[t];
        if (pass == 0 ? (tr.from != -1 || tr.to == current) : tr.from != current) continue;
        if (holds(tr, l)) {
          fired = &tr, fired_index = static_cast<int>(t);
          break;
        }
      }
    if (fired) {
      const Active& from = l.active[l.count - 1];
      const double source_fraction = from.norm - std::floor(from.norm);
      const float from_time = static_cast<float>(from.norm);
      if (l.blending)
        push({AnimGraphEvent::kTransitionInterrupted,
              layer_index,
              current,
              l.from,
              l.transition,
              from_time,
              {}});
      push({AnimGraphEvent::kStateExit, layer_index, current, -1, fired_index, from_time, {}});
      // The mix playing now fades out as a whole: its weights frozen.
      for (int i = 0; i < l.count; ++i) l.active[i].frozen = l.active[i].weight;
      const double start = fired->sync ? source_fraction : fired->offset;
      enter(l, layer_index, fired, fired_index, fired->to, start);
      push({AnimGraphEvent::kStateEnter,
            layer_index,
            fired->to,
            -1,
            fired_index,
            static_cast<float>(start),
            {}});
      push({AnimGraphEvent::kTransitionBegin,
            layer_index,
            fired->to,
            current,
            fired_index,
            static_cast<float>(start),
            {}});
      for (const AnimGraphCondition& c : fired->when)
        if (graph_->parameters()[c.parameter].type == AnimGraphParameter::kTrigger &&
            c.op == AnimGraphCondition::kSet)
          values_[c.parameter] = 0;
      l.transition = fired_index, l.from = current;
      l.elapsed = 0, l.duration = fired->fade_duration();
      l.blending = true;
      if (fired->blend == AnimGraphTransition::kInertialize) inertia = std::max(inertia, fired->duration);
      if (l.duration <= 0) {
        push({AnimGraphEvent::kTransitionEnd,
              layer_index,
              fired->to,
              current,
              fired_index,
              static_cast<float>(start),
              {}});
        while (l.count > 1) drop(l, layer_index, 0);
        l.active[0].weight = 1;
        l.blending = false;
      } else {
        l.active[l.count - 1].weight = 0;
        for (int i = 0; i < l.count - 1; ++i) l.active[i].weight = l.active[i].frozen;
      }
    }

    // The layer's pose: its states' poses by weight over what is below (empty states show it).
    float shown = 0;  // the weight of states with a pose
    int count = 0;
    for (int i = 0; i < l.count; ++i) {
      Active& a = l.active[i];
      const AnimGraphState& s = g.states[a.state];
      if (s.kind == AnimGraphState::kEmpty || a.weight <= 0) continue;
      std::span<const JointPose> pose;
      if (s.kind == AnimGraphState::kClip) {
        if (!SampleJob{&asset_->clips[s.clip], a.playhead.time(), &a.cache, a.pose}.run()) continue;
        pose = a.pose;
      } else if (a.player >= 0) {
        pose = l.players[a.state][a.player].locals();
      } else {
        continue;
      }
      blend_layers_[1 + count++] = BlendLayer{pose, a.weight * layer_weight, g.mask};
      shown += a.weight;
    }
    if (count == 0) continue;
    std::copy(pose_.begin(), pose_.end(), below_.begin());
    if (g.additive) {
      const BlendLayer base{below_, 1.f, {}};
      BlendJob{std::span(&base, 1), std::span(blend_layers_.data() + 1, count), rest, pose_}.run();
    } else {
      bool keeps =
          false;  // below shows through somewhere (else it is left out: one state is its clip exactly)
      for (size_t j = 0; j < n; ++j) {
        keep_[j] = std::max(0.f, 1 - layer_weight * shown * (g.mask.empty() ? 1.f : g.mask[j]));
        keeps |= keep_[j] > 0;
      }
      blend_layers_[0] = BlendLayer{below_, 1.f, keep_};
      const size_t first = keeps ? 0 : 1;
      BlendJob{std::span(blend_layers_.data() + first, count + 1 - first), {}, rest, pose_}.run();
    }
  }
  if (inertialized_) {
    // The new pose stands for itself one frame back too (its velocity taken as zero, Bollo's original), so
    // the offset carries the velocity shown; the offset is then applied at t = dt, as the Inertializer's
    // first update after start() always is. No start before anything was shown (the first update).
    if (inertia > 0)
      (void)inertializer_.start(pose_, pose_, dt > 0 ? static_cast<float>(dt) : 1 / 60.f, inertia);
    inertializer_.update(pose_, static_cast<float>(dt));
  }
  animator_.apply_pose(pose_);
}

const char* to_string(AnimGraphEvent::Type type) {
  switch (type) {
    case AnimGraphEvent::kStateEnter:
      return "state_enter";
    case AnimGraphEvent::kStateExit:
      return "state_exit";
    case AnimGraphEvent::kTransitionBegin:
      return "transition_begin";
    case AnimGraphEvent::kTransitionEnd:
      return "transition_end";
    case AnimGraphEvent::kTransitionInterrupted:
      return "transition_interrupted";
    case AnimGraphEvent::kNotify:
      return "notify";
  }
  return "?";
}

}  // namespace ossa
