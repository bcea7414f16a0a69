#include "backend_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "ossa/render/image.h"
#include "ossa/runtime/crowd.h"

namespace ossa::test {

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
    BakedInstance instance;
    instance.clip = frame.clip;
    instance.time = frame.time;
    instance.speed = 0;
    instance.clip2 = frame.clip2;
    instance.weight = frame.weight;
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

}  // namespace ossa::test
