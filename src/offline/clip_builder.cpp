// Clip builders (ossa::offline): fixed-rate and keyed clips from raw keys (Clip::build_fixed_rate,
// Clip::build_keyed) and additive clips (make_additive_clip). Declared in ossa/asset/clip.h and
// ossa/offline/clip_builder.h; a game that loads .ossa files never runs them.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/asset/skeleton.h"
#include "ossa/offline/clip_builder.h"

namespace ossa {
namespace {

// Raw keys at `time`: the key pair around it (clamped at both ends), lerped or slerped. (The test oracle,
// src/reference/, has its own: it checks what this builds.)
struct KeySpan {
  size_t a = 0, b = 0;
  float t = 0;
};
KeySpan find_span(const std::vector<float>& times, float time) {
  KeySpan s;
  if (times.size() < 2 || time <= times.front()) return s;
  if (time >= times.back()) {
    s.a = s.b = times.size() - 1;
    return s;
  }
  const size_t hi = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), time) - times.begin());
  s.a = hi - 1;
  s.b = hi;
  const float dt = times[s.b] - times[s.a];
  s.t = dt > 0 ? (time - times[s.a]) / dt : 0.f;
  return s;
}
Vec3 sample_keys(const std::vector<float>& times, const std::vector<Vec3>& values, float time,
                 Vec3 fallback) {
  if (values.empty()) return fallback;
  const KeySpan s = find_span(times, time);
  return lerp(values[s.a], values[s.b], s.t);
}
Quat sample_keys(const std::vector<float>& times, const std::vector<Quat>& values, float time,
                 Quat fallback) {
  if (values.empty()) return fallback;
  const KeySpan s = find_span(times, time);
  return slerp(values[s.a], values[s.b], s.t);
}

}  // namespace

namespace {
std::string check_tracks(const RawClip& raw, const Skeleton& skeleton) {
  for (const RawTrack& t : raw.tracks)
    if (t.joint < 0 || t.joint >= skeleton.joint_count())
      return "clip '" + raw.name + "': a track targets joint " + std::to_string(t.joint) + " of " +
             std::to_string(skeleton.joint_count());
  if (!std::isfinite(raw.duration) || raw.duration < 0 || raw.duration > Clip::kMaxDuration)
    return "clip '" + raw.name + "': invalid duration";
  return {};
}

// The smallest common frame rate on whose grid every key lies, or 0 when none fits: the usual rates first,
// then the keys' own spacing (29.97 fps video, or any other grid). A key at the clip's end (or after it)
// needs no grid point: the last frame is at the end whatever the rate (an action that ends between frames
// ends on a key off the grid).
float rate_from_keys(const RawClip& raw) {
  std::vector<float> times;
  for (const RawTrack& t : raw.tracks)
    for (const auto* v : {&t.translation_times, &t.rotation_times, &t.scale_times})
      times.insert(times.end(), v->begin(), v->end());
  auto fits = [&](double rate) {
    const double end = static_cast<double>(raw.duration) * rate;
    return std::all_of(times.begin(), times.end(), [&](float t) {
      double f = static_cast<double>(t) * rate;
      return std::fabs(f - std::round(f)) < 2e-3 || f > end - 2e-3;
    });
  };
  for (float rate : {24.f, 25.f, 30.f, 48.f, 50.f, 60.f, 100.f, 120.f})
    if (fits(rate)) return rate;
  // The keys' own rate: one over the shortest gap between the keys before the end, refined on the last of
  // them (a gap between two floats is off by their rounding; the last key's frame number is not).
  std::vector<float> inner;
  std::copy_if(times.begin(), times.end(), std::back_inserter(inner),
               [&](float t) { return t < raw.duration && std::isfinite(t); });
  std::sort(inner.begin(), inner.end());
  inner.erase(std::unique(inner.begin(), inner.end()), inner.end());
  double gap = 0;
  for (size_t k = 1; k < inner.size(); ++k)
    if (gap == 0 || inner[k] - inner[k - 1] < gap) gap = static_cast<double>(inner[k]) - inner[k - 1];
  if (!(gap > 0) || !(inner.back() > 0)) return 0;
  const double frames = std::round(static_cast<double>(inner.back()) / gap);
  const double rate = frames / static_cast<double>(inner.back());
  // Keys sparser than 10 a second are not a frame rate: such a clip keeps the 60 fps fallback, since the
  // rate's doublings for fast turns (here and in bakes, up to 8x) start from it.
  return rate >= 10 && rate <= Clip::kMaxFrameRate && fits(rate) ? static_cast<float>(rate) : 0;
}

}  // namespace

