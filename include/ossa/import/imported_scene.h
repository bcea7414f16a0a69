// ossa/import/imported_scene.h — what an import produces: the Raw* data (ossa/asset/raw.h) of one file,
// plus where it came from and the space conversion applied.
//
// Everything here is plain, editable, std::vector-based data in Ossa's canonical space: right-handed,
// +Y up, metres, seconds (or left-handed when ImportOptions::left_handed asks for it). Nothing refers to
// assimp. Later stages (reference evaluation, runtime builders, tools) read it; nothing writes back.
#pragma once

#include <string>
#include <vector>

#include "ossa/asset/raw.h"

namespace ossa {

// What was done to reach the canonical space. canonical = file_to_canonical * file position.
struct SpaceConversion {
  std::string source_up = "+Y";     // the file's up axis, as found in its metadata
  std::string source_front = "+Z";  // the file's front axis
  double unit_scale = 1.0;          // file units -> metres
  bool left_handed = false;         // output mirrored to left-handed (z negated)
  Mat4 file_to_canonical;
  std::string note;  // one line for `ossa info`
};

struct ImportedScene {
  std::string source_path;
  std::string format;  // "fbx", "gltf", "collada", ...
  RawSkeleton skeleton;
  std::vector<RawMesh> meshes;
  std::vector<RawClip> clips;
  std::vector<Material> materials;
  std::vector<Texture> textures;
  SpaceConversion space;
  std::vector<std::string> warnings;  // things the user should know (cut weights, unbound channels, ...)
  // Every file the import read (absolute, lexically normal): the model, its buffers (.bin, ...), textures.
  // Tools refuse to write over any of them.
  std::vector<std::string> source_files;

  int find_clip(const std::string& name) const;  // ossa/asset/clip_names.h: "Walk" finds "Armature|Walk"
};

// Checks the invariants every later stage relies on: parents before children, indices and joint slots in
// range, finite numbers everywhere, weights summing to 1, ascending key times. Returns "" when all hold,
// else what is wrong and where. import_file() runs it, so hostile files cannot produce silent garbage.
std::string validate_scene(const ImportedScene& scene);

}  // namespace ossa
