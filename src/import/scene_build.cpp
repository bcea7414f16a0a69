// The builders that take an ImportedScene: they live in ossa::import, beside what produces the scene.
#include "ossa/asset/character.h"
#include "ossa/asset/clip_names.h"
#include "ossa/import/imported_scene.h"

namespace ossa {

Result<CharacterAsset> CharacterAsset::build(const ImportedScene& scene,
                                             const CharacterBuildOptions& options) {
  return build(scene.skeleton, scene.clips, scene.meshes, scene.source_path, options);
}

int ImportedScene::find_clip(const std::string& name) const {
  std::vector<std::string> names;
  names.reserve(clips.size());
  for (const RawClip& c : clips) names.push_back(c.name);
  return match_clip_name(names, name);
}

}  // namespace ossa
