// CharacterAsset::build from Raw* data (ossa/asset/character.h): offline work, in ossa::offline beside the
// clip builders it runs. (The ImportedScene overload is ossa::import's, src/import/scene_build.cpp.)
#include "ossa/asset/character.h"

namespace ossa {

Result<CharacterAsset> CharacterAsset::build(const RawSkeleton& raw_skeleton, std::span<const RawClip> clips,
                                             std::span<const RawMesh> meshes, const std::string& source_name,
                                             const CharacterBuildOptions& options) {
  auto fail = [&](const std::string& e) { return Result<CharacterAsset>::failure(source_name + ": " + e); };
  auto skeleton = Skeleton::build(raw_skeleton);
  if (!skeleton) return fail(skeleton.error());
  CharacterAsset asset{std::move(skeleton).value(), {}, {}};
  for (const RawClip& raw : clips) {
    auto clip = options.layout == Clip::Layout::kKeyed
                    ? Clip::build_keyed(raw, asset.skeleton)
                    : Clip::build_fixed_rate(raw, asset.skeleton, options.frame_rate);
    if (!clip) return fail(clip.error());
    asset.clips.push_back(std::move(clip).value());
  }
  for (const RawMesh& raw : meshes) {
    auto mesh = SkinnedMesh::build(raw, asset.skeleton);
    if (!mesh) return fail(mesh.error());
    asset.meshes.push_back(std::move(mesh).value());
  }
  // Morph weight tracks name meshes by index: they must exist and have as many targets as the keys weights.
  for (const Clip& clip : asset.clips)
    for (const MorphWeightTracks::Track& t : clip.morph_weights().tracks())
      if (t.mesh >= static_cast<int>(asset.meshes.size()) ||
          asset.meshes[t.mesh].morph_targets().count() != t.targets)
        return fail("clip '" + clip.name() + "': morph weights for mesh " + std::to_string(t.mesh) + " (" +
                    std::to_string(t.targets) + " targets) fit no mesh");
  return asset;
}

}  // namespace ossa
