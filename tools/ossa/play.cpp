// `ossa play`: drive an Animator step by step and print the events it fires (JSON Lines with --events-json).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "json_output.h"
#include "ossa/runtime/animator.h"
#include "text_output.h"

namespace ossa::cli {

int run_play(const PlayArgs& args) {
  // A model file or a .ossa; notifies from --notifies, else embedded in the .ossa or MODEL.notifies.json.
  auto character = load_any(args.file, args.notifies);
  if (!character) return kExitBadInput;
  const CharacterAsset& asset = character->asset;
  if (asset.clips.empty()) {
    print_error("ossa: %s: no clips to play\n", args.file.c_str());
    return kExitBadInput;
  }
  int clip = find_clip_arg(asset, args.file, args.clip);
  if (clip < 0) return kExitBadInput;

  // Steps are streamed, never stored: --steps 2000000000 or a --dt-file of /dev/zero costs no memory.
  std::ifstream dt_in;
  if (!args.dt_file.empty()) {
    dt_in.open(args.dt_file);
    if (!dt_in) {
      print_error("ossa: %s: cannot open\n", args.dt_file.c_str());
      return kExitBadInput;
    }
  }
  size_t line_number = 0;
  bool bad_step = false;
  auto refuse = [&] {
    bad_step = true;
    return false;
  };
  // The next step length: from --dt, or the next non-blank line of the --dt-file (at most 256 characters,
  // a number of seconds in 0-3600). False at the end, or on a bad line (bad_step set, message printed).
  auto next_step = [&](size_t index, double& dt) {
    if (args.dt_file.empty()) {
      dt = args.dt;
      return index < static_cast<size_t>(args.steps);
    }
    std::string line;
    while (true) {
      line.clear();
      int c;
      while ((c = dt_in.get()) != EOF && c != '\n') {
        if (line.size() == 256) {
          print_error("ossa: %s:%zu: line longer than 256 characters\n", args.dt_file.c_str(),
                      line_number + 1);
          return refuse();
        }
        line.push_back(static_cast<char>(c));
      }
      if (c == EOF && line.empty()) return false;
      if (++line_number > static_cast<size_t>(kMaxPlaySteps)) {
        print_error("ossa: %s: more than %d lines\n", args.dt_file.c_str(), kMaxPlaySteps);
        return refuse();
      }
      if (line.find_first_not_of(" \t\r") != std::string::npos) break;
    }
    char* end = nullptr;
    dt = std::strtod(line.c_str(), &end);
    while (end && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
    if (!end || end == line.c_str() || *end != '\0' || !std::isfinite(dt) || dt < 0 || dt > 3600) {
      std::string shown;
      for (char ch : line) shown += (ch >= 32 && ch < 127) ? ch : '?';
      print_error("ossa: %s:%zu: expected a step length in seconds (0-3600), got '%s'\n",
                  args.dt_file.c_str(), line_number, shown.c_str());
      return refuse();
    }
    return true;
  };

  LoopMode mode = args.loop == "once"       ? LoopMode::kOnce
                  : args.loop == "pingpong" ? LoopMode::kPingPong
                                            : LoopMode::kRepeat;
  Animator animator(asset, character->has_notifies() ? &character->notifies : nullptr);
  animator.play(clip, mode, args.passes, static_cast<float>(args.start));
  animator.set_speed(static_cast<float>(args.speed));
  const std::string& clip_name = asset.clips[clip].name();
  size_t i = 0;
  for (double dt; next_step(i, dt); ++i) {
    animator.update(static_cast<float>(dt));
    for (const AnimEvent& e : animator.events()) {
      if (args.events_json) {
        nlohmann::ordered_json j;
        j["step"] = i;
        j["clip"] = asset.clips[e.clip].name();
        j["name"] = e.name ? nlohmann::ordered_json(*e.name) : nlohmann::ordered_json(nullptr);
        j["type"] = to_string(e.type);
        j["time"] = std::round(e.time * 1e6) / 1e6;
        j["loop"] = e.loop;
        if (e.payload && !e.payload->empty()) j["payload"] = nlohmann::ordered_json::parse(*e.payload);
        print("%s\n", json_text(j).c_str());
      } else {
        print("step %4zu  %-8s %-16s t=%.4f loop %d\n", i, to_string(e.type), e.name ? e.name->c_str() : "-",
              e.time, e.loop);
      }
    }
    if (animator.events_dropped())
      print_error("ossa: step %zu fired more events than fit (%zu dropped)\n", i, animator.events_dropped());
  }
  if (bad_step) return kExitBadInput;
  if (!args.events_json)
    print("%s: '%s' at %.4f s after %zu steps, %d loops%s\n", args.file.c_str(), clip_name.c_str(),
          animator.time(), i, animator.loops(), animator.finished() ? ", finished" : "");
  return kExitOk;
}

}  // namespace ossa::cli
