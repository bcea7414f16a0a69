#include "ossa/asset/morph.h"

#include <algorithm>
#include <cmath>

#include "ossa/runtime/pose.h"

namespace ossa {
namespace {
bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
// Entries are indexed by 32-bit offsets at run time.
constexpr size_t kMaxEntries = size_t{1} << 31;
}  // namespace

Result<MorphTargets> MorphTargets::build(std::span<const RawMorphTarget> raw,
                                         std::span<const float> default_weights, size_t vertex_count,
                                         const std::string& where) {
  auto fail = [&](const std::string& e) { return Result<MorphTargets>::failure(where + ": " + e); };
  MorphTargets m;
  if (raw.empty()) return m;
  if (default_weights.size() != raw.size()) return fail("morph default weights and targets differ in count");
  const bool with_normals =
      std::any_of(raw.begin(), raw.end(), [](const RawMorphTarget& t) { return !t.normal_deltas.empty(); });
  size_t entries = 0;
  for (const RawMorphTarget& t : raw) entries += t.vertices.size();
  if (entries >= kMaxEntries) return fail("morph targets have too many entries");
  m.vertices_.reserve(entries);
  m.position_deltas_.reserve(entries * 3);
  if (with_normals) m.normal_deltas_.reserve(entries * 3);
  m.target_first_.push_back(0);
  for (size_t i = 0; i < raw.size(); ++i) {
    const RawMorphTarget& t = raw[i];
    const std::string tw = "morph target '" + t.name + "'";
    if (!std::isfinite(default_weights[i])) return fail(tw + ": default weight is not finite");
    if (t.position_deltas.size() != t.vertices.size() ||
        (!t.normal_deltas.empty() && t.normal_deltas.size() != t.vertices.size()))
      return fail(tw + ": deltas and vertices differ in count");
    for (size_t e = 0; e < t.vertices.size(); ++e) {
      if (t.vertices[e] >= vertex_count || (e > 0 && t.vertices[e] <= t.vertices[e - 1]))
        return fail(tw + ": vertex indices out of range or not ascending");
      const Vec3 dp = t.position_deltas[e];
      const Vec3 dn = t.normal_deltas.empty() ? Vec3{0, 0, 0} : t.normal_deltas[e];
      if (!finite(dp) || !finite(dn)) return fail(tw + ": a delta is not finite");
      m.vertices_.push_back(t.vertices[e]);
      m.position_deltas_.insert(m.position_deltas_.end(),
                                {flush_denormal(dp.x), flush_denormal(dp.y), flush_denormal(dp.z)});
      if (with_normals)
        m.normal_deltas_.insert(m.normal_deltas_.end(),
                                {flush_denormal(dn.x), flush_denormal(dn.y), flush_denormal(dn.z)});
    }
    m.target_first_.push_back(static_cast<uint32_t>(m.vertices_.size()));
    m.names_.push_back(t.name);
    m.default_weights_.push_back(default_weights[i]);
  }
  return m;
}

size_t MorphTargets::memory_bytes() const {
  size_t names = 0;
  for (const std::string& n : names_) names += sizeof(std::string) + n.size();
  return names + (default_weights_.size() + position_deltas_.size() + normal_deltas_.size()) * sizeof(float) +
         (target_first_.size() + vertices_.size()) * sizeof(uint32_t);
}

Result<MorphWeightTracks> MorphWeightTracks::build(std::span<const RawMorphTrack> raw,
                                                   const std::string& where) {
  auto fail = [&](const std::string& e) { return Result<MorphWeightTracks>::failure(where + ": " + e); };
  MorphWeightTracks w;
  for (const RawMorphTrack& r : raw) {
    const std::string tw = "morph weights of mesh " + std::to_string(r.mesh);
    if (r.mesh < 0) return fail(tw + ": no such mesh");
    if (r.times.empty() || r.weights.empty() || r.weights.size() % r.times.size() != 0)
      return fail(tw + ": weights do not divide into the key times");
    const size_t targets = r.weights.size() / r.times.size();
    if (w.key_weights_.size() + r.weights.size() >= kMaxEntries) return fail(tw + ": too many keys");
    for (size_t k = 0; k < r.times.size(); ++k)
      if (!std::isfinite(r.times[k]) || (k > 0 && r.times[k] < r.times[k - 1]))
        return fail(tw + ": key times are not finite and ascending");
    for (float v : r.weights)
      if (!std::isfinite(v)) return fail(tw + ": a weight is not finite");
    Track t;
    t.mesh = r.mesh;
    t.targets = static_cast<int>(targets);
    t.key_first = static_cast<uint32_t>(w.key_times_.size());
    t.key_count = static_cast<uint32_t>(r.times.size());
    t.weight_first = static_cast<uint32_t>(w.key_weights_.size());
    w.key_times_.insert(w.key_times_.end(), r.times.begin(), r.times.end());
    for (float v : r.weights) w.key_weights_.push_back(flush_denormal(v));
    w.tracks_.push_back(t);
  }
  return w;
}

void MorphWeightTracks::sample(int track, float time, std::span<float> out) const {
  const Track& t = tracks_[static_cast<size_t>(track)];
  const float* times = key_times_.data() + t.key_first;
  const float* weights = key_weights_.data() + t.weight_first;
  const size_t n = std::min(out.size(), static_cast<size_t>(t.targets));
  // Key pair around `time`, clamped at both ends (as reference::sample_vec3).
  size_t a = 0, b = 0;
  float f = 0;
  if (t.key_count > 1 && time > times[0]) {
    if (time >= times[t.key_count - 1]) {
      a = b = t.key_count - 1;
    } else {
      b = static_cast<size_t>(std::upper_bound(times, times + t.key_count, time) - times);
      a = b - 1;
      const float span = times[b] - times[a];
      f = span > 0 ? (time - times[a]) / span : 0.f;
    }
  }
  const float* wa = weights + a * t.targets;
  const float* wb = weights + b * t.targets;
  for (size_t i = 0; i < n; ++i) out[i] = wa[i] + (wb[i] - wa[i]) * f;
}

size_t MorphWeightTracks::memory_bytes() const {
  return tracks_.size() * sizeof(Track) + (key_times_.size() + key_weights_.size()) * sizeof(float);
}

}  // namespace ossa
