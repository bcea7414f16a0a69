// CPU skinning into an interleaved vertex buffer (position, normal, uv): what a game without GPU skinning
// uploads every frame, or what a tool reads back.
//
//   cpu_skinning MODEL   (.fbx .glb .gltf .dae or .ossa)
#include <ossa/ossa.h>

#include <cmath>
#include <cstdio>
#include <vector>

namespace {
struct Vertex {  // your vertex format: the skinning job writes positions and normals with a stride
  float position[3];
  float normal[3];
  float uv[2];
};
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: cpu_skinning MODEL\n"), 2;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::CharacterAsset& asset = loaded->asset;

  ossa::Animator anim = loaded->animator();
  if (!anim.play(0)) return std::fprintf(stderr, "%s has no clips\n", argv[1]), 1;

  // One vertex buffer per mesh, uvs copied once (skinning moves positions and normals only).
  std::vector<std::vector<Vertex>> buffers(asset.meshes.size());
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const ossa::SkinnedMesh& mesh = asset.meshes[m];
    buffers[m].resize(mesh.vertex_count());
    for (int v = 0; v < mesh.vertex_count() && !mesh.uvs().empty(); ++v)
      buffers[m][v].uv[0] = mesh.uvs()[2 * v], buffers[m][v].uv[1] = mesh.uvs()[2 * v + 1];
  }

  for (int frame = 0; frame < 30; ++frame) {
    anim.update(1 / 30.f);
    for (size_t m = 0; m < asset.meshes.size(); ++m) {
      const ossa::SkinnedMesh& mesh = asset.meshes[m];
      // [snippet skin_mesh]
      // The mesh's own palette (slot k = its joint_remap()[k]); for_mesh refuses any other length.
      ossa::SkinningJob job = ossa::SkinningJob::for_mesh(mesh, anim.mesh_palette(static_cast<int>(m)));
      // for_mesh gave every input the mesh has; ask for positions and normals, interleaved.
      const size_t n = buffers[m].size();
      job.out_positions = ossa::strided_span(buffers[m][0].position, sizeof(Vertex), n, 3);
      job.out_positions_stride = sizeof(Vertex);
      if (!mesh.normals().empty()) {
        job.out_normals = ossa::strided_span(buffers[m][0].normal, sizeof(Vertex), n, 3);
        job.out_normals_stride = sizeof(Vertex);
      }
      if (!job.run())
        return std::fprintf(stderr, "mesh %s: skinning refused its input\n", mesh.name().c_str()), 1;
      // [/snippet]
      // ... upload buffers[m] to your vertex buffer here.
    }
  }

  // How far the skinned vertices moved from the bind pose: a clip that animates moves them.
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const ossa::SkinnedMesh& mesh = asset.meshes[m];
    float moved = 0;
    for (int v = 0; v < mesh.vertex_count(); ++v)
      for (int a = 0; a < 3; ++a)
        moved = std::fmax(moved, std::fabs(buffers[m][v].position[a] - mesh.positions()[3 * v + a]));
    std::printf("%-8s %5d vertices, %zu bytes per frame, largest move from bind pose %.3f m\n",
                mesh.name().c_str(), mesh.vertex_count(), buffers[m].size() * sizeof(Vertex), moved);
  }
  return 0;
}
