#include "ossa/offline/morph_compression.h"
#include "../runtime/kernels/kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ossa {
namespace {

// Largest singular value of the upper 3x3 of `m`: the square root of the largest eigenvalue of A^T A
// (symmetric), by the closed form for 3x3 symmetric matrices, in double and rounded up a little.
double spectral_norm(const Mat4& m) {
  double a[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int r = 0; r < 3; ++r) s += static_cast<double>(m.at(r, i)) * m.at(r, j);
      a[i][j] = s;
    }
  const double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
  const double q = (a[0][0] + a[1][1] + a[2][2]) / 3;
  const double p2 =
      (a[0][0] - q) * (a[0][0] - q) + (a[1][1] - q) * (a[1][1] - q) + (a[2][2] - q) * (a[2][2] - q) + 2 * p1;
  double largest = std::max({a[0][0], a[1][1], a[2][2]});
  if (p2 > 0) {
    const double p = std::sqrt(p2 / 6);
    double b[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) b[i][j] = (a[i][j] - (i == j ? q : 0)) / p;
    const double det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                       b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                       b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    const double phi = std::acos(std::clamp(det / 2, -1.0, 1.0)) / 3;
    largest = std::max(largest, q + 2 * p * std::cos(phi));
  }
  return std::sqrt(std::max(largest, 0.0)) * (1 + 1e-6) + 1e-12;
}