namespace {
// Whether no joint turns more than an angle between consecutive frames, tested on the quaternions' dot
// product (cos of half the angle) against the cosine of half that angle, given as a number: no acos per
// frame, so the decision does not depend on the platform's libm (the frame rate it picks is part of the
// file's bytes).
bool rotation_steps_within(const std::vector<JointPose>& frames, int joints, int frame_count,
                           float cos_half_max_step) {
  for (int f = 1; f < frame_count; ++f)
    for (int j = 0; j < joints; ++j) {
      const size_t i = static_cast<size_t>(f) * joints + j;
      if (!(std::fabs(rotation_dot(frames[i - joints], frames[i])) >= cos_half_max_step)) return false;
    }
  return true;
}
}  // namespace

void Clip::resample(const RawClip& raw, const Skeleton& skeleton) {
  frame_count_ = static_cast<int>(frame_count_for(duration_, frame_rate_));
  const int joints = joint_count_;
  frames_.assign(static_cast<size_t>(frame_count_) * joints, JointPose{});
  std::vector<const RawTrack*> track_of(joints, nullptr);
  for (const RawTrack& t : raw.tracks) track_of[t.joint] = &t;
  for (int f = 0; f < frame_count_; ++f) {
    float time = f == frame_count_ - 1 ? duration_ : std::min(duration_, f / frame_rate_);
    JointPose* out = &frames_[static_cast<size_t>(f) * joints];
    for (int j = 0; j < joints; ++j) {
      Transform t = to_transform(skeleton.rest_pose()[j]);
      if (const RawTrack* track = track_of[j]) {
        t.translation = sample_keys(track->translation_times, track->translations, time, t.translation);
        t.rotation = sample_keys(track->rotation_times, track->rotations, time, t.rotation);
        t.scale = sample_keys(track->scale_times, track->scales, time, t.scale);
      }
      out[j] = to_joint_pose(t);
      flush_denormals(out[j]);
      if (f > 0) {  // keep consecutive rotations on one hemisphere, so blending needs no sign test
        const float* prev = frames_[static_cast<size_t>(f - 1) * joints + j].rotation;
        float d = prev[0] * out[j].rotation[0] + prev[1] * out[j].rotation[1] + prev[2] * out[j].rotation[2] +
                  prev[3] * out[j].rotation[3];
        if (d < 0)
          for (float& q : out[j].rotation) q = -q;
      }
    }
  }
}

Result<Clip> Clip::build_fixed_rate(const RawClip& raw, const Skeleton& skeleton, float frame_rate) {
  if (std::string e = check_tracks(raw, skeleton); !e.empty()) return Result<Clip>::failure(e);
  auto morph = MorphWeightTracks::build(raw.morph_tracks, "clip '" + raw.name + "'");
  if (!morph) return Result<Clip>::failure(morph.error());
  if (!(frame_rate >= 0) || frame_rate > 10000)
    return Result<Clip>::failure("frame rate must be 0 (auto) to 10000");
  Clip c;
  c.name_ = raw.name;
  c.duration_ = raw.duration;
  c.joint_count_ = skeleton.joint_count();
  c.layout_ = Layout::kFixedRate;
  c.morph_weights_ = std::move(morph).value();
  float base = frame_rate > 0 ? frame_rate : rate_from_keys(raw);
  if (base == 0) base = 60;
  // Hostile or broken files can claim clips of days: resampled frames are capped at 256 MB per clip (the
  // keyed layout has no such cost).
  constexpr double kMaxFrameBytes = 256.0 * 1024 * 1024;
  auto frame_bytes = [&](double rate) {
    return (static_cast<double>(c.duration_) * rate + 2) * c.joint_count_ *
           static_cast<double>(sizeof(JointPose));
  };
  if (frame_bytes(base) > kMaxFrameBytes)
    return Result<Clip>::failure("clip '" + raw.name + "': " + std::to_string(c.duration_) + " s at " +
                                 std::to_string(base) +
                                 " fps is too much to resample (use the keyed layout)");
  // Frames stay at the keys' rate: the sampler slerps between them (Eberly's series), so the clip between
  // two frames is the source's own slerp between its keys. Only a joint that turns over 91 degrees between
  // frames doubles an automatic rate (up to 8x): beyond that the sampler's series gives way to sines.
  constexpr float kCosHalfMaxStep = 0.7f;  // 1 - kSlerpMid (runtime/kernels/kernels.h): cos(45.6 degrees)
  for (int multiple = 1;; multiple *= 2) {
    c.frame_rate_ = base * static_cast<float>(multiple);
    c.resample(raw, skeleton);
    if (frame_rate > 0 || multiple == 8 || frame_bytes(c.frame_rate_ * 2) > kMaxFrameBytes) break;
    if (rotation_steps_within(c.frames_, c.joint_count_, c.frame_count_, kCosHalfMaxStep)) break;
  }
  c.index_frames();
  return c;
}

