// ossa/asset/character.h — everything one imported file gives the runtime: skeleton, clips, skinned meshes.
//
// snippet: examples/building_blocks.cpp import_and_build
//   ossa::ImportOptions options;  // max_influences = 4, right-handed
//   options.isolate = false;      // our own file; keep the guard on for files from elsewhere
//   auto scene = ossa::import_file(argv[1], options);
//   if (!scene) return std::fprintf(stderr, "%s\n", scene.error().c_str()), 1;
//   auto built = ossa::CharacterAsset::build(*scene);  // fixed-rate clips by default
//   if (!built) return std::fprintf(stderr, "%s\n", built.error().c_str()), 1;
//   const ossa::CharacterAsset& asset = *built;  // immutable: shared by every instance and thread
// or from a `.ossa` file (ossa::runtime only): ossa::read_ossa("hero.ossa")->character(), or in one call
// with notifies, ossa::load_ossa_character (ossa/serialize/load.h).
// The result is immutable and shared by every character instance (and thread) that plays it.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/asset/skeleton.h"
#include "ossa/asset/skinned_mesh.h"

namespace ossa {

struct ImportedScene;  // ossa/import/imported_scene.h

struct CharacterBuildOptions {
  Clip::Layout layout = Clip::Layout::kFixedRate;
  float frame_rate = 0;  // fixed-rate layout: 0 picks the rate from the key times
};

struct CharacterAsset {
  Skeleton skeleton;
  std::vector<Clip> clips;
  std::vector<SkinnedMesh> meshes;

  // The builders are offline work: from an import (defined in ossa::import, which produces ImportedScene), or
  // from Raw* data (defined in ossa::offline). A game that loads .ossa files needs neither.
  static Result<CharacterAsset> build(const ImportedScene& scene, const CharacterBuildOptions& options = {});
  // From Raw* data made any other way; errors start with `source_name`.
  static Result<CharacterAsset> build(const RawSkeleton& skeleton, std::span<const RawClip> clips,
                                      std::span<const RawMesh> meshes, const std::string& source_name,
                                      const CharacterBuildOptions& options = {});
  // The clip called `name` by the rule of ossa/asset/clip_names.h: exact, else the unique "<prefix>|name"
  // ("Walk" finds "Armature|Walk"). -1 when absent or ambiguous.
  int find_clip(std::string_view name) const;
};

}  // namespace ossa
