// Rendering on llvmpipe (headless EGL): GPU palette skinning against CPU skinning through the same pipeline,
// baked instancing against GPU palette skinning, golden images of each lighting mode, no GL errors.
// Bounds (fraction of pixels whose largest channel difference exceeds the threshold):
//   GPU palette vs CPU skinning, any time: <= 0.04 % of pixels (10 of 160 x 160) differ by more than 1/255.
//     Measured on llvmpipe: at most 1 pixel on 75 frames of 10 models. A shader that drops the fourth
//     influence makes 15-150 pixels differ (0.06-0.6 %) on frames of the bundled sample, humanoid, CesiumMan;
//   baked vs palette at frame times: <= 1 % (largest channel difference over 8/255);
//   baked vs palette between frames (matrices lerped in the shader, poses nlerped on the CPU): <= 3 %.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "../src/render/baked_morph_plan.h"
#include "../src/render/draw_plan.h"
#include "../src/render/morph_plan.h"
#include "backend_comparison.h"
#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/import/import.h"
#include "ossa/import/load_character.h"
#include "ossa/render/gl_renderer.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"
#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"
#include "test_paths.h"

namespace ossa {
namespace {
namespace fs = std::filesystem;

std::shared_ptr<GlContext> context() {
  static std::shared_ptr<GlContext> gl = [] {
    auto created = GlContext::create_headless();
    return created ? *created : std::shared_ptr<GlContext>();
  }();
  return gl;
}

#define REQUIRE_GL()                                                                          \
  do {                                                                                        \
    if (!context()) GTEST_SKIP() << "no headless OpenGL 4.5 context (EGL/Mesa missing here)"; \
  } while (0)

struct Loaded {
  ImportedScene scene;
  std::unique_ptr<CharacterAsset> asset;
  std::unique_ptr<CharacterRenderer> renderer;
};

// The bundled and shared models, read in this process (`isolate = false`, as `ossa --trusted`): the guard's
// child is forked from a process whose GL driver runs threads (Mesa's glthread in
// Render.ThreadedGlDispatchDrawsTheSame), and a child that inherits a lock one of them held waits out the
// guard's time limit (under ASan that happened in CI: 120 s, then "load failed"). What the guard does is
// tested in the import tests.
Result<ImportedScene> import_here(const std::string& path) {
  ImportOptions options;
  options.isolate = false;
  return import_file(path, options);
}

std::unique_ptr<Loaded> load(const std::string& path) {
  auto scene = import_here(path);
  if (!scene) return nullptr;
  auto out = std::make_unique<Loaded>();
  out->scene = std::move(scene).value();
  auto asset = CharacterAsset::build(out->scene);
  if (!asset) return nullptr;
  out->asset = std::make_unique<CharacterAsset>(std::move(asset).value());
  auto renderer = create_gl_renderer(context(), *out->asset, out->scene);
  if (!renderer) {
    ADD_FAILURE() << renderer.error();
    return nullptr;
  }
  out->renderer = std::move(renderer).value();
  return out;
}

// A camera that frames the character's bind pose (the same for every path compared).
FrameSettings frame_for(const CharacterAsset& asset, int size, LightingMode lighting) {
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (const SkinnedMesh& m : asset.meshes)
    for (size_t i = 0; i + 2 < m.positions().size(); i += 3) {
      Vec3 p{m.positions()[i], m.positions()[i + 1], m.positions()[i + 2]};
      lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
      hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
    }
  Vec3 margin = (hi - lo) * 0.3f;  // animated poses reach a little outside the bind pose
  FrameSettings f;
  f.width = f.height = size;
  f.lighting = lighting;
  f.camera = frame_bounds(lo - margin, hi + margin, 1);
  return f;
}

constexpr double kGpuCpuFraction = 0.0004;

std::vector<Mat4> pose(const CharacterAsset& asset, int clip, float t) {
  CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[clip], t);
  update_character(asset.skeleton, c, 0);
  return c.model;
}

TEST(Render, ClearErrorWhenTheGlVersionIsUnavailable) {
  REQUIRE_GL();
  auto impossible = GlContext::create_headless(9, 9);
  ASSERT_FALSE(impossible);
  EXPECT_NE(impossible.error().find("OpenGL 9.9"), std::string::npos) << impossible.error();
}

TEST(Render, GpuPaletteSkinningMatchesCpuSkinning) {
  REQUIRE_GL();
  int compared = 0;
  double worst = 0;
  for (const std::string& path : test::animated_models()) {
    if (!fs::exists(path)) continue;
    auto m = load(path);
    ASSERT_TRUE(m) << path;
    FrameSettings frame = frame_for(*m->asset, 160, LightingMode::kLambert);
    for (size_t c = 0; c < m->asset->clips.size(); ++c) {
      for (float fraction : {0.f, 0.37f, 0.71f}) {
        float t = m->asset->clips[c].duration() * fraction;
        auto model = pose(*m->asset, static_cast<int>(c), t);
        m->renderer->begin_frame(frame);
        m->renderer->draw_palette(Mat4{}, model);
        Image gpu = m->renderer->end_frame();
        m->renderer->begin_frame(frame);
        m->renderer->draw_cpu(Mat4{}, model);
        Image cpu = m->renderer->end_frame();
        ImageDifference d = compare_images(gpu, cpu, 1);
        EXPECT_LE(d.fraction_over, kGpuCpuFraction)
            << path << " clip " << c << " t=" << t << " max diff " << d.max_difference;
        worst = std::max(worst, d.fraction_over);
        ++compared;
      }
    }
    auto errors = context()->take_errors();
    EXPECT_TRUE(errors.empty()) << path << ": " << (errors.empty() ? "" : errors[0]);
  }
  std::printf("  %d frames compared (GPU palette vs CPU skinning), worst %.5f of pixels differ\n", compared,
              worst);
  EXPECT_GT(compared, 0);
}

// Morph targets on the GPU (palette skinning) against MorphJob + SkinningJob on the CPU, through the same
// pipeline, at the palette-vs-CPU bound, on a character made in code with large deltas (positions, normals
// and, under a normal map that tilts the lighting towards the tangent, tangents): 3 active targets,
// exactly the GPU's 8 slots on one mesh (negative weights among them), more than 8 (that mesh morphed on the
// CPU, then skinned on the GPU), none. The statistics say which path each mesh took, so a renderer that
// morphed everything on the CPU fails; the morphed frames differ from the unmorphed one, so one that ignored
// the weights fails. Also writes these frames for the Direct3D 11 comparison (test_d3d11.cpp), into
// build::gl_reference_dir()-morph.
TEST(Render, MorphTargetsOnTheGpuMatchCpuMorphing) {
  REQUIRE_GL();
  const CharacterAsset asset = test::synthetic_morph_character();
  const test::MaterialSet materials = test::tilted_normal_map();
  auto renderer = create_gl_renderer(context(), asset, materials.materials, materials.textures, false);
  ASSERT_TRUE(renderer) << renderer.error();
  const std::string references = std::string(build::gl_reference_dir()) + "-morph";
  std::error_code ec;
  fs::remove_all(references, ec);
  fs::create_directories(references);
  Image none;
  double worst = 0;
  for (const test::MorphFrame& f : test::morph_comparison_frames(asset)) {
    const Image gpu = test::render_morph_frame(**renderer, asset, f, SkinningPath::kGpuPalette);
    const MorphDrawStats stats = renderer->morph_stats();
    const Image cpu = test::render_morph_frame(**renderer, asset, f, SkinningPath::kCpu);
    const ImageDifference d = compare_images(gpu, cpu, 1);
    EXPECT_LE(d.fraction_over, kGpuCpuFraction) << f.name << ", max diff " << d.max_difference;
    worst = std::max(worst, d.fraction_over);
    EXPECT_EQ(test::morph_stats_mismatch(asset, f, stats), "");
    if (f.body_active == 0) none = gpu;
    ASSERT_TRUE(write_png(gpu, references + "/" + f.name + ".png"));
  }
  for (const test::MorphFrame& f : test::morph_comparison_frames(asset)) {
    if (f.body_active == 0) continue;
    const ImageDifference moved =
        compare_images(test::render_morph_frame(**renderer, asset, f, SkinningPath::kGpuPalette), none, 8);
    EXPECT_GT(moved.fraction_over, 0.02) << f.name << ": the morph changed (almost) nothing";
  }
  // Weights of another size than the meshes' targets together: each mesh's defaults (0 here).
  test::MorphFrame wrong_size{"wrong_size", {1.f, 1.f}, 0};
  EXPECT_EQ(compare_images(test::render_morph_frame(**renderer, asset, wrong_size, SkinningPath::kGpuPalette),
                           none, 0)
                .max_difference,
            0);
  std::printf("  GPU vs CPU morphing: worst %.5f of pixels differ by more than 1/255\n", worst);
  auto errors = context()->take_errors();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
}

// The delta texture's layout, entry by entry against the targets' sparse deltas: each moved vertex's position
// and normal deltas (and tangent deltas, for the Body) at first_texel + texels_per_vertex (vertex -
// first_vertex), zeros elsewhere in the window. A mesh that does not fit the rows allowed is left out
// (windows empty) and its draws with active targets are planned on the CPU; the one that fits stays on the
// GPU.
TEST(Render, MorphDeltaTextureHoldsEachTargetsWindow) {
  const CharacterAsset asset = test::synthetic_morph_character();
  const detail::MorphDeltaTable table = detail::morph_delta_table(asset, detail::kMorphMaxRows);
  ASSERT_GT(table.rows, 0);
  ASSERT_EQ(table.texels.size(), static_cast<size_t>(table.rows) * detail::kMorphTextureWidth * 4);
  size_t nonzero = 0, entries = 0;
  for (float x : table.texels) nonzero += x != 0;
  for (size_t m = 0; m < asset.meshes.size(); ++m) {
    const MorphTargets& targets = asset.meshes[m].morph_targets();
    ASSERT_EQ(table.windows[m].size(), static_cast<size_t>(targets.count()));
    for (int t = 0; t < targets.count(); ++t) {
      const detail::MorphWindow& w = table.windows[m][t];
      const bool tangents = !targets.tangent_deltas().empty();
      ASSERT_EQ(table.texels_per_vertex[m], tangents ? 3 : 2);
      const size_t stride = tangents ? 3 : 2;
      for (uint32_t e = targets.target_first()[t]; e < targets.target_first()[t + 1]; ++e, ++entries) {
        const uint32_t v = targets.vertices()[e];
        ASSERT_GE(v, w.first_vertex);
        ASSERT_LT(v, w.first_vertex + w.vertex_count);
        const float* at = &table.texels[(w.first_texel + stride * size_t{v - w.first_vertex}) * 4];
        for (int k = 0; k < 3; ++k) {
          EXPECT_EQ(at[k], targets.position_deltas()[e * 3 + k]);
          EXPECT_EQ(at[4 + k], targets.normal_deltas().empty() ? 0.f : targets.normal_deltas()[e * 3 + k]);
          if (tangents) {
            EXPECT_EQ(at[8 + k], targets.tangent_deltas()[e * 3 + k]);
          }
        }
      }
    }
  }
  // The Body's targets carry tangent deltas (3 texels a vertex), the Cape's not (2).
  EXPECT_EQ(table.texels_per_vertex, (std::vector<int>{3, 2}));
  std::printf("  delta texture: %d rows of 4096 texels for %zu moved vertices\n", table.rows, entries);
  // Nothing else is written: every non-zero value belongs to an entry (9 floats each at most).
  EXPECT_LE(nonzero, entries * 9);
  EXPECT_GT(nonzero, entries * 3);
  // One row holds the Cape's targets but not the Body's: the Body is morphed on the CPU.
  detail::MorphState state;
  state.init(asset, 1);
  EXPECT_TRUE(state.table().windows[0].empty());
  EXPECT_EQ(state.table().windows[1].size(), 3u);
  const std::vector<float> one_active = {0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25f, 0};
  EXPECT_TRUE(state.plan(0, state.mesh_weights(0, one_active)).on_cpu);
  const detail::MorphDraw& cape = state.plan(1, state.mesh_weights(1, one_active));
  EXPECT_FALSE(cape.on_cpu);
  ASSERT_EQ(cape.active, 1);
  EXPECT_EQ(cape.slots[0], 0.25f);
  EXPECT_EQ(cape.slots[2], static_cast<float>(state.table().windows[1][1].first_vertex));
}

// The morph models of ../shared (a cube and a sphere whose clip animates their targets; Blender's evaluations
// verify the CPU morph in test_import_oracle.cpp) drawn by the Animator through GPU palette skinning with
// GPU morphing and through the CPU path, over the clip.
TEST(Render, MorphModelsDrawAlikeOnGpuAndCpu) {
  REQUIRE_GL();
  int compared = 0, morphed = 0;
  for (const char* name : {"AnimatedMorphCube.gltf", "AnimatedMorphSphere.gltf"}) {
    const std::string path = test::shared_dir() + "/models/morph/" + name;
    if (!fs::exists(path)) GTEST_SKIP() << path << " not found (../shared is not in users' clones)";
    auto m = load(path);
    ASSERT_TRUE(m) << path;
    ASSERT_FALSE(m->asset->clips.empty());
    const FrameSettings frame = frame_for(*m->asset, 160, LightingMode::kBlinnPhong);
    Animator animator(*m->asset);
    ASSERT_TRUE(animator.play(0));
    const float duration = m->asset->clips[0].duration();
    for (int step = 0; step < 6; ++step) {
      animator.update(step == 0 ? 0.f : duration / 6);
      m->renderer->begin_frame(frame);
      m->renderer->draw_palette(Mat4{}, animator.model(), animator.morph_weights());
      const MorphDrawStats stats = m->renderer->morph_stats();
      const Image gpu = m->renderer->end_frame();
      m->renderer->begin_frame(frame);
      m->renderer->draw_cpu(Mat4{}, animator.model(), animator.morph_weights());
      const ImageDifference d = compare_images(gpu, m->renderer->end_frame(), 1);
      EXPECT_LE(d.fraction_over, kGpuCpuFraction)
          << name << " step " << step << ", max diff " << d.max_difference;
      EXPECT_EQ(stats.cpu_meshes, 0);
      morphed += stats.gpu_meshes > 0;
      ++compared;
    }
    auto errors = context()->take_errors();
    EXPECT_TRUE(errors.empty()) << path << ": " << (errors.empty() ? "" : errors[0]);
  }
  std::printf("  %d frames compared, %d of them morphed on the GPU\n", compared, morphed);
  EXPECT_GT(morphed, compared / 2);
}

// Guide lines in the scene (the viewer's ground lattice) are depth-tested: a line behind the character is
// hidden where the body is in front of it, one in front of the character is drawn over it. The control: the
// same line without the character is drawn at the pixel the body covers.
TEST(Render, WorldLinesAreHiddenBehindTheCharacter) {
  REQUIRE_GL();
  auto m = load(test::source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(m);
  FrameSettings frame = frame_for(*m->asset, 256, LightingMode::kUnlit);
  frame.grid = false;
  Animator animator(*m->asset);
  ASSERT_TRUE(animator.play(m->asset->find_clip("Armature|Idle")));
  animator.update(0);
  // Across the whole view at the chest's height, 30 cm behind and in front of the chest joint (the torso is
  // about 25 cm deep), so that both project onto the chest.
  const Vec3 chest = animator.model()[m->asset->skeleton.find_joint("chest")].translation();
  const float y = chest.y, behind = chest.z - 0.3f, front = chest.z + 0.3f;
  const std::vector<Vec3> back_line = {{-3, y, behind}, {3, y, behind}};
  const std::vector<Vec3> front_line = {{-3, y - 0.1f, front}, {3, y - 0.1f, front}};
  const Mat4 view_proj = detail::view_projection(frame, detail::DepthRange::kMinusOneToOne);
  auto pixel_of = [&](Vec3 at) {
    const float* v = view_proj.m;  // column-major
    const float x = v[0] * at.x + v[4] * at.y + v[8] * at.z + v[12];
    const float y = v[1] * at.x + v[5] * at.y + v[9] * at.z + v[13];
    const float w = v[3] * at.x + v[7] * at.y + v[11] * at.z + v[15];
    return std::pair<int, int>{static_cast<int>((x / w * 0.5f + 0.5f) * frame.width),
                               static_cast<int>((0.5f - y / w * 0.5f) * frame.height)};
  };
  auto color_at = [](const Image& image, std::pair<int, int> p) {
    const uint8_t* c = &image.rgba[(static_cast<size_t>(p.second) * image.width + p.first) * 4];
    return std::array<int, 3>{c[0], c[1], c[2]};
  };
  const std::pair<int, int> back_on_body = pixel_of({chest.x, y, behind}),
                            back_beside = pixel_of({chest.x - 1.2f, y, behind}),
                            front_on_body = pixel_of({chest.x, y - 0.1f, front});
  m->renderer->begin_frame(frame);
  m->renderer->draw_world_lines(back_line, {1, 0, 0});
  const Image lines_only = m->renderer->end_frame();
  EXPECT_EQ(color_at(lines_only, back_on_body), (std::array<int, 3>{255, 0, 0}));  // the control
  m->renderer->begin_frame(frame);
  m->renderer->draw_palette(Mat4{}, animator.model());
  m->renderer->draw_world_lines(back_line, {1, 0, 0});
  m->renderer->draw_world_lines(front_line, {0, 1, 0});
  const Image scene = m->renderer->end_frame();
  EXPECT_NE(color_at(scene, back_on_body), (std::array<int, 3>{255, 0, 0})) << "drawn through the body";
  EXPECT_EQ(color_at(scene, back_beside), (std::array<int, 3>{255, 0, 0}));
  EXPECT_EQ(color_at(scene, front_on_body), (std::array<int, 3>{0, 255, 0}));
  auto errors = context()->take_errors();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
}

// Both evaluations of the bake against GPU palette skinning of the runtime's pose: at a frame time, halfway
// to the next frame, and crossfading (40 % of the next clip; the truth lerps the two poses' model matrices,
// as the bake lerps skinning matrices).
TEST(Render, BakedInstancingMatchesPaletteSkinning) {
  REQUIRE_GL();
  int compared = 0;
  double worst[2][3] = {};
  for (const std::string& path : test::animated_models()) {
    if (!fs::exists(path)) continue;
    auto m = load(path);
    ASSERT_TRUE(m) << path;
    auto baked = bake_animation(*m->asset);
    ASSERT_TRUE(baked) << baked.error();
    ASSERT_TRUE(m->renderer->set_baked(*baked));
    FrameSettings frame = frame_for(*m->asset, 160, LightingMode::kLambert);
    const int clips = static_cast<int>(m->asset->clips.size());
    for (int c = 0; c < clips; ++c) {
      const BakedClipInfo& info = baked->clips[c];
      for (int step = 0; step < 3; ++step) {  // a frame time, halfway to the next frame, crossfading
        const int f = info.frame_count / 3;
        const float t = std::min(info.duration, (f + (step == 1 ? 0.5f : 0.f)) / info.frame_rate);
        const int c2 = (c + 1) % clips;
        const float weight = step == 2 && c2 != c ? 0.4f : 0.f;
        std::vector<Mat4> model = pose(*m->asset, c, t);
        if (weight > 0) {
          const float d2 = m->asset->clips[c2].duration();
          const auto other = pose(*m->asset, c2, d2 > 0 ? std::fmod(t, d2) : 0.f);
          for (size_t j = 0; j < model.size(); ++j)
            for (int e = 0; e < 16; ++e) model[j].m[e] += (other[j].m[e] - model[j].m[e]) * weight;
        }
        m->renderer->begin_frame(frame);
        m->renderer->draw_palette(Mat4{}, model);
        Image palette = m->renderer->end_frame();
        BakedInstance instance;
        instance.clip = c;
        instance.time = t;
        instance.speed = 0;
        instance.clip2 = weight > 0 ? c2 : -1;
        instance.weight = weight;
        for (BakedEvaluation evaluation : {BakedEvaluation::kPerInstance, BakedEvaluation::kPerVertex}) {
          m->renderer->begin_frame(frame);
          BakedDrawStats stats = m->renderer->draw_baked(std::span(&instance, 1), 0, {evaluation, true, 0});
          EXPECT_EQ(stats.drawn, 1);
          Image instanced = m->renderer->end_frame();
          ImageDifference d = compare_images(palette, instanced, 8);
          double& w = worst[evaluation == BakedEvaluation::kPerVertex][step];
          w = std::max(w, d.fraction_over);
          EXPECT_LE(d.fraction_over, step == 0 ? 0.01 : 0.03)
              << path << " clip " << c << " t=" << t << " step " << step << " " << to_string(evaluation);
          ++compared;
        }
      }
    }
    auto errors = context()->take_errors();
    EXPECT_TRUE(errors.empty()) << path << ": " << (errors.empty() ? "" : errors[0]);
  }
  for (int e = 0; e < 2; ++e)
    std::printf(
        "  %s: worst fraction of pixels over 8/255: %.4f at frame times, %.4f between, %.4f crossfading\n",
        e ? "per vertex" : "per instance", worst[e][0], worst[e][1], worst[e][2]);
  std::printf("  %d frames compared\n", compared);
}

// The bake's weight texels hold what Animator gives for each clip alone at each frame's time (defaults, then
// the clip's weight tracks), every mesh's targets in order after the joints; a character without morph
// targets bakes as before (3 texels a joint, no more).
TEST(Render, BakedWeightsAreTheClipsSampledWeights) {
  auto face = load_character(test::source_dir() + "/assets/sample/ossa_face.glb");
  ASSERT_TRUE(face) << face.error();
  const CharacterAsset synthetic = test::synthetic_morph_character();
  int checked = 0, animated = 0;
  for (const CharacterAsset* asset : {&face->asset, &synthetic}) {
    auto baked = bake_animation(*asset);
    ASSERT_TRUE(baked) << baked.error();
    int targets = 0;
    for (const SkinnedMesh& m : asset->meshes) targets += m.morph_targets().count();
    ASSERT_GT(targets, 0);
    EXPECT_EQ(baked->morph_weights, targets);
    EXPECT_EQ(baked->width, 3 * baked->joints + (targets + 3) / 4);
    for (const BakedClipInfo& info : baked->clips)
      for (int f = 0; f < info.frame_count; ++f) {
        const float t = f == info.frame_count - 1 ? info.duration : static_cast<float>(f) / info.frame_rate;
        Animator animator(*asset);
        ASSERT_TRUE(animator.play(info.layer, LoopMode::kOnce, 0, t));
        animator.update(0);
        const std::span<const float> truth = animator.morph_weights();
        ASSERT_EQ(truth.size(), static_cast<size_t>(targets));
        for (int k = 0; k < targets; ++k) {
          ASSERT_NEAR(detail::baked_weight(*baked, info.layer, f, k), truth[k], 1e-6f)
              << info.name << " frame " << f << " weight " << k;
          animated += truth[k] != 0;
        }
        ++checked;
      }
  }
  EXPECT_GT(animated, 100);  // the clips animate the weights: a bake of zeros fails above
  std::printf("  %d frames' weights checked against Animator\n", checked);
  auto sample = load_character(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(sample) << sample.error();
  auto plain = bake_animation(sample->asset);
  ASSERT_TRUE(plain) << plain.error();
  EXPECT_EQ(plain->morph_weights, 0);
  EXPECT_EQ(plain->width, 3 * plain->joints);
  EXPECT_EQ(plain->bytes(), static_cast<size_t>(plain->width) * plain->height * plain->layers * 16);
}

// The per-frame bounds hold every vertex the baked shader can draw with morphs: the matrices and the weights
// of two neighbouring frames lerped at several fractions, and of two clips' frames crossfaded, morphed
// (MorphJob) and skinned (SkinningJob) on the CPU, lie inside the union of those frames' boxes (1e-5 units).
TEST(Render, BakedBoundsHoldEveryMorphedVertex) {
  const CharacterAsset asset = test::synthetic_morph_character();
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  const int joints = asset.skeleton.joint_count();
  // Frame f of a clip: its model matrices and weights, read back from the runtime (not the bake).
  auto frame_state = [&](int clip, int f, std::vector<Mat4>& model, std::vector<float>& weights) {
    const BakedClipInfo& info = baked->clips[clip];
    const float t = f == info.frame_count - 1 ? info.duration : static_cast<float>(f) / info.frame_rate;
    Animator animator(asset);
    EXPECT_TRUE(animator.play(clip, LoopMode::kOnce, 0, t));
    animator.update(0);
    model.assign(animator.model().begin(), animator.model().end());
    weights.assign(animator.morph_weights().begin(), animator.morph_weights().end());
  };
  std::vector<Mat4> model[4], blended(joints), palette;
  std::vector<float> weights[4], mixed, morphed, skinned;
  int outside = 0, vertices = 0;
  double worst_gap = 0;  // how far inside the box the nearest vertex came (the margin's slack)
  for (int c = 0; c < baked->layers; ++c) {
    const int c2 = (c + 1) % baked->layers;
    for (int f = 0; f + 1 < baked->clips[c].frame_count; f += 3) {
      const int g = std::min(f, baked->clips[c2].frame_count - 2);
      frame_state(c, f, model[0], weights[0]);
      frame_state(c, f + 1, model[1], weights[1]);
      frame_state(c2, g, model[2], weights[2]);
      frame_state(c2, g + 1, model[3], weights[3]);
      for (float a : {0.f, 0.3f, 0.7f})
        for (float fade : {0.f, 0.4f}) {
          mixed.assign(weights[0].size(), 0.f);
          for (size_t k = 0; k < mixed.size(); ++k) {
            const float w = weights[0][k] + (weights[1][k] - weights[0][k]) * a,
                        w2 = weights[2][k] + (weights[3][k] - weights[2][k]) * a;
            mixed[k] = w + (w2 - w) * fade;
          }
          for (int j = 0; j < joints; ++j)
            for (int e = 0; e < 16; ++e) {
              const float m = model[0][j].m[e] + (model[1][j].m[e] - model[0][j].m[e]) * a,
                          m2 = model[2][j].m[e] + (model[3][j].m[e] - model[2][j].m[e]) * a;
              blended[j].m[e] = m + (m2 - m) * fade;
            }
          // The union of the frames' boxes.
          Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
          auto add = [&](int clip, int frame) {
            const float* b = &baked->clips[clip].frame_bounds[static_cast<size_t>(frame) * 6];
            lo = {std::min(lo.x, b[0]), std::min(lo.y, b[1]), std::min(lo.z, b[2])};
            hi = {std::max(hi.x, b[3]), std::max(hi.y, b[4]), std::max(hi.z, b[5])};
          };
          add(c, f), add(c, f + 1);
          if (fade > 0) add(c2, g), add(c2, g + 1);
          size_t first = 0;
          for (const SkinnedMesh& mesh : asset.meshes) {
            const size_t n = static_cast<size_t>(mesh.morph_targets().count());
            palette.resize(mesh.inverse_binds().size());
            ASSERT_TRUE((PaletteJob{blended, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run()));
            morphed.resize(mesh.positions().size());
            MorphJob morph = MorphJob::for_mesh(mesh, std::span<const float>(mixed).subspan(first, n));
            morph.out_positions = morphed;
            ASSERT_TRUE(morph.run());
            first += n;
            skinned.resize(morphed.size());
            SkinningJob skin = SkinningJob::for_mesh(mesh, palette);
            skin.in_positions = morphed;
            skin.out_positions = skinned;
            ASSERT_TRUE(skin.run());
            for (size_t i = 0; i + 2 < skinned.size(); i += 3, ++vertices) {
              const float p[3] = {skinned[i], skinned[i + 1], skinned[i + 2]};
              const float l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
              for (int k = 0; k < 3; ++k) {
                if (p[k] < l[k] - 1e-5f || p[k] > h[k] + 1e-5f) ++outside;
                worst_gap = std::max(worst_gap, -static_cast<double>(std::min(p[k] - l[k], h[k] - p[k])));
              }
            }
          }
        }
    }
  }
  EXPECT_EQ(outside, 0) << "of " << vertices << " vertices; furthest " << worst_gap << " units outside";
  std::printf("  %d morphed vertices inside their frames' boxes\n", vertices);
}

// Morph targets on the baked path, both evaluations, against palette skinning with GPU morphing (itself
// proven against MorphJob + SkinningJob above) of the runtime's pose and the clip's sampled weights, at the
// baked-vs-palette bounds: the bundled face (clip Talk, crossfading into Look) and the synthetic character
// (its Walk animates 3 Body targets, deltas of up to half a unit). At frame times and crossfading, the same
// draws with the weights zeroed differ from the baked draw by far more than the truth does (measured: 0.10 %
// of pixels over 8/255 at least, on the face's crossfade, against 0.00 %), so a shader that ignored them
// fails. The synthetic frames are written for the Direct3D 11 comparison
// (build::gl_reference_dir()-baked-morph, test_d3d11.cpp).
TEST(Render, BakedMorphsMatchPaletteMorphing) {
  REQUIRE_GL();
  auto face = load_character(test::source_dir() + "/assets/sample/ossa_face.glb");
  ASSERT_TRUE(face) << face.error();
  const CharacterAsset synthetic = test::synthetic_morph_character();
  const std::string references = std::string(build::gl_reference_dir()) + "-baked-morph";
  std::error_code ec;
  fs::remove_all(references, ec);
  fs::create_directories(references);
  double worst[2][2] = {}, least_moved = 1;
  for (const CharacterAsset* asset : {&face->asset, &synthetic}) {
    const bool is_face = asset != &synthetic;
    auto renderer =
        is_face ? create_gl_renderer(context(), *asset, face->materials, face->textures, face->flip_textures)
                : create_gl_renderer(context(), *asset, {}, {}, false);
    ASSERT_TRUE(renderer) << renderer.error();
    auto baked = bake_animation(*asset);
    ASSERT_TRUE(baked) << baked.error();
    ASSERT_TRUE(renderer->set_baked(*baked));
    const int clip = is_face ? asset->find_clip("Talk") : 0;
    ASSERT_GE(clip, 0);
    const int clip2 = (clip + 1) % static_cast<int>(asset->clips.size());
    for (const test::BakedMorphFrame& f : test::baked_morph_frames(*baked, clip, clip2)) {
      const Image palette =
          test::render_baked_morph_frame(**renderer, *asset, *baked, f, SkinningPath::kGpuPalette);
      EXPECT_EQ(renderer->morph_stats().cpu_meshes, 0) << f.name;
      const Image unmorphed =
          test::render_baked_morph_frame(**renderer, *asset, *baked, f, SkinningPath::kGpuPalette, {}, true);
      for (BakedEvaluation evaluation : {BakedEvaluation::kPerInstance, BakedEvaluation::kPerVertex}) {
        const Image instanced =
            test::render_baked_morph_frame(**renderer, *asset, *baked, f, SkinningPath::kBaked, evaluation);
        const ImageDifference d = compare_images(palette, instanced, 8);
        double& w = worst[evaluation == BakedEvaluation::kPerVertex][f.between];
        w = std::max(w, d.fraction_over);
        EXPECT_LE(d.fraction_over, f.between ? 0.03 : 0.01)
            << (is_face ? "face " : "synthetic ") << f.name << " " << to_string(evaluation);
        // Without its weights the draw would be further from the truth than it is, by a clear margin (18
        // pixels at least; halfway between frames the matrix lerp dominates the difference: not checked).
        const double moved = compare_images(unmorphed, instanced, 8).fraction_over;
        if (!f.between) {
          least_moved = std::min(least_moved, moved);
          EXPECT_GT(moved, 2 * d.fraction_over + 0.0005)
              << f.name << " " << to_string(evaluation) << ": the baked draw ignores the weights";
        }
        if (!is_face && evaluation == BakedEvaluation::kPerVertex) {
          ASSERT_TRUE(write_png(instanced, references + "/" + f.name + ".png"));
        }
      }
    }
    auto errors = context()->take_errors();
    EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
  }
  for (int e = 0; e < 2; ++e)
    std::printf("  %s: worst fraction of pixels over 8/255 vs palette: %.4f at frame times, %.4f between\n",
                e ? "per vertex" : "per instance", worst[e][0], worst[e][1]);
  std::printf("  with the weights zeroed, at least %.4f of pixels differ by over 8/255\n", least_moved);
}

// A bake that animates more morph targets on one mesh than the shader's slots is refused by set_baked(),
// naming the mesh (the instanced draw would be wrong); so is a bake whose weights are not this character's.
TEST(Render, BakedMorphsPastTheShadersSlotsAreRefused) {
  REQUIRE_GL();
  const CharacterAsset asset = test::synthetic_morph_character();
  auto renderer = create_gl_renderer(context(), asset, {}, {}, false);
  ASSERT_TRUE(renderer) << renderer.error();
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  ASSERT_TRUE(renderer->set_baked(*baked));
  BakedAnimation too_many = *baked;
  for (int k = 0; k <= kMaxGpuMorphTargets; ++k)
    too_many.texels[static_cast<size_t>(too_many.weights_texel()) * 4 + static_cast<size_t>(k)] = 0.5f;
  auto refused = renderer->set_baked(too_many);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("'" + asset.meshes[0].name() + "'"), std::string::npos) << refused.error();
  BakedInstance instance;
  renderer->begin_frame(test::comparison_settings(asset, LightingMode::kUnlit, 64));
  EXPECT_EQ(renderer->draw_baked(std::span(&instance, 1), 0).drawn, 0);
  auto sample = load_character(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(sample) << sample.error();
  auto other = bake_animation(sample->asset);
  ASSERT_TRUE(other) << other.error();
  refused = renderer->set_baked(*other);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("morph weights"), std::string::npos) << refused.error();
}

// The sample with its first clip replaced by one whose last interval is `last_interval` frames long and ends
// in a pose from the middle of the clip (a large jump, so interpolating that interval wrongly shows).
Clip short_last_interval_clip(const Clip& source, float last_interval) {
  const int joints = source.joint_count(), n = source.frame_count();
  std::vector<JointPose> frames(source.frames().begin(), source.frames().end());
  std::copy_n(source.frames().begin() + static_cast<size_t>(n / 2) * joints, joints,
              frames.begin() + static_cast<size_t>(n - 1) * joints);
  const float duration = (n - 2 + last_interval) / source.frame_rate();
  auto clip = Clip::from_frames("short_end", duration, source.frame_rate(), joints, std::move(frames));
  EXPECT_TRUE(clip) << clip.error();
  return std::move(clip).value();
}

// An automatic bake gives a clip rows at its own rate, doubled while a joint turns more than 20 degrees
// between rows (the shader lerps matrices between rows, where the runtime slerps): 75 degrees per 24 fps
// frame bakes at 96 fps (18.75 degrees a row), 5 degrees per frame at 24; a given rate is kept.
TEST(Render, AutomaticBakeRateKeepsRowsWithinTwentyDegrees) {
  CharacterAsset asset = test::synthetic_character(6, 1);
  const int joints = asset.skeleton.joint_count();
  auto turning = [&](float degrees_per_frame) {
    std::vector<JointPose> frames;
    for (int f = 0; f < 25; ++f)
      for (int j = 0; j < joints; ++j) {
        Transform t = to_transform(asset.skeleton.rest_pose()[j]);
        if (j == 1) t.rotation = quat_from_axis_angle({0, 0, 1}, degrees_per_frame * 3.14159265f / 180 * f);
        JointPose p = to_joint_pose(t);
        if (!frames.empty() && f > 0) {  // one hemisphere frame to frame, as the builders store them
          const float* prev = frames[frames.size() - joints].rotation;
          if (prev[0] * p.rotation[0] + prev[1] * p.rotation[1] + prev[2] * p.rotation[2] +
                  prev[3] * p.rotation[3] <
              0)
            for (float& q : p.rotation) q = -q;
        }
        frames.push_back(p);
      }
    return std::move(Clip::from_frames("turn", 1, 24, joints, std::move(frames))).value();
  };
  asset.clips.clear();
  asset.clips.push_back(turning(75));
  asset.clips.push_back(turning(5));
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  EXPECT_EQ(baked->clips[0].frame_rate, 96.f);
  EXPECT_EQ(baked->clips[0].frame_count, 97);
  EXPECT_EQ(baked->clips[1].frame_rate, 24.f);
  auto given = bake_animation(asset, 24);
  ASSERT_TRUE(given) << given.error();
  EXPECT_EQ(given->clips[0].frame_rate, 24.f);
}

// The baked shader interpolates a clip's short last interval over its own length, as the runtime does: half a
// frame long here, drawn a quarter of a frame into it, i.e. halfway (a full-frame alpha would be 0.25).
// Truth: palette skinning of the two frames' model matrices lerped at 0.5, which is what the bake must
// compute.
TEST(Render, BakedShaderInterpolatesTheShortLastInterval) {
  REQUIRE_GL();
  auto m = load(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(m);
  m->asset->clips[0] =
      short_last_interval_clip(m->asset->clips[2], 0.5f);  // from Walk: mid-stride at the end
  // At the clip's own rate: rows on its frames (an automatic rate would double it for the jump at the end).
  auto baked = bake_animation(*m->asset, m->asset->clips[0].frame_rate());
  ASSERT_TRUE(baked) << baked.error();
  ASSERT_TRUE(m->renderer->set_baked(*baked));
  const Clip& clip = m->asset->clips[0];
  const float start = (clip.frame_count() - 2) / clip.frame_rate(), t = start + 0.25f / clip.frame_rate();
  std::vector<Mat4> model = pose(*m->asset, 0, start);
  const std::vector<Mat4> end = pose(*m->asset, 0, clip.duration());
  for (size_t j = 0; j < model.size(); ++j)
    for (int e = 0; e < 16; ++e) model[j].m[e] += (end[j].m[e] - model[j].m[e]) * 0.5f;
  FrameSettings frame = frame_for(*m->asset, 160, LightingMode::kLambert);
  m->renderer->begin_frame(frame);
  m->renderer->draw_palette(Mat4{}, model);
  Image palette = m->renderer->end_frame();
  BakedInstance instance;
  instance.time = t;
  instance.speed = 0;
  for (BakedEvaluation evaluation : {BakedEvaluation::kPerInstance, BakedEvaluation::kPerVertex}) {
    m->renderer->begin_frame(frame);
    m->renderer->draw_baked(std::span(&instance, 1), 0, {evaluation, true, 0});
    ImageDifference d = compare_images(palette, m->renderer->end_frame(), 8);
    EXPECT_LE(d.fraction_over, 0.001) << to_string(evaluation);
    std::printf("  %s: %.4f of pixels over 8/255\n", to_string(evaluation), d.fraction_over);
  }
}

// A crowd of the bundled sample on a 7 x 7 grid, every instance at its own clip, phase, speed and crossfade.
struct Crowd {
  std::unique_ptr<Loaded> m;
  std::optional<BakedAnimation> baked;
  std::vector<BakedInstance> instances;
  float spacing = 0;
};
Crowd make_crowd() {
  Crowd crowd;
  crowd.m = load(test::source_dir() + "/assets/sample/ossa_sample.glb");
  if (!crowd.m) return crowd;
  auto baked = bake_animation(*crowd.m->asset);
  EXPECT_TRUE(baked) << baked.error();
  if (!baked) return crowd;
  crowd.baked = std::move(baked).value();
  EXPECT_TRUE(crowd.m->renderer->set_baked(*crowd.baked));
  crowd.spacing = 1.2f;
  const int clips = static_cast<int>(crowd.m->asset->clips.size());
  for (int i = 0; i < 49; ++i) {
    BakedInstance b;
    b.world = translation_matrix({(i % 7 - 3) * crowd.spacing, 0, (i / 7 - 3) * crowd.spacing}) *
              rotation_matrix(quat_from_axis_angle({0, 1, 0}, 0.37f * i));
    b.clip = i % clips;
    b.time = 0.113f * i;
    b.speed = 0.8f + 0.01f * i;
    b.clip2 = i % 3 == 0 ? (i + 1) % clips : -1;
    b.weight = b.clip2 >= 0 ? 0.3f : 0;
    crowd.instances.push_back(b);
  }
  return crowd;
}

FrameSettings crowd_frame(Vec3 eye, Vec3 target) {
  FrameSettings frame;
  frame.width = frame.height = 256;
  frame.lighting = LightingMode::kLambert;
  frame.camera.eye = eye;
  frame.camera.target = target;
  frame.camera.near_plane = 0.1f;
  frame.camera.far_plane = 60;
  return frame;
}

// The compute pass evaluates what the per-vertex shader evaluates (the same GLSL, once per instance): the two
// images agree to rounding, for a crowd with every clip, phases, speeds and crossfades, at several times.
TEST(Render, BakedPerInstanceEvaluationMatchesPerVertex) {
  REQUIRE_GL();
  Crowd crowd = make_crowd();
  ASSERT_TRUE(crowd.m && crowd.baked);
  const FrameSettings frame = crowd_frame({6, 5, 9}, {0, 0.8f, 0});
  double worst = 0;
  for (float time : {0.f, 0.41f, 1.37f}) {
    Image image[2];
    for (int e = 0; e < 2; ++e) {
      crowd.m->renderer->begin_frame(frame);
      const BakedDrawOptions options{e ? BakedEvaluation::kPerVertex : BakedEvaluation::kPerInstance, false,
                                     0};
      EXPECT_EQ(crowd.m->renderer->draw_baked(crowd.instances, time, options).drawn, 49);
      image[e] = crowd.m->renderer->end_frame();
    }
    ImageDifference d = compare_images(image[0], image[1], 1);
    worst = std::max(worst, d.fraction_over);
    EXPECT_LE(d.fraction_over, kGpuCpuFraction) << "time " << time << ", max diff " << d.max_difference;
  }
  std::printf("  worst fraction of pixels differing by more than 1/255: %.5f\n", worst);
  auto errors = context()->take_errors();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
}

// Culling by the bake's per-frame bounds drops only what cannot be seen: with the camera close to one corner
// of the crowd, the culled image equals the unculled one pixel for pixel, and most instances are skipped.
TEST(Render, CrowdCullingDropsOnlyInstancesOutOfView) {
  REQUIRE_GL();
  Crowd crowd = make_crowd();
  ASSERT_TRUE(crowd.m && crowd.baked);
  for (const FrameSettings& frame : {crowd_frame({-2.5f, 1.6f, 1.f}, {-3.6f, 0.9f, -3.6f}),
                                     crowd_frame({4.f, 1.2f, 5.f}, {3.6f, 0.9f, 3.6f})}) {
    for (float time : {0.f, 0.77f}) {
      crowd.m->renderer->begin_frame(frame);
      BakedDrawStats all =
          crowd.m->renderer->draw_baked(crowd.instances, time, {BakedEvaluation::kPerInstance, false, 0});
      Image everything = crowd.m->renderer->end_frame();
      crowd.m->renderer->begin_frame(frame);
      BakedDrawStats culled = crowd.m->renderer->draw_baked(crowd.instances, time, {});
      Image visible = crowd.m->renderer->end_frame();
      EXPECT_EQ(all.drawn, 49);
      EXPECT_EQ(culled.drawn + culled.culled, 49);
      EXPECT_GT(culled.culled, 20) << "time " << time;
      EXPECT_GT(culled.drawn, 0) << "time " << time;
      std::printf("  %d of 49 instances culled\n", culled.culled);
      ImageDifference d = compare_images(everything, visible, 0);
      EXPECT_EQ(d.fraction_over, 0) << "time " << time << ": culling removed something visible";
    }
  }
}

// Level of detail: far instances skinned with their 2 strongest influences. The cost is stated as pixels that
// differ from full detail; the bound is what the test holds (measured below it on the sample).
TEST(Render, CrowdLevelOfDetailReducesFarInstancesAtABoundedCost) {
  REQUIRE_GL();
  Crowd crowd = make_crowd();
  ASSERT_TRUE(crowd.m && crowd.baked);
  const FrameSettings frame = crowd_frame({0, 2.5f, 14}, {0, 0.8f, 0});
  crowd.m->renderer->begin_frame(frame);
  crowd.m->renderer->draw_baked(crowd.instances, 0.5f, {});
  Image full = crowd.m->renderer->end_frame();
  crowd.m->renderer->begin_frame(frame);
  BakedDrawStats all_reduced =
      crowd.m->renderer->draw_baked(crowd.instances, 0.5f, {BakedEvaluation::kPerInstance, true, 1e6f});
  Image reduced = crowd.m->renderer->end_frame();
  EXPECT_EQ(all_reduced.reduced, all_reduced.drawn);
  ImageDifference d = compare_images(full, reduced, 8);
  std::printf("  2 influences instead of 4 on every instance: %.4f of pixels over 8/255 (max %d)\n",
              d.fraction_over, d.max_difference);
  EXPECT_GT(d.fraction_over, 0) << "the reduced draw changed nothing: level of detail is not applied";
  EXPECT_LE(d.fraction_over, 0.01);
  // A threshold between the near and the far rows reduces only some instances.
  crowd.m->renderer->begin_frame(frame);
  BakedDrawStats some =
      crowd.m->renderer->draw_baked(crowd.instances, 0.5f, {BakedEvaluation::kPerInstance, true, 45});
  crowd.m->renderer->end_frame();
  EXPECT_GT(some.reduced, 0);
  EXPECT_LT(some.reduced, some.drawn);
}

// A morphing crowd (the synthetic character, 16 instances at their own phases and speeds, a third of them
// crossfading): the per-instance evaluation (weights from the compute pass, read per instance) draws what
// the per-vertex one (weights sampled per vertex) draws, to rounding, at several times; also with level of
// detail on the far instances (a second draw, whose weights start at its first instance): the character
// keeps 2 influences a vertex, so only the weights could make a difference.
TEST(Render, BakedMorphCrowdPerInstanceMatchesPerVertex) {
  REQUIRE_GL();
  const CharacterAsset asset = test::synthetic_morph_character(12, 5, 2);
  auto renderer = create_gl_renderer(context(), asset, {}, {}, false);
  ASSERT_TRUE(renderer) << renderer.error();
  if (!renderer->has_per_instance_evaluation()) GTEST_SKIP() << "no per-instance evaluation here";
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  ASSERT_TRUE(renderer->set_baked(*baked));
  std::vector<BakedInstance> crowd;
  const int clips = static_cast<int>(asset.clips.size());
  for (int i = 0; i < 16; ++i) {
    BakedInstance b;
    b.world = translation_matrix({(i % 4 - 1.5f) * 2.5f, 0, -(i / 4) * 2.5f});
    b.clip = i % 3 == 1 ? 1 % clips : 0;
    b.time = 0.137f * i;
    b.speed = 0.9f + 0.02f * i;
    b.clip2 = i % 3 == 0 ? 1 % clips : -1;
    b.weight = b.clip2 >= 0 ? 0.35f : 0;
    crowd.push_back(b);
  }
  const FrameSettings frame = crowd_frame({4, 6, 9}, {0, 0.5f, -4});
  double worst = 0;
  for (float time : {0.f, 0.29f, 0.83f}) {
    Image image[2];
    for (int e = 0; e < 2; ++e) {
      renderer->begin_frame(frame);
      const BakedDrawOptions options{e ? BakedEvaluation::kPerVertex : BakedEvaluation::kPerInstance, false,
                                     0};
      EXPECT_EQ(renderer->draw_baked(crowd, time, options).drawn, 16);
      image[e] = renderer->end_frame();
    }
    const ImageDifference d = compare_images(image[0], image[1], 1);
    worst = std::max(worst, d.fraction_over);
    EXPECT_LE(d.fraction_over, kGpuCpuFraction) << "time " << time << ", max diff " << d.max_difference;
    renderer->begin_frame(frame);
    const BakedDrawStats lod = renderer->draw_baked(crowd, time, {BakedEvaluation::kPerInstance, false, 150});
    EXPECT_GT(lod.reduced, 0);
    EXPECT_LT(lod.reduced, lod.drawn);
    const ImageDifference r = compare_images(renderer->end_frame(), image[1], 1);
    worst = std::max(worst, r.fraction_over);
    EXPECT_LE(r.fraction_over, kGpuCpuFraction) << "time " << time << ", level of detail";
  }
  std::printf("  worst fraction of pixels differing by more than 1/255: %.5f\n", worst);
  auto errors = context()->take_errors();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
}

// Level of detail: far instances drawn with the decimated mesh (src/render/mesh_lod.h: meshoptimizer over the
// same vertices). Truths: the triangle count drawn is the instances times the renderer's stated per-character
// counts; the far rows' picture differs from full detail by at most 3 % of pixels over 8/255 (256 x 256;
// measured 2.0 %: silhouettes move by under a pixel, shading across the larger triangles changes);
// near instances stay at full detail exactly: with far and near rows together, every pixel that no far
// instance covers (at either detail; found by drawing the far rows alone against an empty frame) is
// identical.
TEST(Render, CrowdDecimatedMeshDrawsFarInstancesAtABoundedCost) {
  REQUIRE_GL();
  Crowd crowd = make_crowd();
  ASSERT_TRUE(crowd.m && crowd.baked);
  CharacterRenderer& renderer = *crowd.m->renderer;
  const LodMeshInfo lod = renderer.lod_mesh();
  if (!lod.available) GTEST_SKIP() << "built without meshoptimizer: no decimated level of detail";
  EXPECT_LT(lod.lod_triangles, lod.full_triangles);
  EXPECT_GT(lod.lod_triangles, 0);
  EXPECT_GT(lod.error, 0);
  EXPECT_LE(lod.error, lod.target_error);
  std::printf("  decimated mesh: %lld of %lld triangles, error %.4f (target %.4f model units)\n",
              lod.lod_triangles, lod.full_triangles, lod.error, lod.target_error);

  FrameSettings frame = crowd_frame({0, 2.5f, 14}, {0, 0.8f, 0});
  frame.grid = false;  // the far rows drawn alone leave the clear colour wherever they are not
  std::vector<BakedInstance> near, far;  // rows of 7: the camera looks from +z, row 6 is the nearest
  for (size_t i = 0; i < crowd.instances.size(); ++i)
    if (i / 7 == 6)
      near.push_back(crowd.instances[i]);
    else if (i / 7 <= 1)
      far.push_back(crowd.instances[i]);
  const float time = 0.5f;
  auto draw = [&](const std::vector<BakedInstance>& instances, float lod_mesh_pixels, BakedDrawStats* stats) {
    renderer.begin_frame(frame);
    const BakedDrawStats drawn =
        renderer.draw_baked(instances, time, {BakedEvaluation::kPerInstance, false, 0, lod_mesh_pixels});
    if (stats) *stats = drawn;
    return renderer.end_frame();
  };
  constexpr float kThreshold = 44;  // pixels of screen radius: between the near and the far rows here
  for (BakedEvaluation evaluation : {BakedEvaluation::kPerInstance, BakedEvaluation::kPerVertex}) {
    renderer.begin_frame(frame);
    const BakedDrawStats stats = renderer.draw_baked(far, time, {evaluation, false, 0, kThreshold});
    renderer.end_frame();
    EXPECT_EQ(stats.decimated, static_cast<int>(far.size())) << to_string(evaluation);
    EXPECT_EQ(stats.triangles, static_cast<long long>(far.size()) * lod.lod_triangles)
        << to_string(evaluation);
  }
  BakedDrawStats far_full_stats, far_lod_stats, near_lod_stats;
  const Image far_full = draw(far, 0, &far_full_stats), far_lod = draw(far, kThreshold, &far_lod_stats);
  EXPECT_EQ(far_full_stats.decimated, 0);
  EXPECT_EQ(far_full_stats.triangles, static_cast<long long>(far.size()) * lod.full_triangles);
  ImageDifference d = compare_images(far_full, far_lod, 8);
  const Image empty = draw({}, 0, nullptr);
  int far_pixels = 0;  // covered by the far rows at full detail
  for (size_t p = 0; p < far_full.rgba.size(); p += 4)
    far_pixels += std::memcmp(&far_full.rgba[p], &empty.rgba[p], 4) != 0;
  std::printf("  far rows decimated: %.4f of pixels over 8/255 (%.3f of the %d they cover; max %d)\n",
              d.fraction_over, d.fraction_over * far_full.rgba.size() / 4 / std::max(far_pixels, 1),
              far_pixels, d.max_difference);
  EXPECT_GT(d.fraction_over, 0) << "the decimated draw changed nothing: the level of detail is not applied";
  EXPECT_LE(d.fraction_over, 0.03);

  const Image near_full = draw(near, 0, nullptr), near_lod = draw(near, kThreshold, &near_lod_stats);
  EXPECT_EQ(near_lod_stats.decimated, 0);
  EXPECT_EQ(compare_images(near_full, near_lod, 0).fraction_over, 0);

  std::vector<BakedInstance> both = near;
  both.insert(both.end(), far.begin(), far.end());
  BakedDrawStats both_stats;
  const Image all_full = draw(both, 0, nullptr), all_lod = draw(both, kThreshold, &both_stats);
  EXPECT_EQ(both_stats.decimated, static_cast<int>(far.size()));
  EXPECT_EQ(both_stats.triangles, static_cast<long long>(near.size()) * lod.full_triangles +
                                      static_cast<long long>(far.size()) * lod.lod_triangles);
  int outside_far = 0, differing_outside_far = 0;
  for (size_t p = 0; p < all_full.rgba.size(); p += 4) {
    const bool far_covers = std::memcmp(&far_full.rgba[p], &empty.rgba[p], 4) != 0 ||
                            std::memcmp(&far_lod.rgba[p], &empty.rgba[p], 4) != 0;
    if (far_covers) continue;
    ++outside_far;
    if (std::memcmp(&all_full.rgba[p], &all_lod.rgba[p], 4) != 0) ++differing_outside_far;
  }
  EXPECT_GT(outside_far, 0);
  EXPECT_EQ(differing_outside_far, 0) << "near instances changed: they must stay at full detail";
  auto errors = context()->take_errors();
  EXPECT_TRUE(errors.empty()) << (errors.empty() ? "" : errors[0]);
}

// Golden images of the five lighting modes (Mesa 22.3.6's llvmpipe renders them identically run to run).
// OSSA_UPDATE_GOLDENS=1 rewrites them.
TEST(Render, LightingModesMatchGoldenImages) {
  REQUIRE_GL();
  // The FBX: its skin material has base colour 0.8 and a texture, so unlit and texture-only differ too.
  auto m = load(test::source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(m);
  const int wave = m->asset->find_clip("Armature|Wave");
  ASSERT_GE(wave, 0);
  const bool update = std::getenv("OSSA_UPDATE_GOLDENS") != nullptr;
  for (LightingMode mode : {LightingMode::kPhong, LightingMode::kBlinnPhong, LightingMode::kLambert,
                            LightingMode::kUnlit, LightingMode::kTextureOnly}) {
    FrameSettings frame = frame_for(*m->asset, 128, mode);
    frame.grid = false;
    frame.camera.eye = frame.camera.target + (frame.camera.eye - frame.camera.target) * 0.6f;  // closer
    m->renderer->begin_frame(frame);
    m->renderer->draw_palette(Mat4{}, pose(*m->asset, wave, 0.6f));
    Image image = m->renderer->end_frame();
    const std::string golden =
        test::source_dir() + "/tests/golden/render/lighting_" + std::string(to_string(mode)) + ".png";
    if (update) {
      ASSERT_TRUE(write_png(image, golden));
    }
    auto expected = read_png(golden);
    ASSERT_TRUE(expected) << expected.error() << " (run with OSSA_UPDATE_GOLDENS=1 to create it)";
    ImageDifference d = compare_images(image, *expected, 2);
    EXPECT_LE(d.fraction_over, 0.002) << to_string(mode) << ": max difference " << d.max_difference;
  }
  // The modes differ from each other (a shader ignoring u_lighting would pass the goldens only if made so).
  auto phong = read_png(test::source_dir() + "/tests/golden/render/lighting_phong.png");
  auto unlit = read_png(test::source_dir() + "/tests/golden/render/lighting_unlit.png");
  ASSERT_TRUE(phong && unlit);
  auto texture_only = read_png(test::source_dir() + "/tests/golden/render/lighting_texture-only.png");
  ASSERT_TRUE(texture_only);
  EXPECT_GT(compare_images(*phong, *unlit, 8).fraction_over, 0.01);
  EXPECT_GT(compare_images(*unlit, *texture_only, 8).fraction_over, 0.01);
  EXPECT_TRUE(context()->take_errors().empty());
}

// Half floats round to nearest (IEEE binary16, hand values): 1 + 0.75 ulp rounds up to 0x3C01 (1 + 2^-10),
// 1 + 0.25 ulp down to 0x3C00; -2 - 0.75 ulp to 0xC001 (sign kept); 65504 is the largest half.
TEST(Render, HalfFloatsRoundToNearest) {
  const float ulp = 1.f / 1024;
  EXPECT_EQ(float_to_half(1.f + 0.75f * ulp), 0x3C01);
  EXPECT_EQ(float_to_half(1.f + 0.25f * ulp), 0x3C00);
  EXPECT_EQ(float_to_half(-2.f - 1.5f * ulp), 0xC001);
  EXPECT_EQ(float_to_half(65504.f), 0x7BFF);
  EXPECT_EQ(half_to_float(0x3C01), 1.f + ulp);
  EXPECT_EQ(half_to_float(0xC001), -2.f - 2 * ulp);
}

TEST(Render, HalfPrecisionBakeReportsItsError) {
  auto scene = import_here(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(scene);
  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset);
  auto full = bake_animation(*asset, 30, false);
  auto half = bake_animation(*asset, 30, true);
  ASSERT_TRUE(full && half);
  EXPECT_EQ(half->bytes() * 2, full->bytes());
  EXPECT_GT(half->max_half_error, 0);
  EXPECT_LT(half->max_half_error, 2e-3);  // 11-bit mantissa on model-space values of a 2.5 m character
  // 48 bytes per joint per frame at 30 fps, plus the rows that pad shorter clips to the longest one.
  EXPECT_GE(full->bytes_per_joint_second(), 48 * 30);
  EXPECT_LT(full->bytes_per_joint_second(), 48 * 30 * 1.6);
  for (float v : {0.f, 1.f, -2.5f, 1e-5f, 65504.f, 0.333f})
    EXPECT_NEAR(half_to_float(float_to_half(v)), v, std::fabs(v) * 1e-3f + 1e-7f);
}

// The renderer draws runtime assets: a character read back from a .ossa (no ImportedScene) draws the same
// pixels as the import it was converted from, textures included.
TEST(Render, OssaCharacterDrawsLikeItsImport) {
  REQUIRE_GL();
  auto m = load(test::source_dir() + "/assets/sample/ossa_sample.fbx");
  ASSERT_TRUE(m);
  OssaFile file;
  file.skeleton = m->asset->skeleton;
  file.clips = m->asset->clips;
  file.meshes = m->asset->meshes;
  file.materials = m->scene.materials;
  file.textures = m->scene.textures;
  auto decoded = decode_ossa(encode_ossa(file), "render.ossa");
  ASSERT_TRUE(decoded) << decoded.error();
  auto asset = decoded->character();
  ASSERT_TRUE(asset) << asset.error();
  auto from_ossa = create_gl_renderer(context(), *asset, decoded->materials, decoded->textures, true);
  ASSERT_TRUE(from_ossa) << from_ossa.error();
  const int walk = asset->find_clip("Walk");
  ASSERT_GE(walk, 0);
  const FrameSettings frame = frame_for(*asset, 128, LightingMode::kBlinnPhong);
  m->renderer->begin_frame(frame);
  m->renderer->draw_palette(Mat4{}, pose(*m->asset, walk, 0.3f));
  const Image expected = m->renderer->end_frame();
  from_ossa->begin_frame(frame);
  from_ossa->draw_palette(Mat4{}, pose(*asset, walk, 0.3f));
  const Image got = from_ossa->end_frame();
  const ImageDifference d = compare_images(expected, got, 0);
  EXPECT_EQ(d.max_difference, 0) << d.fraction_over;
}

// Cells without a frame show the background (the first frame's corner), not transparent black (white in
// viewers).
TEST(Render, ContactSheetEmptyCellsMatchTheBackground) {
  const std::vector<uint8_t> background = {38, 41, 48, 255};
  Image frame{2, 2, std::vector<uint8_t>(16)};
  for (size_t p = 0; p < 16; ++p) frame.rgba[p] = background[p % 4];
  Image sheet = contact_sheet({frame, frame, frame, frame, frame}, 4);
  ASSERT_EQ(sheet.width, 8);
  ASSERT_EQ(sheet.height, 4);
  for (size_t p = 0; p < sheet.rgba.size(); p += 4)
    ASSERT_EQ(std::vector<uint8_t>(sheet.rgba.begin() + p, sheet.rgba.begin() + p + 4), background) << p / 4;
}

TEST(Render, GifAndPngFilesAreWritten) {
  Image a{4, 2, std::vector<uint8_t>(32, 200)}, b{4, 2, std::vector<uint8_t>(32, 20)};
  std::string dir = test::temp_dir("images");
  ASSERT_TRUE(write_gif({a, b}, 10, dir + "/x.gif"));
  std::ifstream gif(dir + "/x.gif", std::ios::binary);
  char magic[6] = {};
  gif.read(magic, 6);
  EXPECT_EQ(std::string(magic, 6), "GIF89a");
  ASSERT_TRUE(write_png(contact_sheet({a, b}, 2), dir + "/x.png"));
  auto back = read_png(dir + "/x.png");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->width, 8);
  EXPECT_EQ(back->rgba[0], 200);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ossa

namespace ossa {
namespace {
// A PNG whose header claims `side` x `side` pixels: a valid 1x1 file with its IHDR size edited (stb checks
// no CRC), so only the size check stands between it and a gigabyte allocation.
std::vector<uint8_t> png_claiming(uint32_t side) {
  Image one{1, 1, {255, 0, 0, 255}};
  const std::string path = test::temp_dir("claim") + "/one.png";
  EXPECT_TRUE(write_png(one, path));
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (int i = 0; i < 4; ++i) bytes[16 + i] = bytes[20 + i] = static_cast<uint8_t>(side >> (24 - 8 * i));
  return bytes;
}

TEST(DecodeImage, HeadersClaimingHugeImagesAreRefusedBeforeDecoding) {
  auto huge = decode_image(png_claiming(16384));
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().find("16384x16384"), std::string::npos) << huge.error();
  auto one = decode_image(png_claiming(1));
  ASSERT_TRUE(one) << one.error();
  EXPECT_EQ(one->width, 1);
  EXPECT_EQ(one->rgba[0], 255);
  EXPECT_FALSE(decode_image(std::vector<uint8_t>(100, 7)));
  EXPECT_FALSE(decode_image({}));
}

// fuzz_image's finding: a PNM header in front of PNG bytes crashed the stb_image copy inside assimp's
// libdraco, which the dynamic linker bound our calls to. Our private stb reads only PNG, JPEG, BMP and TGA.
TEST(DecodeImage, TheFuzzersPnmIsRefused) {
  const std::vector<uint8_t> pnm = {
      0x50, 0x36, 0x36, 0x33, 0x0c, 0x36, 0x36, 0x33, 0x0c, 0x33, 0x33, 0x33, 0x33, 0x50, 0x4e, 0x47,
      0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x80,
      0x00, 0x00, 0x00, 0x80, 0x08, 0x33, 0x33, 0x33, 0x98, 0x33, 0x33, 0x0c, 0x33, 0x33, 0x33, 0x33,
      0x33, 0x33, 0x33, 0x33, 0x98, 0x33, 0x33, 0x0c, 0x33, 0x33, 0x29, 0x33, 0x33, 0x33, 0x33, 0x33};
  auto image = decode_image(pnm);
  EXPECT_FALSE(image);
}

// fuzz_image's second finding: Huffman tables whose symbol counts sum past 256 overflow stb's tables.
TEST(DecodeImage, OversizedJpegHuffmanTablesAreRefused) {
  std::vector<uint8_t> jpeg = {0xFF, 0xD8, 0xFF, 0xC4, 0x01, 0x53, 0x00};  // length 2 + 17 + 320
  jpeg.insert(jpeg.end(), 16, 20);  // 16 code lengths x 20 symbols = 320
  jpeg.resize(jpeg.size() + 400, 0);
  auto refused = decode_image(jpeg);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("320 symbols"), std::string::npos) << refused.error();
  // The same table after a scan has started (progressive JPEGs define tables between scans).
  std::vector<uint8_t> later = {0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x04, 0x00, 0x00, 0x12, 0xFF, 0x00, 0x34};
  later.insert(later.end(), jpeg.begin() + 2, jpeg.end());
  EXPECT_FALSE(decode_image(later));
}

// fuzz_image's third finding: a PNG chunk claiming 2 GB made stb allocate 2 GB for a 100-byte file.
TEST(DecodeImage, PngChunksLongerThanTheFileAreRefused) {
  std::vector<uint8_t> png = png_claiming(2);
  std::vector<uint8_t> idat = {0x7f, 0xff, 0xff, 0xf0, 'I', 'D', 'A', 'T', 1, 2, 3};
  png.insert(png.begin() + 33, idat.begin(), idat.end());  // after the signature and IHDR (8 + 25 bytes)
  auto refused = decode_image(png);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("claims 2147483632 bytes"), std::string::npos) << refused.error();
}

// Real JPEG and PNG textures still decode (CesiumMan's is a JPEG; ../shared only).
TEST(DecodeImage, RealTexturesDecode) {
  const std::string model = test::shared_dir() + "/models/CesiumMan.glb";
  if (!std::filesystem::exists(model))
    GTEST_SKIP() << model << " not found (../shared is not in users' clones)";
  auto scene = import_here(model);
  ASSERT_TRUE(scene) << scene.error();
  ASSERT_FALSE(scene->textures.empty());
  for (const Texture& t : scene->textures) {
    auto image = decode_image(t.data);
    ASSERT_TRUE(image) << t.path << ": " << image.error();
    EXPECT_GT(image->width, 0);
  }
}

TEST(WriteImage, OutputsAreWrittenWholeOrNotAtAll) {
  const std::string dir = test::temp_dir("whole");
  Image image{2, 2, std::vector<uint8_t>(16, 200)};
  EXPECT_FALSE(write_png(image, dir + "/missing-folder/x.png"));
  Image lying{4, 4, std::vector<uint8_t>(16, 200)};  // claims more pixels than it has
  EXPECT_FALSE(write_png(lying, dir + "/lying.png"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/lying.png"));
  EXPECT_FALSE(write_gif({image, lying}, 10, dir + "/mixed.gif"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/mixed.gif"));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  std::filesystem::remove_all(dir);
}

// The references the Direct3D 11 backend is compared with (test_d3d11.cpp, run under Wine by the Windows
// build): each animated model written as .ossa, read back, and its comparison frames (backend_comparison.h)
// drawn with OpenGL, into build::gl_reference_dir(): NAME.ossa, NAME.FRAME.png, and manifest.txt listing the
// names.
TEST(Render, WritesGlReferencesForDirect3D11) {
  REQUIRE_GL();
  const std::string dir = build::gl_reference_dir();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(dir);
  std::string manifest;
  int frames = 0;
  for (const std::string& path : test::animated_models()) {
    if (!fs::exists(path)) continue;
    auto imported = load_character(path);
    ASSERT_TRUE(imported) << imported.error();
    const LoadedCharacter& source = **imported;
    OssaFile file;
    file.skeleton = source.asset.skeleton;
    file.meshes = source.asset.meshes;
    file.clips = source.asset.clips;
    file.materials = source.materials;
    file.textures = source.textures;
    file.root_motion.resize(file.clips.size());
    std::string name = fs::path(path).filename().string();  // ossa_sample.fbx and .glb: two names
    std::replace(name.begin(), name.end(), '.', '_');
    ASSERT_TRUE(write_ossa(file, dir + "/" + name + ".ossa"));
    auto loaded = load_ossa_character(dir + "/" + name + ".ossa");
    ASSERT_TRUE(loaded) << loaded.error();
    const LoadedCharacter& c = **loaded;
    auto renderer = create_gl_renderer(context(), c.asset, c.materials, c.textures, c.flip_textures);
    ASSERT_TRUE(renderer) << renderer.error();
    auto baked = bake_animation(c.asset);
    ASSERT_TRUE(baked) << baked.error();
    ASSERT_TRUE(renderer->set_baked(*baked));
    for (const test::ComparisonFrame& f : test::comparison_frames(c.asset)) {
      ASSERT_TRUE(write_png(test::render_comparison_frame(**renderer, c.asset, f),
                            dir + "/" + name + "." + f.name + ".png"));
      ++frames;
    }
    manifest += name + "\n";
    auto errors = context()->take_errors();
    EXPECT_TRUE(errors.empty()) << path << ": " << (errors.empty() ? "" : errors[0]);
  }
  std::ofstream(dir + "/manifest.txt") << manifest;
  std::printf("  %d GL reference frames in %s\n", frames, dir.c_str());
  EXPECT_GT(frames, 0);
}

// A bake the device cannot hold, or one whose texels do not match its size, is an error from set_baked(), and
// draw_baked() then draws nothing (no upload reads past the texels).
#ifdef OSSA_HAVE_CLI
// A .ossa converted from a model draws as the model does, textures the right way up: the file records where
// its images have v = 0 (glTF at the top, FBX and COLLADA at the bottom). Both sources, through the CLI a
// user runs: `ossa render MODEL` against `ossa convert MODEL` then `ossa render OUT.ossa`, at the first key
// (where resampled frames equal the keys). A converted glTF drew its textures upside down: 9 % of the pixels
// differed by more than 8/255.
TEST(Render, ConvertedFilesDrawTheirTexturesAsTheModelDoes) {
  const fs::path dir = fs::path(::testing::TempDir()) / "ossa_convert_render";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto run = [&](const std::string& args) {
    std::string command = "'";  // appended, not "'" + ...: GCC 12 warns falsely (-Wrestrict) on the latter
    command.append(build::cli_path()).append("' ").append(args);
    command.append(" > '").append((dir / "out.txt").string()).append("' 2>&1");
    return std::system(command.c_str());
  };
  for (const char* model : {"ossa_sample.glb", "ossa_sample.fbx"}) {
    const std::string source = std::string(build::source_dir()) + "/assets/sample/" + model;
    const std::string converted = (dir / (std::string(model) + ".ossa")).string();
    const std::string direct_png = (dir / "direct.png").string(),
                      converted_png = (dir / "converted.png").string();
    ASSERT_EQ(run("--trusted convert '" + source + "' -o '" + converted + "'"), 0) << model;
    const std::string view = " --clip 0 --time 0 --size 320x240 --lighting texture-only -o '";
    ASSERT_EQ(run("--trusted render '" + source + "'" + view + direct_png + "'"), 0) << model;
    ASSERT_EQ(run("render '" + converted + "'" + view + converted_png + "'"), 0) << model;
    auto direct = read_png(direct_png), through = read_png(converted_png);
    ASSERT_TRUE(direct && through) << model;
    const ImageDifference d = compare_images(*direct, *through, 8);
    std::printf("  %s: converted vs direct, %.4f %% of pixels over 8/255 (largest %d/255)\n", model,
                100 * d.fraction_over, d.max_difference);
    EXPECT_LE(d.fraction_over, 0.001) << model;
  }
  fs::remove_all(dir);
}
#endif

TEST(Render, ABakeTheDeviceCannotHoldIsAnError) {
  REQUIRE_GL();
  auto m = load(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(m);
  BakedAnimation too_many;
  too_many.width = 3, too_many.height = 1, too_many.layers = 1 << 16;  // GL devices hold 256-2,048
  too_many.texels.assign(static_cast<size_t>(3) * 4 * (1 << 16), 0.f);
  auto refused = m->renderer->set_baked(too_many);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("layers"), std::string::npos) << refused.error();
  BakedAnimation short_of_texels;
  short_of_texels.width = 96, short_of_texels.height = 30, short_of_texels.layers = 4;
  short_of_texels.texels.assign(16, 0.f);
  refused = m->renderer->set_baked(short_of_texels);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("malformed"), std::string::npos) << refused.error();
  BakedInstance instance;
  m->renderer->begin_frame(frame_for(*m->asset, 64, LightingMode::kUnlit));
  EXPECT_EQ(m->renderer->draw_baked(std::span(&instance, 1), 0).drawn, 0);
}
}  // namespace
}  // namespace ossa
