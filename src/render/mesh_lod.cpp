// The decimated crowd level of detail (mesh_lod.h).
#include "mesh_lod.h"

#include <algorithm>

#ifdef OSSA_HAVE_MESHOPTIMIZER
#include <meshoptimizer.h>
#endif

namespace ossa::detail {

bool has_mesh_simplifier() {
#ifdef OSSA_HAVE_MESHOPTIMIZER
  return true;
#else
  return false;
#endif
}

SimplifiedMesh simplify_mesh([[maybe_unused]] const SkinnedMesh& mesh, [[maybe_unused]] float target_error) {
  SimplifiedMesh out;
#ifdef OSSA_HAVE_MESHOPTIMIZER
  const std::span<const uint32_t> indices = mesh.indices();
  const size_t vertices = static_cast<size_t>(mesh.vertex_count());
  if (indices.size() < 3 || vertices == 0 || !(target_error > 0)) return out;
  // meshoptimizer measures error relative to the mesh's extent.
  const float scale = meshopt_simplifyScale(mesh.positions().data(), vertices, 12);
  if (!(scale > 0)) return out;
  const size_t target_indices =
      static_cast<size_t>(static_cast<float>(indices.size() / 3) * kLodMeshTriangleFraction) * 3;
  std::vector<uint32_t> simplified(indices.size());
  float relative_error = 0;
  const size_t count =
      meshopt_simplify(simplified.data(), indices.data(), indices.size(), mesh.positions().data(), vertices,
                       12, target_indices, target_error / scale, meshopt_SimplifyLockBorder, &relative_error);
  if (count >= indices.size()) return out;  // nothing collapsed within the error
  simplified.resize(count);
  out.indices = std::move(simplified);
  out.error = relative_error * scale;
#endif
  return out;
}

float default_lod_mesh_error([[maybe_unused]] const CharacterAsset& asset) {
  float extent = 0;  // the largest side of any mesh's box: a character's height, usually
#ifdef OSSA_HAVE_MESHOPTIMIZER
  for (const SkinnedMesh& m : asset.meshes)
    if (m.vertex_count() > 0)
      extent = std::max(
          extent, meshopt_simplifyScale(m.positions().data(), static_cast<size_t>(m.vertex_count()), 12));
#endif
  return extent * kLodMeshDefaultErrorFraction;
}

}  // namespace ossa::detail
