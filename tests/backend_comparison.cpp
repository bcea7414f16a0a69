#include "backend_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ossa/render/image.h"
#include "ossa/runtime/crowd.h"

namespace ossa::test {

namespace {
// One baked instance held at `time` of `clip` (speed 0), crossfading `weight` towards `clip2`.
BakedInstance still_instance(int clip, float time, int clip2, float weight) {
  BakedInstance instance;
  instance.clip = clip;
  instance.time = time;
  instance.speed = 0;
  instance.clip2 = clip2;
  instance.weight = weight;
  return instance;
}
}  // namespace

std::vector<ComparisonFrame> comparison_frames(const CharacterAsset& asset) {
  std::vector<ComparisonFrame> frames;
  for (size_t c = 0; c < asset.clips.size(); ++c)
    for (int third = 0; third < 3; ++third) {
      ComparisonFrame f;
      f.name = "clip" + std::to_string(c) + "_t" + std::to_string(third);
      f.clip = static_cast<int>(c);
      f.time = asset.clips[c].duration() * static_cast<float>(third) / 3.f;
      frames.push_back(f);
    }
  if (asset.clips.empty()) return frames;
  for (LightingMode mode : {LightingMode::kPhong, LightingMode::kBlinnPhong, LightingMode::kLambert,
                            LightingMode::kUnlit, LightingMode::kTextureOnly}) {
    ComparisonFrame f;
    f.name = std::string("lighting_") + to_string(mode);
    f.time = asset.clips[0].duration() / 3.f;
    f.lighting = mode;
    frames.push_back(f);
  }
  ComparisonFrame skeleton;
  skeleton.name = "skeleton";
  skeleton.time = asset.clips[0].duration() / 3.f;
  skeleton.skeleton = true;
  frames.push_back(skeleton);
  ComparisonFrame baked;
  baked.name = "baked";
  baked.time = asset.clips[0].duration() / 3.f;
  baked.path = SkinningPath::kBaked;
  frames.push_back(baked);
  if (asset.clips.size() > 1) {
    baked.name = "baked_crossfade";
    baked.clip2 = 1;
    baked.weight = 0.4f;
    frames.push_back(baked);
  }
  return frames;
}

FrameSettings comparison_settings(const CharacterAsset& asset, LightingMode lighting, int size) {
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (const SkinnedMesh& m : asset.meshes)
    for (size_t i = 0; i + 2 < m.positions().size(); i += 3) {
      const Vec3 p{m.positions()[i], m.positions()[i + 1], m.positions()[i + 2]};
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
  if (lo.x > hi.x) lo = hi = {};
  const Vec3 margin = (hi - lo) * 0.3f;  // animated poses reach a little outside the bind pose
  FrameSettings f;
  f.width = f.height = size;
  f.lighting = lighting;
  f.camera = frame_bounds(lo - margin, hi + margin, 1);
  return f;
}

Image render_comparison_frame(CharacterRenderer& renderer, const CharacterAsset& asset,
                              const ComparisonFrame& frame) {
  CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[frame.clip], frame.time);
  update_character(asset.skeleton, c, 0);
  renderer.begin_frame(comparison_settings(asset, frame.lighting));
  if (frame.path == SkinningPath::kBaked) {
    const BakedInstance instance = still_instance(frame.clip, frame.time, frame.clip2, frame.weight);
    renderer.draw_baked(std::span(&instance, 1), 0, {BakedEvaluation::kPerVertex, true, 0});
  } else if (frame.path == SkinningPath::kCpu) {
    renderer.draw_cpu(Mat4{}, c.model);
  } else {
    renderer.draw_palette(Mat4{}, c.model);
  }
  if (frame.skeleton) renderer.draw_skeleton(Mat4{}, c.model);
  return renderer.end_frame();
}

std::vector<MorphFrame> morph_comparison_frames(const CharacterAsset& asset) {
  size_t total = 0;
  for (const SkinnedMesh& m : asset.meshes) total += static_cast<size_t>(m.morph_targets().count());
  const int body = asset.meshes.empty() ? 0 : asset.meshes[0].morph_targets().count();
  auto frame = [&](const char* name, int active, float cape) {
    MorphFrame f;
    f.name = name;
    f.weights.assign(total, 0.f);
    for (int t = 0; t < std::min(active, body); ++t)
      f.weights[static_cast<size_t>(t)] = (t % 3 == 2 ? -0.6f : 1.f) * (0.5f + 0.07f * static_cast<float>(t));
    for (size_t t = static_cast<size_t>(body); t < total; ++t) f.weights[t] = cape;
    f.body_active = std::min(active, body);
    return f;
  };
  return {frame("morph_3", 3, 0.9f), frame("morph_slots", kMaxGpuMorphTargets, -0.7f),
          frame("morph_over_slots", kMaxGpuMorphTargets + 4, 1.f), frame("morph_none", 0, 0.f)};
}

std::string morph_stats_mismatch(const CharacterAsset& asset, const MorphFrame& frame,
                                 const MorphDrawStats& stats) {
  const bool body_on_cpu = frame.body_active > kMaxGpuMorphTargets, cape = frame.weights.back() != 0;
  const int cape_targets = asset.meshes[1].morph_targets().count();
  MorphDrawStats want;
  want.cpu_meshes = body_on_cpu;
  want.gpu_meshes = (frame.body_active > 0 && !body_on_cpu) + cape;
  want.gpu_targets = (body_on_cpu ? 0 : frame.body_active) + (cape ? cape_targets : 0);
  if (stats.cpu_meshes == want.cpu_meshes && stats.gpu_meshes == want.gpu_meshes &&
      stats.gpu_targets == want.gpu_targets)
    return "";
  auto text = [](const MorphDrawStats& s) {
    return std::to_string(s.gpu_meshes) + " meshes and " + std::to_string(s.gpu_targets) +
           " targets on the GPU, " + std::to_string(s.cpu_meshes) + " meshes on the CPU";
  };
  return frame.name + ": " + text(stats) + " instead of " + text(want);
}

MaterialSet tilted_normal_map() {
  Image image;
  image.width = image.height = 4;
  // Tangent-space normal (0.8, 0, 0.6): mostly along the tangent.
  for (int i = 0; i < 16; ++i) image.rgba.insert(image.rgba.end(), {230, 128, 204, 255});
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("ossa_tilted_normal_map_" +
       std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + ".png");
  MaterialSet out;
  Texture texture;
  texture.path = "tilted_normal_map.png";
  texture.format_hint = "png";
  if (write_png(image, file.string())) {
    std::ifstream in(file, std::ios::binary);
    texture.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::error_code ec;
  std::filesystem::remove(file, ec);
  EXPECT_FALSE(texture.data.empty()) << "cannot write " << file.string();
  out.textures.push_back(std::move(texture));
  Material material;
  material.name = "tilted";
  material.base_color = {0.9f, 0.8f, 0.7f, 1};
  material.normal_texture = 0;
  out.materials.push_back(material);
  return out;
}

Image render_morph_frame(CharacterRenderer& renderer, const CharacterAsset& asset, const MorphFrame& frame,
                         SkinningPath path) {
  CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[0], asset.clips[0].duration() / 3);
  update_character(asset.skeleton, c, 0);
  renderer.begin_frame(comparison_settings(asset, LightingMode::kLambert));
  if (path == SkinningPath::kCpu)
    renderer.draw_cpu(Mat4{}, c.model, frame.weights);
  else
    renderer.draw_palette(Mat4{}, c.model, frame.weights);
  return renderer.end_frame();
}

std::vector<BakedMorphFrame> baked_morph_frames(const BakedAnimation& baked, int clip, int clip2) {
  const BakedClipInfo& info = baked.clips[clip];
  const int f = info.frame_count / 3;
  const std::string prefix = "baked_morph_clip" + std::to_string(clip);
  std::vector<BakedMorphFrame> frames;
  BakedMorphFrame at;
  at.name = prefix + "_frame";
  at.clip = clip;
  at.time = static_cast<float>(f) / info.frame_rate;
  frames.push_back(at);
  BakedMorphFrame between = at;
  between.name = prefix + "_between";
  between.time = (static_cast<float>(f) + 0.5f) / info.frame_rate;
  between.between = true;
  frames.push_back(between);
  if (clip2 >= 0 && clip2 != clip) {
    BakedMorphFrame fade = at;
    fade.name = prefix + "_crossfade";
    fade.clip2 = clip2;
    fade.weight = 0.4f;
    frames.push_back(fade);
  }
  return frames;
}

namespace {
// Clip `clip`'s model matrices at time t (looped), from the runtime.
std::vector<Mat4> runtime_model(const CharacterAsset& asset, int clip, float t) {
  const float duration = asset.clips[clip].duration();
  CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[clip], duration > 0 ? std::fmod(t, duration) : 0.f);
  update_character(asset.skeleton, c, 0);
  return c.model;
}

// Every mesh's weights of clip `clip` at time t: the defaults, replaced by the clip's tracks.
std::vector<float> clip_weights(const CharacterAsset& asset, int clip, float t) {
  std::vector<float> weights;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const std::span<const float> defaults = asset.meshes[m].morph_targets().default_weights();
    const size_t first = weights.size();
    weights.insert(weights.end(), defaults.begin(), defaults.end());
    asset.clips[clip].morph_weights().sample_mesh(static_cast<int>(m), t,
                                                  std::span<float>(weights).subspan(first, defaults.size()));
  }
  return weights;
}

