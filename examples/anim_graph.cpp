// A state machine drives the character: the game sets parameters (speed, a turn trigger, wave) and the
// graph (a JSON file designers edit) decides what plays and how it fades.
//
//   anim_graph MODEL GRAPH   (the bundled sample and assets/sample/ossa_sample.animgraph.json)
#include <ossa/ossa.h>

#include <cstdio>
#include <span>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: anim_graph MODEL GRAPH\n"), 2;
  const std::string graph_path = argv[2];
  auto loaded = ossa::load_character(argv[1]);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;
  size_t matrices = 0;  // stands in for your renderer
  auto upload = [&](int /*mesh*/, std::span<const ossa::Mat4> palette) { matrices += palette.size(); };
  int entered = 0;

  // [snippet anim_graph]
  auto graph = ossa::AnimGraph::load(graph_path, hero.asset);  // NAME.animgraph.json, checked whole
  if (!graph) return std::fprintf(stderr, "%s\n", graph.error().c_str()), 1;
  ossa::AnimGraphInstance anim(*graph, hero.asset, &hero.notifies);          // one per character
  const int speed = anim.parameter("speed"), wave = anim.parameter("wave");  // handles: once, by name
  if (speed < 0 || wave < 0) return std::fprintf(stderr, "the graph lacks speed or wave\n"), 1;
  for (int frame = 0; frame < 240; ++frame) {  // your frame loop
    anim.set_float(speed, frame < 120 ? frame / 60.f : 0.f);
    anim.set_bool(wave, frame >= 150);
    anim.update(1 / 60.f);
    for (const ossa::AnimGraphEvent& e : anim.events())
      if (e.type == ossa::AnimGraphEvent::kStateEnter)
        std::printf("%s\n", anim.state_name(e).c_str()), ++entered;
    for (int m = 0; m < anim.animator().mesh_count(); ++m) upload(m, anim.animator().mesh_palette(m));
  }
  // [/snippet]
  std::printf("%d states entered, %zu palette matrices uploaded\n", entered, matrices);
  return entered >= 3 && matrices > 0 ? 0 : 1;
}
