// ossa/offline/morph_compression.h — morph weights of compressed clips, within a bound on vertex
// displacement.
//
// The bound. A weight error e on target t moves a vertex, before skinning, by at most |e| * D(t), D(t) the
// target's largest position delta (max_position_delta). Skinning blends palette matrices with weights summing
// to 1, so it scales that displacement by at most S, the largest spectral norm of the linear part of the
// mesh's palette matrices (model x inverse bind) over the clip. morph_skinning_scale() bounds S from above:
// for each palette joint, the product of the largest |scale| component each joint on its path from the root
// takes over the clip's frames (rotations keep lengths), times the spectral norm of the inverse bind; the
// bound holds between frames too, where scales are lerped within their frames' range. A vertex therefore
// moves by at most S * sum_t |e_t| * D(t) (all targets of its mesh summed, whichever vertices they move).
//
// The budget. compress_clip(), given the meshes (CompressionSettings::meshes) and a clip with morph weights,
// gives its joints (1 - kMorphToleranceShare) of the tolerance and the weights kMorphToleranceShare of it, so
// that joint and morph errors together stay within the tolerance. A mesh's share is split evenly over its
// targets: e_t <= kMorphToleranceShare * tolerance / (targets * S * D(t)). Each target's weights are
// range-reduced over the clip and quantised at the fewest bits (0-24, else floats) whose decoded keys all lie
// within e_t; between keys the lerp of two weights each within e_t stays within e_t (up to float rounding of
// the lerp itself). Targets that move no vertex (D(t) = 0, normals only) keep exact floats. Key times are
// kept exactly. Without meshes compress_clip() keeps the weights as exact keys.
#pragma once

#include <span>

#include "ossa/asset/skinned_mesh.h"
#include "ossa/offline/compression.h"

namespace ossa {

constexpr float kMorphToleranceShare = 0.1f;

// S above for `mesh` under the fixed-rate `clip` (made for `skeleton`); 0 for a clip of another layout.
float morph_skinning_scale(const Clip& clip, const Skeleton& skeleton, const SkinnedMesh& mesh);
// D(t) above: the length of target `target`'s largest position delta.
float max_position_delta(const MorphTargets& targets, int target);

// `weights` quantised so that mesh m's vertices move by at most `budget` (model units), given
// skinning_scale[m] (morph_skinning_scale). Every track must fit `meshes` (mesh index, target count).
// `bound`, when given, receives the largest S * sum_t max_k |e_t| * D(t) over the tracks, measured on the
// keys.
Result<MorphWeightTracks> compress_morph_weights(const MorphWeightTracks& weights,
                                                 std::span<const SkinnedMesh> meshes,
                                                 std::span<const float> skinning_scale, float budget,
                                                 double* bound = nullptr);

// compress_clip() for a fixed-rate clip with morph weights and settings.meshes given (the budget split
// above).
Result<Clip> compress_clip_with_morph_weights(const Clip& clip, const Skeleton& skeleton,
                                              const CompressionSettings& settings, CompressionStats* stats);

}  // namespace ossa
