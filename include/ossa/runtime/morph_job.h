// ossa/runtime/morph_job.h — applies morph target (blend shape) weights to a mesh's bind-time vertices.
//
//   out_position(v) = base_position(v) + sum_t weights[t] * position_delta_t(v)   (likewise normals and the
//                                                                                    tangents' xyz)
// over the sparse targets of ossa/asset/morph.h (MorphTargets): target t moves the vertices
// [target_first[t], target_first[t + 1]) of `vertices` by 3 floats each. The output is what SkinningJob
// then skins (morph before skinning, as glTF, FBX and Blender define it): set SkinningJob::in_positions /
// in_normals / in_tangents to out_positions / out_normals / out_tangents. Normals and tangents are not
// renormalised (SkinningJob does not either; a shader does), and a tangent's w (the bitangent sign) is copied
// unchanged, as glTF defines morphed tangents. Targets of weight 0 cost nothing; the rest cost one
// multiply-add per moved vertex. Tightly packed float streams, no allocation, no exceptions; validate()
// checks every size and index, so a run never reads or writes out of bounds.
#pragma once

#include <cstdint>
#include <span>

namespace ossa {

class SkinnedMesh;

struct MorphJob {
  std::span<const float> base_positions;   // 3 per vertex
  std::span<const float> base_normals;     // 3 per vertex, or empty
  std::span<const float> base_tangents;    // 4 per vertex (xyz, bitangent sign), or empty
  std::span<const uint32_t> target_first;  // target count + 1 offsets into `vertices`, or empty (no targets)
  std::span<const uint32_t> vertices;      // per entry: the vertex it moves (< vertex count)
  std::span<const float> position_deltas;  // 3 per entry
  std::span<const float> normal_deltas;    // 3 per entry, or empty
  std::span<const float> tangent_deltas;   // 3 per entry (xyz), or empty
  std::span<const float> weights;          // one per target
  std::span<float> out_positions;          // base_positions.size()
  std::span<float> out_normals;            // base_normals.size(), or empty to skip normals
  std::span<float> out_tangents;           // base_tangents.size(), or empty to skip tangents

  bool validate() const;
  bool run() const;  // false (nothing written) when validate() fails

  // A job over `mesh`'s bind-time streams and targets with `weights` (one per target, e.g.
  // Animator::mesh_morph_weights(m)). Set the outputs before run().
  static MorphJob for_mesh(const SkinnedMesh& mesh, std::span<const float> weights);
};

}  // namespace ossa
