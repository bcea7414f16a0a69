// ossa/asset/character.h — everything one imported file gives the runtime: skeleton, clips, skinned meshes.
//
//   auto scene = ossa::import_file("hero.fbx");
//   auto hero = ossa::CharacterAsset::build(*scene);   // fixed-rate clips by default
// The result is immutable and shared by every character instance (and thread) that plays it.
#pragma once

#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/asset/skeleton.h"
#include "ossa/asset/skinned_mesh.h"

namespace ossa {

struct CharacterBuildOptions {
  Clip::Layout layout = Clip::Layout::kFixedRate;
  float frame_rate = 0;  // fixed-rate layout: 0 picks the rate from the key times
};

struct CharacterAsset {
  Skeleton skeleton;
  std::vector<Clip> clips;
  std::vector<SkinnedMesh> meshes;

  static Result<CharacterAsset> build(const ImportedScene& scene, const CharacterBuildOptions& options = {});
  int find_clip(std::string_view name) const;  // -1 when absent
};

}  // namespace ossa
