// The `ossa` CLI's subcommands. Each is thin: parse options (main.cpp), call the library, print.
#pragma once

#include <string>
#include <vector>

namespace ossa::cli {

// Exit codes, the same for every command (README "Exit codes").
enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,  // an input was refused: unreadable, damaged or hostile file, unknown clip, ...
  kExitUsage = 2,     // the command line: unknown command or option, a value out of range
  kExitOutput = 3,    // an output could not be written (or would overwrite an input)
  kExitInternal = 4,  // a bug or resource exhaustion in Ossa itself (reported, never a crash)
};

struct InfoArgs {
  std::string file;
  bool json = false;
  int max_influences = 4;
  bool left_handed = false;
};
int run_info(const InfoArgs& args);

struct EvalArgs {
  std::string file;
  std::string clip;           // name or index; empty = the first clip
  std::vector<double> times;  // seconds; empty = 0, 25, 50, 75 % of the clip
  bool vertices = false;
  int max_influences = 4;
  bool left_handed = false;
  bool json = false;
};
int run_eval(const EvalArgs& args);

struct BenchArgs {
  std::string file;
  std::string clip;  // name or index; empty = the first
  int characters = 1000;
  bool json = false;
  bool keyed = false;    // measure the keyed layout instead of fixed rate
  float frame_rate = 0;  // fixed-rate layout: 0 = picked from the keys
  bool render = false;   // measure GPU drawing instead (palette vs baked instancing)
  std::vector<int> render_counts = {1, 100, 1000, 10000};  // crowd sizes --render measures
  bool gl_thread = false;  // --render: Mesa's threaded GL dispatch (driver work off the submitting thread)
  bool compress = false;   // measure compressed (quantized) clips
  bool threading = false;  // only the thread pool: per-call overhead and crowd throughput at 1/2/8 threads
};
int run_bench(const BenchArgs& args);
int run_render_bench(const BenchArgs& args);

constexpr int kMaxPlaySteps = 100000000;  // play --steps, and lines of a --dt-file

struct PlayArgs {
  std::string file, clip, notifies, loop = "repeat", dt_file;
  std::string blend1d, blend2d;  // "CLIP:X,..." / "CLIP:X:Y,...": play a blend space instead of --clip
  std::string param_file;        // the blend space's parameter per step: "X" or "X Y" per line
  std::string sync_markers;      // notify names that align the blend space's clips, comma-separated
  int passes = 0;                // 0 = forever (repeat / pingpong)
  double speed = 1, start = 0, dt = 1.0 / 60;
  int steps = -1;
  bool events_json = false;
  bool root_motion = false;  // clips in place; print each step's root delta and the travel so far
};
int run_play(const PlayArgs& args);

#ifdef OSSA_HAS_IMPORT  // convert reads model files
struct ConvertArgs {
  std::vector<std::string> inputs;
  std::string output, notifies, clips;
  bool compress = false, left_handed = false, root_motion = false;
  double tolerance_mm = 0.1;  // 0.01 cm, ACL's default
  double shell_mm = 30;       // 3 cm, ACL's default
  float fps = 0;
};
int run_convert(const ConvertArgs& args);
#endif

// --backend: the renderer that render, bench --render and demo draw with (the first of kRenderBackends is the
// default). Each build has the backends of its platform: OpenGL on Linux, Direct3D 11 on Windows.
#if defined(OSSA_HAS_D3D11) && defined(OSSA_HAS_GL)
inline const std::string kRenderBackends = "d3d11, gl";
#elif defined(OSSA_HAS_D3D11)
inline const std::string kRenderBackends = "d3d11";
#else
inline const std::string kRenderBackends = "gl";
#endif
inline std::string render_backend = kRenderBackends.substr(0, kRenderBackends.find(','));

