// A crowd drawn on the GPU: one character baked once, then every instance in one instanced draw per mesh,
// written to a PNG. Headless: EGL's surfaceless platform, so it runs without a window, a display or a GPU
// (Mesa's llvmpipe then draws on the CPU).
//
//   crowd_draw MODEL OUT.png [COUNT]   (.fbx .glb .gltf .dae or .ossa; COUNT instances, 100 by default)
// [snippet crowd_draw_program]
#include <ossa/ossa.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: crowd_draw MODEL OUT.png [COUNT]\n"), 2;
  const int count = argc > 3 ? std::atoi(argv[3]) : 100;
  if (count < 1 || count > 10000) return std::fprintf(stderr, "COUNT: 1 to 10000\n"), 2;

  // [snippet crowd_draw]
  // The character: assets, materials and textures (shared by every instance).
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files; keep the guard on for files from elsewhere
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;

  // Every clip's frames x joints skinning matrices, baked once into one texture array.
  auto baked = ossa::bake_animation(hero.asset);
  if (!baked) return std::fprintf(stderr, "%s\n", baked.error().c_str()), 1;

  // An OpenGL 4.5 context without a window, and a renderer holding this character's meshes and textures.
  auto gl = ossa::GlContext::create_headless();
  if (!gl) return std::fprintf(stderr, "%s\n", gl.error().c_str()), 1;
  auto renderer =
      ossa::create_gl_renderer(*gl, hero.asset, hero.materials, hero.textures, hero.flip_textures);
  if (!renderer) return std::fprintf(stderr, "%s\n", renderer.error().c_str()), 1;
  if (auto uploaded = renderer->set_baked(*baked); !uploaded)
    return std::fprintf(stderr, "%s\n", uploaded.error().c_str()), 1;

  // The crowd: per instance a world matrix, a clip, a start time and a speed (crowd_grid() places them on a
  // grid; a game fills BakedInstance itself). Spacing from the character's bind-pose size.
  ossa::Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (const ossa::SkinnedMesh& mesh : hero.asset.meshes)
    for (size_t i = 0; i + 2 < mesh.positions().size(); i += 3) {
      const ossa::Vec3 p{mesh.positions()[i], mesh.positions()[i + 1], mesh.positions()[i + 2]};
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
  const float spacing = std::max(hi.x - lo.x, hi.z - lo.z) * 1.5f;
  std::vector<ossa::BakedInstance> crowd = ossa::crowd_grid(hero.asset, count, spacing);

  // A camera that sees the whole crowd, then one frame: a single draw_baked() call for every instance.
  ossa::Vec3 crowd_lo = lo, crowd_hi = hi;
  for (const ossa::BakedInstance& instance : crowd) {
    const ossa::Vec3 at = instance.world.translation();
    crowd_lo = {std::min(crowd_lo.x, at.x + lo.x), crowd_lo.y, std::min(crowd_lo.z, at.z + lo.z)};
    crowd_hi = {std::max(crowd_hi.x, at.x + hi.x), crowd_hi.y, std::max(crowd_hi.z, at.z + hi.z)};
  }
  ossa::FrameSettings frame;
  frame.width = 768;
  frame.height = 384;
  frame.camera = ossa::frame_bounds(crowd_lo, crowd_hi, 2.f);
  renderer->begin_frame(frame);
  const ossa::BakedDrawStats stats = renderer->draw_baked(crowd, /*global_time=*/0.4f);
  if (auto written = ossa::write_png(renderer->end_frame(), argv[2]); !written)
    return std::fprintf(stderr, "%s\n", written.error().c_str()), 1;
  // [/snippet]

  std::printf("%s: %d of %zu instances drawn (%d culled), %lld triangles, bake %dx%dx%d on %s\n", argv[2],
              stats.drawn, crowd.size(), stats.culled, stats.triangles, baked->width, baked->height,
              baked->layers, renderer->device_name().c_str());
  return stats.drawn > 0 ? 0 : 1;
}
// [/snippet]
