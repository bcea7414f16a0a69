// `ossa retarget`: a source character's clips onto a target skeleton (ossa/runtime/retarget.h), written as a
// .ossa that holds the target (skeleton, meshes, materials) with the retargeted clips.
#include <algorithm>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "ossa/asset/clip_names.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"
#include "ossa/offline/retarget.h"
#include "ossa/serialize/ossa_file.h"

namespace ossa::cli {
namespace {

constexpr long long kMaxMapBytes = 16ll << 20;

bool read_text(const std::string& path, std::string& text, long long max_bytes = kMaxMapBytes,
               const char* what = "a bone map") {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return print_error("ossa retarget: cannot read %s\n", path.c_str()), false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > max_bytes)
    return print_error("ossa retarget: %s is not %s (over %lld MB)\n", path.c_str(), what, max_bytes >> 20),
           false;
  in.seekg(0);
  text.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

// The map as JSON: what --map reads ({"target": "source" or null}), plus the report and the profiles.
std::string report_json(const BoneMap& map, const Skeleton& source, const Skeleton& target) {
  nlohmann::ordered_json map_json = nlohmann::ordered_json::object();
  for (int t = 0; t < target.joint_count(); ++t)
    map_json[target.name(t)] = map.source_of[t] >= 0 ? nlohmann::ordered_json(source.name(map.source_of[t]))
                                                     : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json out = {{"map", map_json},
                                {"source_profile", map.source_profile},
                                {"target_profile", map.target_profile},
                                {"report", map.report}};
  return out.dump(2) + "\n";
}

// The notify JSON the source carries: embedded in a .ossa, else its sidecar (MODEL.notifies.json); "" when
// none.
Result<std::string> source_notifies_json(const LoadedCharacter& source, const std::string& path) {
  if (!source.has_notifies()) return std::string();
  if (is_ossa_file(path)) {
    auto file = read_ossa(path);
    if (!file) return Result<std::string>::failure(file.error());
    return std::move(file->notifies_json);
  }
  for (const std::string& read : source.source_files)
    if (read.ends_with(".notifies.json")) {
      std::string text;
      if (!read_text(read, text, kMaxNotifyFileBytes, "a notify file"))
        return Result<std::string>::failure("cannot read " + read);
      return text;
    }
  return std::string();
}

}  // namespace

int run_retarget(const RetargetArgs& args) {
  if (!output_is_not_an_input(args.output, {args.source, args.target, args.map})) return kExitOutput;
  if (!args.report.empty() && !output_is_not_an_input(args.report, {args.source, args.target, args.map}))
    return kExitOutput;
  auto source = load_any(args.source);
  auto target = load_any(args.target);
  if (!source || !target) return kExitBadInput;
  BoneMapOptions options;
  if (!args.map.empty() && !read_text(args.map, options.explicit_json)) return kExitBadInput;
  if (args.profile == "none") {
    options.profiles = false;
  } else {
    options.profile = args.profile;
  }
  auto map = build_bone_map(source->asset.skeleton, target->asset.skeleton, options);
  if (!map)
    return print_error("ossa retarget: %s%s%s\n", args.map.c_str(), args.map.empty() ? "" : ": ",
                       map.error().c_str()),
           kExitBadInput;
  int limbs = 0;
  for (const std::string& limb : args.contacts) limbs |= limb == "feet" ? 1 : 2;
  auto rig = RetargetRig::build(source->asset.skeleton, target->asset.skeleton, *map,
                                static_cast<RetargetContacts>(limbs));
  if (!rig) return print_error("ossa retarget: %s\n", rig.error().c_str()), kExitBadInput;

  std::vector<int> clips;
  if (args.clips.empty()) {
    for (size_t c = 0; c < source->asset.clips.size(); ++c) clips.push_back(static_cast<int>(c));
  } else {
    for (const std::string& name : args.clips) {
      const int c = find_clip_arg(source->asset, args.source, name);
      if (c < 0) return kExitBadInput;
      clips.push_back(c);
    }
  }
  OssaFile file;
  file.skeleton = target->asset.skeleton;
  if (!args.anim_only) {
    file.meshes = target->asset.meshes;
    file.materials = target->materials;
    file.textures = target->textures;
  }
  file.flip_textures = target->flip_textures;
  file.left_handed = target->left_handed;
  // Clips (in place with their root motion scaled, when the source has it), morph weights by name.
  auto retargeted =
      retarget_clips(source->asset, source->root_motion, target->asset, *rig, clips, !args.anim_only);
  if (!retargeted) return print_error("ossa retarget: %s\n", retargeted.error().c_str()), kExitBadInput;
  file.clips = std::move(retargeted->clips);
  file.root_motion = std::move(retargeted->root_motion);
  std::vector<std::string>& unmatched_morphs = retargeted->unmatched_morphs;
  if (auto notifies = source_notifies_json(*source, args.source); !notifies) {
    return print_error("ossa retarget: %s\n", notifies.error().c_str()), kExitBadInput;
  } else if (!notifies->empty()) {
    std::vector<ClipTiming> timings;
    std::vector<std::string> names;
    for (const Clip& clip : file.clips)
      timings.push_back({clip.name(), clip.duration()}), names.push_back(clip.name());
    auto doc = nlohmann::json::parse(*notifies, nullptr, false);
    if (doc.is_object() && doc.contains("clips") && doc["clips"].is_object()) {
      nlohmann::json kept = nlohmann::json::object();
      for (auto& [name, list] : doc["clips"].items())
        if (match_clip_name(names, name) >= 0) kept[name] = list;
      doc["clips"] = kept;
    }
    const std::string text = doc.dump(2) + "\n";
    if (auto parsed = parse_notifies(text, args.source + " notifies", timings); !parsed)
      return print_error("ossa retarget: %s\n", parsed.error().c_str()), kExitBadInput;
    file.notifies_json = text;
  }
  if (auto written = write_ossa(file, args.output); !written)
    return print_error("ossa retarget: %s\n", written.error().c_str()), kExitOutput;
  if (!args.report.empty()) {
    const std::string text = report_json(*map, source->asset.skeleton, target->asset.skeleton);
    if (auto written =
            write_file_atomically(args.report, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
        !written)
      return print_error("ossa retarget: %s\n", written.error().c_str()), kExitOutput;
  }
  print("%s -> %s: %d of %d target joints mapped (profiles: %s -> %s); %zu clips -> %s\n",
        args.source.c_str(), args.target.c_str(), map->mapped(), target->asset.skeleton.joint_count(),
        map->source_profile.empty() ? "none" : map->source_profile.c_str(),
        map->target_profile.empty() ? "none" : map->target_profile.c_str(), file.clips.size(),
        args.output.c_str());
  for (const std::string& line : map->report) print("  %s\n", line.c_str());
  for (const RetargetRig::Contact& c : rig->contacts)
    print("  contacts: %s '%s' (chain from '%s')\n", c.name.c_str(),
          target->asset.skeleton.name(c.end).c_str(), target->asset.skeleton.name(c.start).c_str());
  std::sort(unmatched_morphs.begin(), unmatched_morphs.end());  // each clip reports its own
  unmatched_morphs.erase(std::unique(unmatched_morphs.begin(), unmatched_morphs.end()),
                         unmatched_morphs.end());
  for (const std::string& morph : unmatched_morphs)
    print("  morph target '%s': no target takes it\n", morph.c_str());
  return kExitOk;
}

}  // namespace ossa::cli
