// `ossa mm play`: a motion-matching database built from motion capture, driven by a scripted stick
// (ossa/runtime/motion_matcher.h), one line per update.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "commands.h"
#include "ossa/core/file_io.h"
#include "ossa/offline/motion_database.h"
#include "ossa/runtime/motion_matcher.h"

namespace ossa::cli {
namespace {

constexpr size_t kMaxInputLines = 1'000'000;  // over 4 hours at 60 Hz

struct Step {
  float dt = 0;
  Vec2 stick;
  bool run = false;
};

// Lines `DT X Y [run]`; blank lines and lines starting with '#' are skipped.
bool read_inputs(const std::string& path, std::vector<Step>& steps) {
  std::ifstream in(path_from_utf8(path));
  if (!in) return print_error("ossa mm play: cannot read %s\n", path.c_str()), false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    Step s;
    std::string run;
    if (!(fields >> s.dt >> s.stick.x >> s.stick.y) || !std::isfinite(s.dt) || !(s.dt > 0) || s.dt > 1 ||
        !std::isfinite(s.stick.x) || !std::isfinite(s.stick.y) || std::abs(s.stick.x) > 1 ||
        std::abs(s.stick.y) > 1)
      return print_error(
                 "ossa mm play: %s:%d: expected `DT X Y [run]` (DT in (0, 1] s, X and Y in [-1, 1])\n",
                 path.c_str(), number),
             false;
    if (fields >> run) {
      if (run != "run")
        return print_error("ossa mm play: %s:%d: the fourth field is `run` or nothing\n", path.c_str(),
                           number),
               false;
      s.run = true;
    }
    if (steps.size() == kMaxInputLines)
      return print_error("ossa mm play: %s: over %zu updates\n", path.c_str(), kMaxInputLines), false;
    steps.push_back(s);
  }
  if (steps.empty()) return print_error("ossa mm play: %s holds no update\n", path.c_str()), false;
  return true;
}

}  // namespace

int run_mm_play(const MmPlayArgs& args) {
  std::vector<Step> steps;
  if (!read_inputs(args.inputs, steps)) return kExitBadInput;
  // One character from every file: the first file's skeleton, each file's clips (the files must share it).
  CharacterAsset character;
  std::vector<std::string> clip_names;
  std::vector<MotionSource> sources;
  for (const std::string& file : args.motion) {
    auto loaded = load_any(file);
    if (!loaded) return kExitBadInput;
    const Skeleton& skeleton = loaded->asset.skeleton;
    if (sources.empty()) {
      character.skeleton = skeleton;
    } else {
      bool same = skeleton.joint_count() == character.skeleton.joint_count();
      for (int j = 0; same && j < skeleton.joint_count(); ++j)
        same = skeleton.name(j) == character.skeleton.name(j) &&
               skeleton.parents()[j] == character.skeleton.parents()[j];
      if (!same)
        return print_error("ossa mm play: %s has another skeleton than %s\n", file.c_str(),
                           args.motion[0].c_str()),
               kExitBadInput;
    }
    for (const Clip& clip : loaded->asset.clips) {
      sources.push_back({static_cast<int>(character.clips.size())});
      character.clips.push_back(clip);
      clip_names.push_back(file.substr(file.find_last_of("/\\") + 1) + ":" + clip.name());
    }
  }
  auto database = build_motion_database(character, sources);
  if (!database) return print_error("ossa mm play: %s\n", database.error().c_str()), kExitBadInput;
  const MotionSearchIndex index(*database);
  MotionMatcher matcher(character, *database, index);
  std::printf(
      "# %d database frames from %zu clips; per update: time, clip, clip time, database frame, cost, "
      "root x z (m) and facing (rad), jumps so far\n",
      database->frame_count(), clip_names.size());
  double time = 0;
  for (const Step& s : steps) {
    matcher.update(s.stick, s.run, s.dt);
    time += s.dt;
    const RootDelta root = matcher.root();
    std::printf("%.4f %s %.4f %d %.4f %.4f %.4f %.4f %d\n", time, clip_names[matcher.clip()].c_str(),
                matcher.clip_time(), matcher.frame(), matcher.stats().last_cost, root.x, root.z, root.yaw,
                matcher.stats().jumps);
  }
  return kExitOk;
}

}  // namespace ossa::cli
