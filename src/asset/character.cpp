#include "ossa/asset/character.h"

#include "ossa/asset/clip_names.h"

namespace ossa {

int CharacterAsset::find_clip(std::string_view name) const {
  std::vector<std::string> names;
  names.reserve(clips.size());
  for (const Clip& c : clips) names.push_back(c.name());
  return match_clip_name(names, std::string(name));
}

}  // namespace ossa
