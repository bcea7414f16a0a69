#include "ossa/asset/compression.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ossa/runtime/local_to_model_job.h"

namespace ossa {
namespace {

// Model matrices of every frame of a clip (frame-major), through the runtime job.
std::vector<Mat4> model_frames(const Clip& clip, const Skeleton& skeleton) {
  const int joints = clip.joint_count(), frames = clip.frame_count();
  std::vector<Mat4> out(static_cast<size_t>(frames) * joints);
  std::vector<JointPose> pose(joints);
  for (int f = 0; f < frames; ++f) {
    if (clip.layout() == Clip::Layout::kQuantized)
      clip.decode_frame(f, pose.data());
    else
      std::copy_n(clip.frames().begin() + static_cast<size_t>(f) * joints, joints, pose.begin());
    LocalToModelJob{&skeleton, pose, std::span(out.data() + static_cast<size_t>(f) * joints, joints)}.run();
  }
  return out;
}

float vertex_error(const Mat4& a, const Mat4& b, float d) {
  float worst = 0;
  for (int axis = 0; axis < 3; ++axis) {
    Vec3 v{axis == 0 ? d : 0, axis == 1 ? d : 0, axis == 2 ? d : 0};
    worst = std::max(worst, length(transform_point(a, v) - transform_point(b, v)));
  }
  return worst;
}

void quantize(const Clip::QuantizedChannel& ch, const float* value, uint8_t* out) {
  if (ch.kind == 3) {  // the four floats as they are
    std::memcpy(out, value, 16);
    return;
  }
  for (int i = 0; i < 3; ++i) {
    if (ch.bits == 32) {
      std::memcpy(out + 4 * i, &value[i], 4);
      continue;
    }
    const float levels = ch.bits == 8 ? 255.f : 65535.f;
    float q = ch.extent[i] > 0 ? (value[i] - ch.min[i]) / ch.extent[i] : 0.f;
    auto n = static_cast<uint32_t>(std::lround(std::clamp(q, 0.f, 1.f) * levels));
    if (ch.bits == 8) {
      out[i] = static_cast<uint8_t>(n);
    } else {
      uint16_t u = static_cast<uint16_t>(n);
      std::memcpy(out + 2 * i, &u, 2);
    }
  }
}

}  // namespace

std::vector<float> virtual_vertex_errors(const Clip& reference, const Clip& candidate,
                                         const Skeleton& skeleton, float shell_distance) {
  std::vector<Mat4> a = model_frames(reference, skeleton), b = model_frames(candidate, skeleton);
  std::vector<float> errors(std::min(a.size(), b.size()));
  for (size_t i = 0; i < errors.size(); ++i) errors[i] = vertex_error(a[i], b[i], shell_distance);
  return errors;
}

Result<Clip> compress_clip(const Clip& clip, const Skeleton& skeleton, const CompressionSettings& settings,
                           CompressionStats* stats) {
  if (clip.layout() != Clip::Layout::kFixedRate)
    return Result<Clip>::failure("clip '" + clip.name() + "': compression starts from a fixed-rate clip");
  if (!(settings.tolerance > 0) || !(settings.shell_distance > 0))
    return Result<Clip>::failure("compression tolerance and shell distance must be > 0");
  const int joints = clip.joint_count(), frames = clip.frame_count();
  const std::vector<Mat4> reference = model_frames(clip, skeleton);

  // Per joint and channel: the values per frame (rotations canonicalised to w >= 0) and their ranges.
  auto value = [&](int f, int j, int kind, float* v) {  // v has room for 4
    const JointPose& p = clip.frames()[static_cast<size_t>(f) * joints + j];
    const float* src = kind == 0 ? p.translation : kind == 2 ? p.scale : p.rotation;
    const float sign = kind == 1 && src[3] < 0 ? -1.f : 1.f;
    for (int i = 0; i < (kind == 3 ? 4 : 3); ++i) v[i] = src[i] * sign;
  };
  std::vector<JointPose> constant_pose(clip.frames().begin(), clip.frames().begin() + joints);
  std::vector<Clip::QuantizedChannel> channels;
  int constant = 0;
  for (int j = 0; j < joints; ++j)
    for (int kind = 0; kind < 3; ++kind) {
      float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
      for (int f = 0; f < frames; ++f) {
        float v[4];
        value(f, j, kind, v);
        for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], v[i]), hi[i] = std::max(hi[i], v[i]);
      }
      // Constant within a sliver of the tolerance: stored once in the constant pose.
      const float slack = kind == 1 ? 1e-7f : settings.tolerance * 1e-3f;
      if (hi[0] - lo[0] <= slack && hi[1] - lo[1] <= slack && hi[2] - lo[2] <= slack) {
        ++constant;
        continue;
      }
      Clip::QuantizedChannel ch;
      ch.joint = static_cast<uint16_t>(j);
      ch.kind = static_cast<uint8_t>(kind);
      ch.bits = 8;
      for (int i = 0; i < 3; ++i) ch.min[i] = lo[i], ch.extent[i] = hi[i] - lo[i];
      channels.push_back(ch);
    }

  // Depth of each joint and, for the error hunt, the channels on the path from the root to each joint.
  const auto parents = skeleton.parents();
  std::vector<std::vector<int>> channels_of_joint(joints);
  for (size_t c = 0; c < channels.size(); ++c)
    channels_of_joint[channels[c].joint].push_back(static_cast<int>(c));

  Clip result;
  std::vector<float> errors;
  for (int iteration = 0; iteration < 64; ++iteration) {
    uint32_t stride = 0;
    for (auto& ch : channels) {
      ch.offset = stride;
      stride += ch.kind == 3 ? 16 : 3 * (ch.bits / 8);
    }
    std::vector<uint8_t> packed(static_cast<size_t>(frames) * stride);
    for (int f = 0; f < frames; ++f)
      for (const auto& ch : channels) {
        float v[4];
        value(f, ch.joint, ch.kind, v);
        quantize(ch, v, packed.data() + static_cast<size_t>(f) * stride + ch.offset);
      }
    auto built = Clip::from_quantized(clip.name(), clip.duration(), clip.frame_rate(), joints, frames,
                                      constant_pose, channels, stride, std::move(packed));
    if (!built) return Result<Clip>::failure(built.error());
    result = std::move(built).value();
    std::vector<Mat4> decoded = model_frames(result, skeleton);
    errors.assign(decoded.size(), 0.f);
    std::vector<float> joint_error(joints, 0.f);
    for (size_t i = 0; i < decoded.size(); ++i) {
      errors[i] = vertex_error(reference[i], decoded[i], settings.shell_distance);
      joint_error[i % joints] = std::max(joint_error[i % joints], errors[i]);
    }
    bool raised = false;
    for (int j = 0; j < joints; ++j) {
      if (joint_error[j] <= settings.tolerance) continue;
      // The culprit: the coarsest channel on the path root -> j, weighing rotations and scales by the
      // distance they carry their error over (from their joint to j, plus the shell).
      int best = -1;
      float best_score = -1;
      const Vec3 here = reference[j].translation();
      for (int a = j; a >= 0; a = parents[a]) {
        const float lever = length(here - reference[a].translation()) + settings.shell_distance;
        for (int c : channels_of_joint[a]) {
          const auto& ch = channels[c];
          if (ch.kind == 3 || (ch.bits == 32 && ch.kind != 1)) continue;
          if (ch.bits ==
              32) {  // a float rotation still too coarse: rebuilding w is the problem; keep all four
            if (best_score < 1e30f) best_score = 1e30f, best = c;
            continue;
          }
          const float steps = ch.bits == 8 ? 255.f : 65535.f;
          const float extent = std::max({ch.extent[0], ch.extent[1], ch.extent[2]});
          const float score = extent / steps * (ch.kind == 0 ? 1.f : lever);
          if (score > best_score) best_score = score, best = c;
        }
      }
      if (best >= 0) {
        Clip::QuantizedChannel& ch = channels[best];
        if (ch.bits == 32)
          ch.kind = 3;
        else
          ch.bits = ch.bits == 8 ? 16 : 32;
        raised = true;
      }
    }
    if (!raised) break;
  }

  if (stats) {
    *stats = {};
    stats->raw_bytes = static_cast<size_t>(frames) * joints * 40;
    stats->compressed_bytes = result.packed().size() + channels.size() * sizeof(Clip::QuantizedChannel) +
                              static_cast<size_t>(joints) * 40;
    std::vector<float> sorted = errors;
    std::sort(sorted.begin(), sorted.end());
    stats->max_error = sorted.empty() ? 0 : sorted.back();
    stats->p99_error = sorted.empty() ? 0 : sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)];
    stats->constant_channels = constant;
    for (const auto& ch : channels)
      (ch.bits == 8 ? stats->channels_8 : ch.bits == 16 ? stats->channels_16 : stats->channels_32)++;
  }
  for (float e : errors)
    if (e > settings.tolerance)
      return Result<Clip>::failure("clip '" + clip.name() + "': the error bound could not be met");
  return result;
}

}  // namespace ossa
