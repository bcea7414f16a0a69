// ossa/asset/clip.h — an immutable runtime animation clip, in one of three layouts.
//
//  * Fixed rate (the default, Unreal's model): every joint resampled at `frame_rate`; frame f holds all
//    joints' JointPose at time f / frame_rate (the last frame at the clip's end). Sampling is an index, one
//    lerp of translation/scale and one slerp of rotation per joint (Eberly's series: no trigonometry, within
//    1.3e-7 of the exact weights), with no search; memory is frames x joints x 48 bytes. The rate is the
//    keys' own (24, 25, 30, 48, 50, 60, 100 or 120 fps when all keys lie on that grid, else the rate of
//    their own spacing, 10 fps or more, when they lie on its grid, as 29.97 fps video does, else 60; a key
//    at the clip's end needs no grid point: the last frame is there at any rate), doubled (up to 8x) only
//    while some joint turns more than 91 degrees between frames. Error against the keys: none when the keys
//    lie on the grid (between frames the sampler slerps as the keys do); for keys off the grid,
//    the resampling itself. Measured in the runtime tests on every model we have (docs/asset-pipeline.md);
//    the tests hold it under 1e-3 of the model's size.
//  * Keyed: each joint's translation/rotation/scale keys kept exactly as imported (slerp between them).
//    Sampling searches, helped by a per-instance SamplingCache so forward playback only steps ahead.
//  * Quantized (ossa/offline/compression.h): the fixed-rate frames compressed within an error bound.
// Joints without keys hold their rest pose in every layout. Morph target weights, when the clip animates
// some, are keyed tracks in every layout (morph_weights(), ossa/asset/morph.h). Built from a RawClip and the
// Skeleton it animates; read-only afterwards, shareable between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/morph.h"
#include "ossa/asset/skeleton.h"

namespace ossa {

namespace detail {
struct QuantizedDecoder;
}

class Clip {
 public:
  enum class Layout { kFixedRate, kKeyed, kQuantized };

  // Quantized (compression.h): the fixed-rate frames cut into segments of kSegmentFrames frames. A channel
  // (one joint's translation, rotation or scale) is either constant over the clip (a ConstantChannel, or
  // absent when it is the skeleton's rest pose) or animated (a QuantizedChannel with its clip range). Per
  // segment, each animated channel has a SegmentChannel: the part of its clip range the segment uses (in
  // 1/255 steps of it) and a bit rate; each frame then stores, per channel, 3 components of `bits` bits
  // (0-24) as fractions of that range, or floats (kBitsFloat), or the whole rotation as 4 floats
  // (kBitsFullRotation, for near-180-degree turns where rebuilding w loses precision). Rotations otherwise
  // store x, y, z with w >= 0 rebuilt. Frames are bit-packed, little-endian, frame after frame, channels in
  // order; each segment starts on a byte.
  static constexpr int kSegmentFrames = 16;  // the default; compress_clip() also tries longer ones
  static constexpr int kMaxQuantizedBits = 24;
  static constexpr uint8_t kBitsFloat = 32, kBitsFullRotation = 33;

  // Limits every clip holds, however it was made (builders, from_* below, .ossa loading). The sampler turns
  // time x frame_rate into a frame index, so these numbers are checked where a clip is made, never trusted:
  // rate and duration finite and in range, and the frame count exactly frame_count_for(duration, rate).
  static constexpr float kMaxFrameRate = 10000;  // frames per second
  static constexpr float kMaxDuration = 1e7f;    // seconds (the importer's "absurd duration")
  static constexpr int kMaxJoints = 65535;       // influence joint indices are 16-bit
  // Frames of a fixed-rate (or quantized) clip: one every 1 / rate seconds, the last at the clip's end.
  static int64_t frame_count_for(float duration, float frame_rate);
  struct ConstantChannel {
    uint16_t joint = 0;
    uint8_t kind = 0;  // 0 translation, 1 rotation (x, y, z, w), 2 scale
    uint8_t unused = 0;
    float value[4] = {0, 0, 0, 0};
  };
  struct QuantizedChannel {
    uint16_t joint = 0;
    uint8_t kind = 0;  // as ConstantChannel
    uint8_t unused = 0;
    float min[3] = {0, 0, 0};
    float extent[3] = {0, 0, 0};
  };
  struct SegmentChannel {
    uint8_t bits = 0;
    uint8_t range_min[3] = {0, 0, 0};     // segment min = min + extent * range_min / 255
    uint8_t range_extent[3] = {0, 0, 0};  // segment extent = extent * range_extent / 255
  };

