// Morph targets in the renderer (morph_plan.h): the delta texture, the per-draw choice of active targets,
// the CPU morph.
#include "morph_plan.h"

#include <algorithm>
#include <cstring>

#include "ossa/runtime/morph_job.h"

namespace ossa::detail {

namespace {
constexpr uint64_t kExactInFloat = uint64_t{1} << 24;  // every slot value is below this
}

bool any_active(std::span<const float> weights) {
  return std::any_of(weights.begin(), weights.end(), [](float w) { return w != 0; });
}

MorphDeltaTable morph_delta_table(const CharacterAsset& asset, int max_rows) {
  MorphDeltaTable out;
  out.windows.resize(asset.meshes.size());
  out.texels_per_vertex.assign(asset.meshes.size(), 2);
  const uint64_t capacity =
      static_cast<uint64_t>(std::clamp(max_rows, 0, kMorphMaxRows)) * kMorphTextureWidth;
  uint64_t used = 0;  // texels
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    const MorphTargets& targets = mesh.morph_targets();
    if (targets.empty() || static_cast<uint64_t>(mesh.vertex_count()) >= kExactInFloat) continue;
    const std::span<const uint32_t> first = targets.target_first(), vertices = targets.vertices();
    const bool tangents = !targets.tangent_deltas().empty() && !mesh.tangents().empty();  // as MorphJob
    const uint64_t stride = tangents ? 3 : 2;
    // The windows first: the mesh goes on the texture whole or not at all.
    std::vector<MorphWindow> windows(static_cast<size_t>(targets.count()));
    uint64_t texels = 0;
    for (int t = 0; t < targets.count(); ++t) {
      MorphWindow& w = windows[t];
      w.first_texel = static_cast<uint32_t>(std::min<uint64_t>(used + texels, kExactInFloat));
      if (first[t] == first[t + 1]) continue;  // moves nothing: an empty window
      w.first_vertex = vertices[first[t]];     // ascending: the lowest and the highest
      w.vertex_count = vertices[first[t + 1] - 1] - w.first_vertex + 1;
      texels += stride * w.vertex_count;
    }
    if (used + texels > capacity || used + texels >= kExactInFloat) continue;  // this mesh: on the CPU
    out.texels.resize((used + texels) * 4, 0.f);
    const bool normals = !targets.normal_deltas().empty() && !mesh.normals().empty();  // as MorphJob
    for (int t = 0; t < targets.count(); ++t)
      for (uint32_t e = first[t]; e < first[t + 1]; ++e) {
        const uint64_t texel = windows[t].first_texel + stride * (vertices[e] - windows[t].first_vertex);
        float* at = &out.texels[texel * 4];
        std::memcpy(at, &targets.position_deltas()[size_t{e} * 3], 12);
        if (normals) std::memcpy(at + 4, &targets.normal_deltas()[size_t{e} * 3], 12);
        if (tangents) std::memcpy(at + 8, &targets.tangent_deltas()[size_t{e} * 3], 12);
      }
    out.windows[m] = std::move(windows);
    out.texels_per_vertex[m] = static_cast<int>(stride);
    used += texels;
  }
  if (used > 0) {
    out.rows = static_cast<int>((used + kMorphTextureWidth - 1) / kMorphTextureWidth);
    out.texels.resize(static_cast<size_t>(out.rows) * kMorphTextureWidth * 4, 0.f);
  }
  return out;
}

void MorphState::init(const CharacterAsset& asset, int max_rows) {
  asset_ = &asset;
  table_ = morph_delta_table(asset, max_rows);
  weight_offset_.assign(1, 0);
  for (const SkinnedMesh& mesh : asset.meshes)
    weight_offset_.push_back(weight_offset_.back() + static_cast<size_t>(mesh.morph_targets().count()));
}

std::span<const float> MorphState::mesh_weights(int mesh, std::span<const float> all) const {
  if (all.size() != weight_offset_.back()) return asset_->meshes[mesh].morph_targets().default_weights();
  return all.subspan(weight_offset_[mesh], weight_offset_[mesh + 1] - weight_offset_[mesh]);
}

const MorphDraw& MorphState::plan(int mesh, std::span<const float> weights) {
  draw_ = MorphDraw{};
  draw_.texels_per_vertex = table_.texels_per_vertex[mesh];
  const std::vector<MorphWindow>& windows = table_.windows[mesh];
  int active = 0;
  for (size_t t = 0; t < weights.size(); ++t) {
    if (weights[t] == 0) continue;  // MorphJob skips these too
    if (active == kMaxGpuMorphTargets || windows.size() != weights.size()) {
      draw_.on_cpu = true;
      break;
    }
    float* slot = &draw_.slots[static_cast<size_t>(active++) * 4];
    slot[0] = weights[t];
    slot[1] = static_cast<float>(windows[t].first_texel);
    slot[2] = static_cast<float>(windows[t].first_vertex);
    slot[3] = static_cast<float>(windows[t].vertex_count);
  }
  if (draw_.on_cpu) {
    draw_.slots = {};
    ++stats_.cpu_meshes;
  } else if (active > 0) {
    draw_.active = active;
    ++stats_.gpu_meshes;
    stats_.gpu_targets += active;
  }
  return draw_;
}

void morph_on_cpu(const SkinnedMesh& mesh, std::span<const float> weights, CpuSkinningScratch& scratch,
                  std::vector<float>& stream) {
  const size_t n = static_cast<size_t>(mesh.vertex_count());
  scratch.morphed_positions.resize(n * 3);
  scratch.morphed_normals.resize(mesh.normals().size());
  scratch.morphed_tangents.resize(mesh.tangents().size());
  MorphJob job = MorphJob::for_mesh(mesh, weights);
  job.out_positions = scratch.morphed_positions;
  job.out_normals = scratch.morphed_normals;
  job.out_tangents = scratch.morphed_tangents;
  if (!job.run()) {  // weights that do not fit the mesh: its bind-time shape
    std::copy(mesh.positions().begin(), mesh.positions().end(), scratch.morphed_positions.begin());
    std::copy(mesh.normals().begin(), mesh.normals().end(), scratch.morphed_normals.begin());
    std::copy(mesh.tangents().begin(), mesh.tangents().end(), scratch.morphed_tangents.begin());
  }
  stream.resize(n * kSkinnedFloats);
  for (size_t v = 0; v < n; ++v) {
    float* out = &stream[v * kSkinnedFloats];
    std::memcpy(out, &scratch.morphed_positions[v * 3], 12);
    if (!mesh.normals().empty())
      std::memcpy(out + 3, &scratch.morphed_normals[v * 3], 12);
    else
      out[3] = 0, out[4] = 1, out[5] = 0;
    if (!mesh.tangents().empty())
      std::memcpy(out + 6, &scratch.morphed_tangents[v * 4], 16);
    else
      out[6] = 1, out[7] = out[8] = 0, out[9] = 1;
  }
}

}  // namespace ossa::detail
