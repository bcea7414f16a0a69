// ossa — command-line front end of the Ossa library. See README.md for the commands and their contracts.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <sstream>

#include "commands.h"
#include "size_option.h"
#include "text_output.h"

namespace {
using namespace ossa::cli;

// CLI11's Range lets NaN through (every comparison with NaN is false) and accepts "inf": every number on the
// command line must be finite and within its documented range.
CLI::Validator finite(double lo, double hi) {
  char description[96];
  std::snprintf(description, sizeof description, "FINITE in [%g, %g]", lo, hi);
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        errno = 0;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0') return "'" + text + "' is not a number";
        if (!std::isfinite(v) || v < lo || v > hi) {
          char why[160];
          std::snprintf(why, sizeof why, "%s is outside %g to %g", text.c_str(), lo, hi);
          return why;
        }
        return {};
      },
      description);
}

// A resampling rate: 0 (automatic / each clip's own) or 1-1000 fps. Below 1 fps every clip would freeze.
CLI::Validator frame_rate_option() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == text.c_str() || *end != '\0') return "'" + text + "' is not a number";
        if (v == 0 || (std::isfinite(v) && v >= 1 && v <= 1000)) return {};
        return "a frame rate must be 0 (automatic) or 1-1000 fps, not " + text;
      },
      "0 or [1, 1000]");
}

int run_guarded(const char* command, int (*run)(const void*), const void* args) {
  // Every failure ends here as a message and a documented exit code, never as a signal.
  try {
    return run(args);
  } catch (const std::bad_alloc&) {
    print_error("ossa %s: out of memory\n", command);
    return kExitInternal;
  } catch (const std::filesystem::filesystem_error& e) {
    print_error("ossa %s: %s\n", command, e.what());
    return kExitOutput;
  } catch (const std::exception& e) {
    print_error("ossa %s: internal error: %s\n", command, e.what());
    return kExitInternal;
  }
}
template <class Args>
int guarded(const char* command, int (*run)(const Args&), const Args& args) {
  struct Call {
    int (*run)(const Args&);
    const Args* args;
  } call{run, &args};
  return run_guarded(
      command,
      [](const void* p) { return static_cast<const Call*>(p)->run(*static_cast<const Call*>(p)->args); },
      &call);
}
#ifdef OSSA_HAS_IMPORT
// --scale on the commands that read model files: one value for every file the command imports.
void add_scale_option(CLI::App* command) {
  command
      ->add_option("--scale", ossa::cli::import_unit_scale,
                   "File units to metres for files that state no unit (BVH): 0.01 reads centimetres "
                   "(default: as read, and `ossa info` says how tall the skeleton is)")
      ->check(finite(1e-6, 1e6));
}
#endif
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ossa: skeletal animation toolkit (import, evaluate, inspect, measure)"};
  app.require_subcommand(1);
  app.allow_windows_style_options(false);  // CLI11's default on Windows: "/path" would read as an option
  app.set_version_flag("--version", "ossa " OSSA_VERSION);
#ifdef OSSA_HAS_IMPORT  // without ossa::import (no assimp): .ossa files only, no --trusted and no convert
  app.add_flag(
      "--trusted", ossa::cli::trusted_input,
      "Read model files without the guard (faster; by default assimp first reads each file in a child "
      "process under a memory and time budget, so a hostile file cannot crash, hang or exhaust the tool)");
#endif

#ifdef OSSA_HAVE_RENDER
  app.add_option("--backend", ossa::cli::render_backend,
                 "Renderer for render, bench --render and demo: " + ossa::cli::kRenderBackends)
      ->check(CLI::IsMember([] {
        std::vector<std::string> names;
        std::stringstream list(ossa::cli::kRenderBackends);
        for (std::string name; std::getline(list, name, ',');)
          names.push_back(name.substr(name.find_first_not_of(' ')));
        return names;
      }()));
