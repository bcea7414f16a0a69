// Internal: the decimated level of detail of a baked crowd (BakedDrawOptions::lod_mesh_pixels), shared by the
// backends that draw it. Per mesh, a second index buffer over the same vertices, so the vertex stream and its
// skinning data (joints, weights) are shared and the same instanced draw reads it: meshoptimizer's
// meshopt_simplify (Debian's libmeshoptimizer-dev, 0.18) collapses edges until the triangles are a quarter of
// the mesh's or the next collapse would move the surface by more than the target error (model units).
// Attribute seams: vertices at one position with different normals or UVs are split vertices to the
// simplifier, which only collapses them along their seam, so UV and normal seams stay where they are. Open
// borders are locked (meshopt_SimplifyLockBorder): where a mesh ends against another (a head against a
// collar) both keep their border and no crack opens between them.
// Without meshoptimizer (the build says so) nothing is simplified and crowds draw at full detail.
#pragma once

#include <cstdint>
#include <vector>

#include "ossa/render/renderer.h"

namespace ossa::detail {

constexpr float kLodMeshTriangleFraction = 0.25f;  // the simplifier stops at this fraction of the triangles
// The default target error: this fraction of the largest side of the largest mesh's bind-pose box.
constexpr float kLodMeshDefaultErrorFraction = 0.01f;

bool has_mesh_simplifier();  // built with meshoptimizer

struct SimplifiedMesh {
  std::vector<uint32_t> indices;  // triangles over the mesh's own vertices
  float error = 0;                // the simplifier's estimate of the largest deviation, model units
};
// Empty indices and error 0 when nothing was simplified (no meshoptimizer, no triangles, or no collapse
// within the target error): the full mesh is its own level of detail then.
SimplifiedMesh simplify_mesh(const SkinnedMesh& mesh, float target_error);

// kLodMeshDefaultErrorFraction of the largest side of any mesh's bind-pose box (a character's height,
// usually), in model units; 0 without meshoptimizer.
float default_lod_mesh_error(const CharacterAsset& asset);

}  // namespace ossa::detail
