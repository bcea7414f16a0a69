// A game's frame loop: load a character with its notifies in one call, play, crossfade, react to notifies
// (with their JSON payloads) and hand each mesh its own skinning palette to "your renderer".
//
//   game_loop MODEL   (.fbx .glb .gltf .dae or .ossa; notifies from MODEL.notifies.json or the .ossa)
#include <ossa/ossa.h>

#include <cstdio>
#include <span>
#include <string>

namespace {

// Stands in for your engine: a GPU skinning shader takes one palette per mesh (a uniform or storage buffer
// of 4x4 matrices, column-major as GL expects; transpose for a row-major D3D constant buffer).
struct YourRenderer {
  int uploads = 0;
  void upload_palette(const std::string& mesh, std::span<const ossa::Mat4> palette) {
    if (uploads++ < 3)
      std::printf("  upload %-6s %zu matrices, first translation (%.3f %.3f %.3f)\n", mesh.c_str(),
                  palette.size(), palette[0].m[12], palette[0].m[13], palette[0].m[14]);
  }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: game_loop MODEL\n"), 2;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files; keep the guard on for files from elsewhere
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;  // shared, read-only: any number of animators may use it
  std::printf("%s: %d joints, %zu clips, %zu meshes, notifies: %s\n", argv[1],
              hero.asset.skeleton.joint_count(), hero.asset.clips.size(), hero.asset.meshes.size(),
              hero.has_notifies() ? "yes" : "no");

  ossa::Animator anim = hero.animator();  // this character's own state: playheads, poses, palettes
  // [snippet notifies]
  // Notifies by name (false: no clip has it, e.g. a typo). A payload's members are read without a JSON
  // parser: {"foot": "left", "sound": "step_grass"} gives payload_string("sound") == "step_grass".
  int steps = 0, waves = 0;
  auto on_left_foot = [&](const ossa::AnimEvent& e) {
    ++steps;
    const std::string sound(e.payload_string("sound", "none"));
    std::printf("  t=%.2f FootL, sound %s\n", e.time, sound.c_str());
  };
  auto on_right_foot = [&](const ossa::AnimEvent& e) { ++steps, std::printf("  t=%.2f FootR\n", e.time); };
  auto on_wave = [&](const ossa::AnimEvent& e) { ++waves, std::printf("  t=%.2f WaveStart\n", e.time); };
  const bool listening =
      anim.on("FootL", on_left_foot) && anim.on("FootR", on_right_foot) && anim.on("WaveStart", on_wave);
  if (hero.has_notifies() && !listening) return std::fprintf(stderr, "a notify is in no clip\n"), 1;
  // [/snippet]

  // [snippet play_and_crossfade]
  // Clips by name: "Walk" also finds Blender's "Armature|Walk". An unknown name is an error you can see.
  const int walk = hero.asset.find_clip("Walk"), wave = hero.asset.find_clip("Wave");
  if (!anim.play(walk)) return std::fprintf(stderr, "no clip 'Walk'\n"), 1;
  if (anim.play(hero.asset.find_clip("Moonwalk"))) return 1;  // false: no such clip, nothing changed

  YourRenderer renderer;
  const float dt = 1 / 60.f;
  for (int frame = 0; frame < 170; ++frame) {
    if (frame == 90 && !anim.crossfade(wave, 0.3f)) return std::fprintf(stderr, "no clip 'Wave'\n"), 1;
    anim.update(dt);
    anim.dispatch();  // calls the handlers registered with on() for this update's events
    // Each mesh indexes its own palette slots: upload mesh_palette(m), never skeleton_palette().
    for (int m = 0; m < anim.mesh_count(); ++m)
      renderer.upload_palette(hero.asset.meshes[m].name(), anim.mesh_palette(m));
  }
  // [/snippet]
  std::printf("170 frames played: %d footsteps, %d wave starts, %d palette uploads, now playing '%s'\n",
              steps, waves, renderer.uploads, hero.asset.clips[anim.clip()].name().c_str());
  // The sample's Walk has footsteps, and Wave's start notify fires during the crossfade into it.
  return hero.has_notifies() && (steps == 0 || waves != 1) ? 1 : 0;
}