#endif

  ossa::cli::InfoArgs info;
  CLI::App* info_cmd =
      app.add_subcommand("info", "Joints, meshes, clips, materials and the space conversion of a file");
  info_cmd->add_option("file", info.file, "Model file (.fbx .glb .gltf .dae .bvh) or .ossa")->required();
  info_cmd->add_flag("--json", info.json, "Print one JSON object");
  info_cmd->add_option("--max-influences", info.max_influences, "Influences kept per vertex (1-8)")
      ->check(CLI::Range(1, 8));
  info_cmd->add_flag("--left-handed", info.left_handed, "Convert to left-handed (z mirrored) instead");
#ifdef OSSA_HAS_IMPORT
  add_scale_option(info_cmd);
#endif

  ossa::cli::EvalArgs eval;
  CLI::App* eval_cmd =
      app.add_subcommand("eval", "World-space joints (and skinned vertices) of a clip at given times");
  eval_cmd->add_option("file", eval.file, "Model file or .ossa")->required();
  eval_cmd->add_option("--clip", eval.clip, "Clip name or index (default: the first)");
  eval_cmd
      ->add_option("--time", eval.times,
                   "Times in seconds, comma-separated (default: 0,25,50,75 % of the clip)")
      ->delimiter(',')
      ->check(finite(0, 1e7));
  eval_cmd->add_flag("--vertices", eval.vertices, "Also print skinned vertices per mesh");
  eval_cmd->add_option("--max-influences", eval.max_influences, "Influences kept per vertex (1-8)")
      ->check(CLI::Range(1, 8));
  eval_cmd->add_flag("--left-handed", eval.left_handed, "Convert to left-handed (z mirrored) instead");
#ifdef OSSA_HAS_IMPORT
  add_scale_option(eval_cmd);
#endif
  eval_cmd->add_flag("--json", eval.json, "Print JSON (the documented contract)");

  ossa::cli::BenchArgs bench;
  CLI::App* bench_cmd =
      app.add_subcommand("bench", "Measure character update, skinning and crowd throughput");
  bench_cmd->add_option("file", bench.file, "Model file or .ossa (measured as stored)")->required();
  bench_cmd->add_option("--clip", bench.clip, "Clip name or index (default: the first)");
  [[maybe_unused]] CLI::Option* characters_option =  // read with --render (OSSA_HAVE_RENDER)
      bench_cmd
          ->add_option("--characters", bench.characters,
                       "Characters for the thread-scaling run (with --render: measure only this count)")
          ->check(CLI::Range(1, 1000000));
  bench_cmd->add_flag("--keyed", bench.keyed, "Measure keyed clips instead of fixed-rate ones");
  bench_cmd->add_flag("--compress", bench.compress, "Measure clips compressed within 0.01 cm");
  bench_cmd->add_option("--fps", bench.frame_rate, "Fixed-rate resampling rate (default: from the keys)")
      ->check(frame_rate_option());
  bench_cmd->add_flag("--json", bench.json, "Print one JSON object (the documented contract)");
  bench_cmd->add_flag(
      "--threading", bench.threading,
      "Only the thread pool: empty parallel_for overhead and crowd throughput, 1/2/8 threads");
#ifdef OSSA_HAVE_RENDER
  bench_cmd->add_flag("--render", bench.render, "Measure drawing: palette skinning vs baked instancing");
  bench_cmd->add_flag("--gl-thread", bench.gl_thread,
                      "With --render on Mesa: threaded GL dispatch (mesa_glthread), so the driver's work (on "
                      "llvmpipe, vertex shading) runs off the submitting thread, as a GPU's would");
