// ossa/render/renderer.h — what every rendering backend draws, and how it is asked to.
//
// snippet: examples/render_character.cpp render_frame
//   auto gl = ossa::GlContext::create_headless();  // EGL, no window (Mesa's llvmpipe without a GPU)
//   if (!gl) return std::fprintf(stderr, "%s\n", gl.error().c_str()), 1;
//   auto renderer =
//       ossa::create_gl_renderer(*gl, hero.asset, hero.materials, hero.textures, hero.flip_textures);
//   if (!renderer) return std::fprintf(stderr, "%s\n", renderer.error().c_str()), 1;
//   renderer->begin_frame({512, 512, camera, ossa::LightingMode::kBlinnPhong});
//   // GPU palette skinning (and morph targets); end_frame() reads the picture back, top row first.
//   renderer->draw_palette(world, animator.model(), animator.morph_weights());
//   ossa::Image image = renderer->end_frame();
// (Direct3D 11: ossa::D3D11Device::create() and create_d3d11_renderer() in place of the GL context and
// create_gl_renderer(), ossa/render/d3d11_renderer.h.)
//
// A CharacterRenderer draws one character's meshes through three skinning paths that share one pipeline
// (vertex layout, lighting), so they can be compared pixel by pixel: palette skinning (each mesh's palette,
// model * inverse bind per palette slot, uploaded per draw; meshes over 256 palette joints are refused at
// creation), CPU skinning (the runtime's SkinningJob, then the skinned vertices are uploaded: the reference),
// and baked instancing (skinning matrices read from a BakedAnimation in one instanced draw per mesh; per
// instance: world matrix, clip, time, speed, optional second clip and blend weight; frames and clips are
// interpolated on the GPU, by default once per instance, optionally per vertex; crowds are culled by the
// bake's per-frame bounds and may use fewer influences and a decimated mesh far away). Lighting: Phong,
// Blinn-Phong, Lambert, unlit, texture-only; one directional light plus ambient; diffuse texture and
// tangent-space normal map when present. Backends (OpenGL 4.5 in gl_renderer.h, Direct3D 11 in
// d3d11_renderer.h) implement the same interface from one shared description of each draw, so their pixels
// agree (tests compare them).
//
// Morph targets (blend shapes) are applied before skinning, as MorphJob does, on every path:
//   renderer->draw_palette(world, animator.model(), animator.morph_weights());
// Palette skinning morphs on the GPU: every mesh's position and normal deltas are uploaded once, at creation,
// into one RGBA32F texture (per target, the window of vertices from the lowest to the highest it moves), and
// each draw applies the mesh's active targets (weight != 0), up to kMaxGpuMorphTargets of them, in the
// vertex shader. A mesh with more active targets than that in a draw, or whose deltas did not fit the
// texture, is morphed on the CPU (MorphJob) for that draw and then skinned on the GPU: the picture is the
// same either way. The CPU path runs MorphJob, then SkinningJob. Baked instancing reads each frame's weights
// from the bake (stored after the joints, baked_animation.h), interpolates each instance's between frames and
// clips as it does the matrices, and applies them with the same delta texture, in both evaluations: per mesh,
// the targets the bake animates (non-zero in some frame), up to kMaxGpuMorphTargets of them. A bake that
// animates more on one mesh, or whose mesh is not on the delta texture, is refused by set_baked() (the error
// names the mesh): never a silently wrong shape. Weights set by the game (an Animator's overrides) do not
// reach baked instances: they play the clips' weights.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/raw.h"
#include "ossa/render/baked_animation.h"
#include "ossa/render/image.h"

