// `ossa play`: drive an Animator step by step and print the events it fires (JSON Lines with --events-json);
// with --blend1d/--blend2d, a blend space driven by a --param-file, printing the weights of each step too.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "json_output.h"
#include "ossa/core/printable.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/blend_space.h"
#include "text_output.h"

namespace ossa::cli {

namespace {

// One line at a time of a step file (--dt-file, --param-file): streamed, never stored; blank lines skipped;
// at most kMaxLineLength characters a line and kMaxPlaySteps lines. Errors print FILE:LINE and why.
class StepFile {
 public:
  static constexpr size_t kMaxLineLength = 256;
  enum class Read { kLine, kEnd, kError };

  explicit StepFile(std::string path) : path_(std::move(path)) {}
  bool open() {
    in_.open(path_, std::ios::binary);
    if (!in_) print_error("ossa: %s: cannot open\n", path_.c_str());
    return static_cast<bool>(in_);
  }
  Read next(std::string& line) {
    while (true) {
      line.clear();
      int c;
      while ((c = in_.get()) != EOF && c != '\n') {
        if (line.size() == kMaxLineLength) {
          print_error("ossa: %s:%zu: line longer than %zu characters\n", path_.c_str(), line_number_ + 1,
                      kMaxLineLength);
          return Read::kError;
        }
        line.push_back(static_cast<char>(c));
      }
      if (c == EOF && line.empty()) return Read::kEnd;
      if (++line_number_ > static_cast<size_t>(kMaxPlaySteps)) {
        print_error("ossa: %s: more than %d lines\n", path_.c_str(), kMaxPlaySteps);
        return Read::kError;
      }
      if (line.find_first_not_of(" \t\r") != std::string::npos) return Read::kLine;
    }
  }
  // "ossa: FILE:LINE: expected WHAT, got 'LINE'": the line and the names in WHAT as the file holds them, with
  // what could drive a terminal or cut the message (a NUL) escaped (ossa/core/printable.h).
  void refuse(const std::string& expected, const std::string& line) const {
    print_error("ossa: %s:%zu: expected %s, got '%s'\n", path_.c_str(), line_number_,
                printable(expected).c_str(), printable(line).c_str());
  }

