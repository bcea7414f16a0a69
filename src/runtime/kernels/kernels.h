// Internal: the inner loops of the runtime jobs, one table per instruction set (scalar, SSE2, AVX2+FMA,
// NEON). The jobs validate their inputs and then call the active table; kernels assume valid input.
#pragma once

#include <cstdint>

#include "../../asset/clip_decoder.h"
#include "ossa/asset/clip.h"
#include "ossa/runtime/pose.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/skinning_job.h"

namespace ossa::detail {

struct Kernels {
  // out = lerp(a, b, alpha) for translation and scale, nlerp for rotation. Sampling passes shortest = false
  // (clips store rotations on one hemisphere frame to frame); blending two clips passes true (b's rotation is
  // negated where it lies on the other hemisphere).
  void (*blend_poses)(const JointPose* a, const JointPose* b, float alpha, int count, bool shortest,
                      JointPose* out);
  // model[j] = (parent >= 0 ? model[parent] : root or identity) * TRS(local[j]) for j in [begin, end).
  void (*local_to_model)(const JointPose* local, const int* parents, int begin, int end, const Mat4* root,
                         Mat4* model);
  // out[k] = model[remap ? remap[k] : k] * inverse_binds[k].
  void (*palette)(const Mat4* model, const Mat4* inverse_binds, const uint16_t* remap, int count, Mat4* out);
  void (*skin)(const SkinningJob& job);
  // Two clips sampled and blended in one pass: out = nlerp(lerp(a0, a1, alpha), lerp(b0, b1, beta), weight)
  // per channel (the two clips' rotations are not normalised on their own: one normalisation at the end).
  void (*sample_blend2)(const JointPose* a0, const JointPose* a1, float alpha, const JointPose* b0,
                        const JointPose* b1, float beta, float weight, int count, JointPose* out);
  // The quantized channels of one frame of a compressed clip (Clip::decode_animated): `rotations` steps
  // whose x, y, z are decoded and w rebuilt, then `vectors` translation or scale steps. Every path computes
  // the same IEEE operations in the same order as detail::dequantize / rebuild_rotation (no fused
  // multiply-add), so a clip decodes to the same bits on every machine and the compressor's bound holds.
  void (*decode_quantized)(const uint8_t* frame, const detail::DecodeStep* steps, int rotations, int vectors,
                           JointPose* out);
  // q[j].rotation negated where it lies on the other hemisphere from reference[j].rotation (q and -q are the
  // same rotation): a pair aligned once blends with shortest = false from then on.
  void (*align_rotations)(const JointPose* reference, JointPose* q, int count);
};

// The plain C++ decode, shared by the scalar and SSE2 tables (SSE2 lacks a per-lane variable shift).
void decode_quantized_scalar(const uint8_t* frame, const detail::DecodeStep* steps, int rotations,
                             int vectors, JointPose* out);

extern const Kernels kScalarKernels;
extern const Kernels kSse2Kernels;
extern const Kernels kAvx2Kernels;
extern const Kernels kNeonKernels;
const Kernels& active_kernels();

}  // namespace ossa::detail
