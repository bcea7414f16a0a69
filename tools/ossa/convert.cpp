// `ossa convert`: model files -> .ossa (exact keys, fixed-rate frames, or compressed within an error bound),
// or model files and .ossa -> glTF 2.0 (.glb, .gltf).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "commands.h"
#include "json_output.h"
#include "ossa/core/file_io.h"
#include "ossa/import/convert.h"
#include "ossa/offline/compression.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/thread_pool.h"
#include "ossa/serialize/gltf_export.h"
#include "ossa/serialize/ossa_file.h"
#include "text_output.h"

namespace ossa::cli {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct FileReport {
  size_t bytes_in = 0, bytes_out = 0, raw_clip_bytes = 0, clip_bytes = 0;
  double worst_error = 0, worst_p99 = 0, load_ms = 0, read_ms = 0;
  double export_ms = 0;                          // glTF: encoding and writing
  double compress_ms = 0, compress_clip_ms = 0;  // --compress: wall time, and the clips' own times summed
  int compress_threads = 0;
  std::vector<std::string> clip_lines;  // --compress: one line per clip
};

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// The command's options as the library takes them (the import's are set by each path).
ConvertOptions convert_options(const ConvertArgs& args) {
  ConvertOptions options;
  options.clips = split(args.clips);
  options.keys = args.keys;
  options.frame_rate = args.fps;
  options.root_motion = args.root_motion;
  options.compress = args.compress;
  options.tolerance_mm = args.tolerance_mm;
  options.shell_mm = args.shell_mm;
  options.notifies = args.notifies;
  options.graph = args.graph;
  return options;
}

// A model file to .ossa (ossa/import/convert.h), its clips' lines and the time to load the result.
// `output_error` is set when the failure was writing (exit code 3) rather than reading.
Result<FileReport> convert_one(const ConvertArgs& args, const std::string& input, const std::string& output,
                               bool& output_error) {
  using R = Result<FileReport>;
  ConvertOptions options = convert_options(args);
  options.import = import_options(ImportOptions{}.max_influences, args.left_handed);
  auto converted = convert_to_ossa(input, output, options, &output_error);
  if (!converted) return R::failure(converted.error());
  FileReport report;
  report.bytes_in = converted->bytes_in, report.bytes_out = converted->bytes_out;
  report.raw_clip_bytes = converted->raw_clip_bytes, report.clip_bytes = converted->clip_bytes;
  report.worst_error = converted->worst_error, report.worst_p99 = converted->worst_p99;
  report.compress_ms = converted->compress_ms, report.compress_clip_ms = converted->compress_clip_ms;
  report.compress_threads = converted->compress_threads;
  for (const ClipConversion& c : converted->clips) {
    const CompressionStats& s = c.stats;
    char line[512];
    std::snprintf(line, sizeof line,
                  "  %-24s %8zu -> %7zu bytes (%5.1f:1), error max %.4f mm, p99 %.4f mm; %d animated "
                  "channels at %.1f bits/component, %d constant or at rest; segments of %d frames; %.1f ms",
                  c.name.c_str(), s.raw_bytes, s.compressed_bytes, s.ratio(), s.max_error * 1000,
                  s.p99_error * 1000, s.animated_channels, s.average_bits, s.constant_channels,
                  c.segment_frames, c.milliseconds);
    std::string text = line;
    if (c.frame_rate_stored != c.frame_rate_given) {
      std::snprintf(line, sizeof line, "; %g fps stored of %g (the motion needs no more)",
                    c.frame_rate_stored, c.frame_rate_given);
      text += line;
    }
    if (s.morph_bytes) {
      std::snprintf(line, sizeof line, "; morph weights %zu bytes, displacement bound %.4f mm", s.morph_bytes,
                    s.morph_error_bound * 1000);
      text += line;
    }
    report.clip_lines.push_back(text);
  }

  // Load speed against just reading the bytes.
  auto t0 = Clock::now();
  std::ifstream raw(path_from_utf8(output), std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(raw)), std::istreambuf_iterator<char>());
  auto t1 = Clock::now();
  auto loaded = read_ossa(output);
  auto t2 = Clock::now();
  if (!loaded) return R::failure("re-reading " + output + ": " + loaded.error());
  report.read_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  report.load_ms = std::chrono::duration<double, std::milli>(t2 - t1).count();
  return report;
}
// Any character file to glTF (ossa/import/convert.h), its warnings on stderr.
Result<FileReport> export_one(const ConvertArgs& args, const std::string& input, const std::string& output,
                              bool& output_error) {
  using R = Result<FileReport>;
  ConvertOptions options = convert_options(args);  // run_convert refused --keys, --graph, --left-handed
  options.import = import_options(8, false);
  auto converted = convert_to_gltf(input, output, options, &output_error);
  if (!converted) return R::failure(converted.error());
  FileReport report;
  report.export_ms = converted->export_ms;
  report.bytes_in = converted->bytes_in, report.bytes_out = converted->bytes_out;
  for (const std::string& warning : converted->warnings) print_error("ossa: warning: %s\n", warning.c_str());
  for (const std::string& line : converted->dropped)
    print_error("ossa: warning: %s: not in the glTF: %s\n", input.c_str(), line.c_str());
  if (args.compress) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "  joint keys %zu -> %zu (%.1f:1), error max %.4f mm (tolerance %.4f mm)",
                  converted->joint_keys_full, converted->joint_keys,
                  converted->joint_keys ? double(converted->joint_keys_full) / converted->joint_keys : 0.0,
                  converted->worst_error * 1000, args.tolerance_mm);
    report.clip_lines.push_back(line);
    report.worst_error = converted->worst_error;
  }
  return report;
}