namespace ossa {

enum class LightingMode { kPhong, kBlinnPhong, kLambert, kUnlit, kTextureOnly };
// Active morph targets a palette draw applies on the GPU per mesh (more fall back to CPU morphing), and
// targets a bake may animate per mesh for baked instancing (more: set_baked() refuses the bake).
constexpr int kMaxGpuMorphTargets = 8;
enum class SkinningPath { kGpuPalette, kCpu, kBaked };
const char* to_string(LightingMode mode);
bool parse_lighting_mode(const std::string& text, LightingMode& out);

struct Camera {
  Vec3 eye{0, 1, 4}, target{0, 1, 0};
  float fov_y_degrees = 35, near_plane = 0.05f, far_plane = 100;
};
// A camera that sees the box [lo, hi] whole from the front-right, slightly above.
Camera frame_bounds(Vec3 lo, Vec3 hi, float aspect);

struct FrameSettings {
  int width = 512, height = 512;
  Camera camera;
  LightingMode lighting = LightingMode::kBlinnPhong;
  bool grid = true;
  Vec4 clear{0.15f, 0.16f, 0.19f, 1};
};

// How draw_baked() evaluates the bake for a crowd.
enum class BakedEvaluation {
  // A compute pass turns each instance's (clip, time, second clip, weight) into its skinning matrices once;
  // the instanced draw then reads 4 matrices per vertex, as palette skinning does. The default where the
  // backend has it (CharacterRenderer::has_per_instance_evaluation()); else draw_baked() falls back to
  // kPerVertex.
  kPerInstance,
  // Every vertex samples and interpolates the bake for each of its influences (no compute pass): 6 texel
  // fetches and a matrix lerp per influence, twice that while two clips blend.
  kPerVertex,
};
const char* to_string(BakedEvaluation evaluation);

struct BakedDrawOptions {
  BakedEvaluation evaluation = BakedEvaluation::kPerInstance;
  // Skips instances whose animated bounds (the bake's per-frame boxes around the skinned vertices, for the
  // frames the shader interpolates) lie outside the view. Exact: it never drops a visible vertex.
  bool cull = true;
  // Level of detail: an instance whose bounding sphere's radius on screen is below this many pixels is
  // skinned with its 2 strongest influences, renormalised (per-instance evaluation only). 0: off.
  float lod_pixels = 0;
  // Level of detail: an instance whose bounding sphere's radius on screen is below this many pixels is drawn
  // with the decimated mesh (CharacterRenderer::lod_mesh(); either evaluation), which deviates from the full
  // surface by at most its error in model units. Independent of lod_pixels (both may apply). 0: off.
  float lod_mesh_pixels = 0;
};

struct BakedDrawStats {
  int drawn = 0;            // instances drawn
  int culled = 0;           // instances outside the view, not drawn
  int reduced = 0;          // of those drawn, skinned with 2 influences (level of detail)
  int decimated = 0;        // of those drawn, with the decimated mesh (level of detail)
  long long triangles = 0;  // triangles drawn, every mesh of every instance
};

// The decimated meshes a renderer holds for its crowds' far instances (BakedDrawOptions::lod_mesh_pixels):
// every mesh's triangles simplified over its own vertices (skinning data shared), made at creation with a
// target error of 1 % of the largest side of any mesh's bind-pose box (a character's height, usually), or
// by make_lod_mesh().
struct LodMeshInfo {
  bool available = false;  // the renderer has them (built with meshoptimizer, a backend that draws them)
  float target_error = 0;  // model units: the largest deviation from the full surface allowed
  float error = 0;         // model units: the largest the simplifier reports reaching, over the meshes
  long long full_triangles = 0, lod_triangles = 0;  // one character, every mesh
};

// How the palette draws since begin_frame() applied morph targets: meshes morphed on the GPU, meshes morphed
// on the CPU (more active targets than kMaxGpuMorphTargets, or deltas not on the device), and the targets
// the GPU applied. Meshes without active targets count in neither.
struct MorphDrawStats {
  int gpu_meshes = 0, cpu_meshes = 0, gpu_targets = 0;
};

struct BakedInstance {
  Mat4 world;
  int clip = 0;
  float time = 0;   // seconds into the clip at global time 0
  float speed = 1;  // clip time = time + global_time * speed, looped
  int clip2 = -1;   // optional second clip, blended with `weight` (same clock)
  float weight = 0;
};

// A crowd for draw_baked(): `count` instances on a square grid `spacing` apart (in x, and towards -z), each
// turned a little about +y and playing a clip of `asset` at its own phase (deterministic for a seed).
std::vector<BakedInstance> crowd_grid(const CharacterAsset& asset, int count, float spacing,
                                      uint32_t seed = 11);

// One character's meshes, materials and textures on one device. Made by a backend's create function, which
// uploads the meshes and textures: keep the CharacterAsset alive while the renderer lives (materials and
// textures are not referenced after). Calls come from the thread that owns the device.
class CharacterRenderer {
 public:
  virtual ~CharacterRenderer() = default;
  CharacterRenderer(const CharacterRenderer&) = delete;
  CharacterRenderer& operator=(const CharacterRenderer&) = delete;

  virtual const char* backend() const = 0;      // "OpenGL 4.5", "Direct3D 11"
  virtual std::string device_name() const = 0;  // the adapter or GL renderer, for reports
  virtual bool has_per_instance_evaluation() const = 0;

  // Uploads the bake for draw_baked(). An error (and draw_baked() draws nothing) when the device cannot hold
  // it, e.g. more layers or a longer side than it allows; the message says which limit.
  virtual Result<bool> set_baked(const BakedAnimation& baked) = 0;

  virtual void begin_frame(const FrameSettings& settings) = 0;
  // `morph_weights`: every mesh's morph target weights, mesh after mesh (Animator::morph_weights()); empty,
  // or of another size than the meshes' targets together, for each mesh's default weights. Morphs are
  // applied before skinning, as MorphJob does: on the GPU for palette skinning (see "Morph targets" above).
  virtual void draw_palette(const Mat4& world, std::span<const Mat4> model,
                            std::span<const float> morph_weights = {}) = 0;
  virtual void draw_cpu(const Mat4& world, std::span<const Mat4> model,
                        std::span<const float> morph_weights = {}) = 0;
  // One instanced draw per mesh and level of detail (influences, decimated mesh) for every instance; needs
  // set_baked().
  virtual BakedDrawStats draw_baked(std::span<const BakedInstance> instances, float global_time,
                                    const BakedDrawOptions& options = {}) = 0;
  virtual MorphDrawStats morph_stats() const = 0;
  // The decimated level of detail; make_lod_mesh() replaces it with one simplified to `target_error` (model
  // units). Backends without it: available false, and make_lod_mesh() an error saying why.
  virtual LodMeshInfo lod_mesh() const { return {}; }
  virtual Result<LodMeshInfo> make_lod_mesh(float target_error);
  // Lines from each joint to its parent, over the character.
  virtual void draw_skeleton(const Mat4& world, std::span<const Mat4> model) = 0;
  // Line segments in world space (`endpoints` in pairs; an odd last one is ignored) in one colour, hidden
  // where what is drawn is in front of them: guides in the scene, such as the ground the feet are planted on.
  virtual void draw_world_lines(std::span<const Vec3> endpoints, Vec3 color) = 0;
  virtual Image end_frame() = 0;  // waits for the GPU and reads the frame back (top row first)
  virtual void finish() = 0;  // waits for the GPU to complete what was submitted (no read back: for timing)

 protected:
  CharacterRenderer() = default;
};

}  // namespace ossa
