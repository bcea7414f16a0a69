// The Direct3D 11 backend (Windows build; here under Wine, whose D3D11 runs on Mesa's llvmpipe through
// wined3d, inside Xvfb). Independent truths: the OpenGL backend's frames of the same .ossa files (written by
// the Linux build, backend_comparison.h), and this backend's own CPU skinning (the runtime's SkinningJob).
// Bounds (fraction of pixels whose largest channel difference exceeds the threshold):
//   Direct3D 11 vs OpenGL, every frame: <= 1 % over 8/255 (the bound);
//   palette vs CPU skinning: <= 0.04 % over 1/255 (the GL tests' bound); baked vs palette: <= 1 % over 8/255.
// Without a device (no X server under Wine) the tests skip and say why, unless OSSA_REQUIRE_D3D11 is set
// (CI).
#include <gtest/gtest.h>
#include <windows.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "../src/render/d3d11/shader_compiler.h"
#include "backend_comparison.h"
#include "ossa/render/d3d11_renderer.h"
#include "ossa/runtime/crowd.h"
#include "ossa/serialize/load.h"
#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"
#include "test_paths.h"

namespace ossa {
namespace {
namespace fs = std::filesystem;

bool under_wine() {
  return GetProcAddress(GetModuleHandleA("ntdll.dll"), "wine_get_version") != nullptr;
}

std::shared_ptr<D3D11Device> device() {
  static std::shared_ptr<D3D11Device> made = [] {
    D3D11DeviceOptions options;
    options.debug = true;  // the debug layer where it exists (not under Wine)
    auto created = D3D11Device::create(options);
    if (!created) std::printf("  no Direct3D 11 device: %s\n", created.error().c_str());
    return created ? *created : std::shared_ptr<D3D11Device>();
  }();
  return made;
}

#define REQUIRE_D3D11()                                                                                  \
  do {                                                                                                   \
    if (!device()) {                                                                                     \
      if (std::getenv("OSSA_REQUIRE_D3D11")) FAIL() << "no Direct3D 11 device (OSSA_REQUIRE_D3D11 set)"; \
      GTEST_SKIP() << "no Direct3D 11 device here (under Wine: no X server)";                            \
    }                                                                                                    \
  } while (0)

std::vector<Mat4> pose(const CharacterAsset& asset, int clip, float t) {
  CharacterInstance c;
  c.init(asset.skeleton, &asset.clips[clip], t);
  update_character(asset.skeleton, c, 0);
  return c.model;
}

int pixels_drawn(const Image& image, const Vec4& clear) {
  int drawn = 0;
  for (size_t p = 0; p + 3 < image.rgba.size(); p += 4)
    drawn += std::abs(image.rgba[p] - static_cast<int>(clear.x * 255 + 0.5f)) > 2 ||
             std::abs(image.rgba[p + 2] - static_cast<int>(clear.z * 255 + 0.5f)) > 2;
  return drawn;
}

TEST(D3D11, DeviceIsCreatedOrRefusedWithAReason) {
  auto made = D3D11Device::create();
  if (!made) {
    EXPECT_NE(made.error().find("HRESULT"), std::string::npos) << made.error();
    if (std::getenv("OSSA_REQUIRE_D3D11")) ADD_FAILURE() << made.error();
    return;
  }
  std::printf("  adapter: %s, debug layer %s\n", made->adapter_name().c_str(),
              device() && device()->debug_layer() ? "on" : "not available");
  EXPECT_NE(made->adapter_name().find("feature level 11"), std::string::npos);
  // Under Wine (scripts/wine-run.sh sets WINEPREFIX) the adapter's name is Wine's invention: it must say so.
  if (std::getenv("WINEPREFIX")) {
    EXPECT_NE(made->adapter_name().find("Wine"), std::string::npos) << made->adapter_name();
  }
}

// A shader that does not compile is an error naming the file, the line and the compiler's message.
TEST(D3D11, ShaderErrorsNameTheFileTheLineAndTheMessage) {
  REQUIRE_D3D11();
  const HlslSource broken{"src/render/d3d11/shaders/broken.hlsl",
                          "float4 vs_main(float3 p : POSITION) : SV_Position {\n"
                          "  float4 q = float4(p, 1.0);\n"
                          "  return q +* 2;\n"
                          "}\n"};
  const detail::HlslJob job{&broken, "vs_main", "vs_5_0"};
  auto compiled = detail::compile_hlsl(detail::run_time_shader_compiler(), std::span(&job, 1));
  ASSERT_FALSE(compiled);
  const std::string& e = compiled.error();
  EXPECT_NE(e.find("src/render/d3d11/shaders/broken.hlsl"), std::string::npos) << e;
  // vkd3d: FILE:3:col: E5000: ...; Microsoft: FILE(3,col): error X3000: ...
  EXPECT_TRUE(e.find("broken.hlsl:3:") != std::string::npos || e.find("broken.hlsl(3,") != std::string::npos)
      << e;
  EXPECT_NE(e.find("syntax error"), std::string::npos) << e;
  std::printf("  %s\n", e.c_str());
}

// Wine 8's compiler aborts its process on this (an assertion in vkd3d-shader 1.6): the child ends, this
// process goes on, and the error says the compiler crashed and on what. Microsoft's compiler accepts it.
TEST(D3D11, ACompilerThatCrashesIsAnErrorNotAnAbort) {
  REQUIRE_D3D11();
  const HlslSource crashing{
      "src/render/d3d11/shaders/crashing.hlsl",
      "cbuffer Palette : register(b0) { float4x4 palette[256]; };\n"
      "float4 vs_main(float3 p : POSITION, uint4 bones : BLENDINDICES) : SV_Position {\n"
      "  uint b = bones.x;\n"
      "  return mul(palette[b], float4(p, 1.0));\n"
      "}\n"};
  const detail::HlslJob job{&crashing, "vs_main", "vs_5_0"};
  auto compiled = detail::compile_hlsl(detail::run_time_shader_compiler(), std::span(&job, 1));
  if (under_wine()) {
    ASSERT_FALSE(compiled);
    EXPECT_NE(compiled.error().find("crashed"), std::string::npos) << compiled.error();
    EXPECT_NE(compiled.error().find("crashing.hlsl vs_main"), std::string::npos) << compiled.error();
    std::printf("  %s\n", compiled.error().c_str());
  } else {
    EXPECT_TRUE(compiled) << compiled.error();
  }
}

// The shaders come compiled with the library (OSSA_PRECOMPILE_HLSL, the default): no compiler program runs,
// and the bytecode is that of every shader the renderer makes.
TEST(D3D11, ShadersAreBuiltIntoTheLibrary) {
  REQUIRE_D3D11();
  if (std::getenv("OSSA_HLSL_COMPILER")) GTEST_SKIP() << "OSSA_HLSL_COMPILER asks for the run-time compiler";
  EXPECT_EQ(device()->shader_compiler(), "");
  ASSERT_EQ(detail::built_in_hlsl_bytecode().size(), 2 * hlsl_sources().size());
  for (const detail::HlslBytecode& b : detail::built_in_hlsl_bytecode()) {
    ASSERT_GE(b.code.size(), 32u) << b.path << " " << b.entry;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(b.code.data()), 4), "DXBC")
        << b.path << " " << b.entry;
  }
}

