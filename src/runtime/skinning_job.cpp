#include "ossa/runtime/skinning_job.h"

#include <algorithm>

#include "kernels/kernels.h"
#include "ossa/asset/skinned_mesh.h"
#include "ossa/runtime/simd.h"

namespace ossa {

bool SkinningJob::validate() const {
  if (vertex_count < 0 || influences < 1 || influences > 4) return false;
  const size_t slots = static_cast<size_t>(vertex_count) * influences;
  if (joint_indices.size() < slots || joint_weights.size() < slots) return false;
  if (palette_size > 0 && palette.size() != palette_size) return false;
  if (vertex_count > 0 && (!in_positions || !out_positions)) return false;
  if (in_positions_stride < 12 || out_positions_stride < 12) return false;
  if (in_normals && (!out_normals || in_normals_stride < 12 || out_normals_stride < 12)) return false;
  if (in_tangents && (!out_tangents || in_tangents_stride < 16 || out_tangents_stride < 16)) return false;
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
  job.palette_size = mesh.inverse_binds().size();
  job.in_positions = mesh.positions().data();
  return job;
}

bool SkinningJob::run() const {
  if (!validate()) return false;
  FlushDenormalsScope flush;
  detail::active_kernels().skin(*this);
  return true;
}

}  // namespace ossa