#endif

  ossa::cli::PlayArgs play;
  CLI::App* play_cmd = app.add_subcommand("play", "Play a clip step by step and print the events it fires");
  play_cmd->add_option("file", play.file, "Model file or .ossa")->required();
  auto* clip_opt = play_cmd->add_option("--clip", play.clip, "Clip name or index");
  auto* blend1d_opt = play_cmd->add_option(
      "--blend1d", play.blend1d, "Play a 1D blend space instead: CLIP:X,... (e.g. Idle:0,Walk:1.5,Run:4)");
  auto* blend2d_opt = play_cmd->add_option("--blend2d", play.blend2d,
                                           "Play a 2D blend space instead: CLIP:X:Y,... (at least 3 points)");
  auto* param_file_opt = play_cmd->add_option(
      "--param-file", play.param_file, "Blend space parameter per step, one 'X' (1D) or 'X Y' (2D) per line");
  play_cmd->add_option("--sync-markers", play.sync_markers,
                       "Notify names that keep the blend space's clips in step, e.g. FootL,FootR");
  clip_opt->excludes(blend1d_opt)->excludes(blend2d_opt);
  blend1d_opt->excludes(blend2d_opt);
  play_cmd->add_option("--notifies", play.notifies,
                       "Notify sidecar JSON (default: MODEL.notifies.json if present)");
  auto* loop_opt = play_cmd->add_option("--loop", play.loop, "once | repeat | pingpong")
                       ->check(CLI::IsMember({"once", "repeat", "pingpong"}));
  auto* passes_opt =
      play_cmd->add_option("--passes", play.passes, "Passes before finishing (repeat/pingpong; 0 = forever)")
          ->check(CLI::Range(0, 1000000));
  play_cmd->add_option("--speed", play.speed, "Playback rate; negative plays backwards")
      ->check(finite(-1000, 1000));
  auto* start_opt =
      play_cmd->add_option("--start", play.start, "Start time in seconds")->check(finite(0, 1e7));
  auto* dt_file =
      play_cmd->add_option("--dt-file", play.dt_file, "File with one step length (seconds) per line");
  auto* steps =
      play_cmd->add_option("--steps", play.steps, "Number of steps")->check(CLI::Range(0, kMaxPlaySteps));
  play_cmd->add_option("--dt", play.dt, "Step length in seconds (with --steps)")->check(finite(0, 3600));
  dt_file->excludes(steps);
  param_file_opt->excludes(steps);
  for (CLI::Option* clip_only : {loop_opt, passes_opt, start_opt})  // blend spaces loop from the start
    clip_only->excludes(blend1d_opt)->excludes(blend2d_opt);
  play_cmd->add_flag("--events-json", play.events_json, "Print JSON Lines, one object per event");
  auto* graph_opt = play_cmd->add_option(
      "--graph", play.graph, "Drive the character with an animation graph (NAME.animgraph.json) instead");
  auto* inputs_opt = play_cmd->add_option(
      "--inputs", play.inputs,
      "The graph's steps, one a line: DT [name=value | name]... (a bare name sets a trigger)");
  graph_opt->needs(inputs_opt);  // --inputs alone: the graph embedded in a .ossa (convert --graph)
  for (CLI::Option* other :
       {clip_opt, blend1d_opt, blend2d_opt, loop_opt, passes_opt, start_opt, dt_file, steps, param_file_opt})
    inputs_opt->excludes(other);
  play_cmd->add_flag("--root-motion", play.root_motion,
                     "Play in place; print each step's root motion (x, z, yaw) and the travel so far");

  ossa::cli::RetargetArgs retarget;
  CLI::App* retarget_cmd = app.add_subcommand(
      "retarget", "Play a character's clips on another skeleton (other names, rest poses, proportions)");
  retarget_cmd
      ->add_option("source", retarget.source, "The character whose clips are carried (model or .ossa)")
      ->required();
  retarget_cmd->add_option("--to", retarget.target, "The character they are for (model or .ossa)")
      ->required();
  retarget_cmd->add_option("-o,--output", retarget.output, "OUT.ossa: the target with the retargeted clips")
      ->required();
  retarget_cmd->add_option("--map", retarget.map,
                           "Bone map JSON {\"target joint\": \"source joint\" or null}: wins over names");
  retarget_cmd->add_option("--clips", retarget.clips, "Only these clips, comma-separated")->delimiter(',');
  retarget_cmd->add_option("--report", retarget.report, "Write the map used and what is unmapped (JSON)");
  retarget_cmd->add_flag("--anim-only", retarget.anim_only, "The target's skeleton and the clips, no meshes");
  retarget_cmd->add_option("--profile", retarget.profile,
                           "Read both skeletons' names as this humanoid profile: mixamo, unreal, vrm, "
                           "blender-metarig, or none (default: detected)");
  retarget_cmd
      ->add_option(
          "--contacts", retarget.contacts,
          "Keep the target's feet (and hands) planted where the source's stand still: feet | feet,hands")
      ->delimiter(',')
      ->check(CLI::IsMember({"feet", "hands"}));
