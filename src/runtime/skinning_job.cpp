#include "ossa/runtime/skinning_job.h"

#include "kernels/kernels.h"

namespace ossa {

bool SkinningJob::validate() const {
  if (vertex_count < 0 || influences < 1 || influences > 4) return false;
  const size_t slots = static_cast<size_t>(vertex_count) * influences;
  if (joint_indices.size() < slots || joint_weights.size() < slots) return false;
  if (vertex_count > 0 && (!in_positions || !out_positions)) return false;
  if (in_positions_stride < 12 || out_positions_stride < 12) return false;
  if (in_normals && (!out_normals || in_normals_stride < 12 || out_normals_stride < 12)) return false;
  if (in_tangents && (!out_tangents || in_tangents_stride < 16 || out_tangents_stride < 16)) return false;
  for (size_t i = 0; i < slots; ++i)
    if (joint_indices[i] >= palette.size()) return false;
  return true;
}

bool SkinningJob::run() const {
  if (!validate()) return false;
  detail::active_kernels().skin(*this);
  return true;
}

}  // namespace ossa
