#include "ossa/offline/compression.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "../asset/quantization.h"
#include "../core/matrix_inline.h"
#include "../runtime/kernels/kernels.h"
#include "ossa/asset/value_ranges.h"
#include "ossa/offline/morph_compression.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

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

// A joint's virtual vertices at one frame, in the joint's own units: the points `shell_distance` along the
// three model-space axes from the joint's reference position, carried back through the inverse of its
// reference model matrix. Their negations are the other three vertices (the matrix is affine: -u lands as
// far on the other side). Where the matrix cannot be inverted (a zero scale) the shell is taken along the
// joint's own axes, in its own units. (The matrix is affine: the inverse's 3x3 is that of the linear part,
// which invert() gives too, to the bit, wherever the translation is finite.)
// The three vertices' coordinates component by component (x[k]: vertex k's x), a fourth vertex at the
// joint itself, so that vertex_error's sums run four vertices to an instruction.
struct alignas(16) ShellPoints {
  float x[4], y[4], z[4];
};

ShellPoints shell_point(const Mat4& reference, float shell_distance) {
  ShellPoints out{};
  Mat4 inverse_model;
  const Vec3 t = reference.translation();
  const bool invertible = std::isfinite(t.x) && std::isfinite(t.y) && std::isfinite(t.z) &&
                          invert_linear(reference, inverse_model);
  for (int k = 0; k < 3; ++k) {
    Vec3 u{inverse_model.m[4 * k], inverse_model.m[4 * k + 1], inverse_model.m[4 * k + 2]};
    u = u * shell_distance;
    if (!invertible || !std::isfinite(u.x) || !std::isfinite(u.y) || !std::isfinite(u.z))
      u = Vec3{k == 0 ? shell_distance : 0, k == 1 ? shell_distance : 0, k == 2 ? shell_distance : 0};
    out.x[k] = u.x, out.y[k] = u.y, out.z[k] = u.z;
  }
  return out;
}

std::vector<ShellPoints> shell_points(const std::vector<Mat4>& reference, float shell_distance) {
  std::vector<ShellPoints> out(reference.size());
  for (size_t i = 0; i < reference.size(); ++i) out[i] = shell_point(reference[i], shell_distance);
  return out;
}

// Largest displacement, from `reference` to `lossy`, of the six virtual vertices of `shell` carried rigidly
// by the joint. A vertex at u moves by dt + D u (dt: the translation's change, D: the 3x3 part's), the one at
// -u by dt - D u; the larger of the two has |dt|^2 + |D u|^2 + 2 |dt . D u| as its square.
float vertex_error(const Mat4& reference, const ShellPoints& shell, const Mat4& lossy) {
  const Vec3 dt = lossy.translation() - reference.translation();
  float d[12];
  for (int i = 0; i < 12; ++i) d[i] = lossy.m[i] - reference.m[i];
  const float moved = dot(dt, dt);
  float e[4];  // vertex k's squared displacement: D u as a, |dt|^2 + |a|^2 + 2 |dt . a|
  for (int k = 0; k < 4; ++k) {
    const float ax = d[0] * shell.x[k] + d[4] * shell.y[k] + d[8] * shell.z[k],
                ay = d[1] * shell.x[k] + d[5] * shell.y[k] + d[9] * shell.z[k],
                az = d[2] * shell.x[k] + d[6] * shell.y[k] + d[10] * shell.z[k];
    e[k] = moved + (ax * ax + ay * ay + az * az) + 2.f * std::fabs(dt.x * ax + dt.y * ay + dt.z * az);
  }
  float worst = moved;
  for (int k = 0; k < 3; ++k) worst = std::max(worst, e[k]);
  return std::sqrt(worst);
}

std::vector<float> vertex_errors(const std::vector<Mat4>& reference, const std::vector<ShellPoints>& shell,
                                 const std::vector<Mat4>& lossy) {
  std::vector<float> errors(std::min(reference.size(), lossy.size()));
  for (size_t i = 0; i < errors.size(); ++i) errors[i] = vertex_error(reference[i], shell[i], lossy[i]);
  return errors;
}

// Model matrices of joints [begin, end) (a joint's subtree, or all) from their local matrices, the parents'
// model matrices already there: the products LocalToModelJob takes on the portable kernels (no root), for
// the search, which changes one joint at a time and keeps the other joints' local matrices.
void model_from_locals(std::span<const int> parents, std::span<const Mat4> local, int begin, int end,
                       std::span<Mat4> model) {
  for (int j = begin; j < end; ++j)
    model[j] = parents[j] >= 0 ? detail::multiply(model[parents[j]], local[j]) : local[j];
}

// The frames of a fixed-rate grid at `frame_rate` over `duration`, or -1 when it is too fine to measure on,
// and the time of frame f (the last at the end).
int64_t grid_frames(float duration, float frame_rate) {
  const int64_t frames = Clip::frame_count_for(duration, frame_rate);
  return frame_rate <= Clip::kMaxFrameRate && frames <= (1 << 24) ? frames : -1;
}
float grid_time(int64_t f, int64_t frames, float frame_rate, float duration) {
  return f + 1 < frames ? static_cast<float>(f) / frame_rate : duration;
}

// `clip` sampled by the runtime at the frame times of a fixed-rate clip of its duration at `frame_rate` (the
// last at its end), as that clip: what compares clips on different frame grids.
Result<Clip> on_frames_of(const Clip& clip, float frame_rate) {
  const int64_t frames = grid_frames(clip.duration(), frame_rate);
  const int joints = clip.joint_count();
  if (frames < 0) return Result<Clip>::failure("too many frames");
  std::vector<JointPose> out(static_cast<size_t>(frames) * joints);
  SamplingCache cache;
  for (int64_t f = 0; f < frames; ++f) {
    const float time = grid_time(f, frames, frame_rate, clip.duration());
    SampleJob{&clip, time, &cache, std::span(out.data() + static_cast<size_t>(f) * joints, joints)}.run();
  }
  return Clip::from_frames(clip.name(), clip.duration(), frame_rate, joints, std::move(out));
}
}  // namespace

