// ossa/render/gl_renderer.h — drawing skinned characters with OpenGL 4.5 core.
//
//   auto gl = ossa::GlContext::create_headless();       // EGL surfaceless (Mesa llvmpipe without a GPU)
//   auto renderer = ossa::CharacterRenderer::create(asset, scene);
//   renderer->begin_frame({512, 512, camera, ossa::LightingMode::kBlinnPhong});
//   renderer->draw_palette(world, animator.model());     // GPU skinning, palette in a uniform buffer
//   ossa::Image image = renderer->end_frame();
//
// Three skinning paths share one pipeline (vertex layout, shaders, lighting), so they can be compared pixel
// by pixel: kGpuPalette uploads each mesh's palette (model * inverse bind per palette slot, std140 mat4[256]
// in a uniform buffer; meshes over 256 palette joints are refused at create() with a clear error); kCpu runs
// the CPU SkinningJob and uploads skinned vertices (the reference); kBaked reads skinning matrices from a
// BakedAnimation texture array in an instanced draw (per instance: world matrix, clip, time, speed, optional
// second clip and blend weight; frames and clips are interpolated on the GPU, by default once per instance
// in a compute pass, optionally per vertex; crowds are culled by the bake's per-frame bounds and may use
// fewer influences far away: BakedDrawOptions). Lighting: Phong,
// Blinn-Phong, Lambert, unlit, texture-only; one directional light plus ambient; diffuse texture and
// tangent-space normal map when present. A GlContext must be current on the calling thread for every call.
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

struct ImportedScene;  // ossa/import/imported_scene.h

enum class LightingMode { kPhong, kBlinnPhong, kLambert, kUnlit, kTextureOnly };
enum class SkinningPath { kGpuPalette, kCpu, kBaked };
const char* to_string(LightingMode mode);
bool parse_lighting_mode(const std::string& text, LightingMode& out);

struct Camera {
  Vec3 eye{0, 1, 4}, target{0, 1, 0};
  float fov_y_degrees = 35, near_plane = 0.05f, far_plane = 100;
};
// A camera that sees the box [lo, hi] whole from the front-right, slightly above.
Camera frame_bounds(Vec3 lo, Vec3 hi, float aspect);

class GlContext {
 public:
  // Headless OpenGL `major.minor` core context through EGL's surfaceless Mesa platform. Fails with a message
  // saying what is missing (no EGL display, no such GL version) instead of crashing.
  static Result<std::shared_ptr<GlContext>> create_headless(int major = 4, int minor = 5);
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;
  std::string renderer_name() const;
  // GL debug-output messages of type error (and high severity) since the last call.
  std::vector<std::string> take_errors();

 private:
  GlContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;
};

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
  // the instanced draw then reads 4 matrices per vertex, as palette skinning does. The default.
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
};

struct BakedDrawStats {
  int drawn = 0;    // instances drawn
  int culled = 0;   // instances outside the view, not drawn
  int reduced = 0;  // of those drawn, skinned with 2 influences (level of detail)
};

struct BakedInstance {
  Mat4 world;
  int clip = 0;
  float time = 0;   // seconds into the clip at global time 0
  float speed = 1;  // clip time = time + global_time * speed, looped
  int clip2 = -1;   // optional second clip, blended with `weight` (same clock)
  float weight = 0;
};

class CharacterRenderer {
 public:
  // Runtime assets with their materials and textures (as an OssaFile holds them). `flip_textures`: the
  // images have v = 0 at their bottom (FBX, COLLADA), not at their top (glTF). Uploads the meshes and
  // textures: keep `asset` alive while the renderer lives; materials and textures are not referenced after.
  static Result<std::unique_ptr<CharacterRenderer>> create(const CharacterAsset& asset,
                                                           std::span<const Material> materials,
                                                           std::span<const Texture> textures,
                                                           bool flip_textures = true);
  // The same from an import: its materials, textures and format.
  static Result<std::unique_ptr<CharacterRenderer>> create(const CharacterAsset& asset,
                                                           const ImportedScene& scene);
  ~CharacterRenderer();

  void set_baked(const BakedAnimation& baked);  // uploads the texture array for draw_baked()

  void begin_frame(const FrameSettings& settings);
  void draw_palette(const Mat4& world, std::span<const Mat4> model);
  void draw_cpu(const Mat4& world, std::span<const Mat4> model);
  // One instanced draw per mesh (two with level of detail) for every instance; needs set_baked().
  BakedDrawStats draw_baked(std::span<const BakedInstance> instances, float global_time,
                            const BakedDrawOptions& options = {});
  void draw_skeleton(const Mat4& world, std::span<const Mat4> model);  // lines from each joint to its parent
  Image end_frame();  // waits for the GPU and reads the frame back
  void finish();      // waits for the GPU to complete what was submitted (no read back: for timing)

 private:
  struct Impl;
  explicit CharacterRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ossa
