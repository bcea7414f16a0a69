// Internal: the tables a quantized Clip decodes with, built once at load from its parts (clip.h).
#pragma once

#include <cstdint>
#include <vector>

namespace ossa::detail {

// Everything one channel of one segment needs. Each component is read on its own at a fixed place in the
// frame: q = (32-bit word at `byte` >> shift) & mask, decoded as base + step * q (lane 3 unused: all 0).
struct alignas(16) DecodeStep {
  float base[4];
  float step[4];
  uint32_t byte[4];   // of each component within a frame
  uint32_t shift[4];  // bit within that byte
  uint32_t mask[4];   // 2^bits - 1 (0 for components that do not move: they decode to base)
  // mask << shift: the component's bits where the 32-bit word holds them. Quantized components (up to 24
  // bits, shift up to 7) stay below 2^31, so (word & field_mask) converts to float exactly, and times
  // 2^-shift is q exactly: how SSE2, without a per-lane variable shift, decodes the same bits.
  uint32_t field_mask[4];
  // The 16 frame bytes from byte[0] on, shuffled so that lane k holds the 32-bit word at byte[k] (lane 3:
  // zeros): one load and one byte shuffle (SSSE3) instead of three loads into lanes. A channel's three
  // components lie within 3 x 24 + 7 bits of byte[0]; the packed frames end in zero bytes enough for it.
  uint8_t gather[16];
  uint16_t joint;
  uint8_t kind;
  uint8_t mode;  // 0 quantized, 1 floats, 2 four-float rotation
};

struct QuantizedDecoder {
  struct Segment {
    uint64_t first_byte;   // of the segment's first frame in the packed frames
    uint32_t frame_bytes;  // per frame
    // Its decode steps, grouped so each group decodes in a loop without branches: quantized rotations,
    // quantized translations and scales, then floats and four-float rotations.
    uint32_t first_step, rotations, vectors, others;
  };
  std::vector<Segment> segments;
  std::vector<DecodeStep> steps;
  // A frame's segment is frame >> segment_shift where the segment length is a power of two (the
  // compressor's 16, 32, 64) or the clip is one segment (31); -1: frame / segment length (a division on the
  // way to every decode, where a shift costs one cycle).
  int segment_shift = -1;
};

}  // namespace ossa::detail
