// Internal: the one description of what a character draw needs, shared by every backend (gl/, d3d11/), so
// that they cannot drift: the camera's matrices, the vertex layout, each mesh's material and bake bindings,
// the CPU-skinned vertex stream, the grid and skeleton lines, and the culled, level-of-detail-sorted instance
// list of a baked crowd. Backends only turn these into API calls (and shaders into their language).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "ossa/render/renderer.h"

namespace ossa::detail {

constexpr int kMaxPaletteJoints = 256;  // per mesh draw (uniform buffer / palette rows)
constexpr int kMaxBakedClips = 64;      // rows of the clip table

// Clip space: OpenGL maps depth to [-1, 1], Direct3D to [0, 1].
enum class DepthRange { kMinusOneToOne, kZeroToOne };
Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up);
Mat4 view_projection(const FrameSettings& frame, DepthRange range);

// Lines as pairs of vertices, each x y z r g b.
std::vector<float> grid_lines(const Camera& camera);  // 20 cells around the target, a power of ten each
std::vector<float> skeleton_lines(std::span<const int> parents, const Mat4& world,
                                  std::span<const Mat4> model);
std::vector<float> colored_lines(std::span<const Vec3> endpoints,
                                 Vec3 color);  // pairs; an odd last one dropped

// The static vertex stream of every path: 72 bytes, interleaved.
struct StaticVertex {
  float position[3], normal[3], tangent[4], uv[2];
  uint16_t joints[4];
  float weights[4];
};
static_assert(sizeof(StaticVertex) == 72);
std::vector<StaticVertex> static_vertices(const SkinnedMesh& mesh);

// The CPU path's stream: position 3, normal 3, tangent 4 per vertex, skinned by the runtime's SkinningJob
// after MorphJob has applied `morph_weights` (the mesh's own, one per target; empty or all 0: no morph).
constexpr int kSkinnedFloats = 10;
struct CpuSkinningScratch {
  std::vector<Mat4> palette;
  std::vector<float> normals, tangents;  // stand-ins for meshes without them
  std::vector<float> morphed_positions, morphed_normals, morphed_tangents;  // MorphJob's output
};
void skin_on_cpu(const SkinnedMesh& mesh, std::span<const Mat4> model, std::span<const float> morph_weights,
                 CpuSkinningScratch& scratch, std::vector<float>& stream);

struct MeshMaterial {
  Vec4 base_color{0.8f, 0.8f, 0.8f, 1};
  int diffuse = -1, normal_map = -1;  // texture indices
  bool has_tangents = false;
};
MeshMaterial mesh_material(const SkinnedMesh& mesh, std::span<const Material> materials);

// Baked path: per palette slot of a mesh, the correction from the skeleton's inverse bind to the mesh's
// (where the mesh was bound at another pose) and the skeleton joint the slot reads. Laid out as the shaders
// read it (std140 / HLSL cbuffer): float4x4 corrections[256] (column-major), then int4 remap[64] (4 slots
// each).
struct BakeBindings {
  std::vector<uint8_t> bytes;
  bool corrected = false;  // some correction differs from identity
};
constexpr size_t kBakeBindingsBytes = kMaxPaletteJoints * 64 + kMaxPaletteJoints / 4 * 16;
BakeBindings bake_bindings(const CharacterAsset& asset, const SkinnedMesh& mesh);

// An error when `baked` does not hold width x height x layers RGBA texels (in the precision it says) or
// exceeds a device's largest side or layer count.
Result<bool> check_bake(const BakedAnimation& baked, int max_side, int max_layers, const char* device);

// Per clip: frames, frame rate, duration, layer (what baked_model() in the shaders reads).
std::array<float, kMaxBakedClips * 4> clip_table(const BakedAnimation& baked);

// A baked crowd's draw: the visible instances packed for the GPU, grouped by level of detail so that each
// group is one instanced draw per mesh: group g holds instances group_first[g] to group_first[g + 1] - 1,
// skinned with 2 influences when g & kLodGroupInfluences (else 4), drawn with the decimated mesh when
// g & kLodGroupDecimated. Per instance 24 floats: world (column-major), clip, time, speed, clip2, weight, 3
// zeros.
constexpr int kInstanceFloats = 24;
constexpr int kLodGroupInfluences = 1, kLodGroupDecimated = 2, kLodGroups = 4;
struct BakedDrawPlan {
  std::vector<float> instance_data;
  std::array<std::vector<const BakedInstance*>, kLodGroups> deferred;  // scratch: groups 1 and later
  std::array<int, kLodGroups + 1> group_first{};
  int visible = 0;
  BakedDrawStats stats;  // triangles: left to the backend, which knows the meshes
};
// `reduce`: 2-influence level of detail is possible (per-instance evaluation); `decimate`: the backend has
// decimated meshes.
void plan_baked_draw(std::span<const BakedInstance> instances, float global_time,
                     const BakedDrawOptions& options, bool reduce, bool decimate, const FrameSettings& frame,
                     std::span<const BakedClipInfo> clips, BakedDrawPlan& plan);

}  // namespace ossa::detail