#ifdef OSSA_HAS_IMPORT
  add_scale_option(retarget_cmd);

  ossa::cli::MmPlayArgs mm_play;
  CLI::App* mm_cmd = app.add_subcommand("mm", "Motion matching (docs/motion-matching.md)");
  mm_cmd->require_subcommand(1);
  CLI::App* mm_play_cmd = mm_cmd->add_subcommand(
      "play", "Drive motion capture by motion matching under a scripted stick; print each update");
  mm_play_cmd
      ->add_option(
          "motion", mm_play.motion,
          "A DB.ossa from `ossa mm build`, or motion capture (BVH) or characters sharing one skeleton")
      ->required();
  mm_play_cmd->add_option("--inputs", mm_play.inputs, "The stick: lines `DT X Y [run]` (X right, Y forward)")
      ->required();
  mm_play_cmd->add_flag("--events-json", mm_play.events_json, "One JSON object per update instead of a line");
  mm_play_cmd->add_option(
      "--bake", mm_play.bake,
      "OUT.ossa: the character with what played as one clip, `mm_play` (for `ossa render`)");
  add_scale_option(mm_play_cmd);
  ossa::cli::MmBuildArgs mm_build;
  CLI::App* mm_build_cmd = mm_cmd->add_subcommand(
      "build", "A motion-matching database for a character from motion capture, as one .ossa");
  mm_build_cmd->add_option("character", mm_build.character, "The character (model or .ossa)")->required();
  mm_build_cmd
      ->add_option("motion", mm_build.motion,
                   "Motion capture (BVH) or characters: every clip is a take, retargeted when its skeleton "
                   "is another")
      ->required();
  mm_build_cmd->add_option("--config", mm_build.config,
                           "MM.json: weights, frame rate, contacts, joints, tags (docs/motion-matching.md)");
  mm_build_cmd->add_flag("--mirror", mm_build.mirror, "Add every take mirrored left to right");
  mm_build_cmd->add_option("-o,--output", mm_build.output, "DB.ossa")->required();
  add_scale_option(mm_build_cmd);
#endif

#ifdef OSSA_HAS_IMPORT
  ossa::cli::ConvertArgs convert;
  CLI::App* convert_cmd =
      app.add_subcommand("convert", "Convert model files to the .ossa runtime format, or export glTF 2.0");
  convert_cmd
      ->add_option("inputs", convert.inputs, "Model files (.fbx .glb .gltf .dae .bvh), or .ossa for glTF")
      ->required();
  convert_cmd
      ->add_option("-o,--output", convert.output,
                   "OUT.ossa, OUT.glb or OUT.gltf (by the extension), or a folder for several inputs")
      ->required();
  convert_cmd
      ->add_option("--format", convert.format,
                   "What to write into a folder: ossa (default), glb or gltf (a file: its extension decides)")
      ->check(CLI::IsMember({"ossa", "glb", "gltf"}));
  convert_cmd->add_option("--notifies", convert.notifies, "Notify sidecar (default: MODEL.notifies.json)");
  convert_cmd->add_option("--graph", convert.graph, "An animation graph (NAME.animgraph.json) to embed");
  CLI::Option* compress_flag =
      convert_cmd->add_flag("--compress", convert.compress, "Compress clips within --tolerance");
  convert_cmd
      ->add_option("--tolerance", convert.tolerance_mm, "Virtual-vertex error bound in millimetres (0.1)")
      ->check(finite(1e-6, 1000.0));
  convert_cmd
      ->add_option("--shell", convert.shell_mm,
                   "Distance of the virtual vertices from each joint in millimetres (30)")
      ->check(finite(1e-3, 1e6));
  CLI::Option* fps_option =
      convert_cmd
          ->add_option("--fps", convert.fps,
                       "Store clips at this frame rate (default 0: the rate their keys lie on, else 30)")
          ->check(frame_rate_option());
  convert_cmd->add_option("--clips", convert.clips, "Only these clips, comma-separated");
  convert_cmd->add_flag("--left-handed", convert.left_handed, "Convert to left-handed (z mirrored)");
  add_scale_option(convert_cmd);
  CLI::Option* root_motion_flag = convert_cmd->add_flag("--root-motion", convert.root_motion,
                                                        "Extract root motion: clips in place + tracks");
  // What a game should ship is the default (fixed-rate frames: the fastest to play); exact keys are asked
  // for.
  convert_cmd
      ->add_flag("--keys", convert.keys,
                 "Store each clip's exact keys instead of frames (1.3-1.6x the update cost of frames)")
      ->excludes(compress_flag)
      ->excludes(fps_option)
      ->excludes(root_motion_flag);
