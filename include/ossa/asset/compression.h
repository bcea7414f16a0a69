// ossa/asset/compression.h — lossy clip compression within an error bound measured the way ACL measures it.
//
// The error of a compressed clip is the displacement of virtual vertices: points at `shell_distance` along
// each joint's three local axes, carried to model space through the whole hierarchy, compared with the
// uncompressed clip at every frame. compress_clip() guarantees max error <= tolerance (defaults: 3 cm shell,
// 0.01 cm tolerance, ACL's defaults). Technique (ACL's, in short): channels that do not change are stored
// once, or not at all when they are the identity; the others are range-reduced over the clip and again per
// segment (16, 32 or 64 frames or the whole clip, whichever is smallest), and bit-packed at 0-24 bits per
// component (or floats) chosen per channel and segment: rates start from an estimate of each channel's reach
// (its farthest descendant plus the shell), rise on the channels that carry the worst joints' error until the
// bound holds, then fall channel by channel as far as the measured error allows. Between frames the decoded
// frames are interpolated like the uncompressed ones, so the bound carries over up to interpolation rounding.
#pragma once

#include <cstddef>

#include "ossa/asset/clip.h"
#include "ossa/asset/skinned_mesh.h"

namespace ossa {

struct CompressionSettings {
  float tolerance = 1e-4f;       // metres (model units): 0.01 cm
  float shell_distance = 0.03f;  // metres: 3 cm
  // The clip's meshes: when given, morph weights are compressed too, within a share of the tolerance
  // (ossa/asset/morph_compression.h); without them they stay exact keys.
  std::span<const SkinnedMesh> meshes;
};

struct CompressionStats {
  size_t raw_bytes = 0;                 // float32 translation, rotation, scale per joint per frame (40 bytes)
  size_t compressed_bytes = 0;          // Clip::stored_bytes(): channel tables, segment ranges, packed frames
  double max_error = 0, p99_error = 0;  // virtual-vertex displacement, model units
  int constant_channels = 0;            // stored once (or not at all when they are the identity)
  int animated_channels = 0;
  double average_bits = 0;  // per animated component and frame
  double morph_error_bound =
      0;                   // morph weights: the bound on vertex displacement they may cause (model units)
  size_t morph_bytes = 0;  // morph weights as stored (included in compressed_bytes)
  double ratio() const { return compressed_bytes ? static_cast<double>(raw_bytes) / compressed_bytes : 0; }
};

// `clip` must be fixed-rate (Clip::build_fixed_rate). Errors of the result against it go into `stats`.
Result<Clip> compress_clip(const Clip& clip, const Skeleton& skeleton,
                           const CompressionSettings& settings = {}, CompressionStats* stats = nullptr);

// Virtual-vertex error of `candidate` against `reference` (same skeleton and frame grid), per joint and
// frame.
std::vector<float> virtual_vertex_errors(const Clip& reference, const Clip& candidate,
                                         const Skeleton& skeleton, float shell_distance);

}  // namespace ossa
