// Test helper: the frames on which the OpenGL and Direct3D 11 backends are compared, described once and
// drawn through the backend-neutral CharacterRenderer. The Linux build renders them with GL from a .ossa it
// writes (Render.WritesGlReferencesForDirect3D11, test_render.cpp); the Windows build, under Wine, renders
// the same .ossa with Direct3D 11 and compares pixel by pixel (test_d3d11.cpp).
#pragma once

#include <string>
#include <vector>

#include "ossa/render/renderer.h"

namespace ossa::test {

struct ComparisonFrame {
  std::string name;  // unique per character: file names of the references
  int clip = 0;
  float time = 0;
  LightingMode lighting = LightingMode::kBlinnPhong;
  SkinningPath path = SkinningPath::kGpuPalette;
  int clip2 = -1;  // baked: crossfading towards this clip
  float weight = 0;
  bool skeleton = false;  // lines from each joint to its parent over the character
};

// Every clip at 0, 1/3 and 2/3 of its duration (Blinn-Phong, palette skinning); the first clip at 1/3 in each
// of the five lighting modes; and the first clip at 1/3 through baked instancing, alone and crossfading 40 %
// towards the second clip; and the first clip at 1/3 with the skeleton's lines.
std::vector<ComparisonFrame> comparison_frames(const CharacterAsset& asset);

// The camera (framing the bind pose with a margin) and size every backend uses for the character.
FrameSettings comparison_settings(const CharacterAsset& asset, LightingMode lighting, int size = 192);

// Draws one frame (the grid and the character). Baked frames need renderer.set_baked() first.
Image render_comparison_frame(CharacterRenderer& renderer, const CharacterAsset& asset,
                              const ComparisonFrame& frame);

// Morph targets on every backend: synthetic_morph_character() (12 Body targets, 3 Cape targets) at clip 0,
// 1/3 of its duration, with a weight set per frame, palette-skinned: 3 active targets, exactly
// kMaxGpuMorphTargets active on the Body (negative weights among them), more than that (the Body morphed on
// the CPU), and all targets at 0 (the bind-time shape). `weights`: every mesh's, mesh after mesh.
struct MorphFrame {
  std::string name;
  std::vector<float> weights;
  int body_active = 0;  // active targets on the Body
};
std::vector<MorphFrame> morph_comparison_frames(const CharacterAsset& asset);
// What morph_stats() must say after the palette draw of `frame`: the Body on the GPU up to
// kMaxGpuMorphTargets active targets, on the CPU past them; the Cape (3 targets) on the GPU when active.
// Empty when `stats` says so, else what differs.
std::string morph_stats_mismatch(const CharacterAsset& asset, const MorphFrame& frame,
                                 const MorphDrawStats& stats);
// The materials of synthetic_morph_character(): material 0 has a normal map (a constant 4x4 texture) that
// tilts every normal far towards the tangent, so that a wrong tangent (delta) shows in the lighting.
struct MaterialSet {
  std::vector<Material> materials;
  std::vector<Texture> textures;
};
MaterialSet tilted_normal_map();
// One morph frame (Lambert, 192 pixels) through the palette or the CPU path.
Image render_morph_frame(CharacterRenderer& renderer, const CharacterAsset& asset, const MorphFrame& frame,
                         SkinningPath path);

// Morph targets on the baked path: clip `clip` of a character whose clip animates morph weights, drawn by
// draw_baked() at a frame time, halfway between two frames, and crossfading 40 % towards clip `clip2`, each
// against the truth the palette path draws (baked_morph_truth()).
struct BakedMorphFrame {
  std::string name;
  int clip = 0;
  float time = 0;
  int clip2 = -1;
  float weight = 0;
  bool between = false;  // halfway between two baked frames (the bake's looser bound)
};
std::vector<BakedMorphFrame> baked_morph_frames(const BakedAnimation& baked, int clip, int clip2);
// What draw_baked() must show for `frame`, from the runtime (not from the bake's texels): model matrices of
// the runtime's pose at the time (lerped towards clip2's, as the bake lerps matrices) and every mesh's
// morph weights sampled from the clips' weight tracks (MorphWeightTracks::sample_mesh over the defaults) at
// the two baked frames around the time, lerped as the shader lerps them, then towards clip2's.
void baked_morph_truth(const CharacterAsset& asset, const BakedAnimation& baked, const BakedMorphFrame& frame,
                       std::vector<Mat4>& model, std::vector<float>& weights);
// One frame (Lambert, 192 pixels): kGpuPalette draws the truth with palette skinning (`zero_weights`: with
// every weight 0 instead), kBaked the instance with `evaluation`. The bake must be set on the renderer.
Image render_baked_morph_frame(CharacterRenderer& renderer, const CharacterAsset& asset,
                               const BakedAnimation& baked, const BakedMorphFrame& frame, SkinningPath path,
                               BakedEvaluation evaluation = BakedEvaluation::kPerVertex,
                               bool zero_weights = false);

// The bound both comparisons state: at most 1 % of pixels differ by more than 8/255 in any channel.
constexpr int kBackendThreshold = 8;
constexpr double kBackendFraction = 0.01;

}  // namespace ossa::test
