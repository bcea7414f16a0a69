// Morph targets on the baked path (baked_morph_plan.h): each mesh's slots.
#include "baked_morph_plan.h"

#include <string>

namespace ossa::detail {

float baked_weight(const BakedAnimation& baked, int layer, int frame, int k) {
  const size_t at =
      ((static_cast<size_t>(layer) * baked.height + frame) * baked.width + baked.weights_texel()) * 4 +
      static_cast<size_t>(k);
  return baked.half ? half_to_float(baked.halves[at]) : baked.texels[at];
}

Result<std::vector<BakedMorphSlots>> baked_morph_slots(const CharacterAsset& asset,
                                                       const BakedAnimation& baked,
                                                       const MorphDeltaTable& table) {
  using R = Result<std::vector<BakedMorphSlots>>;
  std::vector<BakedMorphSlots> out(asset.meshes.size());
  int total = 0;
  for (const SkinnedMesh& mesh : asset.meshes) total += mesh.morph_targets().count();
  if (baked.morph_weights != total)
    return R::failure("the bake holds " + std::to_string(baked.morph_weights) +
                      " morph weights per frame; this character's meshes have " + std::to_string(total) +
                      " targets (bake this character)");
  if (total == 0) return out;
  if (baked.width < baked.weights_texel() + (total + 3) / 4)
    return R::failure("the bake's rows are too short for its " + std::to_string(total) + " morph weights");
  int first = 0;  // the mesh's first weight
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    BakedMorphSlots& slots = out[m];
    if (m < table.texels_per_vertex.size()) slots.texels_per_vertex = table.texels_per_vertex[m];
    for (int t = 0; t < mesh.morph_targets().count(); ++t) {
      const int k = first + t;
      bool animated = false;
      for (int layer = 0; layer < baked.layers && !animated; ++layer)
        for (int f = 0; f < baked.height && !animated; ++f) animated = baked_weight(baked, layer, f, k) != 0;
      if (!animated) continue;
      if (slots.count == kMaxGpuMorphTargets ||
          table.windows[m].size() != static_cast<size_t>(mesh.morph_targets().count()))
        return R::failure("mesh '" + mesh.name() + "': " +
                          (table.windows[m].empty()
                               ? std::string("its morph deltas are not on the GPU")
                               : "the bake animates more than " + std::to_string(kMaxGpuMorphTargets) +
                                     " of its morph targets") +
                          "; baked instancing applies up to " + std::to_string(kMaxGpuMorphTargets) +
                          " per mesh from the delta texture (draw it with palette skinning)");
      float* slot = &slots.slots[static_cast<size_t>(slots.count++) * 8];
      const MorphWindow& w = table.windows[m][t];
      slot[0] = static_cast<float>(baked.weights_texel() + k / 4);
      slot[1] = static_cast<float>(w.first_texel);
      slot[2] = static_cast<float>(w.first_vertex);
      slot[3] = static_cast<float>(w.vertex_count);
      slot[4 + k % 4] = 1;
    }
    first += mesh.morph_targets().count();
  }
  return out;
}

}  // namespace ossa::detail
