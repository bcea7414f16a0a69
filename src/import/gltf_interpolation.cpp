// glTF STEP and CUBICSPLINE samplers as linear keys (see gltf_interpolation.h).
#include "gltf_interpolation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "gltf_file.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"

namespace ossa::detail {
namespace {
using gltf::json;
using gltf::member;
using gltf::string_member;
using gltf::uint_member;

const char* path_name(GltfPath path) {
  switch (path) {
    case GltfPath::kTranslation:
      return "translation";
    case GltfPath::kRotation:
      return "rotation";
    case GltfPath::kScale:
      return "scale";
    default:
      return "weights";
  }
}

// The cubic Hermite spline of one key interval in the interval's parameter s: c0 + c1 s + c2 s^2 + c3 s^3.
struct Cubic {
  double c0, c1, c2, c3;
  Cubic(double v0, double m0, double v1, double m1)  // m: tangents already scaled by the interval
      : c0(v0), c1(m0), c2(-3 * v0 - 2 * m0 + 3 * v1 - m1), c3(2 * v0 + m0 - 2 * v1 + m1) {}
  double at(double s) const { return ((c3 * s + c2) * s + c1) * s + c0; }
  double max_second_derivative() const { return std::max(std::fabs(2 * c2), std::fabs(2 * c2 + 6 * c3)); }
};

}  // namespace

void GltfInterpolation::step_to_linear(std::vector<float>& times, std::vector<float>& values, int width) {
  constexpr float kDown = -std::numeric_limits<float>::infinity();
  auto value = [&](size_t k) {
    return std::span<const float>(values).subspan(k * static_cast<size_t>(width), static_cast<size_t>(width));
  };
  std::vector<float> t, v;
  t.reserve(times.size() * 2 + 1);
  v.reserve(values.size() * 2 + static_cast<size_t>(width));
  auto add = [&](float time, std::span<const float> key) {
    t.push_back(time);
    v.insert(v.end(), key.begin(), key.end());
  };
  for (size_t k = 0; k < times.size(); ++k) {
    if (k == 0) {
      add(times[0], value(0));
      continue;
    }
    // Key k's value starts kStepLeadUlps floats before t_k (never at or before t_k-1), the previous value
    // holding until the float below that.
    float start = times[k];
    for (int i = 0; i < kStepLeadUlps && std::nextafter(start, kDown) > times[k - 1]; ++i)
      start = std::nextafter(start, kDown);
    if (const float hold = std::nextafter(start, kDown); hold > times[k - 1]) add(hold, value(k - 1));
    add(start, value(k));
    if (k + 1 == times.size() && start < times[k]) add(times[k], value(k));  // the channel ends where it did
  }
  times.swap(t);
  values.swap(v);
}

void GltfInterpolation::load(const std::string& path, std::span<const uint8_t> memory,
                             std::vector<std::string>& warnings) {
  channels_.clear();
  GltfFile file;
  const std::string intro =
      "glTF sampler interpolation not read (STEP and CUBICSPLINE channels stay linear): ";
  if (auto e = file.open(path, memory); !e.empty()) return warnings.push_back(intro + e);
  if (!file.mentions("\"STEP\"") && !file.mentions("\"CUBICSPLINE\"") && !file.mentions("\"weights\""))
    return;
  if (auto e = file.parse(); !e.empty()) return warnings.push_back(intro + e);
  const json& doc = file.doc();
  const json* animations = member(doc, "animations");
  if (!animations || !animations->is_array()) return;
  const json* nodes = member(doc, "nodes");
  const uint64_t node_count = nodes && nodes->is_array() ? nodes->size() : 0;
  size_t budget = kMaxResampledFloats;
  for (unsigned a = 0; a < animations->size(); ++a) {
    const json& anim = (*animations)[a];
    const json* samplers = member(anim, "samplers");
    const json* channels = member(anim, "channels");
    if (!samplers || !samplers->is_array() || !channels || !channels->is_array()) continue;
    const std::string anim_name = string_member(anim, "name");
    // The channels assimp keeps (GatherSamplers): a valid sampler with input and output, no more input than
    // output keys; a later channel for the same node and path replaces an earlier one.
    std::map<std::pair<uint64_t, GltfPath>, uint64_t> chosen;
    for (const json& ch : *channels) {
      const auto sampler = uint_member(ch, "sampler");
      const json* target = member(ch, "target");
      if (!sampler || *sampler >= samplers->size() || !target) continue;
      const auto node = uint_member(*target, "node");
      const std::string p = string_member(*target, "path");
      if (!node || *node >= node_count) continue;
      GltfPath path;
      if (p == "translation")
        path = GltfPath::kTranslation;
      else if (p == "rotation")
        path = GltfPath::kRotation;
      else if (p == "scale")
        path = GltfPath::kScale;
      else if (p == "weights")
        path = GltfPath::kWeights;
      else
        continue;
      const json& s = (*samplers)[*sampler];
      const auto input = uint_member(s, "input"), output = uint_member(s, "output");
      if (!input || !output) continue;
      const auto in_count = file.accessor_count(*input), out_count = file.accessor_count(*output);
      if (!in_count || !out_count || *in_count > *out_count) continue;
      chosen[{*node, path}] = *sampler;
    }
    // assimp names a channel by its node's name ("nodes[i]" when it has none): two animated nodes of one
    // name cannot be told apart.
    auto node_name = [&](uint64_t node) {
      std::string name = string_member((*nodes)[node], "name");
      return name.empty() ? "nodes[" + std::to_string(node) + "]" : name;
    };
    std::map<std::string, std::set<uint64_t>> nodes_named;
    for (const auto& [key, sampler] : chosen) nodes_named[node_name(key.first)].insert(key.first);
    for (const auto& [key, sampler] : chosen) {
      const json& s = (*samplers)[sampler];
      const auto [node, path] = key;
      std::string interpolation = string_member(s, "interpolation");
      if (interpolation.empty()) interpolation = "LINEAR";
      // Linear weights too: assimp clamps weights below 0 to 0.
      if (interpolation != "STEP" && interpolation != "CUBICSPLINE" && path != GltfPath::kWeights) continue;
      const std::string name = node_name(node);
      const std::string where = "glTF animation " + std::to_string(a) +
                                (anim_name.empty() ? "" : " '" + anim_name + "'") + ", node '" + name + "' " +
                                path_name(path) + " (" + interpolation + ")";
      const bool linear = interpolation != "STEP" && interpolation != "CUBICSPLINE";
      if (nodes_named[name].size() > 1) {
        if (linear) continue;  // assimp's keys, as for any other linear channel
        warnings.push_back(where + ": another animated node has the same name; interpolated linearly");
        continue;
      }
      Channel c;
      c.cubic = interpolation == "CUBICSPLINE";
      std::vector<float> times, values;
      uint64_t key_count = 0, value_count = 0;
      std::string e = file.read_accessor(*uint_member(s, "input"), 1, false, times, key_count);
      const int components = path == GltfPath::kRotation ? 4 : path == GltfPath::kWeights ? 1 : 3;
      if (e.empty())
        e = file.read_accessor(*uint_member(s, "output"), components,
                               path == GltfPath::kRotation || path == GltfPath::kWeights, values,
                               value_count);
      const uint64_t per_key = key_count * (c.cubic ? 3 : 1);
      if (e.empty() && (value_count % per_key != 0 || (path != GltfPath::kWeights && value_count != per_key)))
        e = "its output holds " + std::to_string(value_count) + " values for " + std::to_string(key_count) +
            " keys";
      if (e.empty())
        for (size_t k = 0; k < times.size(); ++k)
          if (!std::isfinite(times[k]) || (k > 0 && !(times[k] > times[k - 1])))
            e = "its key times do not ascend";
      if (!e.empty() && linear) continue;  // assimp's keys, and its checks
      if (!e.empty()) {
        warnings.push_back(where + ": " + e + "; interpolated linearly");
        continue;
      }
      c.width = static_cast<int>(components * (value_count / per_key));
      const size_t width = static_cast<size_t>(c.width);
      for (size_t i = 0; i < values.size() && c.error.empty(); ++i)
        if (!std::isfinite(values[i])) {
          const size_t k = i / (width * (c.cubic ? 3 : 1));
          const char* part = !c.cubic               ? "key"
                             : (i / width) % 3 == 0 ? "in-tangent of key"
                             : (i / width) % 3 == 1 ? "key"
                                                    : "out-tangent of key";
          c.error = std::string(path_name(path)) + " " + part + " " + std::to_string(k) + " is not finite";
        }
      if (!c.error.empty()) {
        channels_[{a, name, path}] = std::move(c);
        continue;
      }
      c.linear = linear;
      if (!c.cubic) {
        if (!c.linear) step_to_linear(times, values, c.width);
        c.times = std::move(times);
        c.values = std::move(values);
        channels_[{a, name, path}] = std::move(c);
        continue;
      }
      // CUBICSPLINE: key k holds in-tangents a_k, values v_k, out-tangents b_k, `width` floats each.
      auto at = [&](size_t k, int part, size_t i) {
        return static_cast<double>(values[(k * 3 + part) * width + i]);
      };
      const size_t intervals = times.size() - 1;
      std::vector<int> steps(intervals, 1);
      std::vector<double> worst(intervals, 0);
      double total_steps = 0;
      for (size_t k = 0; k < intervals; ++k) {
        const double td = static_cast<double>(times[k + 1]) - times[k];
        for (size_t i = 0; i < width; ++i)
          worst[k] =
              std::max(worst[k], Cubic(at(k, 1, i), td * at(k, 2, i), at(k + 1, 1, i), td * at(k + 1, 0, i))
                                     .max_second_derivative());
        const double n = std::ceil(std::sqrt(worst[k] / (8 * kCubicTolerance)));
        steps[k] = static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxStepsPerInterval)));
        total_steps += steps[k];
      }
      // The file's budget: scale every interval down alike when the channel would exceed what is left.
      const double floats_per_key = static_cast<double>(width) + 1;
      if ((total_steps + 1) * floats_per_key > static_cast<double>(budget)) {
        const double scale = std::max(0.0, static_cast<double>(budget) / floats_per_key - 1 - intervals) /
                             std::max(1.0, total_steps);
        for (int& n : steps) n = std::max(1, static_cast<int>(n * std::min(1.0, scale)));
      }
      double bound = 0;
      for (size_t k = 0; k < intervals; ++k) bound = std::max(bound, worst[k] / (8.0 * steps[k] * steps[k]));
      if (bound > kCubicTolerance)
        warnings.push_back(where + ": resampled within " + std::to_string(bound) +
                           " of the spline (more samples than the import allows would be needed for " +
                           std::to_string(kCubicTolerance) + ")");
      for (size_t k = 0; k < intervals; ++k) {
        const double td = static_cast<double>(times[k + 1]) - times[k];
        for (int j = 0; j < steps[k]; ++j) {
          const float t = static_cast<float>(times[k] + td * j / steps[k]);
          if (!c.times.empty() && !(t > c.times.back())) continue;
          const double s = (static_cast<double>(t) - times[k]) / td;  // at the stored time exactly
          c.times.push_back(t);
          for (size_t i = 0; i < width; ++i)
            c.values.push_back(static_cast<float>(
                Cubic(at(k, 1, i), td * at(k, 2, i), at(k + 1, 1, i), td * at(k + 1, 0, i)).at(s)));
        }
      }
      if (c.times.empty() || times.back() > c.times.back()) {
        c.times.push_back(times.back());
        for (size_t i = 0; i < width; ++i) c.values.push_back(static_cast<float>(at(times.size() - 1, 1, i)));
      }
      for (float v : c.values)
        if (!std::isfinite(v)) c.error = std::string(path_name(path)) + ": the spline leaves the float range";
      if (path == GltfPath::kRotation)
        for (size_t k = 0; k < c.times.size() && c.error.empty(); ++k) {
          float* q = &c.values[k * 4];
          const double n = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] +
                                     double(q[3]) * q[3]);
          if (!(n > 1e-6)) {
            c.error = "rotation: the spline passes through a zero quaternion at " +
                      std::to_string(c.times[k]) + " s";
            break;
          }
          for (int i = 0; i < 4; ++i) q[i] = static_cast<float>(q[i] / n);
        }
      budget -= std::min(budget, c.values.size() + c.times.size());
      channels_[{a, name, path}] = std::move(c);
    }
  }
}

