// ossa/serialize/load.h — a character ready for an Animator in one call: assets, notifies, root motion,
// materials and textures.
//
// snippet: examples/runtime_only.cpp load_ossa
//   auto loaded = ossa::load_ossa_character(argv[1]);
//   if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
//   const ossa::LoadedCharacter& hero = **loaded;
// (ossa::load_character, in ossa/import/load_character.h, reads a model file or a .ossa the same way.)
//
// Notifies come from, in order: LoadOptions::notifies_path when given; MODEL.notifies.json next to the file
// (what `ossa view` authors, so an edited sidecar reaches the game as it reaches the viewer and `ossa play`);
// the notifies embedded in a .ossa (`ossa convert` stores the sidecar it found). The character is
// returned behind a shared_ptr because Animators point into it: it must not move while they live.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/motion_database.h"
#include "ossa/asset/notifies.h"
#include "ossa/asset/raw.h"
#include "ossa/asset/root_motion.h"
#include "ossa/core/result.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/animator.h"

namespace ossa {

struct LoadedCharacter : std::enable_shared_from_this<LoadedCharacter> {
  std::string source_path;
  CharacterAsset asset;
  NotifySet notifies;                             // no names when the character has none
  std::vector<RootMotionTrack> root_motion;       // one per clip (converted with --root-motion), else empty
  std::shared_ptr<const AnimGraph> anim_graph;    // embedded (`ossa convert --graph`), else null
  std::optional<MotionDatabase> motion_database;  // embedded (`ossa mm build`), else none
  std::vector<Material> materials;                // SkinnedMesh::material() indexes these
  std::vector<Texture> textures;                  // Material::*_texture index these
  bool flip_textures = true;                      // images have v = 0 at the bottom (not glTF)
  bool left_handed = false;                       // the data was converted to a left-handed space
  // Every file read to make it (absolute): the model or .ossa, its buffers and textures, the notifies.
  // Tools never write over these.
  std::vector<std::string> source_files;

  bool has_notifies() const { return !notifies.names.empty(); }
  // An Animator on this character, with its notifies and root motion. When the character is held by a
  // shared_ptr (as every loader returns it), the Animator holds it too: `Animator a =
  // ossa::load_ossa_character(p).value()->animator();` is safe. A character made otherwise must outlive it.
  Animator animator() const;
};

struct LoadOptions {
  std::string notifies_path;  // a notify sidecar to use instead of the embedded one or MODEL.notifies.json
  bool sidecar = true;        // look for MODEL.notifies.json (it wins over embedded notifies)
};

// A `.ossa` file (ossa::runtime).
Result<std::shared_ptr<const LoadedCharacter>> load_ossa_character(const std::string& path,
                                                                   const LoadOptions& options = {});

// Parses notify JSON for `asset`'s clips (names matched by ossa/asset/clip_names.h); `source_name` names the
// text in errors.
Result<NotifySet> parse_notifies_for(const CharacterAsset& asset, const std::string& json_text,
                                     const std::string& source_name);
Result<NotifySet> load_notifies_for(const CharacterAsset& asset, const std::string& path);

// MODEL.notifies.json beside `model_path` when it exists, else "".
std::string find_notify_sidecar(const std::string& model_path);

}  // namespace ossa
