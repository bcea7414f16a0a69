#include "ossa/render/baked_animation.h"

#include "ossa/core/file_io.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/sample_job.h"
#include "ossa/runtime/skinning_job.h"

namespace ossa {

uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  int exponent = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));  // inf/nan
  if (exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00);         // overflow
  if (exponent <= 0) {                                                     // subnormal half or zero
    if (exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000;
    const int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    if ((mantissa >> (shift - 1)) & 1) ++half;  // round half up
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exponent) << 10) | (mantissa >> 13);
  if (mantissa & 0x1000) ++half;  // round to nearest (carry into the exponent is correct rounding)
  return static_cast<uint16_t>(half);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, x;
  if (exponent == 0) {
    if (mantissa == 0) {
      x = sign;
    } else {  // subnormal: normalise
      exponent = 127 - 15 + 1;
      while (!(mantissa & 0x400)) mantissa <<= 1, --exponent;
      x = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
    }
  } else if (exponent == 31) {
    x = sign | 0x7f800000 | (mantissa << 13);
  } else {
    x = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double BakedAnimation::bytes_per_joint_second() const {
  double joint_seconds = 0;
  for (const BakedClipInfo& c : clips) joint_seconds += std::max(c.duration, 1e-6f) * joints;
  return joint_seconds > 0 ? static_cast<double>(bytes()) / joint_seconds : 0;
}

namespace {
struct BoundsScratch {
  std::vector<Mat4> palette;
  std::vector<float> positions, morphed;
  float row_norm[3] = {0, 0, 0};  // largest norm of each of rows 0-2 (3x3 part) of any skinning matrix
  float displacement = 0;         // largest morph displacement of any vertex in any frame
};

// Appends the box around every mesh's unmorphed vertices skinned with `model` (one frame) to
// info.frame_bounds; records the frame's largest morph displacement (`weights`: every mesh's, from
// `weight_first[m]`) and the skinning matrices' row norms, with which bake_animation() widens the boxes.
void add_frame_bounds(const CharacterAsset& asset, std::span<const Mat4> model,
                      std::span<const float> weights, std::span<const size_t> weight_first,
                      BoundsScratch& scratch, BakedClipInfo& info) {
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const SkinnedMesh& mesh = asset.meshes[m];
    scratch.palette.resize(mesh.inverse_binds().size());
    scratch.positions.resize(static_cast<size_t>(mesh.vertex_count()) * 3);
    if (!PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), scratch.palette, {}}.run()) continue;
    SkinningJob job = SkinningJob::for_mesh(mesh, scratch.palette);
    job.out_positions = scratch.positions;
    if (!job.run()) continue;
    for (size_t i = 0; i + 2 < scratch.positions.size(); i += 3) {
      const Vec3 p{scratch.positions[i], scratch.positions[i + 1], scratch.positions[i + 2]};
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
    if (mesh.morph_targets().empty()) continue;
    for (const Mat4& skin : scratch.palette)
      for (int r = 0; r < 3; ++r)
        scratch.row_norm[r] = std::max(
            scratch.row_norm[r], std::sqrt(skin.at(r, 0) * skin.at(r, 0) + skin.at(r, 1) * skin.at(r, 1) +
                                           skin.at(r, 2) * skin.at(r, 2)));
    const std::span<const float> mesh_weights =
        weights.subspan(weight_first[m], weight_first[m + 1] - weight_first[m]);
    scratch.morphed.resize(mesh.positions().size());
    MorphJob morph = MorphJob::for_mesh(mesh, mesh_weights);
    morph.out_positions = scratch.morphed;
    if (!morph.run()) continue;
    for (size_t i = 0; i + 2 < scratch.morphed.size(); i += 3) {
      const Vec3 d{scratch.morphed[i] - mesh.positions()[i], scratch.morphed[i + 1] - mesh.positions()[i + 1],
                   scratch.morphed[i + 2] - mesh.positions()[i + 2]};
      scratch.displacement = std::max(scratch.displacement, length(d));
    }
  }
  if (lo.x > hi.x) lo = hi = model.empty() ? Vec3{} : model[0].translation();  // no vertices: a point
  info.frame_bounds.insert(info.frame_bounds.end(), {lo.x, lo.y, lo.z, hi.x, hi.y, hi.z});
}
// The rows an automatic bake gives a clip: the shader lerps matrices between rows, which shortens a turning
// joint, so rows come at the clip's own rate (30 for keyed clips) doubled (up to 8x, and while the rows fit)
// until no joint turns more than 20 degrees between rows (a lerp of matrices shortens a turning joint's
// bones as an nlerp of rotations would; 20 degrees keeps that under 1.5 %).
float automatic_bake_rate(const Clip& clip) {
  const float base = clip.layout() == Clip::Layout::kFixedRate ? clip.frame_rate() : 30.f;
  constexpr float kCosHalfMaxStep = 0.98480775f;  // cos(10 degrees)
  const int joints = clip.joint_count();
  std::vector<JointPose> previous(joints), current(joints);
  SamplingCache cache;
  for (int multiple = 1;; multiple *= 2) {
    const float rate = base * static_cast<float>(multiple);
    const double rows = std::ceil(static_cast<double>(clip.duration()) * rate * 2 - 1e-3) + 1;
    if (multiple == 8 || !(rows <= 16384)) return rate;
    const int frames =
        std::max(1, static_cast<int>(std::ceil(static_cast<double>(clip.duration()) * rate - 1e-3)) + 1);
    bool within = true;
    for (int f = 0; f < frames && within; ++f) {
      const float t = f == frames - 1 ? clip.duration() : std::min(clip.duration(), f / rate);
      SampleJob{&clip, t, &cache, current}.run();
      for (int j = 0; f > 0 && j < joints && within; ++j)
        within = std::fabs(rotation_dot(previous[j], current[j])) >= kCosHalfMaxStep;
      std::swap(previous, current);
    }
    if (within) return rate;
  }
}
}  // namespace

