#include "ossa/import/load_character.h"

#include "ossa/core/file_io.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "gltf_file.h"
#include "ossa/offline/root_motion.h"

namespace ossa {
namespace {

// What a glTF written by Ossa (ossa/serialize/gltf_export.h) records in its animations' extras.ossa: notifies
// (as a sidecar's JSON text, "" when none) and the root-motion joint of each clip ("" when none).
struct GltfClipExtras {
  std::string notifies_json;
  std::vector<std::string> clip_names, root_motion_joints;
};

std::string read_gltf_extras(const std::string& path, GltfClipExtras& out) {
  detail::GltfFile file;
  if (std::string error = file.open(path, {}); !error.empty()) return error;
  if (!file.mentions("\"ossa\"")) return "";
  if (std::string error = file.parse(); !error.empty()) return error;
  const detail::gltf::json* animations = detail::gltf::member(file.doc(), "animations");
  if (!animations || !animations->is_array()) return "";
  detail::gltf::json clips = detail::gltf::json::object();
  for (const auto& animation : *animations) {
    if (!animation.is_object()) continue;
    const std::string name = detail::gltf::string_member(animation, "name");
    const auto* extras = detail::gltf::member(animation, "extras");
    const auto* ossa = extras && extras->is_object() ? detail::gltf::member(*extras, "ossa") : nullptr;
    if (!ossa || !ossa->is_object()) continue;
    if (const auto* notifies = detail::gltf::member(*ossa, "notifies"); notifies && notifies->is_array())
      clips[name] = *notifies;
    const auto* root = detail::gltf::member(*ossa, "rootMotion");
    out.clip_names.push_back(name);
    out.root_motion_joints.push_back(root && root->is_object() ? detail::gltf::string_member(*root, "joint")
                                                               : "");
  }
  if (!clips.empty()) out.notifies_json = detail::gltf::json{{"clips", clips}}.dump();
  return "";
}

// Root motion taken out again from the clips an Ossa glTF export put it back into (every clip must name its
// joint, as `ossa convert --root-motion` gives them all; fixed-rate clips only).
Result<bool> extract_exported_root_motion(LoadedCharacter& character, const GltfClipExtras& extras) {
  auto& clips = character.asset.clips;
  std::vector<RootMotionTrack> tracks;
  for (Clip& clip : clips) {
    const int i = match_clip_name(extras.clip_names, clip.name());
    const std::string joint_name = i >= 0 ? extras.root_motion_joints[i] : "";
    if (joint_name.empty() || clip.layout() != Clip::Layout::kFixedRate) return false;
    const int joint = character.asset.skeleton.find_joint(joint_name);
    if (joint < 0)
      return Result<bool>::failure("root motion joint '" + joint_name + "' is not in the skeleton");
    auto in_place = extract_root_motion(clip, character.asset.skeleton, joint);
    if (!in_place) return Result<bool>::failure("clip '" + clip.name() + "': " + in_place.error());
    clip = std::move(in_place->clip);
    tracks.push_back(std::move(in_place->track));
  }
  character.root_motion = std::move(tracks);
  return !clips.empty();
}

}  // namespace

bool is_ossa_file(const std::string& path) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  char magic[8] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, "OSSA\r\n\x1a\n", 8) == 0;
}

Result<std::shared_ptr<const LoadedCharacter>> load_character(const std::string& path,
                                                              const ModelLoadOptions& options) {
  using R = Result<std::shared_ptr<const LoadedCharacter>>;
  if (is_ossa_file(path)) return load_ossa_character(path, options);
  auto scene = import_file(path, options.import);
  if (!scene) return R::failure(scene.error());
  return load_character(std::move(scene).value(), options);
}

Result<std::shared_ptr<const LoadedCharacter>> load_character(ImportedScene imported,
                                                              const ModelLoadOptions& options) {
  using R = Result<std::shared_ptr<const LoadedCharacter>>;
  ImportedScene* scene = &imported;
  const std::string path = imported.source_path;
  auto asset = CharacterAsset::build(*scene, options.build);
  if (!asset) return R::failure(asset.error());
  auto character = std::make_shared<LoadedCharacter>();
  character->source_path = path;
  character->asset = std::move(asset).value();
  character->materials = std::move(scene->materials);
  character->textures = std::move(scene->textures);
  character->flip_textures = scene->format != "gltf";
  character->left_handed = scene->space.left_handed;
  character->source_files = std::move(scene->source_files);
  std::string notify_path = options.notifies_path;
  if (notify_path.empty() && options.sidecar) notify_path = find_notify_sidecar(path);
  GltfClipExtras extras;
  if (scene->format == "gltf") {
    if (std::string error = read_gltf_extras(path, extras); !error.empty())
      return R::failure(path + ": " + error);
    if (auto moved = extract_exported_root_motion(*character, extras); !moved)
      return R::failure(path + ": " + moved.error());
  }
  if (notify_path.empty() && !extras.notifies_json.empty()) {  // an Ossa export's own, when no sidecar
    auto notifies = parse_notifies_for(character->asset, extras.notifies_json, path + " (animation extras)");
    if (!notifies) return R::failure(notifies.error());
    character->notifies = std::move(notifies).value();
  } else if (!notify_path.empty()) {
    auto notifies = load_notifies_for(character->asset, notify_path);
    if (!notifies) return R::failure(notifies.error());
    character->notifies = std::move(notifies).value();
    std::error_code ec;
    character->source_files.push_back(std::filesystem::absolute(notify_path, ec).lexically_normal().string());
  }
  return std::shared_ptr<const LoadedCharacter>(std::move(character));
}

}  // namespace ossa
