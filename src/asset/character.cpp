#include "ossa/asset/character.h"

namespace ossa {

Result<CharacterAsset> CharacterAsset::build(const ImportedScene& scene,
                                             const CharacterBuildOptions& options) {
  auto fail = [&](const std::string& e) {
    return Result<CharacterAsset>::failure(scene.source_path + ": " + e);
  };
  auto skeleton = Skeleton::build(scene.skeleton);
  if (!skeleton) return fail(skeleton.error());
  CharacterAsset asset{std::move(skeleton).value(), {}, {}};
  for (const RawClip& raw : scene.clips) {
    auto clip = options.layout == Clip::Layout::kKeyed
                    ? Clip::build_keyed(raw, asset.skeleton)
                    : Clip::build_fixed_rate(raw, asset.skeleton, options.frame_rate);
    if (!clip) return fail(clip.error());
    asset.clips.push_back(std::move(clip).value());
  }
  for (const RawMesh& raw : scene.meshes) {
    auto mesh = SkinnedMesh::build(raw, asset.skeleton);
    if (!mesh) return fail(mesh.error());
    asset.meshes.push_back(std::move(mesh).value());
  }
  return asset;
}

int CharacterAsset::find_clip(std::string_view name) const {
  for (size_t i = 0; i < clips.size(); ++i)
    if (clips[i].name() == name) return static_cast<int>(i);
  return -1;
}

}  // namespace ossa
