// ossa/offline/compression.h — lossy clip compression within an error bound in model units.
//
// The error of a compressed clip is the displacement of virtual vertices, measured in model space (the
// skeleton's space, metres for imported models) whatever the rig's own units: around each joint, at every
// frame, the six points `shell_distance` away along the model's +-x, +-y and +-z axes from where the
// uncompressed clip puts the joint, carried rigidly by the joint, compared with where the compressed clip
// carries them. compress_clip() guarantees max error <= tolerance (defaults: 3 cm shell, 0.01 cm tolerance,
// ACL's defaults). What that bounds: the error is affine in the point, so every point of the octahedron
// spanned by the six vertices moves by at most the tolerance, and with it every point within
// shell_distance / sqrt(3) (1.7 cm by default) of the joint; a vertex skinned (linear blend) to joints that
// are all that close moves by at most the tolerance too (a weighted mean of such moves). A point at a
// distance d >= that radius moves by at most (2 sqrt(3) d / shell_distance - 1) x tolerance. ACL places the
// virtual vertices along each joint's own axes in the joint's own units: under a 0.01 root (centimetre data,
// Mixamo's export) its 3 cm shell is 0.3 mm in the model, under a 100x root 3 m. Here a rig's units change
// neither the bound nor the compressed size. (Where a joint's model matrix cannot be inverted, a zero scale,
// its vertices are taken along its own axes, in its own units.)
//
// Technique (ACL's, in short): channels that do not change are stored once, or not at all when they are the
// identity; the others are range-reduced over the clip and again per segment (16, 32 or 64 frames or the
// whole clip, whichever is smallest), and bit-packed at 0-24 bits per component (or floats) chosen per
// channel and segment: rates start from an estimate of each channel's reach in model space (its farthest
// descendant plus the shell; for translations the parent's scale), rise on the channels that carry the
// worst joints' error until the bound holds, then fall one step per channel and round as far as the measured
// error allows (each trial measures only the joints below the channel, and stops at the first frame over the
// bound). Between frames the decoded frames are interpolated like the uncompressed ones, so the bound carries
// over up to interpolation rounding. Fewer frames where the motion allows: every 2nd (4th, ...) frame will do
// when dropping the others moves no virtual vertex by more than 9/10 of the tolerance, measured at every
// frame of the clip and at quarters between frames (a clip resampled above its keys' rate, e.g. CesiumMan's
// 24 fps keys at 48 fps); the coarsest such grid is quantized within the rest of the tolerance and measured
// again the same way (the next finer one, or every frame, where that cannot hold the bound).
// CompressionStats::stored_frame_rate says which rate was kept.
#pragma once

#include <cstddef>

#include "ossa/asset/clip.h"
#include "ossa/asset/skinned_mesh.h"

namespace ossa {

struct CompressionSettings {
  float tolerance = 1e-4f;       // model units (metres): 0.01 cm
  float shell_distance = 0.03f;  // model units (metres): 3 cm
  // The clip's meshes: when given, morph weights are compressed too, within a share of the tolerance
  // (ossa/offline/morph_compression.h); without them they stay exact keys.
  std::span<const SkinnedMesh> meshes;
};

struct CompressionStats {
  size_t raw_bytes = 0;                 // float32 translation, rotation, scale per joint per frame (40 bytes)
  size_t compressed_bytes = 0;          // Clip::stored_bytes(): channel tables, segment ranges, packed frames
  double max_error = 0, p99_error = 0;  // virtual-vertex displacement, model units
  int constant_channels = 0;            // stored once (or not at all when they are the identity)
  int animated_channels = 0;
  double average_bits = 0;      // per animated component and frame
  float stored_frame_rate = 0;  // the compressed clip's frame rate: the clip's own, or 1/2, 1/4, ... of it
  double morph_error_bound =
      0;                   // morph weights: the bound on vertex displacement they may cause (model units)
  size_t morph_bytes = 0;  // morph weights as stored (included in compressed_bytes)
  double ratio() const { return compressed_bytes ? static_cast<double>(raw_bytes) / compressed_bytes : 0; }
};

// `clip` must be fixed-rate (Clip::build_fixed_rate). Errors of the result against it go into `stats`.
Result<Clip> compress_clip(const Clip& clip, const Skeleton& skeleton,
                           const CompressionSettings& settings = {}, CompressionStats* stats = nullptr);

// Virtual-vertex error (model units, as above) of `candidate` against the fixed-rate `reference` (same
// skeleton), per joint and frame of the reference (frame-major); a candidate on another frame grid (a clip
// compressed with fewer frames) is sampled by the runtime at the reference's frame times.
std::vector<float> virtual_vertex_errors(const Clip& reference, const Clip& candidate,
                                         const Skeleton& skeleton, float shell_distance);

}  // namespace ossa
