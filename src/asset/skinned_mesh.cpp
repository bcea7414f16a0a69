#include "ossa/asset/skinned_mesh.h"

#include <algorithm>

#include "ossa/asset/value_ranges.h"

namespace ossa {
namespace {
// "" when every vertex stream, inverse bind and skin weight lies within value_ranges.h.
std::string check_ranges(const RawMesh& raw) {
  using namespace value_ranges;
  auto coordinates = [](std::initializer_list<float> values) {
    return std::all_of(values.begin(), values.end(), [](float v) { return within(v, kMaxCoordinate); });
  };
  for (const Vec3& p : raw.positions)
    if (!coordinates({p.x, p.y, p.z})) return "a position lies outside +-1e7";
  for (const Vec3& n : raw.normals)
    if (!coordinates({n.x, n.y, n.z})) return "a normal lies outside +-1e7";
  for (const Vec4& t : raw.tangents)
    if (!coordinates({t.x, t.y, t.z, t.w})) return "a tangent lies outside +-1e7";
  for (const Vec2& uv : raw.uvs)
    if (!coordinates({uv.x, uv.y})) return "a texture coordinate lies outside +-1e7";
  for (const Mat4& m : raw.inverse_binds)
    for (float v : m.m)
      if (!within(v, kMaxCoordinate)) return "an inverse bind matrix entry lies outside +-1e7";
  const size_t k = static_cast<size_t>(raw.influences_per_vertex);
  for (size_t v = 0; v * k < raw.influence_weights.size(); ++v) {
    float sum = 0;
    for (size_t i = 0; i < k; ++i) {
      const float w = raw.influence_weights[v * k + i];
      if (!(w >= 0 && w <= 1 + kSkinWeightSlack))
        return "vertex " + std::to_string(v) + " has a skin weight outside [0, 1]";
      sum += w;
    }
    if (sum > 1 + kSkinWeightSlack) return "vertex " + std::to_string(v) + "'s skin weights sum past 1";
  }
  return {};
}
}  // namespace

Result<SkinnedMesh> SkinnedMesh::build(const RawMesh& raw, const Skeleton& skeleton) {
  const std::string where = "mesh '" + raw.name + "'";
  SkinnedMesh m;
  m.name_ = raw.name;
  m.material_ = raw.material;
  const size_t n = raw.positions.size();
  const int raw_k = raw.influences_per_vertex;
  if (raw_k < 1 || raw_k > 8)
    return Result<SkinnedMesh>::failure(where + ": influences per vertex must be 1-8");
  if (raw.influence_joints.size() != n * raw_k || raw.influence_weights.size() != n * raw_k)
    return Result<SkinnedMesh>::failure(where + ": influence streams have the wrong length");
  if (raw.joint_remap.size() > 65535)
    return Result<SkinnedMesh>::failure(where + ": more than 65535 palette joints");
  for (int j : raw.joint_remap)
    if (j < 0 || j >= skeleton.joint_count())
      return Result<SkinnedMesh>::failure(where + ": palette joint " + std::to_string(j) +
                                          " is not in the skeleton");
  if (std::string e = check_ranges(raw); !e.empty()) return Result<SkinnedMesh>::failure(where + ": " + e);

  m.positions_.reserve(n * 3);
  for (const Vec3& p : raw.positions) m.positions_.insert(m.positions_.end(), {p.x, p.y, p.z});
  for (const Vec3& v : raw.normals) m.normals_.insert(m.normals_.end(), {v.x, v.y, v.z});
  for (const Vec4& t : raw.tangents) m.tangents_.insert(m.tangents_.end(), {t.x, t.y, t.z, t.w});
  for (const Vec2& uv : raw.uvs) m.uvs_.insert(m.uvs_.end(), {uv.x, uv.y});
  m.indices_ = raw.indices;
  m.joint_remap_.assign(raw.joint_remap.begin(), raw.joint_remap.end());
  m.inverse_binds_ = raw.inverse_binds;
  for (Mat4& ib : m.inverse_binds_) flush_denormals(ib);
  for (auto* stream : {&m.positions_, &m.normals_, &m.tangents_, &m.uvs_})
    for (float& v : *stream) v = flush_denormal(v);

  // Influences are sorted strongest first in RawMesh: keep the first (up to) 4 and renormalise.
  const int k = std::min(raw_k, 4);
  m.influences_ = k;
  m.joint_indices_.resize(n * k);
  m.joint_weights_.resize(n * k);
  for (size_t v = 0; v < n; ++v) {
    float sum = 0;
    for (int i = 0; i < k; ++i) sum += raw.influence_weights[v * raw_k + i];
    for (int i = 0; i < k; ++i) {
      uint16_t slot = raw.influence_joints[v * raw_k + i];
      if (slot >= m.joint_remap_.size())
        return Result<SkinnedMesh>::failure(where + ": vertex " + std::to_string(v) +
                                            " uses a missing joint slot");
      m.joint_indices_[v * k + i] = slot;
      // Renormalise only what was cut: weights that already sum to 1 are kept bit for bit.
      const float w = raw.influence_weights[v * raw_k + i];
      m.joint_weights_[v * k + i] = raw_k <= 4 ? w : sum > 0 ? w / sum : (i == 0 ? 1.f : 0.f);
    }
  }
  auto morph =
      MorphTargets::build(raw.morph_targets, raw.morph_default_weights, n, !raw.tangents.empty(), where);
  if (!morph) return Result<SkinnedMesh>::failure(morph.error());
  m.morph_ = std::move(morph).value();
  return m;
}

SkinnedMesh SkinnedMesh::with_morph_targets(SkinnedMesh mesh, MorphTargets targets) {
  mesh.morph_ = std::move(targets);
  return mesh;
}

}  // namespace ossa