  // Builders from raw keys, offline work: defined in ossa::offline (src/offline/clip_builder.cpp; link it).
  // frame_rate 0 picks the rate from the key times.
  static Result<Clip> build_fixed_rate(const RawClip& raw, const Skeleton& skeleton, float frame_rate = 0);
  static Result<Clip> build_keyed(const RawClip& raw, const Skeleton& skeleton);
  // A fixed-rate clip from ready frames (frame-major, frame_count x joint_count; the last frame at
  // `duration`).
  static Result<Clip> from_frames(std::string name, float duration, float frame_rate, int joint_count,
                                  std::vector<JointPose> frames);
  // A keyed clip from its arrays (see key_times()); validated: channel ranges, ascending finite times.
  static Result<Clip> from_keys(std::string name, float duration, int joint_count,
                                std::vector<uint32_t> channel_first, std::vector<float> key_times,
                                std::vector<float> key_values);
  // A quantized clip from its parts (see above). Channels in neither list hold `default_pose`'s value (the
  // skeleton's rest pose, one per joint), so the clip decodes only against the skeleton it was made for.
  // Validated (joints, kinds, bit rates, ranges, the packed size), so decoding never reads out of bounds.
  struct QuantizedParts {
    int frame_count = 0;
    int segment_frames = kSegmentFrames;
    std::vector<ConstantChannel> constants;
    std::vector<QuantizedChannel> channels;
    std::vector<SegmentChannel> segment_channels;  // segment-major: channels.size() per segment
    std::vector<uint8_t> packed;
  };
  static Result<Clip> from_quantized(std::string name, float duration, float frame_rate,
                                     std::span<const JointPose> default_pose, QuantizedParts parts);

  // The same clip with `weights` as its morph weight tracks (the builders take them from RawClip; for clips
  // made by from_frames, from_keys, from_quantized, compress_clip and make_additive_clip).
  static Clip with_morph_weights(Clip clip, MorphWeightTracks weights);
  // The same clip under another name (mocap files name every take alike, e.g. BVH's "Motion").
  static Clip with_name(Clip clip, std::string name);

  const std::string& name() const { return name_; }
  float duration() const { return duration_; }
  const MorphWeightTracks& morph_weights() const { return morph_weights_; }  // empty for most clips
  int joint_count() const { return joint_count_; }
  Layout layout() const { return layout_; }
  size_t memory_bytes() const;

  // Fixed rate.
  float frame_rate() const { return frame_rate_; }
  int frame_count() const { return frame_count_; }
  std::span<const JointPose> frames() const { return frames_; }  // frame-major: [frame * joints + joint]
  // The dot product of each joint's rotation at frame f with its rotation at frame f + 1 ([f * joints +
  // joint]; 1 for the last frame): the cosine a slerp between them needs, computed once when the clip is made
  // (4 bytes per joint and frame, derived from the frames, never stored in files) rather than on every
  // update.
  std::span<const float> frame_cosines() const { return frame_cosines_; }
  // Fixed-rate and quantized: the joints whose pose changes over the clip, ascending. The others keep
  // constant_pose() on every frame, so a sampler copies that pose and interpolates only these. Derived,
  // never stored.
  std::span<const uint32_t> moving_joints() const { return moving_joints_; }

  // Keyed: channel c = joint * 3 + {0: translation, 1: rotation, 2: scale} owns keys
  // [channel_first[c], channel_first[c + 1]) of key_times / key_values (xyz0 or xyzw).
  std::span<const uint32_t> channel_first() const { return channel_first_; }
  std::span<const float> key_times() const { return key_times_; }
  std::span<const float> key_values() const { return key_values_; }  // 4 floats per key
  // Channels grouped by identical key times (most exported clips key every channel on the same frames), so
  // a sampler finds its place once per group: time_tracks()[channel_time_track()[c]] is a channel with c's
  // key times. Track 0 stands for every channel with a single key. Derived from the keys, never stored.
  struct TimeTrack {
    uint32_t first = 0, count = 1;  // keys [first, first + count) of key_times()
  };
  std::span<const TimeTrack> time_tracks() const { return time_tracks_; }
  std::span<const uint32_t> channel_time_track() const { return channel_time_track_; }
  // The channels whose keys differ: moving_translations() translations, then moving_scales() scales, then
  // the rotations. Every other channel has one value (one key, or keys all equal), which constant_pose()
  // holds, so a sampler copies that pose and interpolates only these. Derived from the keys, never stored.
  std::span<const uint32_t> moving_channels() const { return moving_channels_; }
  uint32_t moving_translations() const { return moving_translations_; }
  uint32_t moving_scales() const { return moving_scales_; }

