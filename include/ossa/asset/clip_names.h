// ossa/asset/clip_names.h — the one rule for finding a clip by name, used by the library and the CLI.
//
// A name matches a clip named exactly that; else the unique clip named "<anything>|name" (Blender's FBX
// exporter names takes "Armature|Walk", so "Walk" finds it). -1 when nothing matches, or when several clips
// end that way. CharacterAsset::find_clip, ImportedScene::find_clip, notify sidecars and every `--clip`
// option of the CLI use it.
#pragma once

#include <string>
#include <vector>

namespace ossa {

int match_clip_name(const std::vector<std::string>& names, const std::string& query);

}  // namespace ossa