Result<BakedAnimation> bake_animation(const CharacterAsset& asset, float frame_rate, bool half) {
  BakedAnimation b;
  b.joints = asset.skeleton.joint_count();
  b.half = half;
  // Every mesh's morph weights, mesh after mesh: mesh m's from weight_first[m].
  std::vector<size_t> weight_first{0};
  std::vector<float> default_weights;
  for (const SkinnedMesh& mesh : asset.meshes) {
    const std::span<const float> defaults = mesh.morph_targets().default_weights();
    default_weights.insert(default_weights.end(), defaults.begin(), defaults.end());
    weight_first.push_back(default_weights.size());
  }
  if (default_weights.size() > size_t{4} * 16384)
    return Result<BakedAnimation>::failure("too many morph targets to bake");
  b.morph_weights = static_cast<int>(default_weights.size());
  b.width = 3 * b.joints + (b.morph_weights + 3) / 4;
  b.layers = static_cast<int>(asset.clips.size());
  if (b.layers == 0) return Result<BakedAnimation>::failure("nothing to bake: no clips");
  if (b.width > 16384)
    return Result<BakedAnimation>::failure("too many joints and morph targets to bake (" +
                                           std::to_string(b.joints) + " joints, " +
                                           std::to_string(b.morph_weights) + " targets)");
  for (size_t c = 0; c < asset.clips.size(); ++c) {
    const Clip& clip = asset.clips[c];
    const float rate = frame_rate > 0 ? frame_rate : automatic_bake_rate(clip);
    const double wanted = std::ceil(static_cast<double>(clip.duration()) * rate - 1e-3) + 1;
    if (!(wanted <= 16384))
      return Result<BakedAnimation>::failure("clip '" + clip.name() + "' has too many frames to bake");
    int frames = std::max(1, static_cast<int>(wanted));
    BakedClipInfo info;
    info.name = clip.name();
    info.layer = static_cast<int>(c);
    info.frame_count = frames;
    info.frame_rate = rate;
    info.duration = clip.duration();
    b.clips.push_back(std::move(info));
    b.height = std::max(b.height, frames);
  }
  if (b.height > 16384)
    return Result<BakedAnimation>::failure("a clip has too many frames to bake at this rate");
  b.texels.assign(static_cast<size_t>(b.layers) * b.height * b.width * 4, 0.f);
  std::vector<JointPose> locals(b.joints);
  std::vector<Mat4> model(b.joints);
  SamplingCache cache;
  BoundsScratch bounds_scratch;
  std::vector<float> weights(default_weights.size());
  for (BakedClipInfo& info : b.clips) {
    const Clip& clip = asset.clips[info.layer];
    for (int f = 0; f < b.height; ++f) {
      int frame = std::min(f, info.frame_count - 1);  // shorter clips repeat their last frame
      float t =
          frame == info.frame_count - 1 ? info.duration : std::min(info.duration, frame / info.frame_rate);
      SampleJob{&clip, t, &cache, locals}.run();
      LocalToModelJob{&asset.skeleton, locals, model}.run();
      // The weights as Animator samples them for this clip alone: defaults, then the clip's tracks.
      std::copy(default_weights.begin(), default_weights.end(), weights.begin());
      for (size_t m = 0; m < asset.meshes.size(); ++m)
        clip.morph_weights().sample_mesh(
            static_cast<int>(m), t,
            std::span<float>(weights).subspan(weight_first[m], weight_first[m + 1] - weight_first[m]));
      if (f < info.frame_count) add_frame_bounds(asset, model, weights, weight_first, bounds_scratch, info);
      float* row = &b.texels[(static_cast<size_t>(info.layer) * b.height + f) * b.width * 4];
      for (int j = 0; j < b.joints; ++j) {
        const Mat4 skinning = model[j] * asset.skeleton.inverse_binds()[j];
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 4; ++c) row[(j * 3 + r) * 4 + c] = skinning.at(r, c);
      }
      std::copy(weights.begin(), weights.end(), row + static_cast<size_t>(b.weights_texel()) * 4);
    }
  }
  // Widen every box by what morphing can add to a vertex (BakedClipInfo::frame_bounds).
  if (bounds_scratch.displacement > 0)
    for (BakedClipInfo& info : b.clips)
      for (size_t k = 0; k < info.frame_bounds.size(); k += 6)
        for (int a = 0; a < 3; ++a) {
          const float margin = bounds_scratch.row_norm[a] * bounds_scratch.displacement * (1 + 1e-5f);
          info.frame_bounds[k + a] -= margin;
          info.frame_bounds[k + 3 + a] += margin;
        }
  if (half) {
    b.halves.resize(b.texels.size());
    for (size_t i = 0; i < b.texels.size(); ++i) {
      b.halves[i] = float_to_half(b.texels[i]);
      b.max_half_error =
          std::max<double>(b.max_half_error, std::fabs(half_to_float(b.halves[i]) - b.texels[i]));
    }
  }
  return b;
}

