// ossa/runtime/skinning_job.h — CPU linear-blend skinning of positions, normals and tangents.
//
// For each vertex, M = sum_i w_i * palette[joint_i] over `influences` (1-4) slots; position' = M * (p, 1),
// normal' = M * (n, 0) and tangent'.xyz = M * (t, 0), tangent'.w copied. Normals and tangents are transformed
// by the blended matrix itself (not its inverse-transpose) and not renormalised, as GPU skinning does: exact
// for rotations and uniform scale, an approximation under non-uniform scale. Streams are strided (bytes
// between consecutive vertices), so interleaved vertex buffers work; normals/tangents are optional (null).
// No allocation, no exceptions. The SIMD path in use is ossa::simd_level() (see ossa/runtime/simd.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ossa/core/math.h"

namespace ossa {

class SkinnedMesh;

struct SkinningJob {
  int vertex_count = 0;
  int influences = 4;                       // 1-4 slots per vertex
  std::span<const uint16_t> joint_indices;  // vertex_count * influences, index into palette
  std::span<const float> joint_weights;     // vertex_count * influences
  std::span<const Mat4> palette;
  // When > 0, palette.size() must equal it (for_mesh sets the mesh's palette slot count): a skeleton palette
  // (one matrix per joint) given for a mesh whose slots are not the joints fails validate().
  size_t palette_size = 0;

  const float* in_positions = nullptr;
  size_t in_positions_stride = 12;
  const float* in_normals = nullptr;  // optional
  size_t in_normals_stride = 12;
  const float* in_tangents = nullptr;  // optional, 4 floats (w = bitangent sign)
  size_t in_tangents_stride = 16;

  float* out_positions = nullptr;
  size_t out_positions_stride = 12;
  float* out_normals = nullptr;  // required when in_normals is given
  size_t out_normals_stride = 12;
  float* out_tangents = nullptr;  // required when in_tangents is given
  size_t out_tangents_stride = 16;

  bool validate() const;
  bool run() const;

  // A job over `mesh` (its vertex count, influences and bind-time positions) with `palette`, the mesh's own
  // palette: Animator::mesh_palette(m), or a PaletteJob on the mesh's joint_remap() and inverse_binds(). Not
  // Animator::palette() (one matrix per skeleton joint): validate() refuses a palette whose length is not the
  // mesh's slot count. Set the outputs (and normals/tangents if wanted) before run().
  static SkinningJob for_mesh(const SkinnedMesh& mesh, std::span<const Mat4> palette);
};

}  // namespace ossa
