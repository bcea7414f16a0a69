// Internal: the inner loops of the runtime jobs, one table per instruction set (scalar, SSE2, AVX2+FMA,
// NEON). The jobs validate their inputs and then call the active table; kernels assume valid input.
#pragma once

#include <cmath>
#include <cstdint>

#include "../../asset/clip_decoder.h"
#include "ossa/asset/clip.h"
#include "ossa/runtime/pose.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/skinning_job.h"

namespace ossa::detail {

// Keyed clips: where each channel stands between two of the clip's keys. A moving channel c = joint * 3 +
// {0 translation, 1 rotation, 2 scale} interpolates keys first[c] + cursor[k] and the one after at
// fraction[k], k = track[c]; the still channels (one key, or keys all equal) take theirs from constant_pose.
struct KeyPairs {
  const float* values;             // the clip's key values, 4 floats per key (Clip::key_values)
  const uint32_t* first;           // per channel: its first key (Clip::channel_first)
  const uint32_t* track;           // per channel: its time track (Clip::channel_time_track)
  const uint32_t* cursor;          // per time track: the key at or before t, counted from the channel's first
  const float* fraction;           // per time track: where t lies from that key to the next, 0 to 1
  const JointPose* constant_pose;  // per joint (Clip::constant_pose)
  const uint32_t* moving;          // translations, then scales, then rotations (Clip::moving_channels)
  uint32_t translations, scales, rotations;
  bool one_track;  // every moving channel on time track 1
};

// Slerp mostly without trigonometry (after D. Eberly, "A Fast and Accurate Algorithm for Computing SLERP",
// 2011): with x = cos(angle) in [0, 1], sin(t * angle) / sin(angle) = t * (1 + c1 (x - 1) (1 + c2 (x - 1)
// (1 + ...))), c_i = u_i t^2 - v_i, u_i = 1 / (i (2i + 1)), v_i = i / (2i + 1). Truncated, the series is
// exact at t = 0 and 1, and its truncation error is below 6e-8 with 3 terms where 1 - x <= 0.05 (keys up to
// 36 degrees apart: the usual step between baked keys) and 5e-9 with 8 terms where 1 - x <= 0.3 (91 degrees);
// keys further apart take the sines. In float, every weight is within 1.3e-7 of the exact one
// (KeyedSampling.SlerpWeightsAreWithinTheirBound).
inline constexpr float kSlerpNear = 0.05f;
inline constexpr float kSlerpMid = 0.3f;
inline constexpr int kSlerpNearTerms = 3;
inline constexpr int kSlerpMidTerms = 8;
inline constexpr float slerp_u(int i) {  // i >= 1
  return static_cast<float>(1.0 / (i * (2.0 * i + 1)));
}
inline constexpr float slerp_v(int i) {
  return static_cast<float>(i / (2.0 * i + 1));
}
// Weight of the key at the far end of a slerp at fraction t, with xm1 = cos(angle) - 1 (the near key's weight
// is slerp_weight(1 - t, xm1)).
template <int kTerms>
inline float slerp_weight_series(float t, float xm1) {
  const float t2 = t * t;
  float f = 1;
  for (int i = kTerms; i >= 1; --i) f = 1 + (slerp_u(i) * t2 - slerp_v(i)) * xm1 * f;
  return t * f;
}
inline float slerp_weight_sines(float t, float xm1) {
  const float angle = std::acos(xm1 + 1);
  return std::sin(t * angle) / std::sin(angle);
}
inline float slerp_weight(float t, float xm1) {
  if (xm1 >= -kSlerpNear) return slerp_weight_series<kSlerpNearTerms>(t, xm1);
  if (xm1 >= -kSlerpMid) return slerp_weight_series<kSlerpMidTerms>(t, xm1);
  return slerp_weight_sines(t, xm1);
}

struct Kernels {
  // out = lerp(a, b, alpha) for translation and scale, nlerp along the short arc for rotation (b's rotation
  // negated where it lies on the other hemisphere): two poses blended (BlendJob).
  void (*blend_poses)(const JointPose* a, const JointPose* b, float alpha, int count, JointPose* out);
  // out = a clip between two of its frames: translation and scale lerped, rotation slerped along the short
  // arc (slerp_weight, normalised), so frames keep their keys' rate however fast a joint turns between them.
  // cosines[j]: the dot product of a[j]'s and b[j]'s rotations (Clip::frame_cosines). The joints j are
  // joints[0, count) (ascending), or 0 to count - 1 where joints is null.
  void (*interpolate_frames)(const JointPose* a, const JointPose* b, const float* cosines, float alpha,
                             const uint32_t* joints, int count, JointPose* out);
  // model[j] = (parent >= 0 ? model[parent] : root or identity) * TRS(local[j]) for j in [begin, end).
  void (*local_to_model)(const JointPose* local, const int* parents, int begin, int end, const Mat4* root,
                         Mat4* model);
  // out[k] = model[remap ? remap[k] : k] * inverse_binds[k].
  void (*palette)(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out);
  void (*skin)(const SkinningJob& job);
  // Two clips sampled and blended in one pass: out = nlerp(interpolate_frames(a0, a1, alpha),
  // interpolate_frames(b0, b1, beta), weight) per channel (one normalisation, at the end).
  void (*sample_blend2)(const JointPose* a0, const JointPose* a1, const float* cosines_a, float alpha,
                        const JointPose* b0, const JointPose* b1, const float* cosines_b, float beta,
                        float weight, int count, JointPose* out);
  // The quantized channels of one frame of a compressed clip (Clip::decode_animated): `rotations` steps
  // whose x, y, z are decoded and w rebuilt, then `vectors` translation or scale steps. Every path computes
  // the same IEEE operations in the same order as detail::dequantize / rebuild_rotation (no fused
  // multiply-add), so a clip decodes to the same bits on every machine and the compressor's bound holds.
  // Reads up to 16 bytes from each channel's first byte on (the clip's packed frames end in 16 zero bytes).
  void (*decode_quantized)(const uint8_t* frame, const detail::DecodeStep* steps, int rotations, int vectors,
                           JointPose* out);
  // Two frames of one segment (the same steps): decode_quantized of each, and cosines[j] =
  // rotation_dot(out_first[j], out_second[j]) for the joints of the `rotations` steps, the same bits as
  // rotation_cosines.
  void (*decode_quantized_pair)(const uint8_t* first, const uint8_t* second, const detail::DecodeStep* steps,
                                int rotations, int vectors, JointPose* out_first, JointPose* out_second,
                                float* cosines);
  // out[j] = joint j's key pairs at their fractions: translation and scale lerped, rotation slerped along
  // the short arc (slerp_weight) and normalised; the still channels copied from the constant pose.
  void (*interpolate_keys)(const KeyPairs& keys, int count, JointPose* out);
  // out[j] = rotation_dot(a[j], b[j]) for the joints j in joints[0, count): the cosines interpolate_frames
  // takes, for two frames decoded at run time. Every path sums in rotation_dot's order (the same bits).
  void (*rotation_cosines)(const JointPose* a, const JointPose* b, const uint32_t* joints, int count,
                           float* out);
};

// The plain C++ decode of the scalar table.
void decode_quantized_scalar(const uint8_t* frame, const detail::DecodeStep* steps, int rotations,
                             int vectors, JointPose* out);
// decode_quantized_pair as two calls of `decode`, then the cosines (the scalar and NEON tables).
void decode_quantized_pair_in_turn(decltype(Kernels::decode_quantized) decode, const uint8_t* first,
                                   const uint8_t* second, const detail::DecodeStep* steps, int rotations,
                                   int vectors, JointPose* out_first, JointPose* out_second, float* cosines);

extern const Kernels kScalarKernels;
extern const Kernels kSse2Kernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kNeonKernels;
const Kernels& active_kernels();

// Offline work that writes files (clip and morph compression, retarget bakes, the errors they decide on) runs
// its jobs on the scalar table while one of these lives on the calling thread: the SIMD tables round
// differently (AVX2's fused multiply-adds, the order of sums), and an error measured a rounding either side
// of a threshold keeps or drops a frame, so the same input would give other bytes on another CPU. The library
// is built without implicit FMA contraction (-ffp-contract=off), so the scalar table computes the same IEEE
// operations on x86-64, AArch64 and Windows. Other threads keep their level. Scopes nest.
class PortableKernelsScope {
 public:
  PortableKernelsScope();
  ~PortableKernelsScope();
  PortableKernelsScope(const PortableKernelsScope&) = delete;
  PortableKernelsScope& operator=(const PortableKernelsScope&) = delete;

 private:
  const Kernels* saved_;
};

}  // namespace ossa::detail