TEST(D3D11, AMissingShaderCompilerIsAnError) {
  REQUIRE_D3D11();
  D3D11DeviceOptions options;
  options.shader_compiler = "Z:/nonexistent/ossa_hlslc.exe";
  auto other = D3D11Device::create(options);
  ASSERT_TRUE(other) << other.error();
  const CharacterAsset asset = test::synthetic_character(12, 3);
  // Compiled shaders are kept per compiler program: this one has never run.
  auto renderer = create_d3d11_renderer(*other, asset, {}, {});
  ASSERT_FALSE(renderer);
  EXPECT_NE(renderer.error().find("cannot start the shader compiler"), std::string::npos) << renderer.error();
}

// The three skinning paths agree on this backend, on a character made in code (two meshes, a palette remap):
// CPU skinning against palette skinning at a frame time; the bake against palette skinning at a frame time,
// halfway to the next frame and crossfading 40 % towards the next clip (the truth lerps the two poses' model
// matrices, as the bake lerps skinning matrices). The GL tests' bounds: 1 % at frame times, 3 % otherwise.
TEST(D3D11, PaletteBakedAndCpuSkinningAgree) {
  REQUIRE_D3D11();
  const CharacterAsset asset = test::synthetic_character(33, 1);
  auto renderer = create_d3d11_renderer(device(), asset, {}, {});
  ASSERT_TRUE(renderer) << renderer.error();
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  ASSERT_TRUE(renderer->set_baked(*baked));
  const FrameSettings frame = test::comparison_settings(asset, LightingMode::kLambert, 160);
  const int clips = static_cast<int>(asset.clips.size());
  double worst_cpu = 0, worst_baked[3] = {};
  for (int c = 0; c < clips; ++c) {
    const BakedClipInfo& info = baked->clips[c];
    for (int step = 0; step < 3; ++step) {  // a frame time, halfway to the next frame, crossfading
      const int f = info.frame_count / 3;
      const float t =
          std::min(info.duration, (static_cast<float>(f) + (step == 1 ? 0.5f : 0.f)) / info.frame_rate);
      const int c2 = (c + 1) % clips;
      const float weight = step == 2 && c2 != c ? 0.4f : 0.f;
      std::vector<Mat4> model = pose(asset, c, t);
      if (weight > 0) {
        const float d2 = asset.clips[c2].duration();
        const auto other = pose(asset, c2, d2 > 0 ? std::fmod(t, d2) : 0.f);
        for (size_t j = 0; j < model.size(); ++j)
          for (int e = 0; e < 16; ++e) model[j].m[e] += (other[j].m[e] - model[j].m[e]) * weight;
      }
      renderer->begin_frame(frame);
      renderer->draw_palette(Mat4{}, model);
      const Image palette = renderer->end_frame();
      EXPECT_GT(pixels_drawn(palette, frame.clear), 500) << "clip " << c;
      if (step == 0) {
        renderer->begin_frame(frame);
        renderer->draw_cpu(Mat4{}, model);
        const ImageDifference cpu = compare_images(palette, renderer->end_frame(), 1);
        EXPECT_LE(cpu.fraction_over, 0.0004) << "clip " << c << ", max diff " << cpu.max_difference;
        worst_cpu = std::max(worst_cpu, cpu.fraction_over);
      }
      BakedInstance instance;
      instance.clip = c;
      instance.time = t;
      instance.speed = 0;
      instance.clip2 = weight > 0 ? c2 : -1;
      instance.weight = weight;
      renderer->begin_frame(frame);
      EXPECT_EQ(renderer->draw_baked(std::span(&instance, 1), 0).drawn, 1);
      const ImageDifference bake = compare_images(palette, renderer->end_frame(), 8);
      EXPECT_LE(bake.fraction_over, step == 0 ? 0.01 : 0.03)
          << "clip " << c << " step " << step << ", max diff " << bake.max_difference;
      worst_baked[step] = std::max(worst_baked[step], bake.fraction_over);
    }
  }
  std::printf(
      "  %d clips: palette vs CPU worst %.5f over 1/255; baked vs palette worst over 8/255: %.5f at frame "
      "times, %.5f between, %.5f crossfading\n",
      clips, worst_cpu, worst_baked[0], worst_baked[1], worst_baked[2]);
  const auto errors = device()->take_errors();
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// Morph targets on this backend (a character made in code, large deltas; backend_comparison.h): GPU morphing
// against CPU morphing through the same pipeline at the palette-vs-CPU bound, the statistics saying which
// path each mesh took (up to 8 active targets on the GPU, more on the CPU), the morphed frames differing from
// the unmorphed one; and each palette frame against OpenGL's (Render.MorphTargetsOnTheGpuMatchCpuMorphing
// writes them) at the backend comparison's bound.
TEST(D3D11, MorphTargetsMatchCpuMorphingAndOpenGl) {
  REQUIRE_D3D11();
  const CharacterAsset asset = test::synthetic_morph_character();
  const test::MaterialSet materials = test::tilted_normal_map();
  auto renderer = create_d3d11_renderer(device(), asset, materials.materials, materials.textures, false);
  ASSERT_TRUE(renderer) << renderer.error();
  std::string references = std::string(build::gl_reference_dir()) + "-morph";
  if (under_wine() && !references.empty() && references[0] == '/') references = "Z:" + references;
  const bool have_references = fs::exists(references + "/morph_none.png");
  if (!have_references && std::getenv("OSSA_REQUIRE_D3D11"))
    ADD_FAILURE() << references << " missing: run the Linux release tests first";
  Image none;
  double worst_cpu = 0, worst_gl = 0;
  for (const test::MorphFrame& f : test::morph_comparison_frames(asset)) {
    const Image gpu = test::render_morph_frame(**renderer, asset, f, SkinningPath::kGpuPalette);
    const MorphDrawStats stats = renderer->morph_stats();
    const ImageDifference d =
        compare_images(gpu, test::render_morph_frame(**renderer, asset, f, SkinningPath::kCpu), 1);
    EXPECT_LE(d.fraction_over, 0.0004) << f.name << ", max diff " << d.max_difference;
    worst_cpu = std::max(worst_cpu, d.fraction_over);
    EXPECT_EQ(test::morph_stats_mismatch(asset, f, stats), "");
    if (f.body_active == 0) none = gpu;
    EXPECT_GT(pixels_drawn(gpu, FrameSettings{}.clear), 500) << f.name;
    if (have_references) {
      auto gl = read_png(references + "/" + f.name + ".png");
      ASSERT_TRUE(gl) << gl.error();
      const ImageDifference g = compare_images(*gl, gpu, test::kBackendThreshold);
      EXPECT_LE(g.fraction_over, test::kBackendFraction) << f.name << ", max diff " << g.max_difference;
      if (g.fraction_over > test::kBackendFraction)
        (void)write_png(gpu, references + "/" + f.name + ".d3d11.png");  // for a look
      worst_gl = std::max(worst_gl, g.fraction_over);
      std::printf("  %-16s vs OpenGL: %.5f of pixels over 8/255 (largest %d/255)\n", f.name.c_str(),
                  g.fraction_over, g.max_difference);
    }
  }
  for (const test::MorphFrame& f : test::morph_comparison_frames(asset)) {
    if (f.body_active == 0) continue;
    const Image gpu = test::render_morph_frame(**renderer, asset, f, SkinningPath::kGpuPalette);
    EXPECT_GT(compare_images(gpu, none, 8).fraction_over, 0.02)
        << f.name << ": the morph changed (almost) nothing";
  }
  std::printf("  GPU vs CPU morphing: worst %.5f of pixels over 1/255; vs OpenGL: %s %.5f over 8/255\n",
              worst_cpu, have_references ? "worst" : "(no references)", worst_gl);
  const auto errors = device()->take_errors();
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// Morph targets on the baked path of this backend (per vertex), on the synthetic character whose Walk
// animates 3 Body targets: against this backend's palette skinning with GPU morphing of the runtime's pose
// and the clip's weights (backend_comparison.h) at the baked-vs-palette bounds (1 % at frame times and
// crossfading, 3 % halfway between frames), further from the same draw with the weights zeroed, and against
// OpenGL's baked frames (Render.BakedMorphsMatchPaletteMorphing writes them) at the backend comparison's
// bound.
TEST(D3D11, BakedMorphsMatchPaletteMorphingAndOpenGl) {
  REQUIRE_D3D11();
  const CharacterAsset asset = test::synthetic_morph_character();
  auto renderer = create_d3d11_renderer(device(), asset, {}, {});
  ASSERT_TRUE(renderer) << renderer.error();
  auto baked = bake_animation(asset);
  ASSERT_TRUE(baked) << baked.error();
  ASSERT_TRUE(renderer->set_baked(*baked));
  std::string references = std::string(build::gl_reference_dir()) + "-baked-morph";
  if (under_wine() && !references.empty() && references[0] == '/') references = "Z:" + references;
  const bool have_references = fs::exists(references + "/baked_morph_clip0_frame.png");
  if (!have_references && std::getenv("OSSA_REQUIRE_D3D11"))
    ADD_FAILURE() << references << " missing: run the Linux release tests first";
  double worst_truth = 0, worst_gl = 0;
  for (const test::BakedMorphFrame& f : test::baked_morph_frames(*baked, 0, 1)) {
    const Image palette =
        test::render_baked_morph_frame(**renderer, asset, *baked, f, SkinningPath::kGpuPalette);
    const Image unmorphed =
        test::render_baked_morph_frame(**renderer, asset, *baked, f, SkinningPath::kGpuPalette, {}, true);
    const Image instanced =
        test::render_baked_morph_frame(**renderer, asset, *baked, f, SkinningPath::kBaked);
    const ImageDifference d = compare_images(palette, instanced, 8);
    EXPECT_LE(d.fraction_over, f.between ? 0.03 : 0.01) << f.name << ", max diff " << d.max_difference;
    worst_truth = std::max(worst_truth, f.between ? 0.0 : d.fraction_over);
    if (!f.between) {
      EXPECT_GT(compare_images(unmorphed, instanced, 8).fraction_over, 2 * d.fraction_over + 0.0005)
          << f.name << ": the baked draw ignores the weights";
    }
    if (have_references) {
      auto gl = read_png(references + "/" + f.name + ".png");
      ASSERT_TRUE(gl) << gl.error();
      const ImageDifference g = compare_images(*gl, instanced, test::kBackendThreshold);
      EXPECT_LE(g.fraction_over, test::kBackendFraction) << f.name << ", max diff " << g.max_difference;
      if (g.fraction_over > test::kBackendFraction)
        (void)write_png(instanced, references + "/" + f.name + ".d3d11.png");  // for a look
      worst_gl = std::max(worst_gl, g.fraction_over);
      std::printf("  %-28s vs palette %.5f, vs OpenGL %.5f of pixels over 8/255 (largest %d/255)\n",
                  f.name.c_str(), d.fraction_over, g.fraction_over, g.max_difference);
    }
  }
  std::printf("  baked vs palette morphing: worst %.5f at frame times; vs OpenGL: %s %.5f over 8/255\n",
              worst_truth, have_references ? "worst" : "(no references)", worst_gl);
  const auto errors = device()->take_errors();
  EXPECT_TRUE(errors.empty()) << errors.front();
}

// A bake Direct3D 11 cannot hold (over 2,048 layers), or whose texels do not match its size, is an error from
// set_baked(), and nothing is uploaded from past the texels.
TEST(D3D11, ABakeTheDeviceCannotHoldIsAnError) {
  REQUIRE_D3D11();
  const CharacterAsset asset = test::synthetic_character(12, 3);
  auto renderer = create_d3d11_renderer(device(), asset, {}, {});
  ASSERT_TRUE(renderer) << renderer.error();
  BakedAnimation too_many;
  too_many.width = 3, too_many.height = 1, too_many.layers = 4096;
  too_many.texels.assign(static_cast<size_t>(3) * 4 * 4096, 0.f);
  auto refused = renderer->set_baked(too_many);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("2048 layers"), std::string::npos) << refused.error();
  BakedAnimation short_of_texels;
  short_of_texels.width = 36, short_of_texels.height = 30, short_of_texels.layers = 4;
  short_of_texels.texels.assign(16, 0.f);
  refused = renderer->set_baked(short_of_texels);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("malformed"), std::string::npos) << refused.error();
  BakedInstance instance;
  renderer->begin_frame(test::comparison_settings(asset, LightingMode::kUnlit, 64));
  EXPECT_EQ(renderer->draw_baked(std::span(&instance, 1), 0).drawn, 0);
}

