// ossa/asset/skinned_mesh.h — an immutable runtime mesh: vertex streams, influences, joint palette map.
//
// Streams are tightly packed: positions and normals 3 floats, tangents 4 (w = bitangent sign), uvs 2.
// Influences: `influences()` (1-4) slots per vertex, strongest first, weights summing to 1. A vertex's joint
// slot k indexes joint_remap()[k] (a skeleton joint) and inverse_binds()[k]: PaletteJob turns them into the
// mesh's skinning palette. Raw meshes with more than 4 influences keep their strongest 4, renormalised.
// Morph targets, when the mesh has them, are applied to the bind-time streams before skinning (MorphJob).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/morph.h"
#include "ossa/asset/skeleton.h"

namespace ossa {

class SkinnedMesh {
 public:
  static Result<SkinnedMesh> build(const RawMesh& raw, const Skeleton& skeleton);
  // The same mesh with `targets` (built for its vertex count) as its morph targets (.ossa loading).
  static SkinnedMesh with_morph_targets(SkinnedMesh mesh, MorphTargets targets);

  const std::string& name() const { return name_; }
  int vertex_count() const { return static_cast<int>(positions_.size() / 3); }
  int influences() const { return influences_; }
  int material() const { return material_; }
  std::span<const float> positions() const { return positions_; }
  std::span<const float> normals() const { return normals_; }    // empty when the file had none
  std::span<const float> tangents() const { return tangents_; }  // empty when the file had none
  std::span<const float> uvs() const { return uvs_; }
  std::span<const uint32_t> indices() const { return indices_; }
  std::span<const uint16_t> joint_indices() const { return joint_indices_; }  // vertex * influences()
  std::span<const float> joint_weights() const { return joint_weights_; }
  std::span<const uint16_t> joint_remap() const { return joint_remap_; }
  std::span<const Mat4> inverse_binds() const { return inverse_binds_; }
  // Morph targets (ossa/asset/morph.h); empty for most meshes. MorphJob::for_mesh applies them.
  const MorphTargets& morph_targets() const { return morph_; }

 private:
  std::string name_;
  int influences_ = 1;
  int material_ = -1;
  std::vector<float> positions_, normals_, tangents_, uvs_;
  std::vector<uint32_t> indices_;
  std::vector<uint16_t> joint_indices_;
  std::vector<float> joint_weights_;
  std::vector<uint16_t> joint_remap_;
  std::vector<Mat4> inverse_binds_;
  MorphTargets morph_;
};

}  // namespace ossa