// The weights the bake's frames around time t give (looped; the last frame at the clip's end).
std::vector<float> framed_weights(const CharacterAsset& asset, const BakedClipInfo& info, int clip, float t) {
  t = info.duration > 0 ? std::fmod(t, info.duration) : 0.f;
  const int f0 = std::min(static_cast<int>(std::floor(t * info.frame_rate)), info.frame_count - 1);
  const int f1 = std::min(f0 + 1, info.frame_count - 1);
  const float t0 = static_cast<float>(f0) / info.frame_rate,
              t1 = f1 == info.frame_count - 1 ? info.duration : static_cast<float>(f1) / info.frame_rate;
  const float a = f1 > f0 && t1 > t0 ? std::clamp((t - t0) / (t1 - t0), 0.f, 1.f) : 0.f;
  std::vector<float> w0 = clip_weights(asset, clip, t0);
  const std::vector<float> w1 = clip_weights(asset, clip, t1);
  for (size_t k = 0; k < w0.size(); ++k) w0[k] += (w1[k] - w0[k]) * a;
  return w0;
}
}  // namespace

void baked_morph_truth(const CharacterAsset& asset, const BakedAnimation& baked, const BakedMorphFrame& frame,
                       std::vector<Mat4>& model, std::vector<float>& weights) {
  model = runtime_model(asset, frame.clip, frame.time);
  weights = framed_weights(asset, baked.clips[frame.clip], frame.clip, frame.time);
  if (frame.clip2 < 0 || frame.weight <= 0) return;
  const std::vector<Mat4> other = runtime_model(asset, frame.clip2, frame.time);
  for (size_t j = 0; j < model.size(); ++j)
    for (int e = 0; e < 16; ++e) model[j].m[e] += (other[j].m[e] - model[j].m[e]) * frame.weight;
  const std::vector<float> other_weights =
      framed_weights(asset, baked.clips[frame.clip2], frame.clip2, frame.time);
  for (size_t k = 0; k < weights.size(); ++k) weights[k] += (other_weights[k] - weights[k]) * frame.weight;
}

Image render_baked_morph_frame(CharacterRenderer& renderer, const CharacterAsset& asset,
                               const BakedAnimation& baked, const BakedMorphFrame& frame, SkinningPath path,
                               BakedEvaluation evaluation, bool zero_weights) {
  renderer.begin_frame(comparison_settings(asset, LightingMode::kLambert));
  if (path == SkinningPath::kBaked) {
    const BakedInstance instance = still_instance(frame.clip, frame.time, frame.clip2, frame.weight);
    renderer.draw_baked(std::span(&instance, 1), 0, {evaluation, true, 0});
  } else {
    std::vector<Mat4> model;
    std::vector<float> weights;
    baked_morph_truth(asset, baked, frame, model, weights);
    if (zero_weights) std::fill(weights.begin(), weights.end(), 0.f);
    renderer.draw_palette(Mat4{}, model, weights);
  }
  return renderer.end_frame();
}

}  // namespace ossa::test