std::vector<float> virtual_vertex_errors(const Clip& reference, const Clip& candidate,
                                         const Skeleton& skeleton, float shell_distance) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  const std::vector<Mat4> model = model_frames(reference, skeleton);
  const std::vector<ShellPoints> shell = shell_points(model, shell_distance);
  if (candidate.frame_count() == reference.frame_count() && candidate.frame_rate() == reference.frame_rate())
    return vertex_errors(model, shell, model_frames(candidate, skeleton));
  auto resampled = on_frames_of(candidate, reference.frame_rate());
  return resampled ? vertex_errors(model, shell, model_frames(*resampled, skeleton)) : std::vector<float>{};
}

namespace {

// `clip` sampled by the runtime at `time` and stored as Clip::from_frames stores a frame (normalised,
// denormals flushed), then its model matrices: one frame of on_frames_of(clip, ...) through model_frames.
void model_as_stored(const Clip& clip, float time, SamplingCache& cache, const Skeleton& skeleton,
                     std::span<JointPose> pose, std::span<Mat4> model) {
  SampleJob{&clip, time, &cache, pose}.run();
  for (JointPose& p : pose) {
    value_ranges::check_and_normalize(p.translation, p.rotation, p.scale);
    flush_denormals(p);
  }
  LocalToModelJob{&skeleton, pose, model}.run();
}

// A fixed-rate clip sampled by the runtime on a grid at `frame_rate` (as on_frames_of), its model matrices
// and virtual vertices per grid frame: the reference errors_on_grid measures candidates against. Frames are
// computed when first asked for, in order, and kept up to a budget (those past it are computed again at each
// request), so several candidates share the work and a measurement that stops early costs only its frames.
class GridReference {
 public:
  GridReference(const Clip& clip, const Skeleton& skeleton, float frame_rate, float shell_distance)
      : clip_(clip),
        skeleton_(skeleton),
        frame_rate_(frame_rate),
        shell_distance_(shell_distance),
        frames_(grid_frames(clip.duration(), frame_rate)),
        pose_(clip.joint_count()),
        model_(clip.joint_count()),
        shell_(clip.joint_count()) {
    const size_t joints = std::max<size_t>(model_.size(), 1);
    keep_ = std::min(std::max<int64_t>(frames_, 0),
                     static_cast<int64_t>(kKeptBytes / (joints * (sizeof(Mat4) + sizeof(ShellPoints)))));
    kept_model_.reserve(static_cast<size_t>(keep_) * joints);
    kept_shell_.reserve(static_cast<size_t>(keep_) * joints);
  }

  int64_t frames() const { return frames_; }  // -1 when the grid is too fine to measure on
  float time(int64_t f) const { return grid_time(f, frames_, frame_rate_, clip_.duration()); }

  // Frame f's model matrices and virtual vertices, valid until the next call; frames are asked for in
  // order from 0 (any frame already kept, or the next one).
  void frame(int64_t f, const Mat4*& model, const ShellPoints*& shell) {
    const size_t joints = model_.size();
    if (f < kept_) {
      model = kept_model_.data() + static_cast<size_t>(f) * joints;
      shell = kept_shell_.data() + static_cast<size_t>(f) * joints;
      return;
    }
    model_as_stored(clip_, time(f), cache_, skeleton_, pose_, model_);
    for (size_t j = 0; j < joints; ++j) shell_[j] = shell_point(model_[j], shell_distance_);
    if (f == kept_ && kept_ < keep_) {
      kept_model_.insert(kept_model_.end(), model_.begin(), model_.end());
      kept_shell_.insert(kept_shell_.end(), shell_.begin(), shell_.end());
      ++kept_;
    }
    model = model_.data();
    shell = shell_.data();
  }