// Direct3D 11 against OpenGL on the same .ossa files, frame by frame (backend_comparison.h).
TEST(D3D11, MatchesOpenGlOnTheSameFiles) {
  REQUIRE_D3D11();
  std::string dir = build::gl_reference_dir();
  if (under_wine() && !dir.empty() && dir[0] == '/') dir = "Z:" + dir;  // Wine's drive for the Unix root
  REQUIRE_GL_REFERENCES(dir);
  std::ifstream manifest(dir + "/manifest.txt");
  int compared = 0;
  double worst_all = 0;
  for (std::string name; std::getline(manifest, name);) {
    if (name.empty()) continue;
    auto loaded = load_ossa_character(dir + "/" + name + ".ossa");
    ASSERT_TRUE(loaded) << loaded.error();
    const LoadedCharacter& c = **loaded;
    auto renderer = create_d3d11_renderer(device(), c.asset, c.materials, c.textures, c.flip_textures);
    ASSERT_TRUE(renderer) << renderer.error();
    auto baked = bake_animation(c.asset);
    ASSERT_TRUE(baked) << baked.error();
    ASSERT_TRUE(renderer->set_baked(*baked));
    double worst = 0, sum = 0;
    int frames = 0, max_difference = 0;
    std::string worst_frame;
    for (const test::ComparisonFrame& f : test::comparison_frames(c.asset)) {
      auto gl = read_png(dir + "/" + name + "." + f.name + ".png");
      ASSERT_TRUE(gl) << gl.error();
      const Image d3d = test::render_comparison_frame(**renderer, c.asset, f);
      const ImageDifference d = compare_images(*gl, d3d, test::kBackendThreshold);
      EXPECT_LE(d.fraction_over, test::kBackendFraction)
          << name << " " << f.name << ", max diff " << d.max_difference;
      if (d.fraction_over > test::kBackendFraction)
        (void)write_png(d3d, dir + "/" + name + "." + f.name + ".d3d11.png");  // for a look
      if (d.fraction_over >= worst) worst = d.fraction_over, worst_frame = f.name;
      sum += d.fraction_over;
      max_difference = std::max(max_difference, d.max_difference);
      ++frames;
    }
    std::printf("  %-42s %3d frames: mean %.4f %%, worst %.4f %% (%s) of pixels over 8/255; largest %d/255\n",
                name.c_str(), frames, 100 * sum / std::max(frames, 1), 100 * worst, worst_frame.c_str(),
                max_difference);
    compared += frames;
    worst_all = std::max(worst_all, worst);
  }
  std::printf("  %d frames compared, worst %.4f %% of pixels over 8/255 (bound %.0f %%)\n", compared,
              100 * worst_all, 100 * test::kBackendFraction);
  EXPECT_GT(compared, 0);
  const auto errors = device()->take_errors();
  EXPECT_TRUE(errors.empty()) << errors.front();
}

