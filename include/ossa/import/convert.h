// ossa/import/convert.h — a model file to a `.ossa` file in one call: what `ossa convert` and ossa.convert
// run.
//
// Import (guarded unless told otherwise), keep the clips asked for, build them fixed-rate (or keyed), take
// root motion out, compress within a bound on every core, check and embed the notify sidecar and an
// animation graph, and write the file atomically (never over one of its inputs). Conversion is offline work:
// a game loads the result with load_ossa_character (ossa/serialize/load.h).
#pragma once

#include <string>
#include <vector>

#include "ossa/core/result.h"
#include "ossa/import/import.h"
#include "ossa/offline/compression.h"

namespace ossa {

struct ConvertOptions {
  ImportOptions import;  // how the model file is read (guarded by default)
  std::vector<std::string>
      clips;                  // keep only these (names as ossa/asset/clip_names.h matches them); empty: all
  bool keys = false;          // the file's exact keys (tools) instead of fixed-rate frames (games)
  float frame_rate = 0;       // fixed-rate frames: 0 picks the rate from the keys
  bool root_motion = false;   // take the root's travel out of the clips into root-motion tracks
  bool compress = false;      // fixed-rate frames compressed within `tolerance_mm` (compression.h)
  double tolerance_mm = 0.1;  // virtual-vertex error bound, millimetres (ACL's default)
  double shell_mm = 30;       // virtual vertices' distance from their joint, millimetres
  std::string notifies;       // a notify sidecar; "" takes MODEL.notifies.json beside the input, if any
  std::string graph;          // an animation graph (.animgraph.json) to check and embed; "" none
};

// One compressed clip: its statistics and the time it took on its thread.
struct ClipConversion {
  std::string name;
  CompressionStats stats;
  double milliseconds = 0;
  float frame_rate_given = 0;   // the fixed-rate clip's rate
  float frame_rate_stored = 0;  // the compressed clip's: the same, or 1/2, 1/4, ... of it
  int segment_frames = 0;       // frames per segment of the compressed clip
};

struct Conversion {
  size_t bytes_in = 0, bytes_out = 0;
  size_t raw_clip_bytes = 0;              // the clips as float32 frames (40 bytes a joint a frame)
  size_t clip_bytes = 0;                  // as stored
  double worst_error = 0, worst_p99 = 0;  // compressed: model units
  double compress_ms = 0;                 // compression's wall time, on `compress_threads` threads
  double compress_clip_ms = 0;            // the clips' own times, summed
  int compress_threads = 0;
  std::vector<ClipConversion> clips;  // compressed clips, in order (empty without compression)
  std::vector<std::string> inputs;    // every file read (the model, its buffers, the sidecar, the graph)
};

// `write_failed` (optional) tells a failure to write `output` (exit code 3 for tools) from one to read.
Result<Conversion> convert_to_ossa(const std::string& input, const std::string& output,
                                   const ConvertOptions& options = {}, bool* write_failed = nullptr);

struct GltfConversion {
  size_t bytes_in = 0, bytes_out = 0;          // the input; every file written
  std::vector<std::string> files;              // written: `output` first, then its .bin and images
  std::vector<std::string> dropped;            // what glTF could not hold, one line each
  std::vector<std::string> warnings;           // the notify sidecar's clips the model lacks
  size_t joint_keys = 0, joint_keys_full = 0;  // with compress: the keys kept of all
  double worst_error = 0;                      // with compress: model units
  double export_ms = 0;                        // write_gltf alone: encoding and writing
};

// `output` ends in .glb (one file) or .gltf (JSON, .bin and images beside it). ConvertOptions::keys, graph
// and import.left_handed are refused (glTF keeps keys, has no graphs, and is right-handed);
// import.max_influences is read as 8 for model files (the export writes every influence).
Result<GltfConversion> convert_to_gltf(const std::string& input, const std::string& output,
                                       const ConvertOptions& options = {}, bool* write_failed = nullptr);

}  // namespace ossa
