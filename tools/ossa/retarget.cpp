// `ossa retarget`: a source character's clips onto a target skeleton (ossa/runtime/retarget.h), written as a
// .ossa that holds the target (skeleton, meshes, materials) with the retargeted clips.
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"
#include "ossa/runtime/retarget.h"
#include "ossa/serialize/ossa_file.h"

namespace ossa::cli {
namespace {

constexpr long long kMaxMapBytes = 16ll << 20;

bool read_text(const std::string& path, std::string& text) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  if (!in) return print_error("ossa retarget: cannot read %s\n", path.c_str()), false;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0 || size > kMaxMapBytes)
    return print_error("ossa retarget: %s is not a bone map (over 16 MB)\n", path.c_str()), false;
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
  auto map = build_bone_map(source->asset.skeleton, target->asset.skeleton, options);
  if (!map)
    return print_error("ossa retarget: %s: %s\n", args.map.c_str(), map.error().c_str()), kExitBadInput;
  auto rig = RetargetRig::build(source->asset.skeleton, target->asset.skeleton, *map);
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
  for (int c : clips) {
    auto clip = retarget_clip(source->asset.clips[c], *rig);
    if (!clip) return print_error("ossa retarget: %s\n", clip.error().c_str()), kExitBadInput;
    file.clips.push_back(std::move(clip).value());
  }
  file.root_motion.resize(file.clips.size());
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
  return kExitOk;
}

}  // namespace ossa::cli
