#include "ossa/runtime/morph_job.h"

#include <algorithm>

#include "ossa/asset/skinned_mesh.h"

namespace ossa {

bool MorphJob::validate() const {
  if (base_positions.size() % 3 != 0 || out_positions.size() != base_positions.size()) return false;
  if (!base_normals.empty() && base_normals.size() != base_positions.size()) return false;
  if (!out_normals.empty() && out_normals.size() != base_normals.size()) return false;
  if (!base_tangents.empty() && base_tangents.size() != base_positions.size() / 3 * 4) return false;
  if (!out_tangents.empty() && out_tangents.size() != base_tangents.size()) return false;
  if (target_first.empty()) return weights.empty() && vertices.empty();
  const size_t targets = target_first.size() - 1;
  if (weights.size() != targets || target_first.front() != 0 || target_first.back() != vertices.size())
    return false;
  for (size_t t = 0; t < targets; ++t)
    if (target_first[t] > target_first[t + 1]) return false;
  if (position_deltas.size() != vertices.size() * 3) return false;
  if (!normal_deltas.empty() && normal_deltas.size() != position_deltas.size()) return false;
  if (!tangent_deltas.empty() && tangent_deltas.size() != position_deltas.size()) return false;
  const size_t vertex_count = base_positions.size() / 3;
  return std::all_of(vertices.begin(), vertices.end(), [&](uint32_t v) { return v < vertex_count; });
}

bool MorphJob::run() const {
  if (!validate()) return false;
  std::copy(base_positions.begin(), base_positions.end(), out_positions.begin());
  const bool normals = !out_normals.empty();
  if (normals) std::copy(base_normals.begin(), base_normals.end(), out_normals.begin());
  const bool tangents = !out_tangents.empty();
  if (tangents) std::copy(base_tangents.begin(), base_tangents.end(), out_tangents.begin());
  for (size_t t = 0; t + 1 < target_first.size(); ++t) {
    const float w = weights[t];
    if (w == 0) continue;  // most targets of a face are off at any moment
    for (uint32_t e = target_first[t]; e < target_first[t + 1]; ++e) {
      float* p = out_positions.data() + size_t{vertices[e]} * 3;
      const float* d = position_deltas.data() + size_t{e} * 3;
      p[0] += w * d[0], p[1] += w * d[1], p[2] += w * d[2];
    }
    if (normals && !normal_deltas.empty())
      for (uint32_t e = target_first[t]; e < target_first[t + 1]; ++e) {
        float* n = out_normals.data() + size_t{vertices[e]} * 3;
        const float* d = normal_deltas.data() + size_t{e} * 3;
        n[0] += w * d[0], n[1] += w * d[1], n[2] += w * d[2];
      }
    if (tangents && !tangent_deltas.empty())
      for (uint32_t e = target_first[t]; e < target_first[t + 1]; ++e) {
        float* tangent = out_tangents.data() + size_t{vertices[e]} * 4;  // w: the sign, unchanged
        const float* d = tangent_deltas.data() + size_t{e} * 3;
        tangent[0] += w * d[0], tangent[1] += w * d[1], tangent[2] += w * d[2];
      }
  }
  return true;
}

MorphJob MorphJob::for_mesh(const SkinnedMesh& mesh, std::span<const float> weights) {
  const MorphTargets& m = mesh.morph_targets();
  MorphJob job;
  job.base_positions = mesh.positions();
  job.base_normals = mesh.normals();
  job.base_tangents = mesh.tangents();
  job.target_first = m.target_first();
  job.vertices = m.vertices();
  job.position_deltas = m.position_deltas();
  job.normal_deltas = m.normal_deltas();
  job.tangent_deltas = m.tangent_deltas();
  job.weights = weights;
  return job;
}

}  // namespace ossa