// What a file named `path` is written as: by its extension.
std::string format_of(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".glb" ? "glb" : ext == ".gltf" ? "gltf" : "ossa";
}
}  // namespace

int run_convert(const ConvertArgs& args) {
  if (args.inputs.empty()) return print_error("ossa convert: no input files\n"), kExitUsage;
  const bool batch = args.inputs.size() > 1 || fs::is_directory(args.output);
  if (batch && !args.notifies.empty())
    return std::fprintf(stderr,
                        "ossa convert: --notifies takes one input (batches use each MODEL.notifies.json)\n"),
           kExitUsage;
  const std::string format = !args.format.empty() ? args.format : batch ? "ossa" : format_of(args.output);
  const bool gltf = format != "ossa";
  if (gltf) {  // what glTF cannot take is refused before anything is read
    const char* refused = args.left_handed ? "--left-handed (glTF is right-handed)"
                          : !args.graph.empty()
                              ? "--graph (glTF has no animation graphs; embed it in a .ossa)"
                          : args.keys ? "--keys (glTF exports keep the keys by default)"
                                      : nullptr;
    if (refused)
      return print_error("ossa convert: %s is not available for glTF output\n", refused), kExitUsage;
  }
  if (!batch && format != format_of(args.output))
    return print_error("ossa convert: --format %s does not match %s\n", format.c_str(), args.output.c_str()),
           kExitUsage;
  // Each input's output, decided before anything is written: two inputs named alike (x/m.glb, y/m.fbx) would
  // write one file twice, so the batch is refused, naming both.
  std::vector<std::string> outputs;
  std::map<std::string, std::string> claimed;  // output -> the input it is for
  for (const std::string& input : args.inputs) {
    std::string output =
        batch ? (fs::path(args.output) / fs::path(input).filename().replace_extension("." + format)).string()
              : args.output;
    auto [it, added] = claimed.emplace(fs::absolute(output).lexically_normal().string(), input);
    if (!added) {
      print_error("ossa convert: %s and %s would both be written to %s; convert them separately\n",
                  it->second.c_str(), input.c_str(), output.c_str());
      return kExitUsage;
    }
    outputs.push_back(output);
  }
  if (!output_is_not_an_input(batch ? args.output : outputs[0], args.inputs)) return kExitOutput;
  if (batch) fs::create_directories(args.output);
  size_t done = 0, failed = 0, output_failed = 0, bytes_in = 0, bytes_out = 0;
  double worst = 0;
  auto start = Clock::now();
  for (size_t n = 0; n < args.inputs.size(); ++n) {
    const std::string &input = args.inputs[n], &output = outputs[n];
    bool output_error = false;
    auto report =
        gltf ? export_one(args, input, output, output_error) : convert_one(args, input, output, output_error);
    ++done;
    if (batch) {  // progress bar on stderr
      const int width = 30, filled = static_cast<int>(width * done / args.inputs.size());
      print_error("\r[%.*s%*s] %zu/%zu %s", filled, "##############################", width - filled, "",
                  done, args.inputs.size(), utf8_from_path(path_from_utf8(input).filename()).c_str());
      print_error("\n");
    }
    if (!report) {
      ++failed;
      output_failed += output_error;
      print_error("ossa: %s\n", report.error().c_str());
      continue;
    }
    bytes_in += report->bytes_in;
    bytes_out += report->bytes_out;
    worst = std::max(worst, report->worst_error);
    print("%s -> %s: %zu -> %zu bytes", input.c_str(), output.c_str(), report->bytes_in, report->bytes_out);
    if (args.compress && !gltf)
      print("; clips %zu raw -> %zu compressed (%.1f:1), error max %.4f mm, p99 %.4f mm",
            report->raw_clip_bytes, report->clip_bytes,
            report->clip_bytes ? double(report->raw_clip_bytes) / report->clip_bytes : 0.0,
            report->worst_error * 1000, report->worst_p99 * 1000);
    if (args.compress && !gltf)
      print("; compressed in %.1f ms on %d thread%s (%.1f ms single-thread, %.2fx)", report->compress_ms,
            report->compress_threads, report->compress_threads > 1 ? "s" : "", report->compress_clip_ms,
            report->compress_ms > 0 ? report->compress_clip_ms / report->compress_ms : 0.0);
    if (gltf)
      print("; exported in %.1f ms\n", report->export_ms);
    else
      print("; load %.2f ms (reading the bytes: %.2f ms)\n", report->load_ms, report->read_ms);
    for (const std::string& line : report->clip_lines) print("%s\n", line.c_str());
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  print("%zu file%s converted, %zu failed, %.2f s, %zu bytes in, %zu bytes out", done - failed,
        done - failed == 1 ? "" : "s", failed, seconds, bytes_in, bytes_out);
  if (args.compress) print(", worst error %.4f mm (tolerance %.4f mm)", worst * 1000, args.tolerance_mm);
  print("\n");
  return output_failed ? kExitOutput : failed ? kExitBadInput : kExitOk;
}

}  // namespace ossa::cli
