// Internal: morph targets on the baked, instanced path, shared by every backend (gl/, d3d11/). The bake holds
// every mesh's weights per frame after the joints (ossa/render/baked_animation.h); the deltas are the palette
// path's texture (morph_plan.h), uploaded once per renderer.
//
// Per mesh, the slots are the targets the bake animates: those with a non-zero weight in some frame of some
// clip, in target order (a target at 0 in every frame changes nothing, as in MorphJob). Each instanced draw
// of the mesh hands its slots to the vertex shader; a vertex inside a slot's window gets the instance's
// weight, interpolated between the two frames (and blended between the two clips) exactly as the shader
// interpolates the skinning matrices, and adds weight x delta before skinning. The shader has
// kMaxGpuMorphTargets slots per mesh (unrolled in HLSL for Wine's compiler): a bake that animates more
// targets on one mesh, or a mesh whose deltas are not on the texture, cannot be drawn right, so set_baked()
// refuses it and names the mesh; it never draws a silently wrong shape.
#pragma once

#include <array>
#include <vector>

#include "morph_plan.h"
#include "ossa/render/baked_animation.h"

namespace ossa::detail {

struct BakedMorphSlots {
  // Per slot, 8 floats: the weight's texel (column of the bake's rows), the window's first texel, first
  // vertex and vertex count on the delta texture; then a one-hot mask selecting the weight's component.
  std::array<float, kMaxGpuMorphTargets * 8> slots{};
  int count = 0;
  int texels_per_vertex = 2;  // on the delta texture: 2, or 3 with tangent deltas (MorphDeltaTable)
};

// Each mesh's slots; an error when the bake's weights do not match the meshes' targets, or a mesh cannot be
// morphed on the GPU (see above).
Result<std::vector<BakedMorphSlots>> baked_morph_slots(const CharacterAsset& asset,
                                                       const BakedAnimation& baked,
                                                       const MorphDeltaTable& table);

// The weight of morph target k (every mesh's, mesh after mesh) in row `frame` of `layer` (either precision).
float baked_weight(const BakedAnimation& baked, int layer, int frame, int k);

}  // namespace ossa::detail
