#include "ossa/runtime/sample_job.h"

#if defined(_MSC_VER) && !defined(__clang__)
#include <xmmintrin.h>  // _mm_prefetch
#endif
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernels.h"

namespace ossa {
namespace {
// A hint to bring a cache line in (no effect on results).
inline void prefetch(const char* address) {
#if defined(_MSC_VER) && !defined(__clang__)
  _mm_prefetch(address, _MM_HINT_T0);
#else
  __builtin_prefetch(address);
#endif
}

// Keyed channel: index i of the key pair [i, i + 1] around t, starting from the cached index. Forward
// playback moves at most a key or two per frame; anything else (seek, reverse, big step) falls back to a
// binary search.
uint32_t find_key(const float* times, uint32_t count, uint32_t cached, float t) {
  uint32_t last_pair = count - 2;
  uint32_t i = std::min(cached, last_pair);
  if (t >= times[i]) {
    if (i == last_pair || t < times[i + 1]) return i;
    if (i + 1 == last_pair || t < times[i + 2]) return i + 1;
  }
  const float* hi = std::upper_bound(times, times + count, t);
  uint32_t upper = static_cast<uint32_t>(hi - times);
  return upper == 0 ? 0 : std::min(upper - 1, last_pair);
}

// Places every time track of a keyed clip at t (a search only for those whose span t has left), then each
// channel's pair of keys and where t lies between them.
void sample_keyed(const Clip& clip, float t, SamplingCache& cache, JointPose* out) {
  const std::span<const Clip::TimeTrack> tracks = clip.time_tracks();
  const float* times = clip.key_times().data();
  for (size_t k = 1; k < tracks.size(); ++k) {
    if (t < cache.track_from[k] || t >= cache.track_until[k]) {  // SampleJob validated t: no NaN
      const Clip::TimeTrack track = tracks[k];
      const float* track_times = times + track.first;
      const uint32_t i = find_key(track_times, track.count, cache.cursor[k], t);
      const float t0 = track_times[i], t1 = track_times[i + 1];
      constexpr float kInfinity = std::numeric_limits<float>::infinity();
      cache.cursor[k] = i;
      cache.track_from[k] = i == 0 ? -kInfinity : t0;
      cache.track_until[k] = i + 2 == track.count ? kInfinity : t1;
      cache.track_start[k] = t0;
      // Keys closer than 1 / FLT_MAX (a denormal span) would give an infinite inverse and 0 * inf = NaN at
      // the first key: such a pair is sampled at its first key.
      const float inv_span = t1 > t0 ? 1 / (t1 - t0) : 0;
      cache.track_inv_span[k] = inv_span <= std::numeric_limits<float>::max() ? inv_span : 0;
    }
    cache.track_fraction[k] = std::clamp((t - cache.track_start[k]) * cache.track_inv_span[k], 0.f, 1.f);
  }
  const std::span<const uint32_t> moving = clip.moving_channels();
  const uint32_t vectors = clip.moving_translations() + clip.moving_scales();
  const detail::KeyPairs keys{clip.key_values().data(),
                              clip.channel_first().data(),
                              clip.channel_time_track().data(),
                              cache.cursor.data(),
                              cache.track_fraction.data(),
                              clip.constant_pose().data(),
                              moving.data(),
                              clip.moving_translations(),
                              clip.moving_scales(),
                              static_cast<uint32_t>(moving.size()) - vectors,
                              tracks.size() == 2};
  detail::active_kernels().interpolate_keys(keys, clip.joint_count(), out);
}

// Frame index and blend factor of time t in a clip of frames at f / rate, the last at the clip's end.
void frame_span(const Clip& clip, float t, int& i, float& alpha) {
  const int n = clip.frame_count();
  // Clips are validated where they are made (rate, duration and frame count agree); the clamp keeps the
  // float-to-int conversion defined whatever t is.
  const float f = std::clamp(t * clip.frame_rate(), 0.f, static_cast<float>(n - 1));
  i = static_cast<int>(f);
  alpha = f - static_cast<float>(i);
  if (i >= n - 1) {
    i = n - 1;
    alpha = 0;
  } else if (i == n - 2) {  // the last interval ends at the clip's end, which may be less than a frame away
    float start = static_cast<float>(i) / clip.frame_rate(), span = clip.duration() - start;
    alpha = span > 0 ? std::min((t - start) / span, 1.f) : 0.f;
  }
}

// Between frames a and b of a fixed-rate or quantized clip: its still joints copied from the constant pose,
// the moving ones interpolated; all of them interpolated where over two thirds move (a still joint
// interpolates to itself, and copying the pose first would cost more than it saves: the copy alone is bound
// by the stores, about 0.6 ns a joint here, and gathering the moving joints' cosines costs more than a
// contiguous load; the 71-joint humanoid's Turn, 51 joints moving once compressed, samples 8 % faster
// interpolating all).
void interpolate_moving(const Clip& clip, const JointPose* a, const JointPose* b, const float* cosines,
                        float alpha, JointPose* out) {
  const int joints = clip.joint_count();
  const std::span<const uint32_t> moving = clip.moving_joints();
  if (3 * moving.size() > 2 * static_cast<size_t>(joints)) {
    detail::active_kernels().interpolate_frames(a, b, cosines, alpha, nullptr, joints, out);
    return;
  }
  std::copy_n(clip.constant_pose().data(), joints, out);
  detail::active_kernels().interpolate_frames(a, b, cosines, alpha, moving.data(),
                                              static_cast<int>(moving.size()), out);
}

// Quantized: the two frames around t, decoded once into the instance's cache, then blended.
void sample_quantized(const Clip& clip, float t, SamplingCache& cache, JointPose* out) {
  int i;
  float alpha;
  frame_span(clip, t, i, alpha);
  const int j = std::min(i + 1, clip.frame_count() - 1), joints = clip.joint_count();
  JointPose* slots[2] = {cache.decoded.data(), cache.decoded.data() + joints};
  auto slot_of = [&](int frame) {
    for (int s = 0; s < 2; ++s)
      if (cache.decoded_frame[s] == frame) return s;
    return -1;
  };
  // Both frames new (a seek, or keys faster than the updates: 120 fps played at 60 Hz) and in one segment:
  // one pass decodes both and takes their cosines from registers.
  int a = slot_of(i);
  if (a < 0 && j != i && slot_of(j) < 0 &&
      clip.decode_animated_pair(i, j, slots[0], slots[1], cache.decoded_cosines.data())) {
    cache.decoded_frame[0] = i, cache.decoded_frame[1] = j;
    interpolate_moving(clip, slots[0], slots[1], cache.decoded_cosines.data(), alpha, out);
    return;
  }
  bool decoded = false;
  if (a < 0) {
    a = slot_of(j) == 0 ? 1 : 0;
    clip.decode_animated(i, slots[a]);
    cache.decoded_frame[a] = i;
    decoded = true;
  }
  int b = slot_of(j);
  if (b < 0) {
    b = 1 - a;
    clip.decode_animated(j, slots[b]);
    cache.decoded_frame[b] = j;
    decoded = true;
  }
  // The pair's cosines once per decode (a pair swapped between slots keeps them: the dot product is
  // symmetric). Decoded rotations sit on the w >= 0 hemisphere, so neighbouring frames may disagree in sign:
  // the slerp takes the short arc.
  if (decoded) {
    const std::span<const uint32_t> moving = clip.moving_joints();
    detail::active_kernels().rotation_cosines(slots[a], slots[b], moving.data(),
                                              static_cast<int>(moving.size()), cache.decoded_cosines.data());
  }
  interpolate_moving(clip, slots[a], slots[b], cache.decoded_cosines.data(), alpha, out);
}

void sample_fixed_rate(const Clip& clip, float t, JointPose* out) {
  const int n = clip.frame_count(), joints = clip.joint_count();
  const JointPose* frames = clip.frames().data();
  int i;
  float alpha;
  frame_span(clip, t, i, alpha);
  const JointPose* a = frames + static_cast<size_t>(i) * joints;
  const JointPose* b = i + 1 < n ? a + joints : a;  // the last frame's cosines are 1
  interpolate_moving(clip, a, b, clip.frame_cosines().data() + static_cast<size_t>(i) * joints, alpha, out);
  // Playback moves forward a frame or two per update: fetch the next frame now so the next update finds it
  // in L1 (sampling is otherwise bound by these cache misses, twice over when two clips blend).
  if (i + 2 < n) {
    const char* next = reinterpret_cast<const char*>(b + joints);
    for (size_t offset = 0; offset < sizeof(JointPose) * joints; offset += 64) prefetch(next + offset);
    const char* cosines =
        reinterpret_cast<const char*>(clip.frame_cosines().data() + static_cast<size_t>(i + 1) * joints);
    for (size_t offset = 0; offset < sizeof(float) * joints; offset += 64) prefetch(cosines + offset);
  }
}

}  // namespace

bool CrossfadeSampleJob::validate() const {
  if (!clip_a || !clip_b || clip_a->layout() != Clip::Layout::kFixedRate ||
      clip_b->layout() != Clip::Layout::kFixedRate)
    return false;
  if (clip_a->joint_count() != clip_b->joint_count() || clip_a->frame_count() < 1 ||
      clip_b->frame_count() < 1)
    return false;
  if (!std::isfinite(time_a) || !std::isfinite(time_b) || !std::isfinite(weight)) return false;
  return output.size() >= static_cast<size_t>(clip_a->joint_count());
}

bool CrossfadeSampleJob::run() const {
  if (!validate()) return false;
  int ia, ib;
  float alpha, beta;
  frame_span(*clip_a, std::clamp(time_a, 0.f, clip_a->duration()), ia, alpha);
  frame_span(*clip_b, std::clamp(time_b, 0.f, clip_b->duration()), ib, beta);
  const int joints = clip_a->joint_count();
  const JointPose* a0 = clip_a->frames().data() + static_cast<size_t>(ia) * joints;
  const JointPose* b0 = clip_b->frames().data() + static_cast<size_t>(ib) * joints;
  const JointPose* a1 = ia + 1 < clip_a->frame_count() ? a0 + joints : a0;
  const JointPose* b1 = ib + 1 < clip_b->frame_count() ? b0 + joints : b0;
  const float* cosines_a = clip_a->frame_cosines().data() + static_cast<size_t>(ia) * joints;
  const float* cosines_b = clip_b->frame_cosines().data() + static_cast<size_t>(ib) * joints;
  detail::active_kernels().sample_blend2(a0, a1, cosines_a, alpha, b0, b1, cosines_b, beta,
                                         std::clamp(weight, 0.f, 1.f), joints, output.data());
  return true;
}

bool SampleJob::validate() const {
  if (!clip || !std::isfinite(time)) return false;
  if (output.size() < static_cast<size_t>(clip->joint_count())) return false;
  if (clip->layout() != Clip::Layout::kFixedRate && !cache) return false;
  if (clip->layout() == Clip::Layout::kFixedRate && clip->frame_count() < 1) return false;
  return true;
}

bool SampleJob::run() const {
  if (!validate()) return false;
  const float t = std::clamp(time, 0.f, clip->duration());
  if (clip->layout() == Clip::Layout::kFixedRate) {
    sample_fixed_rate(*clip, t, output.data());
  } else if (clip->layout() == Clip::Layout::kQuantized) {
    if (cache->clip != clip) cache->reset(clip);
    sample_quantized(*clip, t, *cache, output.data());
  } else {
    if (cache->clip != clip) cache->reset(clip);
    sample_keyed(*clip, t, *cache, output.data());
  }
  return true;
}

}  // namespace ossa
