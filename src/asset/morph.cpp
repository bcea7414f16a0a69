#include "ossa/asset/morph.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ossa/asset/joint_pose.h"
#include "ossa/asset/value_ranges.h"

namespace ossa {
namespace {
bool within_coordinates(Vec3 v) {
  using namespace value_ranges;
  return within(v.x, kMaxCoordinate) && within(v.y, kMaxCoordinate) && within(v.z, kMaxCoordinate);
}
// Entries are indexed by 32-bit offsets at run time.
constexpr size_t kMaxEntries = size_t{1} << 31;
}  // namespace

Result<MorphTargets> MorphTargets::build(std::span<const RawMorphTarget> raw,
                                         std::span<const float> default_weights, size_t vertex_count,
                                         bool mesh_has_tangents, const std::string& where) {
  auto fail = [&](const std::string& e) { return Result<MorphTargets>::failure(where + ": " + e); };
  MorphTargets m;
  if (raw.empty()) return m;
  if (default_weights.size() != raw.size()) return fail("morph default weights and targets differ in count");
  if (raw.size() > static_cast<size_t>(kMaxTargets))
    return fail(std::to_string(raw.size()) + " morph targets, more than " + std::to_string(kMaxTargets));
  const bool with_normals =
      std::any_of(raw.begin(), raw.end(), [](const RawMorphTarget& t) { return !t.normal_deltas.empty(); });
  const bool with_tangents =
      std::any_of(raw.begin(), raw.end(), [](const RawMorphTarget& t) { return !t.tangent_deltas.empty(); });
  if (with_tangents && !mesh_has_tangents)
    return fail("morph targets have tangent deltas, the mesh no tangents");
  size_t entries = 0;
  for (const RawMorphTarget& t : raw) entries += t.vertices.size();
  if (entries >= kMaxEntries) return fail("morph targets have too many entries");
  m.vertices_.reserve(entries);
  m.position_deltas_.reserve(entries * 3);
  if (with_normals) m.normal_deltas_.reserve(entries * 3);
  if (with_tangents) m.tangent_deltas_.reserve(entries * 3);
  m.target_first_.push_back(0);
  for (size_t i = 0; i < raw.size(); ++i) {
    const RawMorphTarget& t = raw[i];
    const std::string tw = "morph target '" + t.name + "'";
    if (!value_ranges::within(default_weights[i], value_ranges::kMaxMorphWeight))
      return fail(tw + ": default weight is not finite or outside +-1e3");
    if (t.position_deltas.size() != t.vertices.size() ||
        (!t.normal_deltas.empty() && t.normal_deltas.size() != t.vertices.size()) ||
        (!t.tangent_deltas.empty() && t.tangent_deltas.size() != t.vertices.size()))
      return fail(tw + ": deltas and vertices differ in count");
    for (size_t e = 0; e < t.vertices.size(); ++e) {
      if (t.vertices[e] >= vertex_count || (e > 0 && t.vertices[e] <= t.vertices[e - 1]))
        return fail(tw + ": vertex indices out of range or not ascending");
      const Vec3 dp = t.position_deltas[e];
      const Vec3 dn = t.normal_deltas.empty() ? Vec3{0, 0, 0} : t.normal_deltas[e];
      const Vec3 dt = t.tangent_deltas.empty() ? Vec3{0, 0, 0} : t.tangent_deltas[e];
      if (!within_coordinates(dp) || !within_coordinates(dn) || !within_coordinates(dt))
        return fail(tw + ": a delta is not finite or outside +-1e7");
      m.vertices_.push_back(t.vertices[e]);
      m.position_deltas_.insert(m.position_deltas_.end(),
                                {flush_denormal(dp.x), flush_denormal(dp.y), flush_denormal(dp.z)});
      if (with_normals)
        m.normal_deltas_.insert(m.normal_deltas_.end(),
                                {flush_denormal(dn.x), flush_denormal(dn.y), flush_denormal(dn.z)});
      if (with_tangents)
        m.tangent_deltas_.insert(m.tangent_deltas_.end(),
                                 {flush_denormal(dt.x), flush_denormal(dt.y), flush_denormal(dt.z)});
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
  return names +
         (default_weights_.size() + position_deltas_.size() + normal_deltas_.size() +
          tangent_deltas_.size()) *
             sizeof(float) +
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
      if (!value_ranges::within(v, value_ranges::kMaxMorphWeight))
        return fail(tw + ": a weight is not finite or outside +-1e3");
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

Result<MorphWeightTracks> MorphWeightTracks::from_quantized(std::span<const QuantizedTrack> tracks,
                                                            std::vector<float> key_times,
                                                            std::vector<WeightChannel> channels,
                                                            std::vector<uint8_t> packed,
                                                            const std::string& where) {
  auto fail = [&](const std::string& e) { return Result<MorphWeightTracks>::failure(where + ": " + e); };
  MorphWeightTracks w;
  w.quantized_ = true;
  uint64_t keys = 0, channel_count = 0, bytes = 0;
  for (const QuantizedTrack& q : tracks) {
    const std::string tw = "morph weights of mesh " + std::to_string(q.mesh);
    if (q.mesh < 0) return fail(tw + ": no such mesh");
    if (q.targets < 1 || q.key_count < 1) return fail(tw + ": no targets or no keys");
    if (q.key_count > key_times.size() - keys ||
        static_cast<uint64_t>(q.targets) > channels.size() - channel_count)
      return fail(tw + ": more keys or targets than the clip stores");
    Track t;
    t.mesh = q.mesh;
    t.targets = q.targets;
    t.key_first = static_cast<uint32_t>(keys);
    t.key_count = q.key_count;
    t.weight_first = static_cast<uint32_t>(channel_count);
    t.packed_first = static_cast<uint32_t>(bytes);
    uint64_t key_bits = 0;
    for (int c = 0; c < q.targets; ++c) {
      const WeightChannel& ch = channels[channel_count + c];
      if (ch.bits > kMaxQuantizedBits && ch.bits != kBitsFloat)
        return fail(tw + ": a bit rate is out of range");
      if (key_bits >= (uint64_t{1} << 31)) return fail(tw + ": too many targets");
      w.channel_bit_.push_back(static_cast<uint32_t>(key_bits));
      key_bits += ch.bits;
    }
    t.key_bits = static_cast<uint32_t>(key_bits);
    for (uint32_t k = 0; k < q.key_count; ++k) {
      const float time = key_times[keys + k];
      if (!std::isfinite(time) || (k > 0 && time < key_times[keys + k - 1]))
        return fail(tw + ": key times are not finite and ascending");
    }
    keys += q.key_count;
    channel_count += static_cast<uint64_t>(q.targets);
    bytes += (key_bits * q.key_count + 7) / 8;  // under 2^32 x 2^32 bits: no overflow
    if (bytes >= kMaxEntries) return fail(tw + ": too many keys");
    w.tracks_.push_back(t);
  }
  if (keys != key_times.size() || channel_count != channels.size() || bytes != packed.size())
    return fail("morph weights: key times, channels or packed bytes do not match the tracks");
  for (const WeightChannel& ch : channels)
    if (!std::isfinite(ch.min) || !std::isfinite(ch.step))
      return fail("morph weights: a range is not finite");
  w.key_times_ = std::move(key_times);
  w.channels_ = std::move(channels);
  w.packed_size_ = packed.size();
  w.packed_ = std::move(packed);
  w.packed_.resize(w.packed_size_ + 8, 0);
  // Every weight within value_ranges.h, at a cost the file pays for: a quantized channel's weights lie
  // between its two ends (min + step * q is monotone in q), so only those are checked; stored floats (32 bits
  // a key in the file) are read one by one. (Reading every key of every channel cost keys x targets, which
  // 0-bit channels make free to declare: a 1 MB file took 25 s.)
  using value_ranges::kMaxMorphWeight;
  using value_ranges::within;
  for (size_t i = 0; i < w.tracks_.size(); ++i) {
    const Track& t = w.tracks_[i];
    for (int c = 0; c < t.targets; ++c) {
      const WeightChannel& ch = w.channels_[t.weight_first + c];
      if (ch.bits != kBitsFloat) {
        const float top = ch.min + ch.step * static_cast<float>((uint32_t{1} << ch.bits) - 1);
        if (!within(ch.min, kMaxMorphWeight) || !within(top, kMaxMorphWeight))
          return fail("morph weights: a channel's range lies outside +-1e3");
        continue;
      }
      for (uint32_t k = 0; k < t.key_count; ++k)
        if (!within(w.key_weight(static_cast<int>(i), k, c), kMaxMorphWeight))
          return fail("morph weights: a weight lies outside +-1e3");
    }
  }
  return w;
}

float MorphWeightTracks::key_weight(int track, uint32_t key, int target) const {
  const Track& t = tracks_[static_cast<size_t>(track)];
  if (!quantized_) return key_weights_[t.weight_first + static_cast<size_t>(key) * t.targets + target];
  const WeightChannel& ch = channels_[t.weight_first + target];
  if (ch.bits == 0) return ch.min;
  const uint64_t bit = static_cast<uint64_t>(t.packed_first) * 8 + static_cast<uint64_t>(key) * t.key_bits +
                       channel_bit_[t.weight_first + target];
  uint64_t word = 0;
  std::memcpy(&word, packed_.data() + bit / 8, 8);  // little-endian hosts only (as the clip decoder)
  const uint32_t value = static_cast<uint32_t>((word >> (bit % 8)) & ((uint64_t{1} << ch.bits) - 1));
  if (ch.bits == kBitsFloat) {
    float f;
    std::memcpy(&f, &value, 4);
    return f;
  }
  return ch.min + ch.step * static_cast<float>(value);
}

void MorphWeightTracks::sample(int track, float time, std::span<float> out) const {
  const Track& t = tracks_[static_cast<size_t>(track)];
  const float* times = key_times_.data() + t.key_first;
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
  if (quantized_) {
    for (size_t i = 0; i < n; ++i) {
      const float va = key_weight(track, static_cast<uint32_t>(a), static_cast<int>(i));
      const float vb = key_weight(track, static_cast<uint32_t>(b), static_cast<int>(i));
      out[i] = va + (vb - va) * f;
    }
    return;
  }
  const float* weights = key_weights_.data() + t.weight_first;
  const float* wa = weights + a * t.targets;
  const float* wb = weights + b * t.targets;
  for (size_t i = 0; i < n; ++i) out[i] = wa[i] + (wb[i] - wa[i]) * f;
}

void MorphWeightTracks::sample_mesh(int mesh, float time, std::span<float> out) const {
  for (size_t i = 0; i < tracks_.size(); ++i)
    if (tracks_[i].mesh == mesh && static_cast<size_t>(tracks_[i].targets) == out.size())
      sample(static_cast<int>(i), time, out);
}

size_t MorphWeightTracks::memory_bytes() const {
  return tracks_.size() * sizeof(Track) + (key_times_.size() + key_weights_.size()) * sizeof(float) +
         channels_.size() * (sizeof(WeightChannel) + sizeof(uint32_t)) + packed_.size();
}

}  // namespace ossa