#ifdef OSSA_HAVE_DEMO_EXE
// Runs `command` and waits; its exit status, or -1 when it cannot start.
int run(std::string command) {
  STARTUPINFOA startup{};
  startup.cb = sizeof startup;
  PROCESS_INFORMATION process{};
  if (!CreateProcessA(nullptr, command.data(), nullptr, nullptr, FALSE, 0, nullptr, nullptr, &startup,
                      &process))
    return -1;
  WaitForSingleObject(process.hProcess, 120000);
  DWORD status = 1;
  GetExitCodeProcess(process.hProcess, &status);
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  return static_cast<int>(status);
}

// The windowed demo (Win32 window, swap chain) runs 40 frames of a crowd in each skinning path and writes its
// last frame: the character is there (a good part of the window is not the background, in several shades).
TEST(D3D11, WindowedDemoRunsAndShowsTheCharacter) {
  REQUIRE_D3D11();
  std::string demo = build::demo_exe();
  if (under_wine() && demo[0] == '/') demo = "Z:" + demo;
  // Its files go beside the demo, in the build tree (never the working directory, which may be the sources).
  const fs::path dir = fs::path(demo).parent_path() / "d3d11_demo_test";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const std::string character = (dir / "demo_character.ossa").string();
  OssaFile file;
  const CharacterAsset asset = test::synthetic_character(33, 1);
  file.skeleton = asset.skeleton;
  file.meshes = asset.meshes;
  file.clips = asset.clips;
  file.root_motion.resize(file.clips.size());
  ASSERT_TRUE(write_ossa(file, character));
  for (const char* skinning : {"gpu", "cpu", "baked"}) {
    const std::string png = (dir / (std::string("demo_") + skinning + ".png")).string();
    const int status =
        run("\"" + demo + "\" \"" + character + "\" --frames 40 --size 320x240 --crowd 4 --skinning " +
            skinning + " --screenshot \"" + png + "\"");
    ASSERT_EQ(status, 0) << demo << " --skinning " << skinning;
    auto shot = read_png(png);
    ASSERT_TRUE(shot) << shot.error();
    EXPECT_EQ(shot->width, 320);
    EXPECT_EQ(shot->height, 240);
    const int drawn = pixels_drawn(*shot, FrameSettings{}.clear);
    std::set<uint32_t> shades;
    for (size_t p = 0; p + 3 < shot->rgba.size(); p += 4)
      shades.insert(shot->rgba[p] << 16 | shot->rgba[p + 1] << 8 | shot->rgba[p + 2]);
    EXPECT_GT(drawn, 320 * 240 / 50) << skinning << ": the character is missing";
    EXPECT_GT(shades.size(), 20u) << skinning << ": a flat image";
    std::printf("  %s: %d of %d pixels drawn, %zu shades\n", skinning, drawn, 320 * 240, shades.size());
  }
}
#endif

}  // namespace
}  // namespace ossa