 private:
  static constexpr size_t kKeptBytes = size_t{32} << 20;
  const Clip& clip_;
  const Skeleton& skeleton_;
  float frame_rate_, shell_distance_;
  int64_t frames_, keep_ = 0, kept_ = 0;  // frames kept at most, and so far
  SamplingCache cache_;
  std::vector<JointPose> pose_;
  std::vector<Mat4> model_, kept_model_;
  std::vector<ShellPoints> shell_, kept_shell_;
};

// virtual_vertex_errors(on_frames_of(reference clip, its grid's rate), candidate, ...) computed frame by
// frame, without the resampled candidate in memory, and stopping after the first frame whose largest error
// exceeds `stop_above` (what it returns then holds that frame's errors last). Same jobs and order of
// operations, so the same errors bit for bit. Empty when the grid is too fine (as on_frames_of).
std::vector<float> errors_on_grid(GridReference& reference, const Clip& candidate, const Skeleton& skeleton,
                                  float stop_above = std::numeric_limits<float>::infinity()) {
  const int64_t frames = reference.frames();
  const int joints = candidate.joint_count();
  if (frames < 0) return {};
  std::vector<float> errors;
  errors.reserve(static_cast<size_t>(frames) * joints);
  std::vector<JointPose> pose(joints);
  std::vector<Mat4> model(joints);
  SamplingCache cache;
  for (int64_t f = 0; f < frames; ++f) {
    model_as_stored(candidate, reference.time(f), cache, skeleton, pose, model);
    const Mat4* reference_model;
    const ShellPoints* shell;
    reference.frame(f, reference_model, shell);
    float worst = 0;
    for (int j = 0; j < joints; ++j) {
      errors.push_back(vertex_error(reference_model[j], shell[j], model[j]));
      worst = std::max(worst, errors.back());
    }
    if (!(worst <= stop_above)) break;
  }
  return errors;
}

// The largest of `errors` and the one a sort would put 99 % of the way up (reorders them).
void summarize_errors(std::vector<float>& errors, double& max_error, double& p99_error) {
  max_error = p99_error = 0;
  if (errors.empty()) return;
  const auto p99 =
      errors.begin() + static_cast<std::ptrdiff_t>(std::min(errors.size() - 1, errors.size() * 99 / 100));
  std::nth_element(errors.begin(), p99, errors.end());
  p99_error = *p99;
  max_error = *std::max_element(p99, errors.end());
}

// Estimated largest displacement (model units) that quantizing one channel with `bits` over a segment range
// of `span` (its widest component) causes, `reach` being the model-space displacement per unit of the
// channel's components (see `reach` in compress_clip). Per component the rounding error is half a step (half
// the span at 0 bits); three components add up to sqrt(3) of that. A rotation error of |dq| turns by 2 |dq|
// radians, and rebuilding w from x, y, z multiplies |dq| by 1 / w.
float estimated_error(int kind, int bits, float span, float reach, float min_w) {
  float component;
  if (bits == Clip::kBitsFullRotation)
    component = 6e-8f;
  else if (bits == Clip::kBitsFloat)
    component = kind == 1 ? 6e-8f / std::max(min_w * min_w, 1e-7f) : 6e-8f * (1.f + span);
  else
    component = bits == 0 ? 0.5f * span : 0.5f * span * detail::inverse_levels(bits);
  const float d = 1.7320508f * component;
  return kind == 1 ? 2.f * d * reach / std::max(min_w, 0.05f) : d * reach;
}

// The next finer bit rate of a channel, or 0 when there is none.
int finer_bits(int kind, int bits) {
  if (bits < Clip::kMaxQuantizedBits) return bits + 1;
  if (bits == Clip::kMaxQuantizedBits) return Clip::kBitsFloat;
  return kind == 1 && bits == Clip::kBitsFloat ? Clip::kBitsFullRotation : 0;
}
int coarser_bits(int bits) {
  return bits == Clip::kBitsFullRotation ? Clip::kBitsFloat
         : bits == Clip::kBitsFloat      ? Clip::kMaxQuantizedBits
                                         : bits - 1;
}

}  // namespace

namespace {

// What CompressionStats::raw_bytes counts: 40 bytes (float translation, rotation, scale) a joint a frame.
size_t raw_bytes(const Clip& clip) {
  return static_cast<size_t>(clip.frame_count()) * static_cast<size_t>(clip.joint_count()) * 40;
}

// The clip's frames compressed at its own frame rate (compress_clip's steps 1-4; compress_clip also tries
// fewer frames).
Result<Clip> compress_every_frame(const Clip& clip, const Skeleton& skeleton,
                                  const CompressionSettings& settings, CompressionStats* stats) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  if (!(settings.tolerance > 0) || !(settings.shell_distance > 0))
    return Result<Clip>::failure("compression tolerance and shell distance must be > 0");
  const int joints = clip.joint_count(), frames = clip.frame_count();
  if (joints != skeleton.joint_count())
    return Result<Clip>::failure("clip '" + clip.name() + "' was not made for this skeleton");
  // Ranges, levers and quantization steps must stay finite: values beyond 1e15 (a billion km in metres)
  // come only from damaged files.
  for (const JointPose& p : clip.frames())
    for (int i = 0; i < 3; ++i)
      if (!(std::fabs(p.translation[i]) <= 1e15f) || !(std::fabs(p.scale[i]) <= 1e15f))
        return Result<Clip>::failure("clip '" + clip.name() + "': values too large to compress (over 1e15)");
  const std::vector<Mat4> reference = model_frames(clip, skeleton);
  const std::vector<ShellPoints> shell = shell_points(reference, settings.shell_distance);
  const auto parents = skeleton.parents();
  auto model_at = [&](int f, int j) -> const Mat4& { return reference[static_cast<size_t>(f) * joints + j]; };

  // A channel's value at a frame: rotations on the w >= 0 hemisphere, as the decoder rebuilds them.
  auto value = [&](int f, int j, int kind, float* v) {  // v has room for 4
    const JointPose& p = clip.frames()[static_cast<size_t>(f) * joints + j];
    const float* src = kind == 0 ? p.translation : kind == 2 ? p.scale : p.rotation;
    const float sign = kind == 1 && src[3] < 0 ? -1.f : 1.f;
    for (int i = 0; i < (kind == 1 ? 4 : 3); ++i) v[i] = src[i] * sign;
  };

  // How far a joint's errors reach over frames [first, first + count), in model units: `lever`, the distance
  // to its farthest descendant plus the shell (what a rotation error turns), and `parent_scale`, the
  // largest length a unit of its local translation takes in model space (its parent's widest axis).
  struct Reach {
    std::vector<float> lever, parent_scale;
  };
  // Per frame first (a joint's descendants walked once per clip), then the largest over each frame range.
  std::vector<float> frame_lever(reference.size(), 0.f), frame_parent_scale(reference.size(), 1.f);
  for (int f = 0; f < frames; ++f)
    for (int d = 0; d < joints; ++d) {
      const Vec3 here = model_at(f, d).translation();
      float* lever = frame_lever.data() + static_cast<size_t>(f) * joints;
      for (int a = d; a >= 0; a = parents[a])
        lever[a] = std::max(lever[a], length(here - model_at(f, a).translation()));
      if (parents[d] >= 0) {
        const Mat4& m = model_at(f, parents[d]);
        float widest = 0.f;
        for (int k = 0; k < 3; ++k)
          widest = std::max(widest, length(Vec3{m.m[4 * k], m.m[4 * k + 1], m.m[4 * k + 2]}));
        frame_parent_scale[static_cast<size_t>(f) * joints + d] = widest;
      }
    }
  auto reach_over = [&](int first, int count) {
    Reach r{std::vector<float>(joints, 0.f), std::vector<float>(joints, 0.f)};
    for (int f = first; f < first + count; ++f)
      for (int d = 0; d < joints; ++d) {
        const size_t at = static_cast<size_t>(f) * joints + d;
        r.lever[d] = std::max(r.lever[d], frame_lever[at]);
        r.parent_scale[d] = std::max(r.parent_scale[d], frame_parent_scale[at]);
      }
    for (float& l : r.lever) l += settings.shell_distance;
    return r;
  };
  // Model-space displacement per unit of a channel's components: a translation moves by the parent's scale,
  // a rotation turns the lever, a relative change of scale stretches it (a scale of `smallest_scale`
  // changing by ds changes by ds / smallest_scale).
  auto reach = [](const Reach& r, int j, int kind, float smallest_scale) {
    return kind == 0   ? r.parent_scale[j]
           : kind == 1 ? r.lever[j]
                       : r.lever[j] / std::max(smallest_scale, 1e-6f);
  };

