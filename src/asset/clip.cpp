#include "ossa/asset/clip.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "../runtime/kernels/kernels.h"
#include "clip_decoder.h"
#include "ossa/asset/value_ranges.h"
#include "ossa/reference/reference_eval.h"
#include "quantization.h"

namespace ossa {
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

// The smallest common frame rate on whose grid every key lies, or 0 when none fits.
float rate_from_keys(const RawClip& raw) {
  std::vector<float> times;
  for (const RawTrack& t : raw.tracks)
    for (const auto* v : {&t.translation_times, &t.rotation_times, &t.scale_times})
      times.insert(times.end(), v->begin(), v->end());
  for (float rate : {24.f, 25.f, 30.f, 48.f, 50.f, 60.f, 100.f, 120.f}) {
    bool fits = std::all_of(times.begin(), times.end(), [&](float t) {
      double f = static_cast<double>(t) * rate;
      return std::fabs(f - std::round(f)) < 2e-3;
    });
    if (fits) return rate;
  }
  return 0;
}

}  // namespace

namespace {
// Whether no joint turns more than an angle between consecutive frames, tested on the quaternions' dot
// product (cos of half the angle) against the cosine of half that angle, given as a number: no acos per frame, so the
// decision does not depend on the platform's libm (the frame rate it picks is part of the file's bytes).
bool rotation_steps_within(const std::vector<JointPose>& frames, int joints, int frame_count,
                           float cos_half_max_step) {
  for (int f = 1; f < frame_count; ++f)
    for (int j = 0; j < joints; ++j) {
      const float* a = frames[static_cast<size_t>(f - 1) * joints + j].rotation;
      const float* b = frames[static_cast<size_t>(f) * joints + j].rotation;
      if (!(std::fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]) >= cos_half_max_step))
        return false;
    }
  return true;
}
}  // namespace

int64_t Clip::frame_count_for(float duration, float frame_rate) {
  // The last frame sits at the clip's end, closer than a full frame when duration * rate is not whole.
  const double frames = std::ceil(static_cast<double>(duration) * frame_rate - 1e-3) + 1;
  if (!(frames >= 1)) return 1;
  return frames > 1e15 ? int64_t{1} << 50 : static_cast<int64_t>(frames);
}

