// ossa/runtime/skinning_job.h — CPU linear-blend skinning of positions, normals and tangents.
//
// For each vertex, M = sum_i w_i * palette[joint_i] over `influences` (1-4) slots; position' = M * (p, 1),
// normal' = M * (n, 0) and tangent'.xyz = M * (t, 0), tangent'.w copied. Normals and tangents are transformed
// by the blended matrix itself (not its inverse-transpose) and not renormalised, as GPU skinning does: exact
// for rotations and uniform scale, an approximation under non-uniform scale. Streams are strided (bytes
// between consecutive vertices), so interleaved vertex buffers work; normals and tangents are optional.
// validate() checks every span against vertex_count and its stride: run() never reads or writes outside.
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
  // The mesh's palette slot count (mesh.inverse_binds().size()); required, palette.size() must equal it, so
  // a skeleton palette (one matrix per joint) given for a mesh whose slots are not the joints fails
  // validate(). for_mesh sets it.
  size_t palette_slots = 0;

  // Streams: each span covers every vertex it is read or written for; a stride is the distance in bytes
  // between consecutive vertices (a multiple of 4, at least the element's size), so interleaved buffers
  // work: the span then starts at the first vertex's element and may end after the last one's.
  std::span<const float> in_positions;  // 3 floats per vertex
  size_t in_positions_stride = 12;
  std::span<const float> in_normals;  // 3 floats per vertex, or empty
  size_t in_normals_stride = 12;
  std::span<const float> in_tangents;  // 4 floats per vertex (w = bitangent sign, copied), or empty
  size_t in_tangents_stride = 16;

  // An output is written when it is given, and refused without its input; an input without its output is
  // not read (for_mesh fills every input the mesh has; give the outputs you want).
  std::span<float> out_positions;  // required when vertex_count > 0
  size_t out_positions_stride = 12;
  std::span<float> out_normals;
  size_t out_normals_stride = 12;
  std::span<float> out_tangents;
  size_t out_tangents_stride = 16;

  bool validate() const;
  bool run() const;  // false (nothing written) when validate() fails

  // A job over `mesh` (its vertex count, influences, slot count and bind-time positions, normals and
  // tangents) with `palette`, the mesh's own palette: Animator::mesh_palette(m), or a PaletteJob on the
  // mesh's joint_remap() and inverse_binds(). Not Animator::skeleton_palette() (one matrix per skeleton
  // joint): validate() refuses a palette whose length is not the mesh's slot count. Set the outputs before
  // run(); to skin morphed vertices, point the inputs at MorphJob's outputs.
  static SkinningJob for_mesh(const SkinnedMesh& mesh, std::span<const Mat4> palette);
};

// The floats of one stream of an interleaved vertex buffer: `vertex_count` elements of `element_floats`
// floats, `stride` bytes apart, the first at `first`; e.g. the normals of a std::vector<Vertex> v:
// strided_span(v[0].normal, sizeof(Vertex), v.size(), 3).
template <class Float>
std::span<Float> strided_span(Float* first, size_t stride, size_t vertex_count, size_t element_floats) {
  if (vertex_count == 0) return {};
  return {first, (vertex_count - 1) * (stride / sizeof(float)) + element_floats};
}

}  // namespace ossa
