#include "ossa/runtime/skinning_job.h"

#include <algorithm>

#include "kernels/kernels.h"
#include "ossa/asset/skinned_mesh.h"
#include "ossa/runtime/simd.h"

namespace ossa {

namespace {

// A stream of `count` elements of `element_floats` floats, `stride` bytes apart, fits in `floats`.
bool stream_fits(size_t floats, size_t stride, int count, size_t element_floats) {
  const size_t element_bytes = element_floats * sizeof(float);
  if (stride < element_bytes || stride % sizeof(float) != 0) return false;
  if (count == 0) return true;
  const size_t needed_floats = (static_cast<size_t>(count) - 1) * (stride / sizeof(float)) + element_floats;
  return floats >= needed_floats;
}

}  // namespace

bool SkinningJob::validate() const {
  if (vertex_count < 0 || influences < 1 || influences > 4) return false;
  const size_t slots = static_cast<size_t>(vertex_count) * influences;
  if (joint_indices.size() < slots || joint_weights.size() < slots) return false;
  if (palette.size() != palette_slots) return false;
  if (!stream_fits(in_positions.size(), in_positions_stride, vertex_count, 3) ||
      !stream_fits(out_positions.size(), out_positions_stride, vertex_count, 3))
    return false;
  // An output without its input would be left as it was: refused. An input without an output is skipped.
  if (!out_normals.empty() && (!stream_fits(in_normals.size(), in_normals_stride, vertex_count, 3) ||
                               !stream_fits(out_normals.size(), out_normals_stride, vertex_count, 3)))
    return false;
  if (!out_tangents.empty() && (!stream_fits(in_tangents.size(), in_tangents_stride, vertex_count, 4) ||
                                !stream_fits(out_tangents.size(), out_tangents_stride, vertex_count, 4)))
    return false;
  // One vectorisable pass (a max, no branch per slot): cheap next to the skinning itself.
  uint16_t highest = 0;
  for (size_t i = 0; i < slots; ++i) highest = std::max(highest, joint_indices[i]);
  return slots == 0 || highest < palette.size();
}

SkinningJob SkinningJob::for_mesh(const SkinnedMesh& mesh, std::span<const Mat4> palette) {
  SkinningJob job;
  job.vertex_count = mesh.vertex_count();
  job.influences = mesh.influences();
  job.joint_indices = mesh.joint_indices();
  job.joint_weights = mesh.joint_weights();
  job.palette = palette;
  job.palette_slots = mesh.inverse_binds().size();
  job.in_positions = mesh.positions();
  job.in_normals = mesh.normals();
  job.in_tangents = mesh.tangents();
  return job;
}

bool SkinningJob::run() const {
  if (!validate()) return false;
  FlushDenormalsScope flush;
  detail::active_kernels().skin(*this);
  return true;
}

}  // namespace ossa