Result<bool> write_baked_animation(const BakedAnimation& b, const std::string& prefix) {
  const auto* texels = b.half ? reinterpret_cast<const uint8_t*>(b.halves.data())
                              : reinterpret_cast<const uint8_t*>(b.texels.data());
  const size_t texel_bytes = b.half ? b.halves.size() * 2 : b.texels.size() * 4;
  if (auto written = write_file_atomically(prefix + ".bin", {texels, texel_bytes}); !written) return written;
  nlohmann::ordered_json j;
  j["format"] = b.half ? "RGBA16F" : "RGBA32F";
  j["layout"] =
      b.morph_weights > 0
          ? "texture array: layer = clip, row = frame, texels 3j..3j+2 = rows 0-2 of joint j's model matrix, "
            "then morph weight k (every mesh's targets, mesh after mesh) at texel weights_texel + k / 4, "
            "component k % 4"
          : "texture array: layer = clip, row = frame, texels 3j..3j+2 = rows 0-2 of joint j's model matrix";
  j["width"] = b.width;
  j["height"] = b.height;
  j["layers"] = b.layers;
  j["joints"] = b.joints;
  if (b.morph_weights > 0) {
    j["morph_weights"] = b.morph_weights;
    j["weights_texel"] = b.weights_texel();
  }
  j["bytes"] = b.bytes();
  j["bytes_per_joint_second"] = b.bytes_per_joint_second();
  if (b.half) j["max_half_error"] = b.max_half_error;
  for (const BakedClipInfo& c : b.clips)
    j["clips"].push_back({{"name", c.name},
                          {"layer", c.layer},
                          {"frames", c.frame_count},
                          {"frame_rate", c.frame_rate},
                          {"duration", c.duration}});
  const std::string json = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return write_file_atomically(prefix + ".json",
                               {reinterpret_cast<const uint8_t*>(json.data()), json.size()});
}

}  // namespace ossa
