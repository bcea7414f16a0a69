// `ossa mm build`: a motion-matching database for a character from motion capture (retargeted when its
// skeleton is another), written with the character into one .ossa. `ossa mm play`: a database (such a file,
// or one built on the spot from motion capture) driven by a scripted stick (ossa/runtime/motion_matcher.h),
// one line per update.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "ossa/asset/clip_names.h"
#include "ossa/core/file_io.h"
#include "ossa/offline/mirror.h"
#include "ossa/offline/motion_database.h"
#include "ossa/offline/retarget.h"
#include "ossa/runtime/motion_matcher.h"
#include "ossa/serialize/ossa_file.h"

namespace ossa::cli {
namespace {

constexpr size_t kMaxInputLines = 1'000'000;  // over 4 hours at 60 Hz
constexpr long long kMaxConfigBytes = 1 << 20;
constexpr size_t kMaxConfigTags = 100'000;

// Skeletons that name the same joints under the same parents: a clip of one plays on the other as it is.
bool same_skeleton(const Skeleton& a, const Skeleton& b) {
  bool same = a.joint_count() == b.joint_count();
  for (int j = 0; same && j < a.joint_count(); ++j)
    same = a.name(j) == b.name(j) && a.parents()[j] == b.parents()[j];
  return same;
}

// The file's name without folders and extension: a take's name in the database.
std::string stem(const std::string& path) {
  const size_t slash = path.find_last_of("/\\") + 1, dot = path.find_last_of('.');
  return path.substr(slash, dot != std::string::npos && dot > slash ? dot - slash : std::string::npos);
}

// MM.json (docs/motion-matching.md#tuning): every key optional, unknown keys refused.
//   {"frame_rate": 60, "root_smoothing": 0.1, "contact_height": 0.03, "contact_speed": 0.25,
//    "weights": {"left_foot_position": 0.75, ..., "trajectory_directions": 1.5},
//    "joints": {"left_foot": "foot_l", "right_foot": "foot_r", "hips": "pelvis"},
//    "tags": [{"clip": "walk_001", "name": "mm_exclude", "start": 0, "end": 0.5}]}
struct ConfigTag {
  std::string clip, name;
  float start = 0, end = 0;
};
bool read_config(const std::string& path, MotionDatabaseConfig& config, std::vector<ConfigTag>& tags) {
  std::string text;
  {
    std::ifstream in(path_from_utf8(path), std::ios::binary);
    if (!in) return print_error("ossa mm build: cannot read %s\n", path.c_str()), false;
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0 || size > kMaxConfigBytes)
      return print_error("ossa mm build: %s: over 1 MB, not a config\n", path.c_str()), false;
    in.seekg(0);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  auto bad = [&](const std::string& what) {
    print_error("ossa mm build: %s: %s\n", path.c_str(), what.c_str());
    return false;
  };
  if (!doc.is_object()) return bad("not a JSON object");
  auto number = [&](const nlohmann::json& v, const std::string& key, float lo, float hi, float& out) {
    if (!v.is_number() || !(v.get<double>() >= lo) || !(v.get<double>() <= hi))
      return print_error("ossa mm build: %s: \"%s\" is not a number in [%g, %g]\n", path.c_str(), key.c_str(),
                         lo, hi),
             false;
    out = v.get<float>();
    return true;
  };
  static const char* const kGroups[MotionDatabase::kGroupCount] = {
      "left_foot_position", "right_foot_position",  "left_foot_velocity",   "right_foot_velocity",
      "hips_velocity",      "trajectory_positions", "trajectory_directions"};
  for (const auto& [key, value] : doc.items()) {
    if (key == "frame_rate") {
      if (!number(value, key, 1, 240, config.frame_rate)) return false;
    } else if (key == "root_smoothing") {
      if (!number(value, key, 0, 2, config.root_smoothing)) return false;
    } else if (key == "contact_height") {
      if (!number(value, key, 0, 10, config.contact_height)) return false;
    } else if (key == "contact_speed") {
      if (!number(value, key, 0, 100, config.contact_speed)) return false;
    } else if (key == "weights") {
      if (!value.is_object()) return bad("\"weights\" is not an object");
      for (const auto& [group, weight] : value.items()) {
        const auto* found = std::find(std::begin(kGroups), std::end(kGroups), group);
        if (found == std::end(kGroups)) return bad("no feature group \"" + group + "\"");
        if (!number(weight, group, 0, 1000, config.weights[found - std::begin(kGroups)])) return false;
      }
    } else if (key == "joints") {
      if (!value.is_object()) return bad("\"joints\" is not an object");
      for (const auto& [which, name] : value.items()) {
        if (!name.is_string()) return bad("joint \"" + which + "\" is not a name");
        if (which == "left_foot") {
          config.left_foot = name.get<std::string>();
        } else if (which == "right_foot") {
          config.right_foot = name.get<std::string>();
        } else if (which == "hips") {
          config.hips = name.get<std::string>();
        } else {
          return bad("joints are left_foot, right_foot and hips, not \"" + which + "\"");
        }
      }
    } else if (key == "tags") {
      if (!value.is_array()) return bad("\"tags\" is not an array");
      if (value.size() > kMaxConfigTags) return bad("over 100,000 tags");
      for (const auto& t : value) {
        ConfigTag tag;
        if (!t.is_object() || !t.contains("clip") || !t["clip"].is_string() || !t.contains("name") ||
            !t["name"].is_string() || t.size() != 4 || !t.contains("start") || !t.contains("end"))
          return bad("a tag is {\"clip\": NAME, \"name\": TAG, \"start\": S, \"end\": S}");
        tag.clip = t["clip"].get<std::string>(), tag.name = t["name"].get<std::string>();
        if (!number(t["start"], "start", 0, 1e6f, tag.start) || !number(t["end"], "end", 0, 1e6f, tag.end))
          return false;
        if (tag.end < tag.start) return bad("a tag ends before it starts");
        tags.push_back(std::move(tag));
      }
    } else {
      return bad("unknown key \"" + key + "\"");
    }
  }
  return true;
}

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

int run_mm_build(const MmBuildArgs& args) {
  std::vector<std::string> inputs = args.motion;
  inputs.push_back(args.character);
  if (!args.config.empty()) inputs.push_back(args.config);
  if (!output_is_not_an_input(args.output, inputs)) return kExitOutput;
  MotionDatabaseConfig config;
  std::vector<ConfigTag> config_tags;
  if (!args.config.empty() && !read_config(args.config, config, config_tags)) return kExitBadInput;
  auto target = load_any(args.character);
  if (!target) return kExitBadInput;
  CharacterAsset character{target->asset.skeleton, {}, {}};
  std::vector<MotionTagRange> notified;  // from the takes' notifies
  const Skeleton& skeleton = character.skeleton;
  // Each take, on the character's skeleton: as it is when the skeletons match by name and parent, else
  // retargeted.
  for (const std::string& file : args.motion) {
    auto take = load_any(file);
    if (!take) return kExitBadInput;
    const Skeleton& from = take->asset.skeleton;
    const bool same = same_skeleton(from, skeleton);
    std::optional<RetargetRig> rig;
    if (!same) {
      auto map = build_bone_map(from, skeleton);
      if (!map)
        return print_error("ossa mm build: %s: %s\n", file.c_str(), map.error().c_str()), kExitBadInput;
      // No contact pass: it measures the feet from the rest poses, which motion capture often has lying down
      // (the shared BVH's along +X); the plain retarget keeps the takes' own plants.
      auto built = RetargetRig::build(from, skeleton, *map);
      if (!built)
        return print_error("ossa mm build: %s: %s\n", file.c_str(), built.error().c_str()), kExitBadInput;
      rig = std::move(built).value();
    }
    for (size_t c = 0; c < take->asset.clips.size(); ++c) {
      const Clip& clip = take->asset.clips[c];
      // The take's state notifies named mm_... tag its ranges (mm_exclude: never matched).
      if (take->has_notifies() && c < take->notifies.clips.size())
        for (const Notify& n : take->notifies.clips[c].states)
          if (const std::string& name = take->notifies.names[n.name_id]; name.rfind("mm_", 0) == 0)
            notified.push_back({static_cast<int>(character.clips.size()), name, n.time, n.time + n.duration});
      Result<Clip> onto = same ? Result<Clip>(clip) : retarget_clip(clip, *rig);
      if (!onto)
        return print_error("ossa mm build: %s: %s\n", file.c_str(), onto.error().c_str()), kExitBadInput;
      const std::string name = take->asset.clips.size() == 1 ? stem(file) : stem(file) + ":" + clip.name();
      character.clips.push_back(Clip::with_name(std::move(onto).value(), name));
    }
  }
  if (args.mirror) {
    const size_t takes = character.clips.size();
    for (size_t c = 0; c < takes; ++c) {
      auto mirrored = mirror_clip(character.clips[c], skeleton);
      if (!mirrored) return print_error("ossa mm build: %s\n", mirrored.error().c_str()), kExitBadInput;
      character.clips.push_back(
          Clip::with_name(std::move(mirrored).value(), character.clips[c].name() + ".mirrored"));
    }
  }
  std::vector<MotionSource> sources;
  std::vector<std::string> names;
  for (int c = 0; c < static_cast<int>(character.clips.size()); ++c)
    sources.push_back({c}), names.push_back(character.clips[c].name());
  std::vector<MotionTagRange> tags = notified;
  if (args.mirror) {  // a mirrored take keeps its original's tags
    const int takes = static_cast<int>(character.clips.size()) / 2;
    for (const MotionTagRange& t : notified) tags.push_back({t.clip + takes, t.name, t.start, t.end});
  }
  for (const ConfigTag& t : config_tags) {
    const int clip = match_clip_name(names, t.clip);
    if (clip < 0)
      return print_error("ossa mm build: %s: a tag names clip \"%s\", which no take is\n",
                         args.config.c_str(), t.clip.c_str()),
             kExitBadInput;
    tags.push_back({clip, t.name, t.start, t.end});
  }
  const auto start = std::chrono::steady_clock::now();
  auto database = build_motion_database(character, sources, tags, config);
  if (!database) return print_error("ossa mm build: %s\n", database.error().c_str()), kExitBadInput;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  OssaFile file;
  file.skeleton = skeleton;
  file.meshes = target->asset.meshes;
  file.materials = target->materials;
  file.textures = target->textures;
  file.flip_textures = target->flip_textures;
  file.left_handed = target->left_handed;
  file.clips = std::move(character.clips);
  file.motion_database = std::move(database).value();
  if (auto written = write_ossa(file, args.output); !written)
    return print_error("ossa mm build: %s\n", written.error().c_str()), kExitOutput;
  int matchable = 0;
  for (uint32_t t : file.motion_database->tags) matchable += !(t & MotionDatabase::kExcludedTag);
  print("%s: %d database frames (%d matchable) from %zu clips on %s's skeleton, built in %.0f ms\n",
        args.output.c_str(), file.motion_database->frame_count(), matchable, file.clips.size(),
        args.character.c_str(), ms);
  return kExitOk;
}

// The played motion as one fixed-rate clip in the world: the skeleton's root takes the matcher's root (its
// other ancestors of the hips hold the identity, as in locals()).
struct Baker {
  const Skeleton& skeleton;
  int top = 0;  // the root of the hips' chain
  std::vector<JointPose> frames;
  void add(const MotionMatcher& matcher) {
    const size_t at = frames.size();
    frames.insert(frames.end(), matcher.locals().begin(), matcher.locals().end());
    const RootDelta r = matcher.root();
    const Mat4 world =
        translation_matrix({r.x, 0, r.z}) * rotation_matrix(quat_from_axis_angle({0, 1, 0}, r.yaw));
    JointPose& root = frames[at + top];
    root = to_joint_pose(decompose(world * to_transform(root).to_matrix()));
  }
};

int run_mm_play(const MmPlayArgs& args) {
  if (!args.bake.empty()) {
    std::vector<std::string> inputs = args.motion;
    inputs.push_back(args.inputs);
    if (!output_is_not_an_input(args.bake, inputs)) return kExitOutput;
  }
  std::vector<Step> steps;
  if (!read_inputs(args.inputs, steps)) return kExitBadInput;
  // A database built by `ossa mm build` (one .ossa holding one), else one built here from every file: the
  // first file's skeleton, each file's clips (the files must share it).
  CharacterAsset character;
  std::shared_ptr<const LoadedCharacter> built_file;
  std::vector<std::string> clip_names;
  std::optional<MotionDatabase> database;
  if (args.motion.size() == 1 && is_ossa_file(args.motion[0])) {
    built_file = load_any(args.motion[0]);
    if (!built_file) return kExitBadInput;
    if (built_file->motion_database) {
      character = built_file->asset;
      database = *built_file->motion_database;
      for (const Clip& clip : character.clips) clip_names.push_back(clip.name());
    }
  }
  if (!database) {
    std::vector<MotionSource> sources;
    for (const std::string& file : args.motion) {
      auto loaded = load_any(file);
      if (!loaded) return kExitBadInput;
      const Skeleton& skeleton = loaded->asset.skeleton;
      if (sources.empty()) {
        character.skeleton = skeleton;
      } else {
        const bool same = same_skeleton(skeleton, character.skeleton);
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
    auto made = build_motion_database(character, sources);
    if (!made) return print_error("ossa mm play: %s\n", made.error().c_str()), kExitBadInput;
    database = std::move(made).value();
  }
  float bake_dt = 0;
  if (!args.bake.empty()) {
    bake_dt = steps[0].dt;
    for (const Step& s : steps)
      if (std::abs(s.dt - bake_dt) > 1e-6f)
        return print_error("ossa mm play: --bake needs one DT on every line of %s (a fixed frame rate)\n",
                           args.inputs.c_str()),
               kExitBadInput;
  }
  const MotionSearchIndex index(*database);
  MotionMatcher matcher(character, *database, index);
  if (!args.events_json)
    print(
        "# %d database frames from %zu clips; per update: time, clip, clip time, database frame, cost, "
        "root x z (m) and facing (rad), jumps so far\n",
        database->frame_count(), clip_names.size());
  int top = database->hips;
  while (character.skeleton.parents()[top] >= 0) top = character.skeleton.parents()[top];
  Baker baker{character.skeleton, top, {}};
  double time = 0;
  int jumps = 0;
  for (const Step& s : steps) {
    matcher.update(s.stick, s.run, s.dt);
    time += s.dt;
    const RootDelta root = matcher.root();
    const MotionMatcherStats& stats = matcher.stats();
    if (args.events_json) {
      nlohmann::ordered_json event;
      event["time"] = time;
      event["clip"] = clip_names[matcher.clip()];
      event["clip_time"] = matcher.clip_time();
      event["frame"] = matcher.frame();
      event["cost"] = stats.last_cost;
      event["root"] = {root.x, root.z, root.yaw};
      event["jumped"] = stats.jumps > jumps;
      const MotionDatabase& db = *database;
      const int planted = db.contacts.empty() ? 0 : db.contacts[matcher.frame()];
      event["planted"] = {(planted & 1) != 0, (planted & 2) != 0};
      print("%s\n", event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    } else {
      print("%.4f %s %.4f %d %.4f %.4f %.4f %.4f %d\n", time, clip_names[matcher.clip()].c_str(),
            matcher.clip_time(), matcher.frame(), stats.last_cost, root.x, root.z, root.yaw, stats.jumps);
    }
    jumps = stats.jumps;
    if (!args.bake.empty()) baker.add(matcher);
  }
  if (!args.bake.empty()) {
    const int joints = character.skeleton.joint_count();
    const int frames = static_cast<int>(baker.frames.size()) / joints;
    auto clip = Clip::from_frames("mm_play", static_cast<float>(frames - 1) * bake_dt, 1 / bake_dt, joints,
                                  std::move(baker.frames));
    if (!clip) return print_error("ossa mm play: %s\n", clip.error().c_str()), kExitBadInput;
    OssaFile file;
    file.skeleton = character.skeleton;
    if (built_file) {
      file.meshes = built_file->asset.meshes;
      file.materials = built_file->materials;
      file.textures = built_file->textures;
      file.flip_textures = built_file->flip_textures;
      file.left_handed = built_file->left_handed;
    }
    file.clips.push_back(std::move(clip).value());
    if (auto written = write_ossa(file, args.bake); !written)
      return print_error("ossa mm play: %s\n", written.error().c_str()), kExitOutput;
  }
  return kExitOk;
}

}  // namespace ossa::cli