 private:
  std::string path_;
  std::ifstream in_;
  size_t line_number_ = 0;
};

// Reads up to `count` numbers separated by blanks from `line`; true when exactly `count` finite numbers
// within [lo, hi] and nothing else are there.
bool parse_numbers(const std::string& line, int count, double lo, double hi, double* out) {
  const char* p = line.c_str();
  for (int i = 0; i < count; ++i) {
    char* end = nullptr;
    out[i] = std::strtod(p, &end);
    if (end == p || !std::isfinite(out[i]) || out[i] < lo || out[i] > hi) return false;
    p = end;
  }
  while (*p == ' ' || *p == '\t' || *p == '\r') ++p;
  return *p == '\0';
}

// The next step length of a --dt-file: false at its end, or (bad set, message printed) on a bad line.
bool read_dt(StepFile& file, double& dt, bool& bad) {
  std::string line;
  const StepFile::Read r = file.next(line);
  if (r == StepFile::Read::kLine && parse_numbers(line, 1, 0, 3600, &dt)) return true;
  if (r == StepFile::Read::kLine) file.refuse("a step length in seconds (0-3600)", line);
  bad = r != StepFile::Read::kEnd;
  return false;
}

// One line per event: JSON Lines with --events-json, else a text line.
void print_events(size_t step, const CharacterAsset& asset, std::span<const AnimEvent> events, bool json) {
  for (const AnimEvent& e : events) {
    if (json) {
      nlohmann::ordered_json j;
      j["step"] = step;
      j["clip"] = asset.clips[e.clip].name();
      j["name"] = e.name ? nlohmann::ordered_json(*e.name) : nlohmann::ordered_json(nullptr);
      j["type"] = to_string(e.type);
      j["time"] = std::round(e.time * 1e6) / 1e6;
      j["loop"] = e.loop;
      if (e.payload && !e.payload->empty()) j["payload"] = nlohmann::ordered_json::parse(*e.payload);
      print("%s\n", json_text(j).c_str());
    } else {
      print("step %4zu  %-8s %-16s t=%.4f loop %d\n", step, to_string(e.type), e.name ? e.name->c_str() : "-",
            e.time, e.loop);
    }
  }
}

// --root-motion: clips played in place and one track per clip. A .ossa converted with --root-motion has both;
// otherwise they are extracted here. `asset` is what to play: the character's own, or `in_place`.
struct RootMotionSource {
  CharacterAsset in_place;
  std::vector<RootMotionTrack> tracks;
  const CharacterAsset* asset = nullptr;
};

bool prepare_root_motion(const PlayArgs& args, const LoadedCharacter& character, RootMotionSource& out) {
  out.asset = &character.asset;
  if (!args.root_motion) return true;
  if (!character.root_motion.empty()) {
    out.tracks = character.root_motion;
    return true;
  }
  auto extracted = extract_root_motion(character.asset.clips, character.asset.skeleton);
  if (!extracted)
    return print_error("ossa play: %s: %s\n", args.file.c_str(), extracted.error().c_str()), false;
  out.in_place.skeleton = character.asset.skeleton;  // no meshes: play poses only
  out.in_place.clips = std::move(extracted->clips);
  out.tracks = std::move(extracted->tracks);
  out.asset = &out.in_place;
  return true;
}

// With --root-motion, per step: the root's delta of the step and the travel so far (x, z in model units, yaw
// in radians about +Y), a JSON object with --events-json.
void print_root_motion(size_t step, RootDelta delta, RootDelta travel, bool json) {
  if (json) {
    auto triple = [](RootDelta d) {
      return nlohmann::ordered_json::array(
          {std::round(d.x * 1e6) / 1e6, std::round(d.z * 1e6) / 1e6, std::round(d.yaw * 1e6) / 1e6});
    };
    nlohmann::ordered_json j;
    j["step"] = step;
    j["root_delta"] = triple(delta);
    j["travel"] = triple(travel);
    print("%s\n", json_text(j).c_str());
  } else {
    print("step %4zu  root dx=%.4f dz=%.4f dyaw=%.4f  travel x=%.4f z=%.4f yaw=%.4f\n", step, delta.x,
          delta.z, delta.yaw, travel.x, travel.z, travel.yaw);
  }
}

void print_travel(RootDelta travel) {
  print("travel x=%.4f z=%.4f yaw=%.4f rad\n", travel.x, travel.z, travel.yaw);
}

// --blend1d "Idle:0,Walk:1.5" / --blend2d "Idle:0:0,WalkF:0:1.5,...": clip names (or indices) and their
// sample coordinates. Names may hold ':' (the coordinates are taken from the right). False (message printed)
// for a malformed entry; `clips` gets -1 for a name that is no clip (reported by the caller).
bool parse_blend_spec(const std::string& spec, int dimensions, std::vector<std::string>& names,
                      std::vector<BlendPoint>& points) {
  const char* option = dimensions == 1 ? "--blend1d" : "--blend2d";
  size_t begin = 0;
  while (begin <= spec.size()) {
    size_t comma = spec.find(',', begin);
    if (comma == std::string::npos) comma = spec.size();
    std::string entry = spec.substr(begin, comma - begin);
    begin = comma + 1;
    double v[2] = {0, 0};
    bool ok = true;
    for (int d = dimensions - 1; d >= 0 && ok; --d) {
      const size_t colon = entry.rfind(':');
      ok = colon != std::string::npos && colon > 0 &&
           parse_numbers(entry.substr(colon + 1), 1, -BlendSpace::kMaxCoordinate, BlendSpace::kMaxCoordinate,
                         &v[d]);
      if (ok) entry.resize(colon);
    }
    if (!ok || entry.empty() || points.size() == static_cast<size_t>(BlendSpace::kMaxSamples2D)) {
      print_error(
          "ossa play: %s: each entry is CLIP%s with finite numbers within 1e6, at most %d entries "
          "(e.g. %s)\n",
          option, dimensions == 1 ? ":X" : ":X:Y", BlendSpace::kMaxSamples2D,
          dimensions == 1 ? "Idle:0,Walk:1.5,Run:4" : "Idle:0:0,Walk:0:1.5,Left:-90:1.5");
      return false;
    }
    names.push_back(entry);
    points.push_back({static_cast<float>(v[0]), static_cast<float>(v[1])});
    if (comma == spec.size()) break;
  }
  return true;
}

// `ossa play --blend1d/--blend2d ... --param-file P`: a BlendSpacePlayer driven by one parameter (x, or x y)
// per line of P; per step the weights and the leader, then the events.
int run_play_blend(const PlayArgs& args, const LoadedCharacter& character) {
  RootMotionSource root;
  if (!prepare_root_motion(args, character, root)) return kExitBadInput;
  const CharacterAsset& asset = *root.asset;
  const int dimensions = args.blend1d.empty() ? 2 : 1;
  std::vector<std::string> names;
  std::vector<BlendPoint> points;
  if (!parse_blend_spec(dimensions == 1 ? args.blend1d : args.blend2d, dimensions, names, points))
    return kExitUsage;
  std::vector<int> clips;
  for (const std::string& name : names) {
    clips.push_back(find_clip_arg(asset, args.file, name));
    if (clips.back() < 0) return kExitBadInput;
  }
  std::vector<float> xs;
  for (const BlendPoint& p : points) xs.push_back(p.x);
  auto space = dimensions == 1 ? BlendSpace::build_1d(xs) : BlendSpace::build_2d(points);
  if (!space) return print_error("ossa play: %s\n", space.error().c_str()), kExitUsage;
  std::vector<std::string> markers;
  for (size_t begin = 0; begin < args.sync_markers.size();) {
    size_t comma = std::min(args.sync_markers.find(',', begin), args.sync_markers.size());
    if (comma > begin) markers.push_back(args.sync_markers.substr(begin, comma - begin));
    begin = comma + 1;
  }
  const NotifySet* notifies = character.has_notifies() ? &character.notifies : nullptr;
  auto player = BlendSpacePlayer::create(asset, *space, clips, notifies, root.tracks, markers);
  if (!player) return print_error("ossa play: %s\n", player.error().c_str()), kExitBadInput;
  player->set_speed(static_cast<float>(args.speed));

  StepFile param_in(args.param_file), dt_in(args.dt_file);
  if (!param_in.open() || (!args.dt_file.empty() && !dt_in.open())) return kExitBadInput;
  bool bad = false;
  const char* expected = dimensions == 1 ? "a parameter value (a number within 1e6)"
                                         : "two parameter values 'x y' (numbers within 1e6)";
  size_t i = 0;
  std::string line;
  RootDelta travel;
  for (;; ++i) {
    const StepFile::Read r = param_in.next(line);
    if (r != StepFile::Read::kLine) {
      bad = r == StepFile::Read::kError;
      break;
    }
    double parameter[2] = {0, 0};
    if (!parse_numbers(line, dimensions, -BlendSpace::kMaxCoordinate, BlendSpace::kMaxCoordinate,
                       parameter)) {
      param_in.refuse(expected, line);
      bad = true;
      break;
    }
    double dt = args.dt;
    if (!args.dt_file.empty() && !read_dt(dt_in, dt, bad)) break;
    player->set_parameter(static_cast<float>(parameter[0]), static_cast<float>(parameter[1]));
    player->update(static_cast<float>(dt));
    const std::span<const float> weights = player->weights();
    if (args.events_json) {
      nlohmann::ordered_json j;
      j["step"] = i;
      j["parameter"] = dimensions == 1 ? nlohmann::ordered_json::array({parameter[0]})
                                       : nlohmann::ordered_json::array({parameter[0], parameter[1]});
      j["weights"] = nlohmann::ordered_json::array();
      for (float w : weights) j["weights"].push_back(std::round(w * 1e6) / 1e6);
      j["leader"] = names[player->leader()];
      print("%s\n", json_text(j).c_str());
    } else {
      print("step %4zu  weights", i);
      for (size_t s = 0; s < weights.size(); ++s) print(" %s=%.4f", names[s].c_str(), weights[s]);
      print("  leader %s\n", names[player->leader()].c_str());
    }
    if (args.root_motion) {
      travel = travel.then(player->root_delta());
      print_root_motion(i, player->root_delta(), travel, args.events_json);
    }
    print_events(i, asset, player->events(), args.events_json);
    if (player->events_dropped())
      print_error("ossa: step %zu fired more events than fit (%zu dropped)\n", i, player->events_dropped());
  }
  if (bad) return kExitBadInput;
  if (!args.events_json) {
    print("%s: blend of %zu clips after %zu steps\n", args.file.c_str(), clips.size(), i);
    if (args.root_motion) print_travel(travel);
  }
  return kExitOk;
}

}  // namespace

// One input line: "DT [name=value | name]...". Sets the values on `anim` (checked against the graph) and
// returns the step length; false (message printed) on a bad line.
bool apply_inputs(const StepFile& file, const std::string& line, AnimGraphInstance& anim, double& dt) {
  std::istringstream words(line);
  std::string word;
  words >> word;
  if (!parse_numbers(word, 1, 0, 3600, &dt))
    return file.refuse("a step length in seconds (0-3600) first", line), false;
  while (words >> word) {
    const size_t eq = word.find('=');
    const std::string name = word.substr(0, eq);
    const int p = anim.parameter(name);
    if (p < 0) return file.refuse("a parameter of the graph, not '" + name + "'", line), false;
    const AnimGraphParameter::Type type = anim.graph().parameters()[p].type;
    if (eq == std::string::npos) {
      if (type != AnimGraphParameter::kTrigger)
        return file.refuse("name=value for '" + name + "' (only a trigger is set by its bare name)", line),
               false;
      anim.set_trigger(p);
      continue;
    }
    const std::string value = word.substr(eq + 1);
    if (type == AnimGraphParameter::kBool && (value == "true" || value == "false")) {
      anim.set_bool(p, value == "true");
      continue;
    }
    double number = 0;
    if (type == AnimGraphParameter::kFloat && parse_numbers(value, 1, -1e9, 1e9, &number)) {
      anim.set_float(p, static_cast<float>(number));
      continue;
    }
    if (type == AnimGraphParameter::kTrigger && (value == "true" || value == "false")) {
      if (value == "true")
        anim.set_trigger(p);
      else
        anim.reset_trigger(p);
      continue;
    }
    return file.refuse(std::string("a ") + (type == AnimGraphParameter::kFloat ? "number" : "true or false") +
                           " for '" + name + "'",
                       line),
           false;
  }
  return true;
}

int run_play_graph(const PlayArgs& args, const LoadedCharacter& character) {
  Result<std::shared_ptr<const AnimGraph>> graph = character.anim_graph;
  if (!args.graph.empty()) graph = AnimGraph::load(args.graph, character.asset);
  if (!graph) return print_error("ossa: %s\n", graph.error().c_str()), kExitBadInput;
  if (!*graph)
    return print_error("ossa: %s holds no animation graph: give --graph G.json\n", args.file.c_str()),
           kExitBadInput;
  AnimGraphInstance anim(*graph, character.asset, character.has_notifies() ? &character.notifies : nullptr);
  StepFile inputs(args.inputs);
  if (!inputs.open()) return kExitBadInput;
  const auto& layers = (*graph)->layers();
  size_t step = 0;
  for (std::string line;; ++step) {
    StepFile::Read r = inputs.next(line);
    while (r == StepFile::Read::kLine && line[line.find_first_not_of(" \t")] == '#') r = inputs.next(line);
    if (r == StepFile::Read::kError) return kExitBadInput;
    if (r == StepFile::Read::kEnd) break;
    double dt = 0;
    if (!apply_inputs(inputs, line, anim, dt)) return kExitBadInput;
    anim.update(static_cast<float>(dt));
    for (const AnimGraphEvent& e : anim.events()) {
      const AnimGraphLayer& layer = layers[e.layer];
      const std::string& state = anim.state_name(e);
      const std::string from = e.from_state >= 0 ? layer.states[e.from_state].name : "";
      if (args.events_json) {
        nlohmann::ordered_json j;
        j["step"] = step;
        j["layer"] = layer.name;
        j["type"] = e.type == AnimGraphEvent::kNotify ? to_string(e.notify.type) : to_string(e.type);
        j["state"] = state;
        if (!from.empty()) j["from"] = from;
        if (e.type == AnimGraphEvent::kNotify) {
          j["clip"] = character.asset.clips[e.notify.clip].name();
          j["name"] =
              e.notify.name ? nlohmann::ordered_json(*e.notify.name) : nlohmann::ordered_json(nullptr);
          j["time"] = std::round(e.notify.time * 1e6) / 1e6;
          j["loop"] = e.notify.loop;
          if (e.notify.payload && !e.notify.payload->empty())
            j["payload"] = nlohmann::ordered_json::parse(*e.notify.payload);
        } else {
          j["normalized_time"] = std::round(e.time * 1e6) / 1e6;
        }
        print("%s\n", json_text(j).c_str());
      } else if (e.type == AnimGraphEvent::kNotify) {
        print("step %4zu  %-8s %-22s %-16s t=%.4f loop %d (%s)\n", step, layer.name.c_str(),
              to_string(e.notify.type), e.notify.name ? e.notify.name->c_str() : "-", e.notify.time,
              e.notify.loop, state.c_str());
      } else {
        print("step %4zu  %-8s %-22s %s%s%s  n=%.4f\n", step, layer.name.c_str(), to_string(e.type),
              from.c_str(), from.empty() ? "" : " -> ", state.c_str(), e.time);
      }
    }
    if (anim.events_dropped())
      print_error("ossa: step %zu fired more events than fit (%zu dropped)\n", step, anim.events_dropped());
  }
  if (!args.events_json)
    for (size_t l = 0; l < layers.size(); ++l)
      print("%s: layer %s in '%s' at n=%.4f after %zu steps\n", args.file.c_str(), layers[l].name.c_str(),
            layers[l].states[anim.current_state(static_cast<int>(l))].name.c_str(),
            anim.state_time(static_cast<int>(l)), step);
  return kExitOk;
}

int run_play(const PlayArgs& args) {
  // A model file or a .ossa; notifies from --notifies, else embedded in the .ossa or MODEL.notifies.json.
  auto character = load_any(args.file, args.notifies);
  if (!character) return kExitBadInput;
  const CharacterAsset& asset = character->asset;
  if (asset.clips.empty()) {
    print_error("ossa: %s: no clips to play\n", args.file.c_str());
    return kExitBadInput;
  }
  if (!args.inputs.empty()) return run_play_graph(args, *character);
  if (!args.blend1d.empty() || !args.blend2d.empty()) return run_play_blend(args, *character);
  int clip = find_clip_arg(asset, args.file, args.clip);
  if (clip < 0) return kExitBadInput;

  // Steps are streamed, never stored: --steps 2000000000 or a --dt-file of /dev/zero costs no memory.
  StepFile dt_in(args.dt_file);
  if (!args.dt_file.empty() && !dt_in.open()) return kExitBadInput;
  bool bad_step = false;
  // The next step length: from --dt, or the next non-blank line of the --dt-file (a number of seconds in
  // 0-3600). False at the end, or on a bad line (bad_step set, message printed).
  auto next_step = [&](size_t index, double& dt) {
    if (args.dt_file.empty()) {
      dt = args.dt;
      return index < static_cast<size_t>(args.steps);
    }
    return read_dt(dt_in, dt, bad_step);
  };

  LoopMode mode = args.loop == "once"       ? LoopMode::kOnce
                  : args.loop == "pingpong" ? LoopMode::kPingPong
                                            : LoopMode::kRepeat;
  RootMotionSource root;
  if (!prepare_root_motion(args, *character, root)) return kExitBadInput;
  Animator animator(*root.asset, character->has_notifies() ? &character->notifies : nullptr, root.tracks);
  static_cast<void>(
      animator.play(clip, mode, args.passes, static_cast<float>(args.start)));  // clip checked above
  animator.set_speed(static_cast<float>(args.speed));
  const std::string& clip_name = asset.clips[clip].name();
  size_t i = 0;
  RootDelta travel;
  for (double dt; next_step(i, dt); ++i) {
    animator.update(static_cast<float>(dt));
    if (args.root_motion) {
      travel = travel.then(animator.root_delta());
      print_root_motion(i, animator.root_delta(), travel, args.events_json);
    }
    print_events(i, asset, animator.events(), args.events_json);
    if (animator.events_dropped())
      print_error("ossa: step %zu fired more events than fit (%zu dropped)\n", i, animator.events_dropped());
  }
  if (bad_step) return kExitBadInput;
  if (!args.events_json)
    print("%s: '%s' at %.4f s after %zu steps, %d loops%s\n", args.file.c_str(), clip_name.c_str(),
          animator.time(), i, animator.loops(), animator.finished() ? ", finished" : "");
  if (!args.events_json && args.root_motion) print_travel(travel);
  return kExitOk;
}

}  // namespace ossa::cli