const GltfInterpolation::Channel* GltfInterpolation::find(unsigned animation, const std::string& node_name,
                                                          GltfPath path) const {
  auto it = channels_.find({animation, node_name, path});
  return it == channels_.end() ? nullptr : &it->second;
}

std::string GltfInterpolation::convert_track(unsigned animation, const std::string& node_name,
                                             const SpaceMapper& mapper, RawTrack& track,
                                             RawClip& clip) const {
  if (channels_.empty()) return {};
  for (GltfPath path : {GltfPath::kTranslation, GltfPath::kRotation, GltfPath::kScale}) {
    const Channel* c = find(animation, node_name, path);
    if (!c) continue;
    if (!c->error.empty()) return c->error;
    const size_t n = c->times.size();
    if (path == GltfPath::kRotation) {
      track.rotation_times = c->times;
      track.rotations.resize(n);
      for (size_t k = 0; k < n; ++k) {
        const float* q = &c->values[k * 4];
        track.rotations[k] = normalize(mapper.rotation(normalize(Quat{q[0], q[1], q[2], q[3]})));
      }
    } else {
      auto& times = path == GltfPath::kTranslation ? track.translation_times : track.scale_times;
      auto& values = path == GltfPath::kTranslation ? track.translations : track.scales;
      times = c->times;
      values.resize(n);
      for (size_t k = 0; k < n; ++k) {
        const Vec3 v{c->values[k * 3], c->values[k * 3 + 1], c->values[k * 3 + 2]};
        values[k] = path == GltfPath::kTranslation ? mapper.translation(v) : mapper.scale(v);
      }
    }
    ++(c->cubic ? clip.converted_cubic_channels : clip.converted_step_channels);
  }
  return {};
}

bool GltfInterpolation::convert_weights(unsigned animation, const std::string& node_name, size_t targets,
                                        RawMorphTrack& track, RawClip& clip, std::string& error) const {
  const Channel* c = find(animation, node_name, GltfPath::kWeights);
  if (!c) return false;
  if (!c->error.empty()) {
    error = c->error;
    return false;
  }
  if (static_cast<size_t>(c->width) != targets) {
    error = "weights: " + std::to_string(c->width) + " per key for a mesh with " + std::to_string(targets) +
            " morph targets";
    return false;
  }
  track.times = c->times;
  track.weights = c->values;
  if (!c->linear) ++(c->cubic ? clip.converted_cubic_channels : clip.converted_step_channels);
  return true;
}

}  // namespace ossa::detail
