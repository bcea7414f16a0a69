// Decoding a compressed clip's frames: runtime work (the SIMD kernels), for the Clip declared in
// ossa/asset/clip.h.
#include "../asset/clip_decoder.h"
#include "../asset/quantization.h"
#include "kernels/kernels.h"
#include "ossa/asset/clip.h"

namespace ossa {

void Clip::decode_frame(int frame, JointPose* out) const {
  std::copy(constant_pose_.begin(), constant_pose_.end(), out);
  decode_animated(frame, out);
}

namespace {

// The steps that detail::Kernels::decode_quantized leaves (floats and four-float rotations): read one by one.
void decode_others(const uint8_t* data, const detail::DecodeStep* d, const detail::DecodeStep* end,
                   JointPose* out) {
  for (; d != end; ++d) {
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

}  // namespace

int Clip::segment_of(int frame) const {
  return decoder_->segment_shift >= 0 ? frame >> decoder_->segment_shift : frame / segment_frames_;
}

const uint8_t* Clip::frame_data(int segment, int frame) const {
  const detail::QuantizedDecoder::Segment& s = decoder_->segments[segment];
  return packed_.data() + s.first_byte +
         static_cast<size_t>(frame - segment * segment_frames_) * s.frame_bytes;
}

void Clip::decode_animated(int frame, JointPose* out) const {
  const int segment = segment_of(frame);
  const detail::QuantizedDecoder::Segment& s = decoder_->segments[segment];
  const detail::DecodeStep* d = decoder_->steps.data() + s.first_step;
  const uint8_t* data = frame_data(segment, frame);
  detail::active_kernels().decode_quantized(data, d, static_cast<int>(s.rotations),
                                            static_cast<int>(s.vectors), out);
  d += s.rotations + s.vectors;
  decode_others(data, d, d + s.others, out);
}

bool Clip::decode_animated_pair(int first, int second, JointPose* out_first, JointPose* out_second,
                                float* cosines) const {
  const int segment = segment_of(first);
  if (segment_of(second) != segment) return false;
  const detail::QuantizedDecoder::Segment& s = decoder_->segments[segment];
  const detail::DecodeStep* d = decoder_->steps.data() + s.first_step;
  const uint8_t *data_first = frame_data(segment, first), *data_second = frame_data(segment, second);
  detail::active_kernels().decode_quantized_pair(data_first, data_second, d, static_cast<int>(s.rotations),
                                                 static_cast<int>(s.vectors), out_first, out_second, cosines);
  d += s.rotations + s.vectors;
  decode_others(data_first, d, d + s.others, out_first);
  decode_others(data_second, d, d + s.others, out_second);
  for (const detail::DecodeStep* end = d + s.others; d != end; ++d)
    if (d->kind == 1) cosines[d->joint] = rotation_dot(out_first[d->joint], out_second[d->joint]);
  return true;
}

}  // namespace ossa