#endif

#ifdef OSSA_HAVE_RENDER
  ossa::cli::RenderArgs render;
  std::string size = "512x512";
  CLI::App* render_cmd =
      app.add_subcommand("render", "Render a character headless to PNG (contact sheet) or GIF");
  render_cmd->add_option("file", render.file, "Model file or .ossa")->required();
  render_cmd->add_option("--clip", render.clip, "Clip name or index (default: the first)");
  auto* time_opt = render_cmd->add_option("--time", render.time, "Clip time in seconds (one frame)")
                       ->check(finite(0, 1e7));
  auto* frames_opt = render_cmd->add_option("--frames", render.frames, "Number of frames (with --fps)")
                         ->check(CLI::Range(1, 10000));
  time_opt->excludes(frames_opt);
  render_cmd->add_option("--fps", render.fps, "Frames per second for --frames")->check(finite(0.1, 240.0));
  render_cmd->add_option("--size", size, "WIDTHxHEIGHT");
  render_cmd->add_option("--lighting", render.lighting,
                         "phong | blinn-phong | lambert | unlit | texture-only");
  render_cmd->add_option("--skinning", render.skinning, "gpu | cpu | baked")
      ->check(CLI::IsMember({"gpu", "cpu", "baked"}));
  render_cmd->add_option("--instances", render.instances, "Characters in a baked, instanced crowd")
      ->check(CLI::Range(1, 100000));
  render_cmd->add_flag("--skeleton", render.skeleton, "Draw the skeleton as lines");
  render_cmd->add_flag("--follow", render.follow, "Move the camera with the character (clips that travel)");
  render_cmd
      ->add_option("--camera", render.camera, "EX,EY,EZ,TX,TY,TZ: eye and target (default: auto-framed)")
      ->delimiter(',')
      ->expected(6)
      ->check(finite(-1e6, 1e6));
  render_cmd->add_option("-o,--output", render.output,
                         "OUT.png (several frames: a contact sheet) or OUT.gif");

  ossa::cli::BakeArgs bake;
  CLI::App* bake_cmd =
      app.add_subcommand("bake", "Bake every clip's frames x joints matrices for GPU instancing");
  bake_cmd->add_option("file", bake.file, "Model file or .ossa")->required();
  bake_cmd->add_option("-o,--output", bake.output, "Output prefix: writes OUT.bin and OUT.json")->required();
  bake_cmd->add_option("--fps", bake.fps, "Frame rate (default: each clip's own)")
      ->check(frame_rate_option());
  bake_cmd->add_flag("--half", bake.half, "RGBA16F instead of RGBA32F (reports the error)");

  ossa::cli::DemoArgs demo;
  CLI::App* demo_cmd =
      app.add_subcommand("demo", "Render the bundled sample: an animated GIF and a crowd frame");
  demo_cmd->add_option("file", demo.file, "Model file (default: the bundled sample)");
  demo_cmd->add_option("-o,--output", demo.output_dir, "Output folder (default: ./ossa-demo)");
  demo_cmd->add_option("--size", demo.size, "Frame size in pixels")->check(CLI::Range(64, 2048));
#endif

