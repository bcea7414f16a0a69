#include "ossa/serialize/load.h"

#include <filesystem>

#include "ossa/core/file_io.h"
#include "ossa/serialize/ossa_file.h"

namespace ossa {

Result<CharacterAsset> OssaFile::character() const& {
  if (!skeleton) return Result<CharacterAsset>::failure("the file has no skeleton");
  return CharacterAsset{*skeleton, clips, meshes};
}

Animator LoadedCharacter::animator() const {
  Animator animator(asset, has_notifies() ? &notifies : nullptr, root_motion);
  animator.keep_alive(weak_from_this().lock());  // null when no shared_ptr holds this character
  return animator;
}

namespace {
std::vector<ClipTiming> timings_of(const CharacterAsset& asset) {
  std::vector<ClipTiming> timings;
  for (const Clip& c : asset.clips) timings.push_back({c.name(), c.duration()});
  return timings;
}
}  // namespace

Result<NotifySet> parse_notifies_for(const CharacterAsset& asset, const std::string& json_text,
                                     const std::string& source_name) {
  return parse_notifies(json_text, source_name, timings_of(asset));
}

Result<NotifySet> load_notifies_for(const CharacterAsset& asset, const std::string& path) {
  return load_notifies(path, timings_of(asset));
}

std::string find_notify_sidecar(const std::string& model_path) {
  std::error_code ec;
  std::filesystem::path sidecar = path_from_utf8(model_path).replace_extension(".notifies.json");
  return std::filesystem::is_regular_file(sidecar, ec) ? utf8_from_path(sidecar) : std::string();
}

Result<std::shared_ptr<const LoadedCharacter>> load_ossa_character(const std::string& path,
                                                                   const LoadOptions& options) {
  using R = Result<std::shared_ptr<const LoadedCharacter>>;
  auto file = read_ossa(path);
  if (!file) return R::failure(file.error());
  auto character = std::make_shared<LoadedCharacter>();
  character->source_path = path;
  character->left_handed = file->left_handed;
  character->flip_textures = file->flip_textures;
  character->materials = std::move(file->materials);
  character->textures = std::move(file->textures);
  bool all_tracks = !file->root_motion.empty();
  for (const auto& track : file->root_motion) all_tracks = all_tracks && track.has_value();
  if (all_tracks)
    for (auto& track : file->root_motion) character->root_motion.push_back(std::move(*track));
  std::string embedded = std::move(file->notifies_json);
  const std::string graph = std::move(file->anim_graph_json);
  character->motion_database = std::move(file->motion_database);
  auto asset = std::move(*file).character();
  if (!asset) return R::failure(path + ": " + asset.error());
  character->asset = std::move(asset).value();
  if (!graph.empty()) {
    auto parsed = AnimGraph::parse(graph, character->asset, path + " (embedded animation graph)");
    if (!parsed) return R::failure(parsed.error());
    character->anim_graph = std::move(parsed).value();
  }

  // One rule for every tool (load.h): the notifies asked for, else the sidecar beside the file (what the
  // viewer authors), else the embedded ones.
  Result<NotifySet> notifies = NotifySet{};
  const std::string sidecar = options.sidecar ? find_notify_sidecar(path) : std::string();
  if (!options.notifies_path.empty())
    notifies = load_notifies_for(character->asset, options.notifies_path);
  else if (!sidecar.empty())
    notifies = load_notifies_for(character->asset, sidecar);
  else if (!embedded.empty())
    notifies = parse_notifies_for(character->asset, embedded, path + " (embedded notifies)");
  if (!notifies) return R::failure(notifies.error());
  character->notifies = std::move(notifies).value();
  std::error_code ec;
  auto absolute = [&](const std::string& p) {
    return utf8_from_path(std::filesystem::absolute(path_from_utf8(p), ec).lexically_normal());
  };
  character->source_files.push_back(absolute(path));
  for (const std::string& read :
       {options.notifies_path, options.notifies_path.empty() ? sidecar : std::string()})
    if (!read.empty()) character->source_files.push_back(absolute(read));
  return std::shared_ptr<const LoadedCharacter>(std::move(character));
}

}  // namespace ossa
