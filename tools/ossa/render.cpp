// `ossa render`, `ossa bake`, `ossa demo`: headless OpenGL output of a character (PNG, GIF, contact sheets).
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "json_output.h"
#include "ossa/core/file_io.h"
#if defined(OSSA_HAS_GL)
#include "ossa/render/gl_renderer.h"
#endif
#if defined(OSSA_HAS_D3D11)
#include "ossa/render/d3d11_renderer.h"
#endif
#include "ossa/runtime/animator.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"
#include "text_output.h"

namespace ossa::cli {
namespace {
namespace fs = std::filesystem;

bool ends_with(const std::string& s, const char* suffix) {
  std::string t = suffix;
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// Every mesh's morph weights of `clip` at time t, mesh after mesh (each mesh's defaults without a clip), as
// the Animator samples them.
std::vector<float> clip_morph_weights(const CharacterAsset& asset, const Clip* clip, float t) {
  Animator animator(asset);
  if (clip)
    static_cast<void>(animator.play(static_cast<int>(clip - asset.clips.data()), LoopMode::kOnce, 1, t));
  animator.update(0);
  return {animator.morph_weights().begin(), animator.morph_weights().end()};
}

// Bounds of the skinned meshes, morph targets applied (or the joints, when there are none) over the given
// times of a clip.
void animated_bounds(const CharacterAsset& asset, const Clip* clip, const std::vector<float>& times, Vec3& lo,
                     Vec3& hi) {
  lo = {1e30f, 1e30f, 1e30f};
  hi = {-1e30f, -1e30f, -1e30f};
  auto grow = [&](Vec3 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  };
  CharacterInstance c;
  c.init(asset.skeleton, clip);
  for (float t : times) {
    if (clip) {
      c.time = t;
      update_character(asset.skeleton, c, 0);
    } else {
      c.model.assign(asset.skeleton.joint_count(), Mat4{});
      for (int j = 0; j < asset.skeleton.joint_count(); ++j)
        c.model[j] = inverse(asset.skeleton.inverse_binds()[j]);
    }
    for (const Mat4& m : c.model) grow(m.translation());
    const std::vector<float> weights = clip_morph_weights(asset, clip, t);
    size_t first_weight = 0;
    for (const SkinnedMesh& mesh : asset.meshes) {
      std::vector<Mat4> palette(mesh.inverse_binds().size());
      PaletteJob{c.model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run();
      std::vector<float> out(mesh.positions().size()), morphed(mesh.positions().size());
      SkinningJob job = SkinningJob::for_mesh(mesh, palette);
      const auto targets = static_cast<size_t>(mesh.morph_targets().count());
      // The Animator's weights: every mesh's targets, mesh after mesh.
      MorphJob morph =
          MorphJob::for_mesh(mesh, std::span<const float>(weights).subspan(first_weight, targets));
      first_weight += targets;
      morph.out_positions = morphed;
      if (targets > 0 && morph.run()) job.in_positions = morphed;
      job.out_positions = out;
      job.run();
      for (size_t v = 0; v + 2 < out.size(); v += 3) grow({out[v], out[v + 1], out[v + 2]});
    }
  }
  if (lo.x > hi.x) lo = hi = {};
}

struct Session {
  std::shared_ptr<const LoadedCharacter> character;  // from a model file or a .ossa
  const CharacterAsset* asset = nullptr;
  std::unique_ptr<CharacterRenderer> renderer;            // keeps its device alive
  std::function<std::vector<std::string>()> take_errors;  // the device's error messages since the last call
  std::string device() const { return std::string(renderer->backend()) + ": " + renderer->device_name(); }
  void report_errors() const {
    for (const std::string& e : take_errors())
      print_error("ossa: %s error: %s\n", renderer->backend(), e.c_str());
  }
};

std::optional<Session> open_session(const std::string& file) {
  auto character = load_any(file);
  if (!character) return std::nullopt;
  Session s;
  s.character = std::move(character);
  s.asset = &s.character->asset;
  // The renderer draws runtime assets: the same path for an import and a .ossa.
  const LoadedCharacter& c = *s.character;
  Result<std::unique_ptr<CharacterRenderer>> renderer = Result<std::unique_ptr<CharacterRenderer>>::failure(
      "--backend " + render_backend + ": not in this build (" + kRenderBackends + ")");
#if defined(OSSA_HAS_GL)
  if (render_backend == "gl") {
    auto gl = GlContext::create_headless();
    if (!gl) return print_error("ossa: %s\n", gl.error().c_str()), std::nullopt;
    s.take_errors = [gl = *gl] { return gl->take_errors(); };
    renderer = create_gl_renderer(*gl, c.asset, c.materials, c.textures, c.flip_textures);
  }
#endif
#if defined(OSSA_HAS_D3D11)
  if (render_backend == "d3d11") {
    auto device = D3D11Device::create();
    if (!device) return print_error("ossa: %s\n", device.error().c_str()), std::nullopt;
    s.take_errors = [device = *device] { return device->take_errors(); };
    renderer = create_d3d11_renderer(*device, c.asset, c.materials, c.textures, c.flip_textures);
  }
#endif
  if (!renderer) {
    print_error("ossa: %s: %s\n", file.c_str(), renderer.error().c_str());
    return std::nullopt;
  }
  s.renderer = std::move(renderer).value();
  return s;
}

// One frame of one character at clip time t through the chosen skinning path.
Image render_character(Session& s, const Clip* clip, int clip_index, float t, SkinningPath path,
                       const FrameSettings& frame, bool skeleton) {
  CharacterInstance c;
  c.init(s.asset->skeleton, clip, t);
  if (clip)
    update_character(s.asset->skeleton, c, 0);
  else
    for (int j = 0; j < s.asset->skeleton.joint_count(); ++j)
      c.model[j] = inverse(s.asset->skeleton.inverse_binds()[j]);
  const std::vector<float> morph_weights = clip_morph_weights(*s.asset, clip, t);
  s.renderer->begin_frame(frame);
  if (path == SkinningPath::kCpu) {
    s.renderer->draw_cpu(Mat4{}, c.model, morph_weights);
  } else if (path == SkinningPath::kBaked && clip) {
    BakedInstance instance;
    instance.clip = clip_index;
    instance.time = t;
    instance.speed = 0;
    s.renderer->draw_baked(std::span(&instance, 1), 0);
  } else {
    s.renderer->draw_palette(Mat4{}, c.model, morph_weights);
  }
  if (skeleton) s.renderer->draw_skeleton(Mat4{}, c.model);
  return s.renderer->end_frame();
}
}  // namespace

int run_render(const RenderArgs& args) {
  // Only PNG and GIF are written: refuse other names rather than put PNG bytes in a .jpg.
  std::string lower = args.output;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (!ends_with(lower, ".png") && !ends_with(lower, ".gif")) {
    std::fprintf(stderr,
                 "ossa: -o %s: render writes .png (one frame or a contact sheet) or .gif (animated)\n",
                 args.output.c_str());
    return kExitUsage;
  }
  auto session = open_session(args.file);
  if (!session) return kExitBadInput;
  Session& s = *session;
  int clip_index = -1;
  if (!args.clip.empty()) {
    clip_index = find_clip_arg(*s.asset, args.file, args.clip);
    if (clip_index < 0) return kExitBadInput;
  } else if (!s.asset->clips.empty()) {
    clip_index = 0;
  }
  const Clip* clip = clip_index >= 0 ? &s.asset->clips[clip_index] : nullptr;
  LightingMode lighting;
  if (!parse_lighting_mode(args.lighting, lighting)) {
    print_error("ossa: unknown lighting '%s' (phong, blinn-phong, lambert, unlit, texture-only)\n",
                args.lighting.c_str());
    return kExitUsage;
  }
  SkinningPath path = args.skinning == "cpu"     ? SkinningPath::kCpu
                      : args.skinning == "baked" ? SkinningPath::kBaked
                                                 : SkinningPath::kGpuPalette;
  if (!output_is_not_an_input(args.output, s.character->source_files)) return kExitOutput;
  // Every frame is kept until the file is written: the whole output is sized before anything is drawn.
  const uint64_t frame_bytes = static_cast<uint64_t>(args.width) * args.height * 4;
  if (frame_bytes * std::max(1, args.frames) > kMaxImageBytes) {
    std::fprintf(stderr,
                 "ossa render: %d frames of %dx%d are %.1f GB, over the %.0f GB limit: fewer frames or "
                 "a smaller --size\n",
                 std::max(1, args.frames), args.width, args.height,
                 frame_bytes * std::max(1, args.frames) / 1e9, kMaxImageBytes / 1e9);
    return kExitUsage;
  }
  if (args.camera.size() == 6 && args.camera[0] == args.camera[3] && args.camera[1] == args.camera[4] &&
      args.camera[2] == args.camera[5]) {
    print_error("ossa render: --camera: the eye and the target are the same point\n");
    return kExitUsage;
  }
  std::vector<float> times;
  if (args.frames > 0) {
    for (int f = 0; f < args.frames; ++f) times.push_back(f / args.fps);
  } else {
    times.push_back(static_cast<float>(args.time));
  }
  if (clip && path == SkinningPath::kBaked) {
    auto baked = bake_animation(*s.asset);
    if (!baked) {
      print_error("ossa: %s\n", baked.error().c_str());
      return kExitBadInput;
    }
    if (auto set = s.renderer->set_baked(*baked); !set)
      return print_error("ossa: %s: %s\n", args.file.c_str(), set.error().c_str()), kExitBadInput;
  }
  Vec3 lo, hi;
  std::vector<float> bound_times;
  for (int i = 0; i <= 8; ++i) bound_times.push_back(clip ? clip->duration() * i / 8 : 0.f);
  // --follow: the camera frames the character's own extent and moves with it over the ground (the centre of
  // its bounds at each frame), for clips that travel far.
  auto ground_centre = [&](float t) {
    Vec3 l, h;
    animated_bounds(*s.asset, clip, {t}, l, h);
    return Vec3{(l.x + h.x) / 2, 0, (l.z + h.z) / 2};
  };
  if (args.follow) {
    lo = {1e30f, 1e30f, 1e30f};
    hi = {-1e30f, -1e30f, -1e30f};
    for (float t : bound_times) {
      Vec3 l, h;
      animated_bounds(*s.asset, clip, {t}, l, h);
      const Vec3 c{(l.x + h.x) / 2, 0, (l.z + h.z) / 2};  // ground_centre(t), from these bounds
      lo = {std::min(lo.x, l.x - c.x), std::min(lo.y, l.y), std::min(lo.z, l.z - c.z)};
      hi = {std::max(hi.x, h.x - c.x), std::max(hi.y, h.y), std::max(hi.z, h.z - c.z)};
    }
  } else {
    animated_bounds(*s.asset, clip, bound_times, lo, hi);
  }
  FrameSettings frame;
  frame.width = args.width;
  frame.height = args.height;
  frame.lighting = lighting;
  std::vector<BakedInstance> crowd;
  if (args.instances > 1) {
    if (!clip) {
      print_error("ossa: --instances needs a model with clips\n");
      return kExitBadInput;
    }
    auto baked = bake_animation(*s.asset);
    if (!baked) return print_error("ossa: %s\n", baked.error().c_str()), kExitBadInput;
    if (auto set = s.renderer->set_baked(*baked); !set)
      return print_error("ossa: %s: %s\n", args.file.c_str(), set.error().c_str()), kExitBadInput;
    float size = std::max(hi.x - lo.x, hi.z - lo.z) * 1.4f + 1e-3f;
    crowd = crowd_grid(*s.asset, args.instances, size);
    for (const BakedInstance& b : crowd) {
      Vec3 p = b.world.translation();
      lo = {std::min(lo.x, p.x - size / 2), lo.y, std::min(lo.z, p.z - size / 2)};
      hi = {std::max(hi.x, p.x + size / 2), hi.y, std::max(hi.z, p.z + size / 2)};
    }
  }
  frame.camera = frame_bounds(lo, hi, static_cast<float>(args.width) / args.height);
  if (args.camera.size() == 6) {
    frame.camera.eye = {args.camera[0], args.camera[1], args.camera[2]};
    frame.camera.target = {args.camera[3], args.camera[4], args.camera[5]};
    float distance = length(frame.camera.eye - frame.camera.target);
    frame.camera.near_plane = std::max(distance * 0.01f, 1e-3f);
    frame.camera.far_plane = distance * 10 + length(hi - lo) * 4;
  }
  std::vector<Image> images;
  const Camera framed = frame.camera;
  for (float t : times) {
    if (args.follow) {
      const Vec3 c = ground_centre(clip && clip->duration() > 0 ? std::fmod(t, clip->duration()) : t);
      frame.camera.eye = framed.eye + c;
      frame.camera.target = framed.target + c;
    }
    if (!crowd.empty()) {
      s.renderer->begin_frame(frame);
      s.renderer->draw_baked(crowd, t);
      images.push_back(s.renderer->end_frame());
    } else {
      float clip_time = clip && clip->duration() > 0 ? std::fmod(t, clip->duration()) : t;
      images.push_back(render_character(s, clip, clip_index, clip_time, path, frame, args.skeleton));
    }
  }
  s.report_errors();
  Result<bool> written =
      ends_with(args.output, ".gif")
          ? write_gif(images, std::max(1, static_cast<int>(std::lround(100 / args.fps))), args.output)
          : write_png(images.size() == 1 ? images[0] : contact_sheet(images, std::min<int>(4, images.size())),
                      args.output);
  if (!written) return print_error("ossa: %s\n", written.error().c_str()), kExitOutput;
  print("%s: %zu frame%s %dx%d, %s skinning, %s lighting (%s)\n", args.output.c_str(), images.size(),
        images.size() == 1 ? "" : "s", args.width, args.height, args.skinning.c_str(), to_string(lighting),
        s.device().c_str());
  return 0;
}

int run_bake(const BakeArgs& args) {
  auto character = load_any(args.file);
  if (!character) return kExitBadInput;
  auto baked = bake_animation(character->asset, args.fps, args.half);
  if (!baked) return print_error("ossa: %s: %s\n", args.file.c_str(), baked.error().c_str()), kExitBadInput;
  for (const char* extension : {".bin", ".json"})
    if (!output_is_not_an_input(args.output + extension, character->source_files)) return kExitOutput;
  auto written = write_baked_animation(*baked, args.output);
  if (!written) return print_error("ossa: %s\n", written.error().c_str()), kExitOutput;
  print("%s.bin, %s.json: %d clips, %d joints, %dx%dx%d %s, %zu bytes (%.0f bytes per joint per clip-second)",
        args.output.c_str(), args.output.c_str(), baked->layers, baked->joints, baked->width, baked->height,
        baked->layers, baked->half ? "RGBA16F" : "RGBA32F", baked->bytes(), baked->bytes_per_joint_second());
  if (baked->morph_weights > 0) print(", %d morph weights a frame", baked->morph_weights);
  if (baked->half) print(", worst half-precision error %.3g model units", baked->max_half_error);
  print("\n");
  return 0;
}

int run_demo(const DemoArgs& args) {
  std::string model = args.file;
  if (model.empty()) {
    // Installed: <prefix>/share/ossa/sample beside <prefix>/bin/ossa; in a build tree: the sources' sample.
    const fs::path installed =
        running_program_folder() / ".." / "share" / "ossa" / "sample" / "ossa_sample.glb";
    for (const std::string& candidate :
         {installed.lexically_normal().string(), std::string("assets/sample/ossa_sample.glb"),
          std::string(build::sample_dir()) + "/ossa_sample.glb"})
      if (fs::exists(candidate)) {
        model = candidate;
        break;
      }
    if (model.empty()) return print_error("ossa: demo: the bundled sample was not found\n"), kExitBadInput;
  }
  auto session = open_session(model);
  if (!session) return kExitBadInput;
  Session& s = *session;
  for (const char* name : {"character.gif", "crowd.png"})
    if (!output_is_not_an_input((fs::path(args.output_dir) / name).string(), s.character->source_files))
      return kExitOutput;
  fs::create_directories(args.output_dir);
  auto baked = bake_animation(*s.asset);
  if (!baked) return print_error("ossa: %s\n", baked.error().c_str()), kExitBadInput;
  if (auto set = s.renderer->set_baked(*baked); !set)
    return print_error("ossa: %s\n", set.error().c_str()), kExitBadInput;

  // 1. The character cycling its clips, crossfading from one to the next (GPU palette skinning).
  const float fps = 15;
  Animator animator(*s.asset);
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  for (size_t c = 0; c < s.asset->clips.size(); ++c) {
    Vec3 a, b;
    std::vector<float> times;
    for (int i = 0; i <= 8; ++i) times.push_back(s.asset->clips[c].duration() * i / 8);
    animated_bounds(*s.asset, &s.asset->clips[c], times, a, b);
    lo = {std::min(lo.x, a.x), std::min(lo.y, a.y), std::min(lo.z, a.z)};
    hi = {std::max(hi.x, b.x), std::max(hi.y, b.y), std::max(hi.z, b.z)};
  }
  FrameSettings frame;
  frame.width = frame.height = args.size;
  frame.camera = frame_bounds(lo, hi, 1);
  std::vector<Image> frames;
  static_cast<void>(animator.play(0));  // no clip: the rest pose
  for (size_t c = 0; c < s.asset->clips.size(); ++c) {
    if (c > 0) static_cast<void>(animator.crossfade(static_cast<int>(c), 0.25f));  // c is a clip
    // At most 10 s of each clip (a file may claim clips of days).
    const int count =
        std::clamp(static_cast<int>(std::lround(std::min(s.asset->clips[c].duration(), 10.f) * fps)), 2, 150);
    for (int f = 0; f < count; ++f) {
      animator.update(f == 0 && c == 0 ? 0.f : 1.f / fps);
      s.renderer->begin_frame(frame);
      s.renderer->draw_palette(Mat4{}, animator.model(), animator.morph_weights());
      frames.push_back(s.renderer->end_frame());
    }
  }
  const std::string gif = (fs::path(args.output_dir) / "character.gif").string();
  if (auto w = write_gif(frames, static_cast<int>(100 / fps), gif); !w)
    return print_error("ossa: %s\n", w.error().c_str()), kExitOutput;
  print("wrote %s (%zu frames %dx%d: %zu clips cycling with crossfades, GPU palette skinning)\n", gif.c_str(),
        frames.size(), args.size, args.size, s.asset->clips.size());

  // 2. A crowd: 49 instances in one baked, instanced draw per mesh.
  const float spacing = std::max(hi.x - lo.x, hi.z - lo.z) * 1.3f;
  std::vector<BakedInstance> crowd = crowd_grid(*s.asset, 49, spacing);
  Vec3 clo = lo, chi = hi;
  for (const BakedInstance& b : crowd) {
    Vec3 p = b.world.translation();
    clo = {std::min(clo.x, p.x + lo.x), clo.y, std::min(clo.z, p.z + lo.z)};
    chi = {std::max(chi.x, p.x + hi.x), chi.y, std::max(chi.z, p.z + hi.z)};
  }
  FrameSettings crowd_frame = frame;
  crowd_frame.width = args.size * 2;
  // Looking down the rows from the front, close enough that the front row fills the frame's width.
  const Vec3 center = (clo + chi) * 0.5f;
  const float width = chi.x - clo.x;
  crowd_frame.camera.target = {center.x, (lo.y + hi.y) * 0.5f, center.z};
  crowd_frame.camera.eye = crowd_frame.camera.target + normalize(Vec3{0, 0.55f, 1}) * (width * 0.95f);
  crowd_frame.camera.near_plane = width * 0.05f;
  crowd_frame.camera.far_plane = width * 4;
  s.renderer->begin_frame(crowd_frame);
  s.renderer->draw_baked(crowd, 0.4f);
  const std::string png = (fs::path(args.output_dir) / "crowd.png").string();
  if (auto w = write_png(s.renderer->end_frame(), png); !w)
    return print_error("ossa: %s\n", w.error().c_str()), kExitOutput;
  print("wrote %s (%zu instances, baked animation texture %dx%dx%d, one instanced draw per mesh)\n",
        png.c_str(), crowd.size(), baked->width, baked->height, baked->layers);
  s.report_errors();
  print("renderer: %s\n", s.device().c_str());
  return 0;
}

}  // namespace ossa::cli

namespace ossa::cli {

// `ossa bench --render`: what a game pays per frame to draw N characters, for each way of drawing them:
// palette skinning (CPU update and palette per character, one draw per character and mesh), and the bake
// evaluated per vertex or per instance (one instanced draw per mesh). Per frame: CPU time on the submitting
// thread (the update and every GL call, up to but not including the wait for the GPU) and wall time to
// completion (glFinish). A street-level view of each crowd then shows what culling and the levels of detail
// (2 influences, the decimated mesh) save, and what they cost in pixels against full detail.
namespace {
double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}
// How far the thread CPU clock moves at a time (ms): nanoseconds on Linux, but Windows (and Wine) count
// thread time in scheduler ticks of up to 15.6 ms, where a frame's CPU time reads 0.00. Two steps of the
// clock are watched (for at most 0.2 s of wall time each); 0 when it never moved.
double thread_cpu_tick_ms() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  double last = thread_cpu_ms(), step = 0;
  for (int changes = 0; changes < 2 && std::chrono::steady_clock::now() < give_up;) {
    const double now = thread_cpu_ms();
    if (now != last) {
      if (changes++ == 1) step = now - last;
      last = now;
    }
  }
  return step;
}
// Per-frame CPU times are reported where the clock moves in steps of at most 50 us.
constexpr double kFinestUsefulTickMs = 0.05;
struct FrameCost {
  double cpu_ms = 0, frame_ms = 0;
};
// Street level: the levels of detail at these screen radii (pixels, 512 x 512).
constexpr float kStreetLodPixels = 24, kStreetLodMeshPixels = 24;
struct StreetVariant {
  const char* name;
  BakedDrawOptions options;
};
const StreetVariant kStreetVariants[] = {
    {"full", {BakedEvaluation::kPerInstance, false, 0, 0}},
    {"culled", {BakedEvaluation::kPerInstance, true, 0, 0}},
    {"culled_lod", {BakedEvaluation::kPerInstance, true, kStreetLodPixels, 0}},
    {"culled_lod_mesh", {BakedEvaluation::kPerInstance, true, 0, kStreetLodMeshPixels}},
    {"culled_lod_both", {BakedEvaluation::kPerInstance, true, kStreetLodPixels, kStreetLodMeshPixels}}};
// A CPU time for a table: "-" where the clock cannot measure it.
std::string cpu_cell(double ms, bool measurable, int width, int decimals) {
  char cell[32];
  if (measurable)
    std::snprintf(cell, sizeof cell, "%*.*f", width, decimals, ms);
  else
    std::snprintf(cell, sizeof cell, "%*s", width, "-");
  return cell;
}
std::string format_street_row(int n, const char* variant, const BakedDrawStats& stats, const FrameCost& cost,
                              double pixels_differing, bool cpu_measurable) {
  char line[256];
  std::snprintf(line, sizeof line, "%6d  %-16s %6d %6d %6d %6d %10lld %s %9.1f %9.4f\n", n, variant,
                stats.drawn, stats.culled, stats.reduced, stats.decimated, stats.triangles,
                cpu_cell(cost.cpu_ms, cpu_measurable, 9, 2).c_str(), cost.frame_ms, pixels_differing);
  return line;
}
}  // namespace

int run_render_bench(const BenchArgs& args) {
#ifndef _WIN32
  // Read by Mesa when the first context is made; other drivers ignore it.
  if (args.gl_thread) setenv("mesa_glthread", "true", 1);
#endif
  auto session = open_session(args.file);
  if (!session) return kExitBadInput;
  Session& s = *session;
  if (s.asset->clips.empty()) return print_error("ossa: %s: no clips\n", args.file.c_str()), kExitBadInput;
  auto baked = bake_animation(*s.asset);
  if (!baked) return print_error("ossa: %s\n", baked.error().c_str()), kExitBadInput;
  if (auto set = s.renderer->set_baked(*baked); !set)
    return print_error("ossa: %s\n", set.error().c_str()), kExitBadInput;
  Vec3 lo, hi;
  animated_bounds(*s.asset, &s.asset->clips[0], {0.f}, lo, hi);
  const float spacing = std::max(hi.x - lo.x, hi.z - lo.z) * 1.3f + 1e-3f;
  nlohmann::ordered_json out;
  out["model"] = args.file;
  out["size"] = "512x512";
  out["renderer"] = s.device();
  out["gl_thread"] = args.gl_thread;
  size_t palette_slots = 0;  // of every mesh: what one character's palettes hold
  for (const SkinnedMesh& mesh : s.asset->meshes) palette_slots += mesh.joint_remap().size();
  out["memory"] = {{"bake_bytes", baked->bytes()},
                   {"instance_bytes", 96},  // world, clip, time, speed, clip2, weight (24 floats)
                   {"per_instance_pose_bytes", palette_slots * 48},
                   {"palette_bytes_per_character", palette_slots * 64}};
  using Clock = std::chrono::steady_clock;
  enum Path { kPalette, kPerVertex, kPerInstance, kPaths };
  const char* path_names[kPaths] = {"palette", "baked_per_vertex", "baked_per_instance"};
  // Direct3D 11 evaluates the bake per vertex only: its baked row is per_vertex, and the ratios use it.
  const int path_count = s.renderer->has_per_instance_evaluation() ? kPaths : kPerInstance;
  const int baked_best = path_count == kPaths ? kPerInstance : kPerVertex;
  const double cpu_tick = thread_cpu_tick_ms();
  const bool cpu_measurable = cpu_tick > 0 && cpu_tick <= kFinestUsefulTickMs;
  out["thread_cpu_clock_step_ms"] = cpu_tick;
  auto cpu_json = [&](double value) {
    return cpu_measurable ? nlohmann::ordered_json(value) : nlohmann::ordered_json();
  };
  if (!args.json) {
    if (!cpu_measurable)
      print(
          "(CPU time per frame is not measured here: the thread CPU clock moves in steps of %.1f ms; frame "
          "ms "
          "is wall time)\n",
          cpu_tick);
    print("%6s  %-20s %12s %14s %12s\n", "chars", "path", "CPU ms/frame", "CPU us/char", "frame ms");
  }
  std::vector<BakedInstance> crowd;
  FrameSettings frame;
  std::string street_text;
  if (auto lod = s.renderer->lod_mesh(); lod.available)
    out["lod_mesh"] = {{"target_error", lod.target_error},
                       {"error", lod.error},
                       {"full_triangles", lod.full_triangles},
                       {"lod_triangles", lod.lod_triangles}};
  else
    out["lod_mesh"] = nullptr;
  for (int n : args.render_counts) {
    crowd = crowd_grid(*s.asset, n, spacing);
    Vec3 clo = lo, chi = hi;
    for (const BakedInstance& b : crowd) {
      Vec3 p = b.world.translation();
      clo = {std::min(clo.x, p.x + lo.x), clo.y, std::min(clo.z, p.z + lo.z)};
      chi = {std::max(chi.x, p.x + hi.x), chi.y, std::max(chi.z, p.z + hi.z)};
    }
    frame = FrameSettings{};
    frame.camera = frame_bounds(clo, chi, 1);
    std::vector<CharacterInstance> characters(n);
    for (int i = 0; i < n; ++i)
      characters[i].init(s.asset->skeleton, &s.asset->clips[crowd[i].clip], crowd[i].time);
    const int frames = n >= 10000 ? 1 : n >= 1000 ? 2 : 4;
    FrameCost cost[kPaths];
    for (int f = 0; f <= frames; ++f) {  // frame 0 warms up (shader compilation, buffer allocation)
      for (int path = 0; path < path_count; ++path) {
        const auto wall0 = Clock::now();
        const double cpu0 = thread_cpu_ms();
        s.renderer->begin_frame(frame);
        if (path == kPalette) {
          for (auto& c : characters) update_character(s.asset->skeleton, c, 1.f / 30);
          for (int i = 0; i < n; ++i) s.renderer->draw_palette(crowd[i].world, characters[i].model);
        } else {
          const BakedDrawOptions options{
              path == kPerVertex ? BakedEvaluation::kPerVertex : BakedEvaluation::kPerInstance, false, 0};
          s.renderer->draw_baked(crowd, f / 30.f, options);
        }
        const double cpu1 = thread_cpu_ms();
        s.renderer->finish();
        const auto wall1 = Clock::now();
        if (f == 0) continue;
        cost[path].cpu_ms += (cpu1 - cpu0) / frames;
        cost[path].frame_ms += std::chrono::duration<double, std::milli>(wall1 - wall0).count() / frames;
      }
    }
    auto& row = out["characters"][std::to_string(n)];
    for (int path = 0; path < path_count; ++path) {
      row[path_names[path]] = {{"cpu_ms", cpu_json(cost[path].cpu_ms)},
                               {"cpu_us_per_character", cpu_json(cost[path].cpu_ms * 1e3 / n)},
                               {"frame_ms", cost[path].frame_ms}};
      if (!args.json)
        print("%6d  %-20s %s %s %12.1f\n", n, path_names[path],
              cpu_cell(cost[path].cpu_ms, cpu_measurable, 12, 2).c_str(),
              cpu_cell(cost[path].cpu_ms * 1e3 / n, cpu_measurable, 14, 2).c_str(), cost[path].frame_ms);
    }
    const std::string best = path_names[baked_best] + std::string("baked_").size();
    row["cpu_per_character_palette_over_" + best] = cpu_json(cost[kPalette].cpu_ms / cost[baked_best].cpu_ms);
    row["frame_palette_over_" + best] = cost[kPalette].frame_ms / cost[baked_best].frame_ms;

    // Street level in this crowd: the camera at head height at the crowd's front corner, looking across it
    // (towards the crowd's middle when it is small, so one character is in view). What culling and the
    // levels of detail save, and what they cost in pixels against full detail.
    const Vec3 front = crowd.front().world.translation();
    const float height = hi.y - lo.y;
    const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(n))));
    const float reach = std::min(1.f, static_cast<float>(side - 1) / 16.f);
    frame.camera.eye = {front.x, lo.y + height * 0.9f, front.z + spacing * 2};
    frame.camera.target = {front.x + spacing * 8 * reach, lo.y + height * 0.5f,
                           front.z - spacing * 12 * reach};
    frame.camera.near_plane = spacing * 0.05f;
    frame.camera.far_plane = spacing * 400;
    Image reference;
    for (const StreetVariant& v : kStreetVariants) {
      BakedDrawStats stats;
      FrameCost cost;
      const int street_frames = n >= 1000 ? 1 : 2;
      for (int f = 0; f <= street_frames; ++f) {
        const auto wall0 = Clock::now();
        const double cpu0 = thread_cpu_ms();
        s.renderer->begin_frame(frame);
        stats = s.renderer->draw_baked(crowd, 1.f, v.options);  // the same instant each time: images compare
        const double cpu1 = thread_cpu_ms();
        s.renderer->finish();
        const auto wall1 = Clock::now();
        if (f == 0) continue;
        cost.cpu_ms += (cpu1 - cpu0) / street_frames;
        cost.frame_ms += std::chrono::duration<double, std::milli>(wall1 - wall0).count() / street_frames;
      }
      Image image = s.renderer->end_frame();
      if (reference.rgba.empty()) reference = image;
      const ImageDifference d = compare_images(reference, image, 8);
      row["street_level"][v.name] = {
          {"drawn", stats.drawn},         {"culled", stats.culled},
          {"reduced", stats.reduced},     {"decimated", stats.decimated},
          {"triangles", stats.triangles}, {"cpu_ms", cpu_json(cost.cpu_ms)},
          {"frame_ms", cost.frame_ms},    {"pixels_over_8_of_255", d.fraction_over}};
      street_text += format_street_row(n, v.name, stats, cost, d.fraction_over, cpu_measurable);
    }
  }

  if (args.json) {
    print("%s\n", json_text(out).c_str());
  } else {
    print(
        "\nstreet level (camera at head height at the crowd's front corner; 2 influences below %g px, "
        "decimated mesh below %g px of screen radius):\n",
        kStreetLodPixels, kStreetLodMeshPixels);
    print("%6s  %-16s %6s %6s %6s %6s %10s %9s %9s %9s\n", "chars", "variant", "drawn", "culled", "2-infl",
          "decim", "triangles", "CPU ms", "frame ms", "px diff");
    print("%s", street_text.c_str());
    print("(%s, 512x512; software rendering on this machine's CPU cores: absolute times are slow)\n",
          s.device().c_str());
    if (auto lod = s.renderer->lod_mesh(); lod.available)
      print("decimated mesh: %lld of %lld triangles, error %.4g model units (target %.4g)\n",
            lod.lod_triangles, lod.full_triangles, lod.error, lod.target_error);
    else
      print("no decimated mesh (%s)\n", s.renderer->make_lod_mesh(1).error().c_str());
  }
  return 0;
}

}  // namespace ossa::cli
