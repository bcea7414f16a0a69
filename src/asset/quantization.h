// The arithmetic of quantized clips, shared by the encoder (compression.cpp) and the decoder (clip.cpp) so
// both compute every decoded value with the same float operations: the error the encoder measures is the
// error the runtime gets.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ossa/asset/clip.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ossa::detail {

// 1 / (2^bits - 1) for bits 0..Clip::kMaxQuantizedBits (0 for bits 0: a 0-bit component sits in the middle of
// its range).
inline constexpr auto kInverseLevels = [] {
  std::array<float, Clip::kMaxQuantizedBits + 1> table{};
  for (int b = 1; b <= Clip::kMaxQuantizedBits; ++b) table[b] = 1.f / static_cast<float>((1u << b) - 1);
  return table;
}();
inline float inverse_levels(int bits) {
  return kInverseLevels[bits];
}

// The part of a channel's clip range [min, min + extent] that one segment uses, in 1/255 steps.
inline void segment_range(float min, float extent, uint8_t range_min, uint8_t range_extent, float& lo,
                          float& span) {
  lo = min + extent * (static_cast<float>(range_min) * (1.f / 255.f));
  span = extent * (static_cast<float>(range_extent) * (1.f / 255.f));
}

// A decoded component is base + step * q: for bits > 0, base = lo and step = span / (2^bits - 1); a 0-bit
// component sits in the middle of its range. The decoder precomputes base and step per segment and channel.
inline void dequantizer(float lo, float span, int bits, float& base, float& step) {
  base = bits == 0 ? lo + 0.5f * span : lo;
  step = bits == 0 ? 0.f : span * inverse_levels(bits);
}
inline float dequantize(float base, float step, uint32_t q) {
  return base + step * static_cast<float>(q);
}

inline uint32_t quantize(float value, float lo, float span, int bits) {
  if (bits == 0 || !(span > 0)) return 0;
  const float unit = std::clamp((value - lo) / span, 0.f, 1.f);
  return static_cast<uint32_t>(std::lround(unit * static_cast<float>((1u << bits) - 1)));
}

// Rotations are stored as x, y, z with w >= 0 rebuilt.
// (The SSE square root: std::sqrt carries an errno branch the decoder's inner loop should not pay for.)
inline void rebuild_rotation(const float xyz[3], float out[4]) {
  const float w2 = std::max(1.f - (xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2]), 0.f);
  out[0] = xyz[0], out[1] = xyz[1], out[2] = xyz[2];
#if defined(__SSE2__)
  out[3] = _mm_cvtss_f32(_mm_sqrt_ss(_mm_set_ss(w2)));
#else
  out[3] = std::sqrt(w2);
#endif
}

// Bits one component of a channel takes per frame at a segment's bit rate: none when the component does not
// move over the clip (extent 0: it decodes to the channel's min), so a hinge stores one rotation component.
inline int component_bits(const Clip::QuantizedChannel& channel, int component, int bits) {
  return bits == Clip::kBitsFullRotation ? 32 : channel.extent[component] > 0 ? bits : 0;
}
inline uint32_t channel_frame_bits(const Clip::QuantizedChannel& channel, int bits) {
  if (bits == Clip::kBitsFullRotation) return 128;
  uint32_t total = 0;
  for (int i = 0; i < 3; ++i) total += static_cast<uint32_t>(component_bits(channel, i, bits));
  return total;
}

// The decoder's reads, `frame` pointing at a frame's first byte (Clip::DecodeStep gives each component's byte
// and shift; packed frames are followed by 8 readable bytes). A quantized component, up to 24 bits plus a
// shift of up to 7, fits one 32-bit read; a float needs a 64-bit one.
inline uint32_t read_quantized(const uint8_t* frame, uint32_t byte, uint32_t shift, uint32_t mask) {
  uint32_t word;
  std::memcpy(&word, frame + byte, 4);
  return (word >> shift) & mask;
}
inline float read_float(const uint8_t* frame, uint32_t byte, uint32_t shift) {
  uint64_t word;
  std::memcpy(&word, frame + byte, 8);
  const auto bits = static_cast<uint32_t>(word >> shift);
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace ossa::detail