// Appends values of 0-32 bits, least significant bit first.
struct BitWriter {
  std::vector<uint8_t> bytes;
  uint64_t bit = 0;
  void put(uint32_t value, int bits) {
    for (int i = 0; i < bits; ++i, ++bit) {
      if (bit / 8 >= bytes.size()) bytes.push_back(0);
      if ((value >> i) & 1u) bytes[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  void to_byte() { bit = (bit + 7) / 8 * 8; }
};

// The channel for `values` (one target's weights, key after key) whose decoded values all lie within
// `allowed` of them (floats when `allowed` is not > 0); `codes` receives the stored values.
MorphWeightTracks::WeightChannel quantise(const std::vector<float>& values, double allowed,
                                          std::vector<uint32_t>& codes) {
  MorphWeightTracks::WeightChannel ch;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  codes.assign(values.size(), 0);
  ch.min = *lo;
  if (*lo == *hi) return ch;  // constant: exact at 0 bits
  if (allowed > 0) {
    for (int bits = 1; bits <= MorphWeightTracks::kMaxQuantizedBits; ++bits) {
      const double levels = static_cast<double>((uint32_t{1} << bits) - 1);
      const float step = static_cast<float>((static_cast<double>(*hi) - *lo) / levels);
      bool fits = step > 0;
      for (size_t k = 0; k < values.size() && fits; ++k) {
        const double q =
            std::clamp(std::round((static_cast<double>(values[k]) - ch.min) / step), 0.0, levels);
        codes[k] = static_cast<uint32_t>(q);
        // As MorphWeightTracks::key_weight decodes it.
        const float decoded = ch.min + step * static_cast<float>(codes[k]);
        fits = std::fabs(static_cast<double>(decoded) - values[k]) <= allowed;
      }
      if (fits) {
        ch.step = step;
        ch.bits = static_cast<uint8_t>(bits);
        return ch;
      }
    }
  }
  ch.min = 0;
  ch.bits = MorphWeightTracks::kBitsFloat;
  for (size_t k = 0; k < values.size(); ++k) std::memcpy(&codes[k], &values[k], 4);
  return ch;
}

}  // namespace

float morph_skinning_scale(const Clip& clip, const Skeleton& skeleton, const SkinnedMesh& mesh) {
  if (clip.layout() != Clip::Layout::kFixedRate || clip.joint_count() != skeleton.joint_count()) return 0;
  const int joints = skeleton.joint_count();
  std::vector<double> path_scale(joints, 0);  // parents come first
  for (int j = 0; j < joints; ++j) {
    double largest = 0;
    for (int f = 0; f < clip.frame_count(); ++f) {
      const JointPose& p = clip.frames()[static_cast<size_t>(f) * joints + j];
      for (int i = 0; i < 3; ++i) largest = std::max(largest, std::fabs(static_cast<double>(p.scale[i])));
    }
    const int parent = skeleton.parents()[j];
    path_scale[j] = largest * (parent >= 0 ? path_scale[parent] : 1.0);
  }
  double scale = 0;
  for (size_t p = 0; p < mesh.joint_remap().size(); ++p)
    scale = std::max(scale, path_scale[mesh.joint_remap()[p]] * spectral_norm(mesh.inverse_binds()[p]));
  return static_cast<float>(scale * (1 + 1e-6));
}

float max_position_delta(const MorphTargets& targets, int target) {
  float largest = 0;
  const auto first = targets.target_first();
  for (uint32_t e = first[target]; e < first[target + 1]; ++e) {
    const float* d = targets.position_deltas().data() + 3 * static_cast<size_t>(e);
    largest = std::max(largest, std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
  }
  return largest * (1 + 1e-6f);
}

Result<MorphWeightTracks> compress_morph_weights(const MorphWeightTracks& weights,
                                                 std::span<const SkinnedMesh> meshes,
                                                 std::span<const float> skinning_scale, float budget,
                                                 double* bound) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  using R = Result<MorphWeightTracks>;
  if (!(budget > 0)) return R::failure("morph weights: the error budget must be > 0");
  std::vector<MorphWeightTracks::QuantizedTrack> shapes;
  std::vector<float> key_times;
  std::vector<MorphWeightTracks::WeightChannel> channels;
  BitWriter packed;
  std::vector<std::vector<uint32_t>> codes;
  std::vector<float> values;
  double worst = 0;
  for (size_t i = 0; i < weights.tracks().size(); ++i) {
    const MorphWeightTracks::Track& t = weights.tracks()[i];
    if (t.mesh < 0 || static_cast<size_t>(t.mesh) >= meshes.size() ||
        meshes[t.mesh].morph_targets().count() != t.targets ||
        static_cast<size_t>(t.mesh) >= skinning_scale.size())
      return R::failure("morph weights of mesh " + std::to_string(t.mesh) + " do not fit the meshes given");
    const MorphTargets& targets = meshes[t.mesh].morph_targets();
    const double scale = skinning_scale[t.mesh];
    shapes.push_back({t.mesh, t.targets, t.key_count});
    key_times.insert(key_times.end(), weights.key_times().begin() + t.key_first,
                     weights.key_times().begin() + t.key_first + t.key_count);
    codes.assign(t.targets, {});
    double displacement = 0;
    for (int target = 0; target < t.targets; ++target) {
      values.clear();
      for (uint32_t k = 0; k < t.key_count; ++k)
        values.push_back(weights.key_weight(static_cast<int>(i), k, target));
      const double reach = scale * max_position_delta(targets, target);
      // A target that moves no vertex (normals only) has no displacement to bound: exact floats.
      const double allowed = reach > 0 ? budget / (t.targets * reach) : -1.0;
      MorphWeightTracks::WeightChannel ch = quantise(values, allowed, codes[target]);
      channels.push_back(ch);
      double largest = 0;
      for (uint32_t k = 0; k < t.key_count; ++k) {
        float decoded = ch.min;
        if (ch.bits == MorphWeightTracks::kBitsFloat)
          decoded = values[k];
        else if (ch.bits > 0)
          decoded = ch.min + ch.step * static_cast<float>(codes[target][k]);
        largest = std::max(largest, std::fabs(static_cast<double>(decoded) - values[k]));
      }
      displacement += largest * reach;
    }
    worst = std::max(worst, displacement);
    for (uint32_t k = 0; k < t.key_count; ++k)
      for (int target = 0; target < t.targets; ++target)
        packed.put(codes[target][k], channels[channels.size() - t.targets + target].bits);
    packed.to_byte();
  }
  packed.bytes.resize(packed.bit / 8);
  if (bound) *bound = worst;
  return MorphWeightTracks::from_quantized(shapes, std::move(key_times), std::move(channels),
                                           std::move(packed.bytes), "morph weights");
}

Result<Clip> compress_clip_with_morph_weights(const Clip& clip, const Skeleton& skeleton,
                                              const CompressionSettings& settings, CompressionStats* stats) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  CompressionSettings joints = settings;
  joints.meshes = {};
  joints.tolerance = settings.tolerance * (1 - kMorphToleranceShare);
  auto compressed = compress_clip(clip, skeleton, joints, stats);
  if (!compressed) return compressed;
  std::vector<float> scales;
  for (const SkinnedMesh& mesh : settings.meshes)
    scales.push_back(morph_skinning_scale(clip, skeleton, mesh));
  double bound = 0;
  auto weights = compress_morph_weights(clip.morph_weights(), settings.meshes, scales,
                                        settings.tolerance * kMorphToleranceShare, &bound);
  if (!weights) return Result<Clip>::failure("clip '" + clip.name() + "': " + weights.error());
  if (stats) {
    stats->morph_error_bound = bound;
    stats->morph_bytes = weights->packed().size() + weights->channels().size() * 12 +
                         weights->key_times().size() * 4 + weights->tracks().size() * 12;
    stats->raw_bytes +=
        (clip.morph_weights().key_times().size() + clip.morph_weights().key_weights().size()) * 4;
    stats->compressed_bytes += stats->morph_bytes;
  }
  return Clip::with_morph_weights(std::move(compressed).value(), std::move(weights).value());
}

}  // namespace ossa
