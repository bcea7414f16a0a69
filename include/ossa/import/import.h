// ossa/import/import.h — reading FBX, glTF 2.0 and COLLADA files into an ImportedScene.
//
// snippet: examples/building_blocks.cpp import_and_build
//   ossa::ImportOptions options;  // max_influences = 4, right-handed
//   options.isolate = false;      // our own file; keep the guard on for files from elsewhere
//   auto scene = ossa::import_file(argv[1], options);
//   if (!scene) return std::fprintf(stderr, "%s\n", scene.error().c_str()), 1;
//   auto built = ossa::CharacterAsset::build(*scene);  // fixed-rate clips by default
//   if (!built) return std::fprintf(stderr, "%s\n", built.error().c_str()), 1;
//   const ossa::CharacterAsset& asset = *built;  // immutable: shared by every instance and thread
//
// The import goes through assimp 5.2.5 with the traps we know handled (see docs in import/assimp_import.cpp):
// FBX pivots and pre-rotations are folded into the nodes (no "$AssimpFbx$" helpers), units and axes are
// converted from the file's metadata, the skeleton is taken from the node tree (so unweighted sockets and
// bones missing from the bone lists are kept), and T*R*S is composed by us. Bad input (unreadable, truncated,
// NaN keys, absurd durations, too many joints) fails with a message naming the file and the problem.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/import/imported_scene.h"

namespace ossa {

struct ImportOptions {
  int max_influences = 4;    // 1..8: strongest kept per vertex, renormalised to sum 1
  bool left_handed = false;  // mirror z (D3D-style) instead of the right-handed canonical space
  // File units -> metres for formats that state none (BVH; `ossa --scale`): 0 reads them as metres. A BVH
  // import's SpaceConversion::note gives the skeleton's height and the likely unit (175 units: centimetres,
  // 0.01). Ignored, with a warning, for formats that state their unit.
  double unit_scale = 0;

  // Guard against hostile files: the import runs in a worker process under these budgets (per import) and
  // sends the scene back (checked here as hostile input), so a file that makes assimp crash, hang or
  // allocate gigabytes gives an error instead of taking the caller down. assimp 5.2.5 does all three on
  // damaged files: a 700-byte COLLADA file with one letter in an index list makes it allocate 12 GB for a
  // minute. The file is parsed once. The worker is forked at the first import and serves the next ones (a
  // worker that crashed, hung or went over budget is replaced), so a process's first guarded import pays
  // for the fork and the scene's trip back (1.05-1.13x an unguarded one on the files measured) and later
  // ones for the trip (1.00-1.11x; docs/performance.md). Turn it off for files you made yourself (`ossa
  // --trusted`). On Windows the worker is the program ossa_import_worker.exe (installed beside ossa.exe; ship
  // it beside yours, or name it in the OSSA_IMPORT_WORKER environment variable), started in a job object;
  // where it cannot be found or started, the import runs unguarded, with a note on stderr.
  bool isolate = true;
  size_t memory_limit_mb = 4096;    // memory the child may use beyond what this process holds
  double time_limit_seconds = 120;  // wall clock for the child's import

  // External textures: only files inside the model's folder (after resolving symlinks) or inside one of
  // `texture_folders` are read, each up to `max_texture_bytes`; a path that is absolute elsewhere, climbs
  // out with "..", or names a larger file leaves its material without that texture and adds a warning
  // naming the material and the path. Nothing outside these folders is opened or even tested for existence.
  std::vector<std::string> texture_folders;
  size_t max_texture_bytes = 64u << 20;
};

Result<ImportedScene> import_file(const std::string& path, const ImportOptions& options = {});
// The same from bytes in memory; `name`'s extension tells the format (external textures are not resolved).
Result<ImportedScene> import_memory(std::span<const uint8_t> bytes, const std::string& name,
                                    const ImportOptions& options = {});

// The FBX time modes (GlobalSettings TimeMode) as frames per second; 0 for "default"/"custom"/unknown.
double fbx_time_mode_fps(int time_mode);

}  // namespace ossa