Result<Clip> Clip::build_keyed(const RawClip& raw, const Skeleton& skeleton) {
  if (std::string e = check_tracks(raw, skeleton); !e.empty()) return Result<Clip>::failure(e);
  auto morph = MorphWeightTracks::build(raw.morph_tracks, "clip '" + raw.name + "'");
  if (!morph) return Result<Clip>::failure(morph.error());
  Clip c;
  c.morph_weights_ = std::move(morph).value();
  c.name_ = raw.name;
  c.duration_ = raw.duration;
  c.joint_count_ = skeleton.joint_count();
  c.layout_ = Layout::kKeyed;
  const int joints = c.joint_count_;
  std::vector<const RawTrack*> track_of(joints, nullptr);
  for (const RawTrack& t : raw.tracks) track_of[t.joint] = &t;
  c.channel_first_.reserve(static_cast<size_t>(joints) * 3 + 1);
  auto add_key = [&](float time, float x, float y, float z, float w) {
    c.key_times_.push_back(time);
    c.key_values_.insert(c.key_values_.end(),
                         {flush_denormal(x), flush_denormal(y), flush_denormal(z), flush_denormal(w)});
  };
  for (int j = 0; j < joints; ++j) {
    const JointPose& rest = skeleton.rest_pose()[j];
    const RawTrack* track = track_of[j];
    // Translation.
    c.channel_first_.push_back(static_cast<uint32_t>(c.key_times_.size()));
    if (track && !track->translations.empty()) {
      for (size_t k = 0; k < track->translations.size(); ++k) {
        const Vec3& v = track->translations[k];
        add_key(track->translation_times[k], v.x, v.y, v.z, 0);
      }
    } else {
      add_key(0, rest.translation[0], rest.translation[1], rest.translation[2], 0);
    }
    // Rotation.
    c.channel_first_.push_back(static_cast<uint32_t>(c.key_times_.size()));
    if (track && !track->rotations.empty()) {
      for (size_t k = 0; k < track->rotations.size(); ++k) {
        const Quat& q = track->rotations[k];
        add_key(track->rotation_times[k], q.x, q.y, q.z, q.w);
      }
    } else {
      add_key(0, rest.rotation[0], rest.rotation[1], rest.rotation[2], rest.rotation[3]);
    }
    // Scale.
    c.channel_first_.push_back(static_cast<uint32_t>(c.key_times_.size()));
    if (track && !track->scales.empty()) {
      for (size_t k = 0; k < track->scales.size(); ++k) {
        const Vec3& v = track->scales[k];
        add_key(track->scale_times[k], v.x, v.y, v.z, 0);
      }
    } else {
      add_key(0, rest.scale[0], rest.scale[1], rest.scale[2], 0);
    }
  }
  c.channel_first_.push_back(static_cast<uint32_t>(c.key_times_.size()));
  c.index_keys();
  return c;
}

Result<Clip> make_additive_clip(const Clip& clip, std::span<const JointPose> reference) {
  if (clip.layout() != Clip::Layout::kFixedRate)
    return Result<Clip>::failure("clip '" + clip.name() + "': additive clips are made from fixed-rate clips");
  const int joints = clip.joint_count();
  if (reference.size() < static_cast<size_t>(joints))
    return Result<Clip>::failure("clip '" + clip.name() + "': the reference pose has too few joints");
  std::vector<JointPose> frames(clip.frames().begin(), clip.frames().end());
  for (size_t i = 0; i < frames.size(); ++i) {
    const JointPose& ref = reference[i % joints];
    JointPose& p = frames[i];
    for (int k = 0; k < 3; ++k) {
      p.translation[k] -= ref.translation[k];
      p.scale[k] = ref.scale[k] != 0 ? p.scale[k] / ref.scale[k] : 1.f;
    }
    Quat q = conjugate(Quat{ref.rotation[0], ref.rotation[1], ref.rotation[2], ref.rotation[3]}) *
             Quat{p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]};
    q = normalize(q);
    if (q.w < 0) q = {-q.x, -q.y, -q.z, -q.w};  // the short way from identity
    p.rotation[0] = q.x, p.rotation[1] = q.y, p.rotation[2] = q.z, p.rotation[3] = q.w;
  }
  // Rotations on one hemisphere frame to frame, as the builders store them (the sampler takes the short arc
  // either way; the frames then read continuously, as in glTF exports).
  for (size_t i = joints; i < frames.size(); ++i) {
    const float* a = frames[i - joints].rotation;
    float* b = frames[i].rotation;
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0)
      for (int k = 0; k < 4; ++k) b[k] = -b[k];
  }
  // Morph weights are not made relative: additive layers add (weight - default) themselves (Animator).
  auto additive = Clip::from_frames(clip.name() + " (additive)", clip.duration(), clip.frame_rate(), joints,
                                    std::move(frames));
  if (!additive) return additive;
  return Clip::with_morph_weights(std::move(additive).value(), clip.morph_weights());
}

}  // namespace ossa