namespace {
// The checks every fixed-rate or quantized clip passes (see Clip::kMaxFrameRate): "" when fine.
std::string check_timing(float duration, float frame_rate, int64_t frame_count) {
  if (!std::isfinite(duration) || duration < 0 || duration > Clip::kMaxDuration)
    return "duration " + std::to_string(duration) + " s is outside 0-1e7 s";
  if (!std::isfinite(frame_rate) || !(frame_rate > 0) || frame_rate > Clip::kMaxFrameRate)
    return "frame rate " + std::to_string(frame_rate) + " is outside (0, 10000] fps";
  const int64_t expected = Clip::frame_count_for(duration, frame_rate);
  if (frame_count != expected)
    return std::to_string(frame_count) + " frames where " + std::to_string(duration) + " s at " +
           std::to_string(frame_rate) + " fps has " + std::to_string(expected);
  return {};
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
        t.translation =
            reference::sample_vec3(track->translation_times, track->translations, time, t.translation);
        t.rotation = reference::sample_quat(track->rotation_times, track->rotations, time, t.rotation);
        t.scale = reference::sample_vec3(track->scale_times, track->scales, time, t.scale);
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

Clip Clip::with_morph_weights(Clip clip, MorphWeightTracks weights) {
  clip.morph_weights_ = std::move(weights);
  return clip;
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
  // With an automatic rate, fast rotations get more frames (up to 8x) until no joint turns more than
  // 20 degrees between frames: that bounds the nlerp-versus-slerp error between frames.
  constexpr float kCosHalfMaxStep = 0.98480775f;  // cos(10 degrees)
  for (int multiple = 1;; multiple *= 2) {
    c.frame_rate_ = base * static_cast<float>(multiple);
    c.resample(raw, skeleton);
    if (frame_rate > 0 || multiple == 8 || frame_bytes(c.frame_rate_ * 2) > kMaxFrameBytes) break;
    if (rotation_steps_within(c.frames_, c.joint_count_, c.frame_count_, kCosHalfMaxStep)) break;
  }
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
  c.index_time_tracks();
  return c;
}

Result<Clip> Clip::from_frames(std::string name, float duration, float frame_rate, int joint_count,
                               std::vector<JointPose> frames) {
  if (joint_count <= 0 || joint_count > kMaxJoints || frames.empty() || frames.size() % joint_count != 0)
    return Result<Clip>::failure("clip '" + name + "': frames do not divide into " +
                                 std::to_string(joint_count) + " joints");
  if (std::string e = check_timing(duration, frame_rate, static_cast<int64_t>(frames.size() / joint_count));
      !e.empty())
    return Result<Clip>::failure("clip '" + name + "': " + e);
  for (JointPose& p : frames)
    if (const char* e = value_ranges::check_and_normalize(p.translation, p.rotation, p.scale); *e)
      return Result<Clip>::failure("clip '" + name + "': " + e);
  Clip c;
  c.name_ = std::move(name);
  c.duration_ = duration;
  c.joint_count_ = joint_count;
  c.layout_ = Layout::kFixedRate;
  c.frame_rate_ = frame_rate;
  c.frame_count_ = static_cast<int>(frames.size() / joint_count);
  c.frames_ = std::move(frames);
  for (JointPose& p : c.frames_) flush_denormals(p);
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
  // Rotations must stay on one hemisphere frame to frame for the sampler's nlerp.
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

size_t Clip::memory_bytes() const {
  return sizeof(Clip) + frames_.size() * sizeof(JointPose) + channel_first_.size() * sizeof(uint32_t) +
         key_times_.size() * sizeof(float) + key_values_.size() * sizeof(float) + name_.size() +
         time_tracks_.size() * sizeof(TimeTrack) + channel_time_track_.size() * sizeof(uint32_t) +
         constants_.size() * sizeof(ConstantChannel) + channels_.size() * sizeof(QuantizedChannel) +
         segment_channels_.size() * sizeof(SegmentChannel) + constant_pose_.size() * sizeof(JointPose) +
         (decoder_ ? decoder_->segments.size() * sizeof(detail::QuantizedDecoder::Segment) +
                         decoder_->steps.size() * sizeof(detail::DecodeStep)
                   : 0) +
         packed_.size() + morph_weights_.memory_bytes();
}

size_t Clip::stored_bytes() const {
  return constants_.size() * sizeof(ConstantChannel) + channels_.size() * sizeof(QuantizedChannel) +
         segment_channels_.size() * sizeof(SegmentChannel) + packed_size_;
}

void SamplingCache::reset(const Clip* c) {
  clip = c;
  const bool keyed = c && c->layout() == Clip::Layout::kKeyed;
  const size_t tracks = keyed ? c->time_tracks().size() : 0;
  constexpr float kInfinity = std::numeric_limits<float>::infinity();
  cursor.assign(tracks, 0);
  // Track 0 (single keys) always holds; the others start with an empty span, so the first sample places
  // them.
  track_from.assign(tracks, kInfinity);
  track_until.assign(tracks, -kInfinity);
  if (tracks > 0) track_from[0] = -kInfinity, track_until[0] = kInfinity;
  track_start.assign(tracks, 0.f);
  track_inv_span.assign(tracks, 0.f);
  track_fraction.assign(tracks, 0.f);
  decoded.clear();
  if (c &&
      c->layout() == Clip::Layout::kQuantized)  // both slots start as the constant pose (decode_animated)
    for (int slot = 0; slot < 2; ++slot)
      decoded.insert(decoded.end(), c->constant_pose().begin(), c->constant_pose().end());
  decoded_frame[0] = decoded_frame[1] = -1;
}

void Clip::index_time_tracks() {
  const size_t channels = channel_first_.size() - 1;
  time_tracks_.assign(1, TimeTrack{});  // track 0: the channels with one key
  channel_time_track_.assign(channels, 0);
  // Channels with the same times share a track: looked up by a hash of the times, then compared.
  std::unordered_multimap<size_t, uint32_t> by_hash;
  for (size_t c = 0; c < channels; ++c) {
    const uint32_t first = channel_first_[c], count = channel_first_[c + 1] - first;
    if (count == 1) continue;
    const std::string_view bytes(reinterpret_cast<const char*>(key_times_.data() + first),
                                 count * sizeof(float));
    const size_t hash = std::hash<std::string_view>{}(bytes);
    uint32_t track = 0;
    for (auto [it, end] = by_hash.equal_range(hash); it != end && track == 0; ++it) {
      const TimeTrack& t = time_tracks_[it->second];
      if (t.count == count && std::equal(key_times_.begin() + first, key_times_.begin() + first + count,
                                         key_times_.begin() + t.first))
        track = it->second;
    }
    if (track == 0) {
      track = static_cast<uint32_t>(time_tracks_.size());
      time_tracks_.push_back({first, count});
      by_hash.emplace(hash, track);
    }
    channel_time_track_[c] = track;
  }
}

Result<Clip> Clip::from_keys(std::string name, float duration, int joint_count,
                             std::vector<uint32_t> channel_first, std::vector<float> key_times,
                             std::vector<float> key_values) {
  auto fail = [&](const std::string& e) { return Result<Clip>::failure("clip '" + name + "': " + e); };
  if (joint_count <= 0 || joint_count > kMaxJoints ||
      channel_first.size() != static_cast<size_t>(joint_count) * 3 + 1)
    return fail("channel table does not match " + std::to_string(joint_count) + " joints");
  if (key_values.size() != key_times.size() * 4) return fail("key values do not match the key times");
  if (!(duration >= 0) || !std::isfinite(duration) || duration > kMaxDuration)
    return fail("duration " + std::to_string(duration) + " s is outside 0-1e7 s");
  if (channel_first.front() != 0 || channel_first.back() != key_times.size())
    return fail("channel table does not cover the keys");
  // The whole table before any key: ascending from 0 to the key count, so no offset lies past the keys (one
  // past them followed by a smaller one was read from when this was checked channel by channel).
  for (size_t c = 0; c + 1 < channel_first.size(); ++c)
    if (channel_first[c + 1] <= channel_first[c]) return fail("channel table has a channel without keys");
  for (size_t c = 0; c + 1 < channel_first.size(); ++c) {
    for (uint32_t k = channel_first[c]; k < channel_first[c + 1]; ++k) {
      if (!std::isfinite(key_times[k]) || (k > channel_first[c] && key_times[k] < key_times[k - 1]))
        return fail("key times must be finite and ascending");
    }
  }
  // Channel c is joint c / 3's translation, rotation or scale (c % 3); each key holds 4 floats.
  for (size_t c = 0; c + 1 < channel_first.size(); ++c)
    for (uint32_t k = channel_first[c]; k < channel_first[c + 1]; ++k) {
      float* value = &key_values[size_t{k} * 4];
      if (c % 3 == 1) {
        if (!value_ranges::normalize_rotation(value)) return fail("a rotation key is not a rotation");
        continue;
      }
      const float bound = c % 3 == 0 ? value_ranges::kMaxCoordinate : value_ranges::kMaxScale;
      value[3] = 0;  // xyz0: the sampler interpolates all four lanes
      for (int i = 0; i < 4; ++i)
        if (!value_ranges::within(value[i], bound))
          return fail(c % 3 == 0 ? "a translation key lies outside +-1e7" : "a scale key lies outside +-1e4");
    }
  Clip c;
  c.name_ = std::move(name);
  c.duration_ = duration;
  c.joint_count_ = joint_count;
  c.layout_ = Layout::kKeyed;
  c.channel_first_ = std::move(channel_first);
  c.key_times_ = std::move(key_times);
  c.key_values_ = std::move(key_values);
  c.index_time_tracks();
  return c;
}

Result<Clip> Clip::from_quantized(std::string name, float duration, float frame_rate,
                                  std::span<const JointPose> default_pose, QuantizedParts parts) {
  auto fail = [&](const std::string& e) { return Result<Clip>::failure("clip '" + name + "': " + e); };
  const int joint_count = static_cast<int>(default_pose.size());
  const int frame_count = parts.frame_count;
  int segment_frames = parts.segment_frames;
  const auto& constants = parts.constants;
  const auto& channels = parts.channels;
  const auto& segment_channels = parts.segment_channels;
  if (joint_count <= 0 || joint_count > 65535) return fail("joint count out of range");
  if (frame_count <= 0 || frame_count > (1 << 24)) return fail("invalid frame count");
  if (std::string e = check_timing(duration, frame_rate, frame_count); !e.empty()) return fail(e);
  if (segment_frames < 1 || segment_frames > frame_count) return fail("invalid segment length");
  for (const JointPose& p : default_pose)
    for (int i = 0; i < 4; ++i)
      if (!std::isfinite(p.translation[i]) || !std::isfinite(p.rotation[i]) || !std::isfinite(p.scale[i]))
        return fail("the default pose is not finite");
  // Each joint's translation, rotation and scale: constant, animated or (absent) the default; never two.
  std::vector<uint8_t> seen(static_cast<size_t>(joint_count) * 3, 0);
  auto claim = [&](uint16_t joint, uint8_t kind) {
    if (joint >= joint_count || kind > 2) return false;
    return seen[joint * 3u + kind]++ == 0;
  };
  std::vector<JointPose> constant_pose(default_pose.begin(), default_pose.end());
  for (const ConstantChannel& ch : constants) {
    if (!claim(ch.joint, ch.kind)) return fail("a constant channel targets a missing or repeated channel");
    for (float v : ch.value)
      if (!std::isfinite(v)) return fail("a constant channel is not finite");
    JointPose& p = constant_pose[ch.joint];
    float* dst = ch.kind == 0 ? p.translation : ch.kind == 1 ? p.rotation : p.scale;
    std::copy_n(ch.value, ch.kind == 1 ? 4 : 3, dst);
    if (const char* e = value_ranges::check_and_normalize(p.translation, p.rotation, p.scale); *e)
      return fail(std::string("a constant channel: ") + e);
  }
  for (const QuantizedChannel& ch : channels) {
    if (!claim(ch.joint, ch.kind)) return fail("an animated channel targets a missing or repeated channel");
    for (int i = 0; i < 3; ++i)
      if (!std::isfinite(ch.min[i]) || !std::isfinite(ch.extent[i]) || ch.extent[i] < 0)
        return fail("an animated channel has an invalid range");
  }
  // Every segment is paid for by its entries in the table; a clip without animated channels has none: it is
  // one segment whatever it declares (millions of empty ones would cost memory the file does not hold).
  if (channels.empty()) segment_frames = frame_count;
  const size_t segment_count = (static_cast<size_t>(frame_count) + segment_frames - 1) / segment_frames;
  if (segment_channels.size() != segment_count * channels.size())
    return fail("the segment table has the wrong size");
  auto decoder = std::make_shared<detail::QuantizedDecoder>();
  std::vector<detail::QuantizedDecoder::Segment>& segments = decoder->segments;
  segments.resize(segment_count);
  uint64_t bytes = 0;
  for (size_t s = 0; s < segment_count; ++s) {
    uint32_t frame_bits = 0;
    for (size_t c = 0; c < channels.size(); ++c) {
      const SegmentChannel& q = segment_channels[s * channels.size() + c];
      if (!(q.bits <= kMaxQuantizedBits || q.bits == kBitsFloat ||
            (q.bits == kBitsFullRotation && channels[c].kind == 1)))
        return fail("a segment has an unsupported bit rate");
      for (int i = 0; i < 3; ++i)
        if (q.range_min[i] + q.range_extent[i] > 255) return fail("a segment range leaves its clip range");
      frame_bits += detail::channel_frame_bits(channels[c], q.bits);
    }
    const uint64_t frames_here = std::min<uint64_t>(segment_frames, frame_count - s * segment_frames);
    const uint32_t frame_bytes = (frame_bits + 7) / 8;
    segments[s] = {bytes, frame_bytes, 0, 0, 0, 0};
    bytes += frames_here * frame_bytes;
  }
  if (parts.packed.size() != bytes) return fail("packed frames have the wrong size");
  Clip c;
  c.name_ = std::move(name);
  c.duration_ = duration;
  c.joint_count_ = joint_count;
  c.layout_ = Layout::kQuantized;
  c.frame_rate_ = frame_rate;
  c.frame_count_ = frame_count;
  c.segment_frames_ = segment_frames;
  c.constants_ = std::move(parts.constants);
  c.channels_ = std::move(parts.channels);
  c.segment_channels_ = std::move(parts.segment_channels);
  c.constant_pose_ = std::move(constant_pose);
  decoder->steps.reserve(c.segment_channels_.size());
  const size_t channel_count = c.channels_.size();
  for (size_t seg = 0; seg < segments.size(); ++seg) {
    std::vector<detail::DecodeStep> steps(channel_count, detail::DecodeStep{});
    uint32_t offset = 0;
    for (size_t channel = 0; channel < channel_count; ++channel) {
      const QuantizedChannel& ch = c.channels_[channel];
      const SegmentChannel& q = c.segment_channels_[seg * channel_count + channel];
      detail::DecodeStep& d = steps[channel];
      d.joint = ch.joint;
      d.kind = ch.kind;
      d.mode = q.bits <= kMaxQuantizedBits ? 0 : q.bits == kBitsFloat ? 1 : 2;
      for (int k = 0; k < 3; ++k) {
        const int bits = detail::component_bits(ch, k, q.bits);
        d.mask[k] = bits >= 32 ? 0xffffffffu : (1u << bits) - 1;
        d.byte[k] = offset / 8;
        d.shift[k] = offset % 8;
        offset += static_cast<uint32_t>(bits);
        float lo, span;
        detail::segment_range(ch.min[k], ch.extent[k], q.range_min[k], q.range_extent[k], lo, span);
        detail::dequantizer(lo, span, q.bits <= kMaxQuantizedBits ? q.bits : 0, d.base[k], d.step[k]);
      }
      if (d.mode == 2) offset += 32;  // the fourth float of a full rotation
    }
    auto group = [](const detail::DecodeStep& d) { return d.mode != 0 ? 2 : d.kind == 1 ? 0 : 1; };
    std::stable_sort(
        steps.begin(), steps.end(),
        [&](const detail::DecodeStep& a, const detail::DecodeStep& b) { return group(a) < group(b); });
    detail::QuantizedDecoder::Segment& segment = segments[seg];
    segment.first_step = static_cast<uint32_t>(decoder->steps.size());
    segment.rotations = segment.vectors = segment.others = 0;
    for (const detail::DecodeStep& d : steps)
      (group(d) == 0 ? segment.rotations : group(d) == 1 ? segment.vectors : segment.others)++;
    decoder->steps.insert(decoder->steps.end(), steps.begin(), steps.end());
  }
  c.decoder_ = std::move(decoder);
  c.packed_size_ = parts.packed.size();
  c.packed_ = std::move(parts.packed);
  c.packed_.resize(c.packed_size_ + 8, 0);
  if (std::string e = c.check_decoded_ranges(); !e.empty()) return fail(e);
  return c;
}

std::string Clip::check_decoded_ranges() const {
  // Every value a frame can decode to lies within value_ranges.h, at a cost the file pays for: a quantized
  // component lies between its two ends (base + step * q is monotone in q), so only those are checked; the
  // stored floats (32 bits each in the file) are read one by one.
  using namespace value_ranges;
  for (size_t seg = 0; seg < decoder_->segments.size(); ++seg) {
    const detail::QuantizedDecoder::Segment& s = decoder_->segments[seg];
    const int frames_here = std::min(segment_frames_, frame_count_ - static_cast<int>(seg) * segment_frames_);
    const detail::DecodeStep* steps = decoder_->steps.data() + s.first_step;
    for (uint32_t i = 0; i < s.rotations + s.vectors + s.others; ++i) {
      const detail::DecodeStep& d = steps[i];
      const float bound = d.kind == 0 ? kMaxCoordinate : d.kind == 1 ? kMaxRotationComponent : kMaxScale;
      if (d.mode == 0) {
        for (int k = 0; k < 3; ++k)
          if (!within(d.base[k], bound) ||
              !within(d.base[k] + d.step[k] * static_cast<float>(d.mask[k]), bound))
            return "an animated channel decodes outside its range";
        continue;
      }
      for (int f = 0; f < frames_here; ++f) {
        const uint8_t* data = packed_.data() + s.first_byte + static_cast<size_t>(f) * s.frame_bytes;
        if (d.mode == 2) {
          double length2 = 0;
          for (uint32_t k = 0; k < 4; ++k) {
            const double q = detail::read_float(data, d.byte[0] + 4 * k, d.shift[0]);
            length2 += q * q;
          }
          if (!(std::fabs(length2 - 1) <= 1e-3)) return "a stored rotation is not of unit length";
          continue;
        }
        for (int k = 0; k < 3; ++k)
          if (!within(d.mask[k] ? detail::read_float(data, d.byte[k], d.shift[k]) : d.base[k], bound))
            return "an animated channel decodes outside its range";
      }
    }
  }
  return {};
}

void Clip::decode_frame(int frame, JointPose* out) const {
  std::copy(constant_pose_.begin(), constant_pose_.end(), out);
  decode_animated(frame, out);
}

void Clip::decode_animated(int frame, JointPose* out) const {
  const int segment = frame / segment_frames_;
  const detail::QuantizedDecoder::Segment& s = decoder_->segments[segment];
  const detail::DecodeStep* d = decoder_->steps.data() + s.first_step;
  const uint8_t* data =
      packed_.data() + s.first_byte + static_cast<size_t>(frame - segment * segment_frames_) * s.frame_bytes;
  detail::active_kernels().decode_quantized(data, d, static_cast<int>(s.rotations),
                                            static_cast<int>(s.vectors), out);
  d += s.rotations + s.vectors;

  for (const detail::DecodeStep* end = d + s.others; d != end; ++d) {
    JointPose& pose = out[d->joint];
    if (d->mode == 2) {  // four floats from the first component's place on
      for (uint32_t i = 0; i < 4; ++i)
        pose.rotation[i] = detail::read_float(data, d->byte[0] + 4 * i, d->shift[0]);
      continue;
    }
    float v[3];
    for (int i = 0; i < 3; ++i)
      v[i] = d->mask[i] ? detail::read_float(data, d->byte[i], d->shift[i]) : d->base[i];
    if (d->kind == 1) {
      detail::rebuild_rotation(v, pose.rotation);
    } else {
      float* dst = d->kind == 0 ? pose.translation : pose.scale;
      dst[0] = v[0], dst[1] = v[1], dst[2] = v[2];
    }
  }
}

}  // namespace ossa