struct RenderArgs {
  std::string file, clip, output = "ossa-render.png", lighting = "blinn-phong", skinning = "gpu";
  double time = 0;
  int frames = 0;
  float fps = 15;
  int width = 512, height = 512, instances = 1;
  bool skeleton = false;
  std::vector<float> camera;  // eye x, y, z, target x, y, z (default: framed from the animated bounds)
};
int run_render(const RenderArgs& args);

struct BakeArgs {
  std::string file, output;
  float fps = 0;
  bool half = false;
};
int run_bake(const BakeArgs& args);

struct ViewArgs {
  std::string file, notifies, script, settings, size;
};
int run_view(const ViewArgs& args);  // view.cpp (builds with the viewer: GLFW and Dear ImGui)
struct DemoArgs {
  std::string file;  // empty: the bundled sample
  std::string output_dir = "ossa-demo";
  int size = 320;
};
int run_demo(const DemoArgs& args);

}  // namespace ossa::cli

#include <cstdio>
#include <memory>
#include <optional>

#include "ossa/serialize/load.h"
#include "text_output.h"
#ifdef OSSA_HAS_IMPORT
#include "ossa/import/import.h"
#include "ossa/import/load_character.h"
#endif

namespace ossa::cli {

// True when `output` is none of `inputs` (compared as absolute paths and, for existing files, as the same
// file through links); else prints why. Commands call it for every file they are about to write.
bool output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs);

inline bool is_ossa_file(const std::string& path) {
  return path.size() > 5 && path.compare(path.size() - 5, 5, ".ossa") == 0;
}

// A clip given by name (ossa/asset/clip_names.h), or by index when no clip has that name. -1 (and a message)
// when neither.
int find_clip_arg(const CharacterAsset& asset, const std::string& source, const std::string& arg);

#ifdef OSSA_HAS_IMPORT
// --trusted: model files are read without the child-process guard (ImportOptions::isolate).
inline bool trusted_input = false;

inline ImportOptions import_options(int max_influences, bool left_handed) {
  ImportOptions options;
  options.max_influences = max_influences;
  options.left_handed = left_handed;
  options.isolate = !trusted_input;
  return options;
}

// Imports `file`, printing the library's message to stderr on failure.
inline std::optional<ImportedScene> load_model(const std::string& file, int max_influences,
                                               bool left_handed) {
  const ImportOptions options = import_options(max_influences, left_handed);
  Result<ImportedScene> scene = import_file(file, options);
  if (!scene) {
    print_error("ossa: %s\n", scene.error().c_str());
    return std::nullopt;
  }
  return std::move(scene).value();
}
int find_clip_arg(const ImportedScene& scene, const std::string& arg);
#else
// A build without ossa::import (no assimp, e.g. the Windows one) reads .ossa files only: any other file is
// refused here, with a message naming it.
inline int refuse_model_file(const std::string& file) {
  print_error(
      "ossa: %s: this build of ossa reads .ossa files only (it has no model importer); make one with "
      "`ossa convert %s -o OUT.ossa` on a build that has the importer\n",
      file.c_str(), file.c_str());
  return kExitBadInput;
}
#endif

// A model file (in a build with the importer) or a .ossa, with its notifies (`notifies`, else embedded or
// MODEL.notifies.json), printing the library's message to stderr on failure.
inline std::shared_ptr<const LoadedCharacter> load_any(const std::string& file,
                                                       const std::string& notifies = "") {
#ifdef OSSA_HAS_IMPORT
  ModelLoadOptions options;
  options.import = import_options(4, false);
  options.notifies_path = notifies;
  auto loaded = load_character(file, options);
#else
  if (!is_ossa_file(file)) return refuse_model_file(file), nullptr;
  LoadOptions options;
  options.notifies_path = notifies;
  auto loaded = load_ossa_character(file, options);
#endif
  if (!loaded) {
    print_error("ossa: %s\n", loaded.error().c_str());
    return nullptr;
  }
  return std::move(loaded).value();
}

}  // namespace ossa::cli
