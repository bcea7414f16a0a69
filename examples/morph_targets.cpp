// Morph targets (blend shapes) on the CPU: play a clip, apply each mesh's morph weights to its bind-time
// vertices with MorphJob, then skin the morphed vertices with SkinningJob. A model without morph targets
// prints that it has none and succeeds.
//
//   morph_targets MODEL [CLIP]   (.fbx .glb .gltf .dae or .ossa; CLIP by name, else the first clip; the
//   bundled face assets/sample/ossa_face.glb has three targets, animated in its Talk clip)
#include <ossa/ossa.h>
#include <ossa/runtime/morph_job.h>  // not in ossa/ossa.h

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: morph_targets MODEL [CLIP]\n"), 2;
  auto loaded = ossa::load_character(argv[1]);  // a model file or .ossa
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& hero = **loaded;
  ossa::Animator anim = hero.animator();
  const char* clip_name = argc > 2 ? argv[2] : nullptr;
  const int clip = clip_name ? hero.asset.find_clip(clip_name) : 0;
  if (!anim.play(clip)) return std::fprintf(stderr, "no clip '%s'\n", clip_name ? clip_name : "0"), 1;
  for (int frame = 0; frame < 42; ++frame) anim.update(1 / 60.f);  // 0.7 s into the clip

  // Scratch buffers, reused for every mesh: the morphed bind-time streams, then the skinned ones.
  std::vector<float> morphed_positions, morphed_normals, skinned_positions, skinned_normals;
  int morphed_meshes = 0;
  for (int m = 0; m < anim.mesh_count(); ++m) {
    const ossa::SkinnedMesh& mesh = hero.asset.meshes[m];
    if (mesh.morph_targets().empty()) continue;
    ++morphed_meshes;
    const size_t n = static_cast<size_t>(mesh.vertex_count());
    const bool normals = !mesh.normals().empty();

    // [snippet morph_then_skin]
    // Morph: this update's weights (clips, layers, overrides) applied to the mesh's bind-time vertices.
    ossa::MorphJob morph = ossa::MorphJob::for_mesh(mesh, anim.mesh_morph_weights(m));
    morphed_positions.resize(3 * n);
    morphed_normals.resize(normals ? 3 * n : 0);
    morph.out_positions = morphed_positions;  // 3 floats per vertex
    morph.out_normals = morphed_normals;      // empty: normals skipped
    if (!morph.run()) return std::fprintf(stderr, "mesh %s: MorphJob refused it\n", mesh.name().c_str()), 1;

    // Skin: the morphed streams replace the bind-time ones for_mesh set (strides in bytes).
    ossa::SkinningJob skin = ossa::SkinningJob::for_mesh(mesh, anim.mesh_palette(m));
    skin.in_positions = morph.out_positions;
    skin.in_positions_stride = 3 * sizeof(float);
    skin.in_normals = morph.out_normals;
    skin.in_normals_stride = 3 * sizeof(float);
    skinned_positions.resize(3 * n);
    skinned_normals.resize(normals ? 3 * n : 0);
    skin.out_positions = skinned_positions;
    skin.out_normals = skinned_normals;  // no tangent output: the bind-time tangents are not read
    if (!skin.run()) return std::fprintf(stderr, "mesh %s: SkinningJob refused it\n", mesh.name().c_str()), 1;
    // [/snippet]
    // ... upload skinned_positions and skinned_normals to your vertex buffer here.

    // How far the weights moved the bind-time vertices, and the mesh's weights.
    int moved = 0;
    float largest = 0;
    for (size_t v = 0; v < n; ++v) {
      float d = 0;
      for (size_t a = 0; a < 3; ++a)
        d = std::fmax(d, std::fabs(morphed_positions[3 * v + a] - mesh.positions()[3 * v + a]));
      moved += d > 0;
      largest = std::fmax(largest, d);
    }
    std::printf(
        "%s: %d targets, %d of %zu vertices morphed (up to %.4g units), %zu positions skinned; weights",
        mesh.name().c_str(), mesh.morph_targets().count(), moved, n, largest, skinned_positions.size() / 3);
    const auto names = mesh.morph_targets().names();
    const auto weights = anim.mesh_morph_weights(m);
    for (size_t t = 0; t < weights.size(); ++t) std::printf(" %s %.2f", names[t].c_str(), weights[t]);
    std::printf("\n");
  }
  if (morphed_meshes == 0) std::printf("%s: no mesh has morph targets\n", argv[1]);
  return 0;
}
