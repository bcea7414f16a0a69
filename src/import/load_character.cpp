#include "ossa/import/load_character.h"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace ossa {

bool is_ossa_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  return in.read(magic, sizeof magic) && std::memcmp(magic, "OSSA\r\n\x1a\n", 8) == 0;
}

Result<std::shared_ptr<const LoadedCharacter>> load_character(const std::string& path,
                                                              const ModelLoadOptions& options) {
  using R = Result<std::shared_ptr<const LoadedCharacter>>;
  if (is_ossa_file(path)) return load_ossa_character(path, options);
  auto scene = import_file(path, options.import);
  if (!scene) return R::failure(scene.error());
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
  if (!notify_path.empty()) {
    auto notifies = load_notifies_for(character->asset, notify_path);
    if (!notifies) return R::failure(notifies.error());
    character->notifies = std::move(notifies).value();
    std::error_code ec;
    character->source_files.push_back(std::filesystem::absolute(notify_path, ec).lexically_normal().string());
  }
  return std::shared_ptr<const LoadedCharacter>(std::move(character));
}

}  // namespace ossa
