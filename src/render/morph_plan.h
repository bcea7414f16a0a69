// Internal: morph targets (blend shapes) in the renderer, shared by every backend (gl/, d3d11/): the delta
// texture uploaded once per renderer, the choice per palette draw of the active targets the vertex shader
// applies (or of CPU morphing when there are more than it has slots for), and the CPU morph feeding the CPU
// skinning path and that fallback. The arithmetic is MorphJob's (ossa/runtime/morph_job.h): base + sum of
// weight x delta over the targets of non-zero weight, in target order, before skinning.
//
// Delta texture: RGBA32F, kMorphTextureWidth texels a row. Target t of a mesh covers the window of vertices
// from the lowest to the highest it moves, 2 texels per vertex (position delta, normal delta; zeros for the
// vertices of the window it does not move), or 3 for a mesh whose targets have tangent deltas (then the
// tangent delta, xyz, third). Sparse where it matters (a face target on a body mesh covers the face's vertex
// range, not the body's); dense for a target that moves scattered vertices. A vertex shader finds vertex v of
// an active target at texel first_texel + texels_per_vertex (v - first_vertex) when v is inside the window:
// no loop over entries, no search; each texel's row and column are computed on their own, so a vertex's
// texels may straddle a row. Per draw, each active target is 4 floats (weight, first texel, first vertex,
// vertex count): floats so both shader languages read the same constants; exact since every value is below
// 2^24. The draw's texels per vertex (the mesh's) is one more constant: tangent deltas are applied whenever
// the mesh has them, normal map or not (the cost is one texel fetch per moved vertex and active target).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "draw_plan.h"

namespace ossa::detail {

constexpr int kMorphTextureWidth = 4096;  // a power of two: the shaders divide by it
constexpr int kMorphMaxRows = 1024;       // 4M texels, 64 MB at most; meshes past it are morphed on the CPU

struct MorphWindow {
  uint32_t first_texel = 0, first_vertex = 0, vertex_count = 0;
};

// The deltas of every mesh that has targets, and each target's window. Meshes whose deltas would pass
// `max_rows` rows (or whose vertex indices pass 2^24) are left out: they are morphed on the CPU.
struct MorphDeltaTable {
  std::vector<float> texels;  // 4 floats a texel, kMorphTextureWidth x rows; empty when no mesh is on it
  int rows = 0;
  std::vector<std::vector<MorphWindow>> windows;  // per mesh, per target; empty for a mesh not on it
  std::vector<int> texels_per_vertex;             // per mesh: 2, or 3 with tangent deltas
};
MorphDeltaTable morph_delta_table(const CharacterAsset& asset, int max_rows);

// One palette draw of one mesh: the active targets for the shader, or CPU morphing.
struct MorphDraw {
  std::array<float, kMaxGpuMorphTargets * 4> slots{};  // per active target: weight, first texel, first
                                                       // vertex, vertex count; zeros after `active`
  int active = 0;
  int texels_per_vertex = 2;  // the mesh's (MorphDeltaTable)
  bool on_cpu = false;        // more active targets than slots, or the mesh is not on the texture
};

// Per renderer: the table (texels released once uploaded), the weights' layout, the draws' statistics.
class MorphState {
 public:
  // `max_rows`: rows the device's texture may have (capped at kMorphMaxRows).
  void init(const CharacterAsset& asset, int max_rows);
  const MorphDeltaTable& table() const { return table_; }
  void release_texels() { table_.texels = {}; }  // after the upload
  void begin_frame() { stats_ = {}; }
  MorphDrawStats stats() const { return stats_; }

  // Mesh m's weights within every mesh's (`all`, Animator::morph_weights() layout); its default weights when
  // `all` is empty or not of the meshes' total target count.
  std::span<const float> mesh_weights(int mesh, std::span<const float> all) const;
  // Plans mesh m's palette draw with `weights` (its own) and counts it.
  const MorphDraw& plan(int mesh, std::span<const float> weights);

 private:
  const CharacterAsset* asset_ = nullptr;
  MorphDeltaTable table_;
  std::vector<size_t> weight_offset_;  // per mesh + 1
  MorphDraw draw_;
  MorphDrawStats stats_;
};

// The mesh's bind-time positions, normals and tangents with `weights` applied (MorphJob), in the CPU path's
// stream layout (kSkinnedFloats a vertex), for palette skinning of a mesh morphed on the
// CPU. Normals and tangents the mesh lacks are those static_vertices() gives the palette path.
void morph_on_cpu(const SkinnedMesh& mesh, std::span<const float> weights, CpuSkinningScratch& scratch,
                  std::vector<float>& stream);

// True when some weight is not 0 (MorphJob would change something).
bool any_active(std::span<const float> weights);

}  // namespace ossa::detail
