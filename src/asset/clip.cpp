#include "ossa/asset/clip.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "clip_decoder.h"
#include "ossa/asset/value_ranges.h"
#include "quantization.h"

namespace ossa {

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

Clip Clip::with_morph_weights(Clip clip, MorphWeightTracks weights) {
  clip.morph_weights_ = std::move(weights);
  return clip;
}

Clip Clip::with_name(Clip clip, std::string name) {
  clip.name_ = std::move(name);
  return clip;
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
  c.index_frames();
  return c;
}

// What sampling derives from a fixed-rate clip's frames: the cosines between neighbouring frames, the still
// joints' constant pose and the moving joints.
void Clip::index_frames() {
  const size_t joints = static_cast<size_t>(joint_count_), total = frames_.size();
  frame_cosines_.assign(total, 1.f);
  for (size_t i = 0; i + joints < total; ++i)
    frame_cosines_[i] = rotation_dot(frames_[i], frames_[i + joints]);
  // Joints whose every frame is the first (bit for bit) are still: their first frame is their constant pose.
  constant_pose_.assign(frames_.begin(),
                        frames_.begin() + static_cast<std::ptrdiff_t>(std::min(joints, total)));
  moving_joints_.clear();
  for (size_t j = 0; j < joints && j < total; ++j)
    for (size_t i = j + joints; i < total; i += joints)
      if (std::memcmp(&frames_[i], &frames_[j], sizeof(JointPose)) != 0) {
        moving_joints_.push_back(static_cast<uint32_t>(j));
        break;
      }
}

size_t Clip::memory_bytes() const {
  return sizeof(Clip) + frames_.size() * sizeof(JointPose) + frame_cosines_.size() * sizeof(float) +
         channel_first_.size() * sizeof(uint32_t) + key_times_.size() * sizeof(float) +
         key_values_.size() * sizeof(float) + name_.size() + time_tracks_.size() * sizeof(TimeTrack) +
         channel_time_track_.size() * sizeof(uint32_t) + moving_channels_.size() * sizeof(uint32_t) +
         moving_joints_.size() * sizeof(uint32_t) + constants_.size() * sizeof(ConstantChannel) +
         channels_.size() * sizeof(QuantizedChannel) + segment_channels_.size() * sizeof(SegmentChannel) +
         constant_pose_.size() * sizeof(JointPose) +
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
  decoded_cosines.clear();
  if (c && c->layout() == Clip::Layout::kQuantized) {
    // Both slots start as the constant pose (decode_animated writes only the animated channels), so a joint
    // whose rotation stands still keeps the cosine of that rotation with itself; decoding sets the others'.
    for (int slot = 0; slot < 2; ++slot)
      decoded.insert(decoded.end(), c->constant_pose().begin(), c->constant_pose().end());
    for (const JointPose& p : c->constant_pose()) decoded_cosines.push_back(rotation_dot(p, p));
  }
  decoded_frame[0] = decoded_frame[1] = -1;
}

// What sampling derives from a keyed clip's keys: the time tracks, the still channels' constant pose and the
// moving channels.
void Clip::index_keys() {
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
  // The still channels' values in a pose (one key, or keys all equal: exporters often key every channel on
  // every frame); the others listed by kind (translations, scales, rotations).
  constant_pose_.assign(static_cast<size_t>(joint_count_), JointPose{});
  moving_channels_.clear();
  auto still = [&](size_t c) {
    const auto first = key_values_.begin() + 4 * static_cast<size_t>(channel_first_[c]);
    const auto end = key_values_.begin() + 4 * static_cast<size_t>(channel_first_[c + 1]);
    for (auto key = first + 4; key != end; key += 4)
      if (!std::equal(first, first + 4, key)) return false;
    return true;
  };
  for (const int kind : {0, 2, 1}) {
    for (size_t c = static_cast<size_t>(kind); c < channels; c += 3) {
      if (!still(c)) {
        moving_channels_.push_back(static_cast<uint32_t>(c));
        continue;
      }
      JointPose& p = constant_pose_[c / 3];
      float* value = kind == 0 ? p.translation : kind == 1 ? p.rotation : p.scale;
      std::copy_n(key_values_.begin() + 4 * static_cast<size_t>(channel_first_[c]), kind == 1 ? 4 : 3, value);
    }
    if (kind == 0) moving_translations_ = static_cast<uint32_t>(moving_channels_.size());
    if (kind == 2) moving_scales_ = static_cast<uint32_t>(moving_channels_.size()) - moving_translations_;
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
  c.index_keys();
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
  std::vector<uint8_t> moves(static_cast<size_t>(joint_count), 0);
  for (const QuantizedChannel& ch : c.channels_) moves[ch.joint] = 1;
  for (int j = 0; j < joint_count; ++j)
    if (moves[j]) c.moving_joints_.push_back(static_cast<uint32_t>(j));
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
        d.field_mask[k] = d.mask[k] << d.shift[k];
        offset += static_cast<uint32_t>(bits);
        float lo, span;
        detail::segment_range(ch.min[k], ch.extent[k], q.range_min[k], q.range_extent[k], lo, span);
        detail::dequantizer(lo, span, q.bits <= kMaxQuantizedBits ? q.bits : 0, d.base[k], d.step[k]);
      }
      for (int k = 0; k < 16; ++k)
        d.gather[k] = k < 12 ? static_cast<uint8_t>(d.byte[k / 4] - d.byte[0] + k % 4) : uint8_t{0x80};
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
  if (segments.size() == 1)
    decoder->segment_shift = 31;
  else if (std::has_single_bit(static_cast<unsigned>(segment_frames)))
    decoder->segment_shift = std::countr_zero(static_cast<unsigned>(segment_frames));
  c.decoder_ = std::move(decoder);
  c.packed_size_ = parts.packed.size();
  c.packed_ = std::move(parts.packed);
  c.packed_.resize(c.packed_size_ + 16, 0);
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

}  // namespace ossa
