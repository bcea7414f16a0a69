// ossa/import/load_character.h — any character file ready for an Animator in one call (ossa::import).
//
// snippet: examples/quick_start.cpp load_character
//   auto loaded = ossa::load_character(argv[1]);  // a model file or .ossa; load_ossa_character: .ossa only
//   if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
//   const ossa::LoadedCharacter& hero = **loaded;  // shared, read-only: any number of animators may use it
//   ossa::Animator anim = hero.animator();         // its notifies (sidecar or embedded) attached
//
// A `.ossa` file (recognised by its magic bytes) goes to load_ossa_character (ossa/serialize/load.h, which
// needs only ossa::runtime); a model file is imported (guarded, ImportOptions), built (CharacterBuildOptions)
// and given the notifies of LoadOptions::notifies_path or of MODEL.notifies.json beside it.
#pragma once

#include <memory>
#include <string>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/serialize/load.h"

namespace ossa {

struct ModelLoadOptions : LoadOptions {
  ImportOptions import;
  CharacterBuildOptions build;
};

Result<std::shared_ptr<const LoadedCharacter>> load_character(const std::string& path,
                                                              const ModelLoadOptions& options = {});
// The same from a scene already imported (options.import unused): for tools that keep what the runtime assets
// do not, e.g. influences beyond 4 for a glTF export (GltfExportOptions::source_meshes).
Result<std::shared_ptr<const LoadedCharacter>> load_character(ImportedScene scene,
                                                              const ModelLoadOptions& options = {});

// True when the file starts with the .ossa magic bytes.
bool is_ossa_file(const std::string& path);

}  // namespace ossa