  // 1. Channels that barely move become constants: those within a sliver of the tolerance of one value, and
  // those whose estimated error as a constant is within `constant_share`, a quarter of the tolerance
  // (confirmed on every frame below; the rest of the tolerance is left to the quantized channels). Constants
  // at the skeleton's rest pose are not stored at all; the other channels get their clip range. A sliver is a
  // thousandth of the tolerance in model space (1e-7 of a rotation's components).
  const float constant_share = 0.25f * settings.tolerance;
  const auto rest = skeleton.rest_pose();
  const Reach clip_reach = reach_over(0, frames);
  enum class Storage : uint8_t { kRest, kConstant, kAnimated };
  struct ChannelPlan {
    Storage storage = Storage::kAnimated;
    bool approximated = false;  // constant by estimate: it still moves a little
    float value[4] = {0, 0, 0, 1};
    float lo[3], hi[3];
    float min_w = 1.f;           // rotations: the smallest w over the clip
    float smallest_scale = 1.f;  // scales: the smallest magnitude over the clip
    float slack = 0;             // a sliver of the tolerance in the channel's units
  };
  std::vector<ChannelPlan> plan(static_cast<size_t>(joints) * 3);
  for (int j = 0; j < joints; ++j)
    for (int kind = 0; kind < 3; ++kind) {
      ChannelPlan& cp = plan[j * 3u + kind];
      std::fill_n(cp.lo, 3, 1e30f);
      std::fill_n(cp.hi, 3, -1e30f);
      cp.smallest_scale = 1e30f;
      for (int f = 0; f < frames; ++f) {
        float v[4];
        value(f, j, kind, v);
        for (int i = 0; i < 3; ++i) {
          cp.lo[i] = std::min(cp.lo[i], v[i]), cp.hi[i] = std::max(cp.hi[i], v[i]);
          cp.smallest_scale = std::min(cp.smallest_scale, std::fabs(v[i]));
        }
        if (kind == 1) cp.min_w = std::min(cp.min_w, v[3]);
      }
      const float clip_reach_here = reach(clip_reach, j, kind, cp.smallest_scale);
      cp.slack = kind == 1 ? 1e-7f : 1e-3f * settings.tolerance / std::max(clip_reach_here, 1e-30f);
      const float* at_rest = kind == 0 ? rest[j].translation : kind == 1 ? rest[j].rotation : rest[j].scale;
      const float sign = kind == 1 && at_rest[3] < 0 ? -1.f : 1.f;  // the same hemisphere as `value`
      float from_rest = 0, from_middle = 0;
      for (int i = 0; i < 3; ++i) {
        from_rest = std::max(
            {from_rest, std::fabs(cp.hi[i] - sign * at_rest[i]), std::fabs(cp.lo[i] - sign * at_rest[i])});
        from_middle = std::max(from_middle, 0.5f * (cp.hi[i] - cp.lo[i]));
      }
      auto close_enough = [&](float deviation) {
        return estimated_error(kind, 0, 2.f * deviation, clip_reach_here, cp.min_w) <= constant_share;
      };
      if (from_rest <= cp.slack || close_enough(from_rest)) {
        cp.storage = Storage::kRest;
        cp.approximated = from_rest > cp.slack;
        for (int i = 0; i < 4; ++i) cp.value[i] = sign * at_rest[i];
      } else if (2.f * from_middle <= cp.slack || close_enough(from_middle)) {
        cp.storage = Storage::kConstant;
        cp.approximated = 2.f * from_middle > cp.slack;
        if (cp.approximated) {
          float middle[3];
          for (int i = 0; i < 3; ++i) middle[i] = 0.5f * (cp.lo[i] + cp.hi[i]);
          if (kind == 1)
            detail::rebuild_rotation(middle, cp.value);
          else
            std::copy_n(middle, 3, cp.value);
        } else {
          value(0, j, kind, cp.value);
        }
      }
    }
  // Confirm the estimated constants on every frame (the animated channels exact): while a joint is over
  // `constant_share`, the estimated constants on its path go back to being animated.
  {
    std::vector<JointPose> pose(joints);
    std::vector<Mat4> model(joints);
    for (bool changed = true; changed;) {
      changed = false;
      std::vector<char> over(joints, 0);
      for (int f = 0; f < frames; ++f) {
        std::copy_n(clip.frames().begin() + static_cast<size_t>(f) * joints, joints, pose.begin());
        for (int j = 0; j < joints; ++j)
          for (int kind = 0; kind < 3; ++kind) {
            const ChannelPlan& cp = plan[j * 3u + kind];
            if (cp.storage == Storage::kAnimated) continue;
            JointPose& p = pose[j];
            std::copy_n(cp.value, kind == 1 ? 4 : 3,
                        kind == 0   ? p.translation
                        : kind == 1 ? p.rotation
                                    : p.scale);
          }
        LocalToModelJob{&skeleton, pose, model}.run();
        for (int j = 0; j < joints; ++j) {
          const size_t at = static_cast<size_t>(f) * joints + j;
          if (!(vertex_error(reference[at], shell[at], model[j]) <= constant_share)) over[j] = 1;
        }
      }
      for (int j = 0; j < joints; ++j)
        if (over[j])
          for (int a = j; a >= 0; a = parents[a])
            for (int kind = 0; kind < 3; ++kind) {
              ChannelPlan& cp = plan[a * 3u + kind];
              if (cp.approximated && cp.storage != Storage::kAnimated)
                cp.storage = Storage::kAnimated, changed = true;
            }
    }
  }
  std::vector<Clip::ConstantChannel> constants;
  std::vector<Clip::QuantizedChannel> channels;
  std::vector<float> channel_smallest_scale;
  for (int j = 0; j < joints; ++j)
    for (int kind = 0; kind < 3; ++kind) {
      const ChannelPlan& cp = plan[j * 3u + kind];
      if (cp.storage == Storage::kConstant) {
        Clip::ConstantChannel ch;
        ch.joint = static_cast<uint16_t>(j);
        ch.kind = static_cast<uint8_t>(kind);
        std::copy_n(cp.value, 4, ch.value);
        constants.push_back(ch);
      } else if (cp.storage == Storage::kAnimated) {
        Clip::QuantizedChannel ch;
        ch.joint = static_cast<uint16_t>(j);
        ch.kind = static_cast<uint8_t>(kind);
        // A component that stays within a sliver of one value gets extent 0: it takes no bits.
        for (int i = 0; i < 3; ++i) {
          const bool still = cp.hi[i] - cp.lo[i] <= cp.slack;
          ch.min[i] = still ? 0.5f * (cp.lo[i] + cp.hi[i]) : cp.lo[i];
          ch.extent[i] = still ? 0.f : cp.hi[i] - cp.lo[i];
        }
        channels.push_back(ch);
        channel_smallest_scale.push_back(cp.smallest_scale);
      }
    }
  const size_t channel_count = channels.size();
  std::vector<std::vector<int>> channels_of_joint(joints);
  for (size_t c = 0; c < channel_count; ++c)
    channels_of_joint[channels[c].joint].push_back(static_cast<int>(c));
  std::vector<JointPose> base_pose(rest.begin(), rest.end());  // rest pose and constant channels
  for (const auto& ch : constants) {
    JointPose& p = base_pose[ch.joint];
    std::copy_n(ch.value, ch.kind == 1 ? 4 : 3,
                ch.kind == 0   ? p.translation
                : ch.kind == 1 ? p.rotation
                               : p.scale);
  }
  std::vector<Mat4> base_local(joints);  // its local matrices, what every frame starts from
  std::transform(base_pose.begin(), base_pose.end(), base_local.begin(),
                 [](const JointPose& p) { return detail::trs_to_matrix(to_transform(p)); });

