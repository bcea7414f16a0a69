// Consumer check (scripts/consumer-check.sh): a program linking ossa::ossa (runtime, import, render) from an
// installed Ossa. It draws a `.ossa` character (runtime assets, no ImportedScene) headless and checks that
// something other than the background was drawn.
#include <ossa/ossa.h>

#include <cstdio>
#include <string>

#if !defined(OSSA_HAS_IMPORT) || !defined(OSSA_HAS_RENDER)
#error "ossa::ossa must bring the import and render APIs (OSSA_HAS_IMPORT, OSSA_HAS_RENDER)"
#endif

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: render_app FILE\n"), 2;
  auto hero = ossa::load_character(argv[1]);
  if (!hero) return std::fprintf(stderr, "%s\n", hero.error().c_str()), 1;
  const ossa::LoadedCharacter& c = **hero;
#if defined(OSSA_HAS_D3D11)  // the Windows package: Direct3D 11, shaders built into the library
  auto device = ossa::D3D11Device::create();
  if (!device) return std::fprintf(stderr, "%s\n", device.error().c_str()), 1;
  auto renderer = ossa::create_d3d11_renderer(*device, c.asset, c.materials, c.textures, c.flip_textures);
  const std::string backend = (*device)->adapter_name();
#else
  auto gl = ossa::GlContext::create_headless();
  if (!gl) return std::fprintf(stderr, "%s\n", gl.error().c_str()), 1;
  auto renderer = ossa::create_gl_renderer(*gl, c.asset, c.materials, c.textures, c.flip_textures);
  const std::string backend = (*gl)->renderer_name();
#endif
  if (!renderer) return std::fprintf(stderr, "%s\n", renderer.error().c_str()), 1;
  ossa::Animator anim = c.animator();
  if (!anim.play(c.asset.find_clip("Walk"))) return std::fprintf(stderr, "no Walk\n"), 1;
  anim.update(0.3f);
  ossa::FrameSettings frame;
  frame.width = frame.height = 128;
  frame.grid = false;
  frame.camera.eye = {0, 1, 4};
  frame.camera.target = {0, 1, 0};
  renderer->begin_frame(frame);
  renderer->draw_palette(ossa::Mat4{}, anim.model());
  ossa::Image image = renderer->end_frame();
  int drawn = 0;
  for (size_t p = 0; p + 3 < image.rgba.size(); p += 4)
    drawn += image.rgba[p] != image.rgba[0] || image.rgba[p + 1] != image.rgba[1];
  std::printf("%s: %d of %d pixels drawn (%s)\n", argv[1], drawn, frame.width * frame.height,
              backend.c_str());
  return drawn > 100 ? 0 : 1;
}