  // Quantized.
  int segment_frames() const { return segment_frames_; }
  std::span<const ConstantChannel> constant_channels() const { return constants_; }
  std::span<const QuantizedChannel> quantized_channels() const { return channels_; }
  std::span<const SegmentChannel> segment_channels() const { return segment_channels_; }
  std::span<const uint8_t> packed() const { return {packed_.data(), packed_size_}; }
  size_t stored_bytes() const;                         // what the quantized arrays take in a file
  void decode_frame(int frame, JointPose* out) const;  // all joints of one frame
  // Only the animated channels, into a pose that already holds constant_pose() (the sampler's cache).
  void decode_animated(int frame, JointPose* out) const;
  // Frames `first` and `second` at once (their segment's tables read once), as decode_animated, and
  // cosines[j] = rotation_dot(out_first[j], out_second[j]) for every joint whose rotation is animated: the
  // sampler's pair when both its frames are new. False, with nothing written, when the two frames lie in
  // different segments.
  bool decode_animated_pair(int first, int second, JointPose* out_first, JointPose* out_second,
                            float* cosines) const;
  // Per joint, the values of the channels that do not move (the others' values are placeholders that
  // sampling overwrites).
  std::span<const JointPose> constant_pose() const { return constant_pose_; }

 private:
  void resample(const RawClip& raw, const Skeleton& skeleton);
  void index_frames();
  void index_keys();

  std::string name_;
  float duration_ = 0;
  int joint_count_ = 0;
  MorphWeightTracks morph_weights_;
  Layout layout_ = Layout::kFixedRate;
  float frame_rate_ = 0;
  int frame_count_ = 0;
  std::vector<JointPose> frames_;
  std::vector<float> frame_cosines_;
  std::vector<uint32_t> moving_joints_;
  std::vector<uint32_t> channel_first_;
  std::vector<float> key_times_;
  std::vector<float> key_values_;
  std::vector<TimeTrack> time_tracks_;
  std::vector<uint32_t> channel_time_track_;
  std::vector<uint32_t> moving_channels_;
  uint32_t moving_translations_ = 0, moving_scales_ = 0;
  int segment_frames_ = kSegmentFrames;
  std::vector<ConstantChannel> constants_;
  std::vector<QuantizedChannel> channels_;
  std::vector<SegmentChannel> segment_channels_;
  std::vector<JointPose> constant_pose_;     // the still channels' values: every sample starts from it
  std::string check_decoded_ranges() const;  // "" when every frame decodes within value_ranges.h
  int segment_of(int frame) const;           // quantized: the segment that holds `frame`
  const uint8_t* frame_data(int segment, int frame) const;  // quantized: where frame's bits start
  // Quantized: the decoding tables built from the parts at load (immutable, shared by copies).
  std::shared_ptr<const detail::QuantizedDecoder> decoder_;
  std::vector<uint8_t> packed_;  // packed_size_ bytes, then 16 zero bytes for the 64- and 128-bit reads
  size_t packed_size_ = 0;
};

// Per-instance sampling state; SampleJob sizes it (reset) and notices a clip change by itself.
// Keyed clips: where each time track (Clip::time_tracks) stands at the last time sampled, so an update that
// passes no key costs one comparison per time track and the interpolation, whatever the direction of play,
// and a seek one search per time track.
struct SamplingCache {
  void reset(const Clip* clip);
  const Clip* clip = nullptr;
  // Per time track: the key at or before the last time sampled, the times between which it stays so, and
  // where the last time lies between it and the next key (0 to 1).
  std::vector<uint32_t> cursor;
  std::vector<float> track_from, track_until, track_start, track_inv_span, track_fraction;
  // Quantized clips: two decoded frames (slot 0 and 1), which frame each holds (-1: none), and per joint the
  // dot product of their rotations (Clip::frame_cosines for the pair), updated when a frame is decoded.
  std::vector<JointPose> decoded;
  int decoded_frame[2] = {-1, -1};
  std::vector<float> decoded_cosines;
};

}  // namespace ossa