  // Channel c of frame f decoded at the segment's bit rate q into its joint's pose, exactly as
  // Clip::decode_frame does.
  auto decode_channel = [&](size_t c, int f, const Clip::SegmentChannel& q, JointPose& p) {
    const auto& ch = channels[c];
    float v[4];
    value(f, ch.joint, ch.kind, v);
    if (q.bits == Clip::kBitsFullRotation) {
      std::copy_n(v, 4, p.rotation);
      return;
    }
    if (q.bits == Clip::kBitsFloat) {
      for (int i = 0; i < 3; ++i)
        if (!(ch.extent[i] > 0)) v[i] = ch.min[i];
    } else {
      for (int i = 0; i < 3; ++i) {
        float lo, sp;
        detail::segment_range(ch.min[i], ch.extent[i], q.range_min[i], q.range_extent[i], lo, sp);
        float base, step;
        detail::dequantizer(lo, sp, q.bits, base, step);
        v[i] = detail::dequantize(base, step, detail::quantize(v[i], lo, sp, q.bits));
      }
    }
    if (ch.kind == 1)
      detail::rebuild_rotation(v, p.rotation);
    else
      std::copy_n(v, 3, ch.kind == 0 ? p.translation : p.scale);
  };

  // 2. Per segment of `segment_frames` frames: its ranges, then the bit rates (each segment's error depends
  // on its own frames only); 3. the packed frames.
  auto encode = [&](int segment_frames) -> Result<Clip> {
    const int segment_count = (frames + segment_frames - 1) / segment_frames;
    std::vector<Clip::SegmentChannel> table(static_cast<size_t>(segment_count) * channel_count);
    // The segment as decoded with the current bit rates: local poses, their matrices and the model matrices
    // per frame, and the worst error per joint. A trial changes one joint's pose: its matrix is rebuilt and
    // the products below it redone, the other local matrices reused.
    std::vector<JointPose> poses(static_cast<size_t>(segment_frames) * joints), saved_poses(segment_frames);
    std::vector<Mat4> local(poses.size()), saved_local(segment_frames);
    std::vector<Mat4> model(poses.size()), saved_model(model.size());
    std::vector<float> joint_error(joints), subtree_error(joints);
    for (int s = 0; s < segment_count; ++s) {
      const int first = s * segment_frames, count = std::min(segment_frames, frames - first);
      Clip::SegmentChannel* q = table.data() + static_cast<size_t>(s) * channel_count;
      std::vector<float> span(channel_count), min_w(channel_count, 1.f);
      for (size_t c = 0; c < channel_count; ++c) {
        const auto& ch = channels[c];
        float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
        for (int f = first; f < first + count; ++f) {
          float v[4];
          value(f, ch.joint, ch.kind, v);
          for (int i = 0; i < 3; ++i) lo[i] = std::min(lo[i], v[i]), hi[i] = std::max(hi[i], v[i]);
          if (ch.kind == 1) min_w[c] = std::min(min_w[c], v[3]);
        }
        for (int i = 0; i < 3; ++i) {
          if (!(ch.extent[i] > 0)) continue;  // a constant component: range 0 decodes to min
          const float a = (lo[i] - ch.min[i]) / ch.extent[i] * 255.f,
                      b = (hi[i] - ch.min[i]) / ch.extent[i] * 255.f;
          const int qmin = std::clamp(static_cast<int>(std::floor(a)), 0, 255);
          const int qmax = std::clamp(static_cast<int>(std::ceil(b)), qmin, 255);
          q[c].range_min[i] = static_cast<uint8_t>(qmin);
          q[c].range_extent[i] = static_cast<uint8_t>(qmax - qmin);
          float seg_lo, seg_span;
          detail::segment_range(ch.min[i], ch.extent[i], q[c].range_min[i], q[c].range_extent[i], seg_lo,
                                seg_span);
          span[c] = std::max(span[c], seg_span);
        }
      }
      const Reach segment_reach = reach_over(first, count);
      auto estimate = [&](size_t c, int bits) {
        const auto& ch = channels[c];
        return estimated_error(ch.kind, bits, span[c],
                               reach(segment_reach, ch.joint, ch.kind, channel_smallest_scale[c]), min_w[c]);
      };

      // The channels `changed` lists decoded anew at their bit rates, the local matrices of their joints,
      // then the model matrices and errors of the joints from `from` on (joints before it keep theirs:
      // parents come first).
      auto evaluate = [&](std::span<const size_t> changed, int from) {
        std::fill(joint_error.begin() + from, joint_error.end(), 0.f);
        for (int f = 0; f < count; ++f) {
          const std::span<JointPose> pose(poses.data() + static_cast<size_t>(f) * joints, joints);
          const std::span<Mat4> matrices(model.data() + static_cast<size_t>(f) * joints, joints);
          const std::span<Mat4> locals(local.data() + static_cast<size_t>(f) * joints, joints);
          for (size_t c : changed) decode_channel(c, first + f, q[c], pose[channels[c].joint]);
          for (size_t c : changed)
            locals[channels[c].joint] = detail::trs_to_matrix(to_transform(pose[channels[c].joint]));
          model_from_locals(parents, locals, from, joints, matrices);
          for (int j = from; j < joints; ++j) {
            const size_t at = static_cast<size_t>(first + f) * joints + j;
            joint_error[j] = std::max(joint_error[j], vertex_error(reference[at], shell[at], matrices[j]));
          }
        }
        return *std::max_element(joint_error.begin(), joint_error.end());
      };
      // Where each channel's next trial starts: the frame where its last trial failed. A channel is tried
      // again in every round of the lowering and mostly fails where it failed before; the outcome does not
      // depend on the order of the frames, only how soon a failure is seen.
      std::vector<int> first_tried(channel_count, 0);
      // Channel c at `bits`, kept when every joint its change reaches (the joint's subtree) stays within the
      // tolerance on every frame; only that subtree is decoded and measured again, and the first frame over
      // the tolerance ends the trial.
      auto try_bits = [&](size_t c, int bits) {
        const int j = channels[c].joint, end = skeleton.subtree_end(j);
        const uint8_t before = q[c].bits;
        q[c].bits = static_cast<uint8_t>(bits);
        std::fill(subtree_error.begin() + j, subtree_error.begin() + end, 0.f);
        auto nth_frame = [&](int n) { return (first_tried[c] + n) % count; };
        int done = 0;
        bool within = true;
        for (; done < count && within; ++done) {
          const int f = nth_frame(done);
          const size_t row = static_cast<size_t>(f) * joints;
          const std::span<JointPose> pose(poses.data() + row, joints);
          const std::span<Mat4> locals(local.data() + row, joints), matrices(model.data() + row, joints);
          saved_poses[f] = pose[j];
          saved_local[f] = locals[j];
          std::copy(matrices.begin() + j, matrices.begin() + end, saved_model.begin() + row + j);
          decode_channel(c, first + f, q[c], pose[j]);
          locals[j] = detail::trs_to_matrix(to_transform(pose[j]));
          model_from_locals(parents, locals, j, end, matrices);
          for (int k = j; k < end; ++k) {
            const size_t at = static_cast<size_t>(first + f) * joints + k;
            const float e = vertex_error(reference[at], shell[at], matrices[k]);
            if (!(e <= settings.tolerance)) within = false;
            subtree_error[k] = std::max(subtree_error[k], e);
          }
        }
        if (within) {
          std::copy(subtree_error.begin() + j, subtree_error.begin() + end, joint_error.begin() + j);
          return true;
        }
        for (int n = 0; n < done; ++n) {
          const size_t row = static_cast<size_t>(nth_frame(n)) * joints;
          poses[row + j] = saved_poses[nth_frame(n)];
          local[row + j] = saved_local[nth_frame(n)];
          std::copy(saved_model.begin() + row + j, saved_model.begin() + row + end, model.begin() + row + j);
        }
        first_tried[c] = nth_frame(done - 1);
        q[c].bits = before;
        return false;
      };

      // Start from the estimate (half the tolerance per channel), raise the culprits of joints still over the
      // tolerance one step at a time, then lower each channel as far as the measured error allows.
      for (size_t c = 0; c < channel_count; ++c) {
        int bits = 0;
        while (bits < Clip::kMaxQuantizedBits && estimate(c, bits) > 0.5f * settings.tolerance) ++bits;
        if (estimate(c, bits) > 0.5f * settings.tolerance) bits = Clip::kBitsFloat;
        q[c].bits = static_cast<uint8_t>(bits);
      }
      for (int f = 0; f < count; ++f) {
        std::copy(base_pose.begin(), base_pose.end(),
                  poses.begin() + static_cast<std::ptrdiff_t>(f) * joints);
        std::copy(base_local.begin(), base_local.end(),
                  local.begin() + static_cast<std::ptrdiff_t>(f) * joints);
      }
      std::vector<size_t> changed(channel_count);
      for (size_t c = 0; c < channel_count; ++c) changed[c] = c;
      float worst = evaluate(changed, 0);
      for (size_t round = 0; !(worst <= settings.tolerance) && round < 20 * channel_count + 8; ++round) {
        std::vector<char> raised(channel_count, 0);
        changed.clear();
        for (int j = 0; j < joints; ++j) {
          if (joint_error[j] <= settings.tolerance) continue;
          int best = -1;
          float best_score = -1;
          for (int a = j; a >= 0; a = parents[a])
            for (int c : channels_of_joint[a]) {
              if (raised[c] || !finer_bits(channels[c].kind, q[c].bits)) continue;
              const float score = estimate(c, q[c].bits);
              if (score > best_score) best_score = score, best = c;
            }
          if (best < 0) continue;
          q[best].bits = static_cast<uint8_t>(finer_bits(channels[best].kind, q[best].bits));
          raised[best] = true;
          changed.push_back(static_cast<size_t>(best));
        }
        if (changed.empty()) break;
        int from = joints;
        for (size_t c : changed) from = std::min(from, static_cast<int>(channels[c].joint));
        worst = evaluate(changed, from);
      }
      if (worst <= settings.tolerance) {
        std::vector<size_t> order(channel_count);
        for (size_t c = 0; c < channel_count; ++c) order[c] = c;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return q[a].bits > q[b].bits; });
        // Round-robin, one step per channel and round: the error budget is shared out instead of going to
        // the first channels tried.
        for (bool lowered = true; lowered;) {
          lowered = false;
          for (size_t c : order)
            if (q[c].bits > 0 && try_bits(c, coarser_bits(q[c].bits))) lowered = true;
        }
      }
    }
    // 3. Pack: segment after segment, frame after frame (each from a byte boundary), channel after channel.
    std::vector<uint8_t> packed;
    uint64_t bit = 0;
    auto put = [&](uint32_t v, int count) {  // the low `count` bits of v from bit `bit` on
      if (count == 0) return;
      packed.resize(std::max(packed.size(), static_cast<size_t>((bit + count + 7) >> 3)));
      uint64_t shifted = (count < 32 ? v & ((1u << count) - 1) : v) * (uint64_t{1} << (bit & 7));
      for (size_t b = bit >> 3; shifted; ++b, shifted >>= 8) packed[b] |= static_cast<uint8_t>(shifted);
      bit += count;
    };
    auto put_float = [&](float f) {
      uint32_t u;
      std::memcpy(&u, &f, 4);
      put(u, 32);
    };
    for (int s = 0; s < segment_count; ++s) {
      const int first = s * segment_frames, count = std::min(segment_frames, frames - first);
      const Clip::SegmentChannel* q = table.data() + static_cast<size_t>(s) * channel_count;
      for (int f = first; f < first + count; ++f) {
        for (size_t c = 0; c < channel_count; ++c) {
          const auto& ch = channels[c];
          float v[4];
          value(f, ch.joint, ch.kind, v);
          if (q[c].bits == Clip::kBitsFullRotation) {
            for (int i = 0; i < 4; ++i) put_float(v[i]);
            continue;
          }
          for (int i = 0; i < 3; ++i) {
            const int bits = detail::component_bits(ch, i, q[c].bits);
            if (q[c].bits == Clip::kBitsFloat) {
              if (bits) put_float(v[i]);
              continue;
            }
            float lo, sp;
            detail::segment_range(ch.min[i], ch.extent[i], q[c].range_min[i], q[c].range_extent[i], lo, sp);
            put(detail::quantize(v[i], lo, sp, q[c].bits), bits);
          }
        }
        bit = (bit + 7) & ~uint64_t{7};  // each frame from a byte boundary
      }
    }

    return Clip::from_quantized(
        clip.name(), clip.duration(), clip.frame_rate(), rest,
        {frames, segment_frames, constants, channels, std::move(table), std::move(packed)});
  };
  // Short segments follow the motion closely but each costs a range per channel; keep the smallest.
  Result<Clip> built = encode(std::min(Clip::kSegmentFrames, frames));
  for (int segment_frames : {32, 64, frames}) {
    if (!built || segment_frames > frames || segment_frames <= Clip::kSegmentFrames) continue;
    Result<Clip> other = encode(segment_frames);
    if (other && other->stored_bytes() < built->stored_bytes()) built = std::move(other);
  }
  if (!built) return Result<Clip>::failure(built.error());
  const Clip& result = *built;
  const int segment_frames = result.segment_frames(),
            segment_count = (frames + segment_frames - 1) / segment_frames;

  // 4. The bound, checked on the clip as the runtime decodes it.
  std::vector<float> errors = vertex_errors(reference, shell, model_frames(result, skeleton));
  if (stats) {
    *stats = {};
    stats->raw_bytes = raw_bytes(clip);
    stats->compressed_bytes = result.stored_bytes();
    summarize_errors(errors, stats->max_error, stats->p99_error);
    stats->constant_channels = joints * 3 - static_cast<int>(channel_count);
    stats->animated_channels = static_cast<int>(channel_count);
    double bits = 0;
    for (int s = 0; s < segment_count; ++s) {
      const int count = std::min(segment_frames, frames - s * segment_frames);
      for (size_t c = 0; c < channel_count; ++c)
        bits += count *
                detail::channel_frame_bits(result.quantized_channels()[c],
                                           result.segment_channels()[s * channel_count + c].bits) /
                3.0;
    }
    stats->average_bits = channel_count ? bits / (static_cast<double>(frames) * channel_count) : 0;
  }
  for (float e : errors)
    if (!(e <= settings.tolerance))
      return Result<Clip>::failure("clip '" + clip.name() + "': the error bound could not be met");
  // Without the meshes, morph weights stay exact keys (ossa/offline/morph_compression.h).
  return Clip::with_morph_weights(std::move(built).value(), clip.morph_weights());
}

