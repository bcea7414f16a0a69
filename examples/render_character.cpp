// One character drawn with the GPU renderer, headless, into a PNG: GPU palette skinning, the renderer's
// default lighting, a camera that frames the character.
//
//   render_character MODEL OUT.png   (.fbx .glb .gltf .dae or .ossa)
#include <ossa/ossa.h>

#include <algorithm>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: render_character MODEL OUT.png\n"), 2;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;
  ossa::Animator animator = hero.animator();
  if (!animator.play(0)) return std::fprintf(stderr, "%s has no clips\n", argv[1]), 1;
  animator.update(0.5f);

  // A camera on the bind-pose box, and the character at the origin.
  ossa::Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (const ossa::SkinnedMesh& mesh : hero.asset.meshes)
    for (size_t i = 0; i + 2 < mesh.positions().size(); i += 3) {
      lo = {std::min(lo.x, mesh.positions()[i]), std::min(lo.y, mesh.positions()[i + 1]),
            std::min(lo.z, mesh.positions()[i + 2])};
      hi = {std::max(hi.x, mesh.positions()[i]), std::max(hi.y, mesh.positions()[i + 1]),
            std::max(hi.z, mesh.positions()[i + 2])};
    }
  const ossa::Camera camera = ossa::frame_bounds(lo, hi, 1.f);
  const ossa::Mat4 world;  // identity

  // [snippet render_frame]
  auto gl = ossa::GlContext::create_headless();  // EGL, no window (Mesa's llvmpipe without a GPU)
  if (!gl) return std::fprintf(stderr, "%s\n", gl.error().c_str()), 1;
  auto renderer =
      ossa::create_gl_renderer(*gl, hero.asset, hero.materials, hero.textures, hero.flip_textures);
  if (!renderer) return std::fprintf(stderr, "%s\n", renderer.error().c_str()), 1;
  renderer->begin_frame({512, 512, camera, ossa::LightingMode::kBlinnPhong});
  // GPU palette skinning (and morph targets); end_frame() reads the picture back, top row first.
  renderer->draw_palette(world, animator.model(), animator.morph_weights());
  ossa::Image image = renderer->end_frame();
  // [/snippet]

  if (auto written = ossa::write_png(image, argv[2]); !written)
    return std::fprintf(stderr, "%s\n", written.error().c_str()), 1;
  std::printf("%s: %dx%d on %s\n", argv[2], image.width, image.height, renderer->device_name().c_str());
  return 0;
}
