// ossa/render/gl_renderer.h — the OpenGL 4.5 core backend of CharacterRenderer (ossa/render/renderer.h).
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
//
// Palettes go in a uniform buffer per mesh draw; the bake is a 2D texture array; per-instance evaluation of a
// crowd is a compute pass writing each instance's skinning matrices to a shader storage buffer (where vertex
// shaders can read storage buffers, as Mesa's can). The renderer keeps its GlContext alive, and the context
// must be current on the calling thread for every call.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ossa/render/renderer.h"

namespace ossa {

struct ImportedScene;  // ossa/import/imported_scene.h

class GlContext {
 public:
  // Headless OpenGL `major.minor` core context through EGL's surfaceless Mesa platform. Fails with a message
  // saying what is missing (no EGL display, no such GL version) instead of crashing.
  static Result<std::shared_ptr<GlContext>> create_headless(int major = 4, int minor = 5);
  // The context current on this thread, made by someone else (a GLFW window, say): renderers draw with it;
  // it is never destroyed or made non-current here. Fails when none is current or it is not OpenGL 4.5.
  static Result<std::shared_ptr<GlContext>> adopt_current();
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;
  std::string renderer_name() const;
  // GL debug-output messages of type error (and high severity) since the last call.
  std::vector<std::string> take_errors();

 private:
  GlContext() = default;
  void* display_ = nullptr;
  void* context_ = nullptr;  // null for an adopted context
};

// Copies the renderer's frame (drawn since begin_frame()) into the window's framebuffer (GL's default
// framebuffer 0) with its lower-left corner at (x, y) in framebuffer pixels, counted from the bottom as GL
// does: how a window shows it (`ossa view`). Fails for a renderer of another backend.
Result<bool> present_gl_frame(CharacterRenderer& renderer, int x, int y);

// Runtime assets with their materials and textures (as an OssaFile holds them). `flip_textures`: the images
// have v = 0 at their bottom (FBX, COLLADA), not at their top (glTF).
Result<std::unique_ptr<CharacterRenderer>> create_gl_renderer(std::shared_ptr<GlContext> context,
                                                              const CharacterAsset& asset,
                                                              std::span<const Material> materials,
                                                              std::span<const Texture> textures,
                                                              bool flip_textures = true);
// The same from an import: its materials, textures and format.
Result<std::unique_ptr<CharacterRenderer>> create_gl_renderer(std::shared_ptr<GlContext> context,
                                                              const CharacterAsset& asset,
                                                              const ImportedScene& scene);

}  // namespace ossa
