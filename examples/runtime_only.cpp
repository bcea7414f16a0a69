// A game that links only ossa::runtime: it loads `.ossa` files made offline by `ossa convert` (no assimp,
// no GL, no JSON library in the binary), animates and skins them.
//
//   ossa convert hero.fbx -o hero.ossa      (offline, once)
//   runtime_only hero.ossa
#include <ossa/ossa.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: runtime_only FILE.ossa\n"), 2;
  // Assets, notifies (embedded by convert, or FILE.notifies.json), root motion, materials: one call.
  // [snippet load_ossa]
  auto loaded = ossa::load_ossa_character(argv[1]);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;
  // [/snippet]
  std::printf("%s: %d joints, %zu clips, %zu meshes, %zu materials, notifies: %s\n", argv[1],
              hero.asset.skeleton.joint_count(), hero.asset.clips.size(), hero.asset.meshes.size(),
              hero.materials.size(), hero.has_notifies() ? "yes" : "no");

  ossa::Animator anim = hero.animator();
  int events = 0;
  for (size_t c = 0; c < hero.asset.clips.size(); ++c) {
    if (!anim.play(static_cast<int>(c), ossa::LoopMode::kOnce)) return 1;
    for (int frame = 0; frame < 120 && anim.playing(); ++frame) {
      anim.update(1 / 60.f);
      events += static_cast<int>(anim.events().size());
    }
    std::printf("  %-16s %.2f s\n", hero.asset.clips[c].name().c_str(), hero.asset.clips[c].duration());
  }

  // Skin the first mesh at the last pose, as a game without GPU skinning would.
  if (!hero.asset.meshes.empty()) {
    const ossa::SkinnedMesh& mesh = hero.asset.meshes[0];
    std::vector<float> positions(3 * static_cast<size_t>(mesh.vertex_count()));
    ossa::SkinningJob job = ossa::SkinningJob::for_mesh(mesh, anim.mesh_palette(0));
    job.out_positions = positions;
    if (!job.run()) return std::fprintf(stderr, "skinning refused its input\n"), 1;
    std::printf("skinned %d vertices of '%s'; %d events\n", mesh.vertex_count(), mesh.name().c_str(), events);
  }
  return 0;
}
