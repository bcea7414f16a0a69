// The README's game loop as a program: load a character, react to a notify, play a clip, and every frame
// hand each mesh its own skinning palette to the renderer.
//
//   quick_start MODEL   (.fbx .glb .gltf .dae or .ossa; the bundled sample has the Walk clip and FootL
//   notify)
#include <ossa/ossa.h>

#include <cstdio>
#include <span>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: quick_start MODEL\n"), 2;
  size_t matrices = 0;  // stands in for your renderer
  auto upload = [&](int /*mesh*/, std::span<const ossa::Mat4> palette) { matrices += palette.size(); };
  int steps = 0;

  // [snippet quick_start]
  // [snippet load_character]
  auto loaded = ossa::load_character(argv[1]);  // a model file or .ossa; load_ossa_character: .ossa only
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;  // shared, read-only: any number of animators may use it
  ossa::Animator anim = hero.animator();         // its notifies (sidecar or embedded) attached
  // [/snippet]
  auto on_step = [&](const ossa::AnimEvent& e) { ++steps, std::printf("step at %.2f s\n", e.time); };
  if (!anim.on("FootL", on_step)) return std::fprintf(stderr, "no notify 'FootL'\n"), 1;
  if (!anim.play(hero.asset.find_clip("Walk"))) return std::fprintf(stderr, "no clip 'Walk'\n"), 1;
  for (int frame = 0; frame < 120; ++frame) {  // your frame loop
    anim.update(1 / 60.f);
    anim.dispatch();  // calls the handlers of this update's notifies
    for (int m = 0; m < anim.mesh_count(); ++m) upload(m, anim.mesh_palette(m));  // the mesh's own slots
  }
  // [/snippet]

  std::printf("120 frames: %d left steps, %zu palette matrices uploaded\n", steps, matrices);
  return steps > 0 ? 0 : 1;
}