// Every `step`-th frame of a fixed-rate clip as a clip at 1/step of its rate (the last frame stays at the
// clip's end); an error when the frames do not fall on that grid or fewer than two would remain.
Result<Clip> every_nth_frame(const Clip& clip, int step) {
  const int frames = clip.frame_count(), joints = clip.joint_count();
  const float rate = clip.frame_rate() / static_cast<float>(step);
  const int64_t kept = Clip::frame_count_for(clip.duration(), rate);
  if (kept < 2 || (kept - 2) * step >= frames - 1) return Result<Clip>::failure("too few frames");
  std::vector<JointPose> out;
  out.reserve(static_cast<size_t>(kept) * joints);
  for (int64_t k = 0; k < kept; ++k) {
    const int64_t f = k + 1 < kept ? k * step : frames - 1;
    const auto first = clip.frames().begin() + static_cast<std::ptrdiff_t>(f * joints);
    out.insert(out.end(), first, first + joints);
  }
  return Clip::from_frames(clip.name(), clip.duration(), rate, joints, std::move(out));
}

}  // namespace

Result<Clip> compress_clip(const Clip& clip, const Skeleton& skeleton, const CompressionSettings& settings,
                           CompressionStats* stats) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  if (clip.layout() != Clip::Layout::kFixedRate)
    return Result<Clip>::failure("clip '" + clip.name() + "': compression starts from a fixed-rate clip");
  if (!settings.meshes.empty() && !clip.morph_weights().empty())  // the tolerance shared with the weights
    return compress_clip_with_morph_weights(clip, skeleton, settings, stats);
  if (clip.joint_count() != skeleton.joint_count())
    return Result<Clip>::failure("clip '" + clip.name() + "' was not made for this skeleton");
  // Fewer frames where the motion allows (a clip resampled above its keys' rate, or motion slow enough):
  // every 2nd, 4th, ... frame, while dropping the others costs at most 9/10 of the tolerance. Measured at the
  // clip's frames and at quarters between them: over two or more frames the interpolated rotations leave the
  // path the clip's own interpolation takes, most between its frames (Fox's Walk: 0.06 mm off at its
  // frames, 7.6 mm between them). Each check stops at the first quarter over its share (most clips keep
  // every frame, and learn it within their first frames), and the checks stop at the first grid that fails.
  // Fewer frames also mean fewer decodes per update.
  GridReference between(clip, skeleton, clip.frame_rate() * 4, settings.shell_distance);
  const float max_drop = settings.tolerance * 0.9f;
  struct Grid {
    int step;
    float drop;
  };
  std::vector<Grid> holding;
  for (int step = 2, frames = clip.frame_count(); step <= 64; step *= 2) {
    auto fewer = every_nth_frame(clip, step);
    if (!fewer || fewer->frame_count() >= frames) break;  // none, or no fewer frames than the last grid
    frames = fewer->frame_count();
    const std::vector<float> dropped = errors_on_grid(between, *fewer, skeleton, max_drop);
    if (dropped.empty()) break;  // a grid too fine to measure
    const float drop = *std::max_element(dropped.begin(), dropped.end());
    if (!(drop <= max_drop)) break;
    holding.push_back({step, drop});
  }
  // The coarsest of those grids quantized within the rest of the tolerance, measured again the same way; the
  // next finer where it cannot hold the bound, every frame where none can. Quantization errors at the kept
  // frames carry into the dropped ones on top of what dropping costs: where the sum exceeds the tolerance,
  // quantize finer by the excess (twice at most) and measure again. Coarser is kept without compressing the
  // finer grids too: halving the frames halves the packed frames, and the tolerance left for quantization
  // (at least a tenth of it) costs at most log2(10) = 3.3 bits a component more, against the 8-24 bits a
  // component that the bound costs on the models here.
  for (auto grid = holding.rbegin(); grid != holding.rend(); ++grid) {
    auto fewer = every_nth_frame(clip, grid->step);
    CompressionSettings rest = settings;
    rest.tolerance = settings.tolerance - grid->drop;
    CompressionStats candidate_stats;
    Result<Clip> candidate = Result<Clip>::failure("");
    std::vector<float> errors;
    for (int attempt = 0; attempt < 3 && rest.tolerance > settings.tolerance * 0.1f; ++attempt) {
      candidate = compress_every_frame(*fewer, skeleton, rest, &candidate_stats);
      if (!candidate) break;
      errors = errors_on_grid(between, *candidate, skeleton);
      const float worst = errors.empty() ? 0.f : *std::max_element(errors.begin(), errors.end());
      if (worst <= settings.tolerance) break;
      rest.tolerance -= 1.25f * (worst - settings.tolerance);
      candidate = Result<Clip>::failure("over the bound");
    }
    if (!candidate) continue;
    candidate_stats.raw_bytes = raw_bytes(clip);  // the clip as given
    summarize_errors(errors, candidate_stats.max_error, candidate_stats.p99_error);
    candidate_stats.stored_frame_rate = fewer->frame_rate();
    if (stats) *stats = candidate_stats;
    return Clip::with_morph_weights(std::move(candidate).value(), clip.morph_weights());
  }
  CompressionStats best_stats;
  Result<Clip> best = compress_every_frame(clip, skeleton, settings, &best_stats);
  if (!best) return best;
  best_stats.stored_frame_rate = clip.frame_rate();
  if (stats) *stats = best_stats;
  return Clip::with_morph_weights(std::move(best).value(), clip.morph_weights());
}

}  // namespace ossa
