// ossa/render/baked_animation.h — every clip's frames x joints skinning matrices baked for GPU crowds.
//
// Layout (what the instanced vertex shader reads, and what `ossa bake` writes): a 2D texture array, one layer
// per clip; row f of a layer is frame f (time f / frame_rate, the last row the clip's end); joint j occupies
// texels 3j, 3j+1, 3j+2 of a row, holding the first three rows of its model-space matrix (row-major 3x4,
// RGBA). Morph targets: when the meshes have any, the row goes on with their weights at that frame, 4 a texel
// (RGBA), every mesh's targets in order, mesh after mesh (Animator::morph_weights()' layout): weight k at
// texel 3 x joints + k / 4, component k % 4; zeros pad the last texel. They are what Animator gives for the
// clip alone: each mesh's default weights, replaced by the clip's weight tracks (MorphWeightTracks, linear
// between keys). Width = 3 x joints + ceil(morph_weights / 4), height = the most frames of any clip (shorter
// clips repeat their last frame). A character without morph targets bakes exactly as before.
// Skinning multiplies by the mesh's own inverse binds in the shader, so meshes bound at different poses share
// one bake. Memory: 48 bytes (RGBA32F) or 24 bytes (RGBA16F) per joint per frame, i.e. 48 x frame_rate bytes
// per joint per clip-second at full precision, plus 16 (8) bytes per frame for every 4 morph targets. Baking
// in half precision reports its worst error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ossa/asset/character.h"

namespace ossa {

struct BakedClipInfo {
  std::string name;
  int layer = 0;
  int frame_count = 0;
  float frame_rate = 0;
  float duration = 0;
  // Per frame, a box around every skinned vertex of every mesh (model space): lo x, y, z, then hi x, y, z.
  // The baked shader's vertices lie between two frames' (and two clips') positions, so the union of the boxes
  // of the frames it interpolates bounds them: what crowd culling tests. With morph targets, the shader lerps
  // weights as well as matrices, so a vertex is no longer between two frames' positions: each box is the one
  // around the unmorphed skinned vertices, widened per axis by the largest morph displacement of any vertex
  // in any frame of any clip times the largest norm of that axis' row of any skinning matrix (a bound on
  // |row . displacement| for every blend of frames, clips and influences). Exact still, looser than needed.
  std::vector<float> frame_bounds;
};

struct BakedAnimation {
  int joints = 0, width = 0, height = 0, layers = 0;
  int morph_weights = 0;  // every mesh's morph targets together; their weights follow the joints in a row
  int weights_texel() const { return 3 * joints; }  // the texel of weight 0 (and 1-3) in each row
  bool half = false;
  std::vector<float> texels;     // layers x height x width x 4, full precision (what the GPU gets when !half)
  std::vector<uint16_t> halves;  // the same as IEEE half floats, when half
  std::vector<BakedClipInfo> clips;
  double max_half_error =
      0;  // largest |half - float| of any matrix entry (translation entries in model units) or weight
  size_t bytes() const { return half ? halves.size() * 2 : texels.size() * 4; }
  double bytes_per_joint_second() const;  // whole texture (padding rows included) / (joints x clip seconds)
};

// Samples each clip at `frame_rate` through the runtime jobs. 0: each fixed-rate clip's own rate (30 for
// other layouts), doubled (up to 8x) while a joint turns more than 20 degrees between rows, since the shader
// lerps matrices between rows where the runtime slerps rotations.
Result<BakedAnimation> bake_animation(const CharacterAsset& asset, float frame_rate = 0, bool half = false);

// Writes OUT.bin (raw texels, little-endian float32 or float16) and OUT.json (layout and clip table).
Result<bool> write_baked_animation(const BakedAnimation& baked, const std::string& out_prefix);

uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

}  // namespace ossa