#ifdef OSSA_HAVE_VIEWER
  ossa::cli::ViewArgs view;
  CLI::App* view_cmd =
      app.add_subcommand("view", "Open a window to play, inspect and author notifies (GLFW + Dear ImGui)");
  view_cmd->add_option("file", view.file, "Model file or .ossa (or drop one on the window)");
  view_cmd->add_option("--notifies", view.notifies,
                       "Notify sidecar to author (default: MODEL.notifies.json)");
  view_cmd->add_option("--graph", view.graph,
                       "Drive the character with this animation graph (NAME.animgraph.json)");
  view_cmd->add_option("--script", view.script, "Run the actions of this file at 1/60 s steps, then exit");
  view_cmd->add_option("--settings", view.settings,
                       "Settings file (default: in the user's config folder; - none)");
  view_cmd->add_option("--size", view.size, "Window size WIDTHxHEIGHT (default: the remembered one)");
#endif

  // A first word that is no command gets a message that says so (CLI11 would say "A subcommand is required").
  // The command is the first word that is neither an option nor the value of a global option that takes one
  // ("--backend d3d11", as --help shows it, as well as "--backend=d3d11").
  int first = 1;
  while (first < argc && argv[first][0] == '-') {
    const std::string word = argv[first++];
    const CLI::Option* option = word.find('=') == std::string::npos ? app.get_option_no_throw(word) : nullptr;
    if (option && option->get_expected_min() > 0) ++first;
  }
  if (first < argc) {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known |= sub->get_name() == argv[first];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      print_error("ossa: unknown command '%s' (commands: %s; ossa --help)\n", argv[first], names.c_str());
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  const bool blend = !play.blend1d.empty() || !play.blend2d.empty();
  if (*play_cmd && play.graph.empty() && play.inputs.empty() && play.clip.empty() == !blend) {
    print_error(
        "ossa play: give --clip NAME, --blend1d SPEC, --blend2d SPEC or --graph G.json --inputs FILE\n");
    return kExitUsage;
  }
  if (*play_cmd && blend != !play.param_file.empty()) {
    print_error(blend ? "ossa play: a blend space needs --param-file FILE (its parameter per step)\n"
                      : "ossa play: --param-file drives a blend space: give --blend1d or --blend2d\n");
    return kExitUsage;
  }
  if (*play_cmd && play.inputs.empty() && !blend && play.dt_file.empty() && play.steps < 0) {
    print_error("ossa play: give --dt-file FILE or --steps N [--dt S]\n");
    return kExitUsage;
  }
  if (*info_cmd) return guarded("info", run_info, info);
  if (*eval_cmd) return guarded("eval", run_eval, eval);
#ifdef OSSA_HAVE_RENDER
  if (*bench_cmd && bench.render) {
    if (characters_option->count() > 0) bench.render_counts = {bench.characters};
    return guarded("bench", run_render_bench, bench);
  }
#endif
  if (*bench_cmd) return guarded("bench", run_bench, bench);
  if (*play_cmd) return guarded("play", run_play, play);
  if (*retarget_cmd) return guarded("retarget", run_retarget, retarget);
#ifdef OSSA_HAS_IMPORT
  if (*convert_cmd) return guarded("convert", run_convert, convert);
  if (*mm_play_cmd) return guarded("mm play", run_mm_play, mm_play);
  if (*mm_build_cmd) return guarded("mm build", run_mm_build, mm_build);
#endif
#ifdef OSSA_HAVE_RENDER
  if (*render_cmd) {
    SizeOption parsed;
    if (!parse_size_option(size, 1, 8192, parsed)) {
      print_error("ossa render: --size must be WIDTHxHEIGHT, each 1-8192, e.g. 640x480\n");
      return kExitUsage;
    }
    render.width = parsed.width;
    render.height = parsed.height;
    return guarded("render", run_render, render);
  }
  if (*bake_cmd) return guarded("bake", run_bake, bake);
#ifdef OSSA_HAVE_VIEWER
  if (*view_cmd) return guarded("view", run_view, view);
#endif
  if (*demo_cmd) return guarded("demo", run_demo, demo);
#endif
  return kExitUsage;
}
