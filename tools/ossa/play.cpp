// `ossa play`: drive an Animator step by step and print the events it fires (JSON Lines with --events-json).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ossa/runtime/animator.h"

namespace ossa::cli {

int run_play(const PlayArgs& args) {
  // A model file or a .ossa; notifies from --notifies, else embedded in the .ossa or MODEL.notifies.json.
  auto character = load_any(args.file, args.notifies);
  if (!character) return 1;
  const CharacterAsset& asset = character->asset;
  if (asset.clips.empty()) {
    std::fprintf(stderr, "ossa: %s: no clips to play\n", args.file.c_str());
    return 1;
  }
  int clip = find_clip_arg(asset, args.file, args.clip);
  if (clip < 0) return 1;

  std::vector<double> steps;
  if (!args.dt_file.empty()) {
    std::ifstream in(args.dt_file);
    if (!in) {
      std::fprintf(stderr, "ossa: %s: cannot open\n", args.dt_file.c_str());
      return 1;
    }
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      char* end = nullptr;
      double dt = std::strtod(line.c_str(), &end);
      while (end && (*end == ' ' || *end == '\t' || *end == '\r')) ++end;
      if (!end || *end != '\0' || !std::isfinite(dt) || dt < 0) {
        std::fprintf(stderr, "ossa: %s:%d: expected a step length in seconds (>= 0), got '%s'\n",
                     args.dt_file.c_str(), number, line.c_str());
        return 1;
      }
      steps.push_back(dt);
    }
  } else {
    if (args.steps < 0 || !(args.dt >= 0) || !std::isfinite(args.dt)) {
      std::fprintf(stderr, "ossa: give --dt-file FILE, or --steps N and --dt S (S >= 0)\n");
      return 2;
    }
    steps.assign(args.steps, args.dt);
  }

  LoopMode mode = args.loop == "once"       ? LoopMode::kOnce
                  : args.loop == "pingpong" ? LoopMode::kPingPong
                                            : LoopMode::kRepeat;
  Animator animator(asset, character->has_notifies() ? &character->notifies : nullptr);
  animator.play(clip, mode, args.passes, static_cast<float>(args.start));
  animator.set_speed(static_cast<float>(args.speed));
  const std::string& clip_name = asset.clips[clip].name();
  for (size_t i = 0; i < steps.size(); ++i) {
    animator.update(static_cast<float>(steps[i]));
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
        std::printf("%s\n", j.dump().c_str());
      } else {
        std::printf("step %4zu  %-8s %-16s t=%.4f loop %d\n", i, to_string(e.type),
                    e.name ? e.name->c_str() : "-", e.time, e.loop);
      }
    }
    if (animator.events_dropped())
      std::fprintf(stderr, "ossa: step %zu fired more events than fit (%zu dropped)\n", i,
                   animator.events_dropped());
  }
  if (!args.events_json)
    std::printf("%s: '%s' at %.4f s after %zu steps, %d loops%s\n", args.file.c_str(), clip_name.c_str(),
                animator.time(), steps.size(), animator.loops(), animator.finished() ? ", finished" : "");
  return 0;
}

}  // namespace ossa::cli
