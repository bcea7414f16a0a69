// ossa/serialize/gltf_export.h — a character as glTF 2.0: what `ossa convert IN -o OUT.glb` writes.
//
// snippet: examples/gltf_export.cpp export
//   auto hero = ossa::load_character(argv[1], options);  // a model file or a .ossa
//   if (!hero) return std::fprintf(stderr, "%s\n", hero.error().c_str()), 1;
//   auto written = ossa::write_gltf(**hero, argv[2]);  // .glb: one file; .gltf: JSON, .bin, images
//   if (!written) return std::fprintf(stderr, "%s\n", written.error().c_str()), 1;
//   for (const std::string& line : written->dropped) std::fprintf(stderr, "dropped: %s\n", line.c_str());
//
// What is written, from the runtime assets (so a model file and a .ossa take the same path):
//   * every joint a node with its rest translation, rotation and scale, names kept (made unique the way
//     Blender shows duplicates: "Head", "Head.001");
//   * per mesh a node at the scene's root with the mesh and its skin (the mesh's palette: joint nodes and
//     inverse bind matrices; meshes with the same palette share one skin); positions, normals, tangents,
//     UV0 (v flipped for images with v = 0 at the bottom, glTF's v = 0 is the top), JOINTS_0 and WEIGHTS_0
//     (the 4 influences every runtime mesh keeps, or up to 8 with JOINTS_1 and WEIGHTS_1 from the source's
//     meshes: GltfExportOptions; a joint listed twice merged, weights renormalised in float). Normals and
//     tangents are written unit length; a zero one is replaced and counted in `dropped`;
//   * materials as metallic-roughness (metallic 0): base colour and its texture, the normal map; PNG and
//     JPEG images, embedded in a .glb, files beside a .gltf;
//   * morph targets (dense: assimp 5.2 cannot read sparse accessors), names in `extras.targetNames` and the
//     mesh's default weights;
//   * one animation per clip. Keyed clips keep their own key times; a STEP channel (which the importer made
//     linear with a holding key before each key) is written as STEP again, a CUBICSPLINE one as the linear
//     keys the importer sampled it to (within its tolerance); fixed-rate and quantized clips write their
//     frames. A channel that never changes is one key; one that holds the rest pose
//     throughout is left out. Morph weight tracks go to the mesh nodes' `weights`;
//   * clips with root motion (a .ossa converted with --root-motion) are written with the travel put back,
//     so that every glTF client sees the character move; `extras` record what Ossa needs to take it out
//     again. Each animation's `extras.ossa`:
//       {"duration": 1.2,                         // the clip's length (glTF's is its last key)
//        "rootMotion": {"joint": "Hips"},         // only for clips with root motion
//        "notifies": [{"name": "FootL", "time": 0.25},
//                     {"name": "Swing", "time": 0.4, "duration": 0.2, "payload": {"sound": "whoosh"}}]}
//     with notifies in the sidecar's shape (ossa/asset/notifies.h). load_character() reads them back.
// The space is glTF's: metres, +Y up, right-handed, which is Ossa's own (the import folded the file's unit,
// axes and root transform in). A left-handed .ossa (`convert --left-handed`) is refused, as is a character
// without a skeleton. What glTF cannot hold is never dropped silently: `GltfExport::dropped` says what.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/raw.h"
#include "ossa/core/result.h"
#include "ossa/serialize/load.h"

namespace ossa {

struct GltfExportOptions {
  bool binary = true;  // .glb; false: .gltf JSON with its buffer and images as files beside it
  std::string generator = "Ossa";
  // Runtime meshes keep 4 influences a vertex. For a model file, the meshes as imported with up to 8
  // (ImportOptions::max_influences, load_character(ImportedScene)) and their skeleton: a mesh of the same
  // name and vertex count with more than 4 is written with all of them (JOINTS_1 and WEIGHTS_1 too), so the
  // export deforms as the source file does in Blender. Both must outlive the call.
  std::span<const RawMesh> source_meshes;
  const RawSkeleton* source_skeleton = nullptr;
  // Smaller files (`ossa convert --compress`): vertex attributes as 16-bit integers (KHR_mesh_quantization,
  // required by the file: positions within 1/131070 of the mesh's box per axis, normals, tangents, UVs in 0-1
  // and weights normalized), rotation keys as normalized 16-bit, and each clip's joint keys reduced while
  // every virtual vertex (`shell_distance` from each joint along its axes, as .ossa compression measures)
  // stays within `tolerance` of where the full keys put it, quantization included; measured in model space at
  // every key time and between keys. Morph weights are kept as they are.
  bool compress = false;
  float tolerance = 1e-4f;       // metres (0.1 mm, ACL's default)
  float shell_distance = 0.03f;  // metres
};

struct GltfOutputFile {
  std::string name;  // the file name: "" for the main file (the path given), else a name beside it
  std::vector<uint8_t> bytes;
};

struct GltfExport {
  std::vector<GltfOutputFile> files;  // the main file first (.glb or .gltf), then the .bin and images
  std::vector<std::string> dropped;   // what glTF could not hold, one line each (empty when nothing)
  // Joint keys written (compressed: after reduction) against those of the full export, and the largest
  // virtual-vertex error the reduction and quantization leave, in metres (0 without compress).
  size_t joint_keys = 0, joint_keys_full = 0;
  double worst_error = 0;
};

// The files of the export, in memory. `file_stem` names the side files of a .gltf ("hero" gives
// "hero.bin", "hero_0.png"...).
Result<GltfExport> encode_gltf(const LoadedCharacter& character, const GltfExportOptions& options = {},
                               const std::string& file_stem = "model");

// Writes the export to `path` (.glb or .gltf, chosen by the extension) and, for .gltf, its side files in the
// same folder, each atomically (ossa/core/file_io.h); on failure none is left behind. Refuses to write over
// any of the character's source files (LoadedCharacter::source_files). `options.binary` is ignored: the
// extension decides. Returns the export (its `dropped` lines for the caller to print).
Result<GltfExport> write_gltf(const LoadedCharacter& character, const std::string& path,
                              const GltfExportOptions& options = {});

}  // namespace ossa
