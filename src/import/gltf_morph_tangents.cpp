// glTF morph targets' TANGENT deltas that assimp drops (see gltf_morph_tangents.h).
#include "gltf_morph_tangents.h"

#include <cmath>
#include <cstring>
#include <unordered_map>

#include "gltf_file.h"

namespace ossa::detail {
namespace {
using gltf::json;
using gltf::member;
using gltf::uint_member;

// A vertex's identity as assimp keeps it: position and tangent xyz, exactly (-0 and +0 alike).
struct VertexKey {
  float v[6];
  bool operator==(const VertexKey& o) const {
    for (int i = 0; i < 6; ++i)
      if (v[i] != o.v[i]) return false;
    return true;
  }
};
struct VertexKeyHash {
  size_t operator()(const VertexKey& k) const {
    size_t h = 1469598103934665603ull;
    for (float f : k.v) {
      f += 0.f;  // -0 hashes as +0
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      h = (h ^ bits) * 1099511628211ull;
    }
    return h;
  }
};
VertexKey key_of(const float* position, const float* tangent) {
  return {{position[0], position[1], position[2], tangent[0], tangent[1], tangent[2]}};
}
}  // namespace

void GltfMorphTangents::load(const std::string& path, std::span<const uint8_t> memory,
                             std::vector<std::string>& warnings) {
  primitives_.clear();
  GltfFile file;
  const std::string intro =
      "glTF morph target tangents not read (assimp drops those of targets without "
      "NORMAL): ";
  if (auto e = file.open(path, memory); !e.empty()) return warnings.push_back(intro + e);
  if (!file.mentions("\"TANGENT\"")) return;
  if (auto e = file.parse(); !e.empty()) return warnings.push_back(intro + e);
  const json* meshes = member(file.doc(), "meshes");
  if (!meshes || !meshes->is_array()) return;
  size_t budget = kMaxFloats;
  // Reads accessor `index` (`components` per vertex, `count` of them) within the budget: "" or why not.
  auto read = [&](uint64_t index, int components, bool normalized_ok, uint64_t count,
                  std::vector<float>& out) -> std::string {
    const auto n = file.accessor_count(index);
    if (!n || *n != count) return "accessor " + std::to_string(index) + " has another vertex count";
    if (count * static_cast<uint64_t>(components) > budget) return "more data than this reader takes";
    uint64_t read_count = 0;
    if (auto e = file.read_accessor(index, components, normalized_ok, out, read_count); !e.empty()) return e;
    budget -= out.size();
    return {};
  };
  for (size_t m = 0; m < meshes->size(); ++m) {
    const json* primitives = member((*meshes)[m], "primitives");
    if (!primitives || !primitives->is_array()) continue;
    for (size_t p = 0; p < primitives->size(); ++p) {
      Primitive& out = primitives_.emplace_back();
      const json& prim = (*primitives)[p];
      const json* attributes = member(prim, "attributes");
      const json* targets = member(prim, "targets");
      if (!attributes || !targets || !targets->is_array()) continue;
      std::vector<unsigned> dropped;  // targets with TANGENT and no NORMAL
      for (size_t t = 0; t < targets->size(); ++t)
        if (member((*targets)[t], "TANGENT") && !member((*targets)[t], "NORMAL"))
          dropped.push_back(static_cast<unsigned>(t));
      if (dropped.empty()) continue;
      const std::string where = "mesh " + std::to_string(m) + " primitive " + std::to_string(p) + ": ";
      const auto position = uint_member(*attributes, "POSITION");
      const auto tangent = uint_member(*attributes, "TANGENT");
      if (!position || !tangent) continue;  // no base tangents: assimp and Ossa ignore target tangents
      const auto count = file.accessor_count(*position);
      std::string e;
      if (!count) e = "no vertex count";
      if (e.empty()) e = read(*position, 3, false, *count, out.positions);
      if (e.empty()) e = read(*tangent, 4, false, *count, out.tangents);
      for (unsigned t : dropped) {
        if (!e.empty()) break;
        Target target;
        const json& file_target = (*targets)[t];
        const auto target_tangent = uint_member(file_target, "TANGENT");
        e = target_tangent ? read(*target_tangent, 3, true, *count, target.tangents)
                           : "a target's TANGENT is not an accessor index";
        if (e.empty() && member(file_target, "POSITION")) {
          const auto target_position = uint_member(file_target, "POSITION");
          e = target_position ? read(*target_position, 3, true, *count, target.positions)
                              : "a target's POSITION is not an accessor index";
        }
        if (e.empty()) out.targets.emplace(t, std::move(target));
      }
      if (!e.empty()) {
        warnings.push_back(intro + where + e);
        out = Primitive{};
      }
    }
  }
}

std::vector<Vec3> GltfMorphTangents::deltas(unsigned mesh, const aiMesh& am, unsigned target,
                                            std::string& warning, std::string& error) const {
  if (mesh >= primitives_.size()) return {};
  const Primitive& p = primitives_[mesh];
  const auto found = p.targets.find(target);
  if (found == p.targets.end() || !am.mTangents || !am.mVertices || target >= am.mNumAnimMeshes) return {};
  const Target& t = found->second;
  const aiAnimMesh* morphed = am.mAnimMeshes[target];
  const size_t file_vertices = p.positions.size() / 3;
  for (float f : t.tangents)
    if (!std::isfinite(f)) {
      error = "a TANGENT delta is not finite";
      return {};
    }
  std::unordered_multimap<VertexKey, uint32_t, VertexKeyHash> by_key;
  by_key.reserve(file_vertices);
  for (size_t i = 0; i < file_vertices; ++i)
    by_key.emplace(key_of(&p.positions[i * 3], &p.tangents[i * 4]), static_cast<uint32_t>(i));
  std::vector<Vec3> out(am.mNumVertices);
  for (unsigned v = 0; v < am.mNumVertices; ++v) {
    const aiVector3D& position = am.mVertices[v];
    const aiVector3D& tangent = am.mTangents[v];
    const float pv[3] = {position.x, position.y, position.z}, tv[3] = {tangent.x, tangent.y, tangent.z};
    bool matched = false;
    auto [first, last] = by_key.equal_range(key_of(pv, tv));
    for (auto it = first; it != last; ++it) {
      const uint32_t i = it->second;
      // The morphed position as assimp computed it (base + delta, in float), when both have one.
      if (!t.positions.empty() && morphed && morphed->mVertices) {
        const aiVector3D want = morphed->mVertices[v];
        if (p.positions[i * 3] + t.positions[i * 3] != want.x ||
            p.positions[i * 3 + 1] + t.positions[i * 3 + 1] != want.y ||
            p.positions[i * 3 + 2] + t.positions[i * 3 + 2] != want.z)
          continue;
      }
      const Vec3 d{t.tangents[i * 3], t.tangents[i * 3 + 1], t.tangents[i * 3 + 2]};
      if (matched && (d.x != out[v].x || d.y != out[v].y || d.z != out[v].z)) {
        warning = "vertex " + std::to_string(v) +
                  " stands for file vertices with different TANGENT deltas (joined by assimp)";
        return {};
      }
      out[v] = d;
      matched = true;
    }
    if (!matched) {
      warning = "vertex " + std::to_string(v) + " matches no vertex of the file";
      return {};
    }
  }
  return out;
}

}  // namespace ossa::detail
