// convert_to_ossa: a model file to a .ossa file (import -> build -> root motion -> compression -> write).
#include "ossa/import/convert.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>

#include "ossa/asset/clip_names.h"
#include "ossa/asset/notifies.h"
#include "ossa/core/file_io.h"
#include "ossa/import/load_character.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/anim_graph.h"
#include "ossa/runtime/thread_pool.h"
#include "ossa/serialize/gltf_export.h"
#include "ossa/serialize/load.h"
#include "ossa/serialize/ossa_file.h"

namespace ossa {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
}  // namespace

Result<Conversion> convert_to_ossa(const std::string& input, const std::string& output,
                                   const ConvertOptions& options, bool* write_failed) {
  using R = Result<Conversion>;
  if (write_failed) *write_failed = false;
  Conversion report;
  std::error_code ec;
  report.bytes_in = fs::file_size(path_from_utf8(input), ec);
  auto scene = import_file(input, options.import);
  if (!scene) return R::failure(scene.error());
  if (!options.clips.empty()) {  // keep only the named clips
    std::vector<std::string> names;
    for (const RawClip& c : scene->clips) names.push_back(c.name);
    std::vector<RawClip> kept;
    for (const std::string& want : options.clips) {
      const int i = match_clip_name(names, want);
      if (i < 0) return R::failure(input + ": no clip '" + want + "'");
      kept.push_back(scene->clips[i]);
    }
    scene->clips = std::move(kept);
  }
  auto asset = CharacterAsset::build(
      *scene, {options.keys ? Clip::Layout::kKeyed : Clip::Layout::kFixedRate, options.frame_rate});
  if (!asset) return R::failure(asset.error());

  OssaFile file;
  file.left_handed = options.import.left_handed;
  file.materials = scene->materials;
  file.textures = scene->textures;  // the importer read external images (its folder policy): embedded now
  file.flip_textures = scene->format != "gltf";  // as load_character() draws the model file
  file.root_motion.resize(asset->clips.size());
  for (size_t c = 0; c < asset->clips.size(); ++c) {
    Clip& clip = asset->clips[c];
    if (options.root_motion) {
      auto in_place = extract_root_motion(clip, asset->skeleton);
      if (!in_place) return R::failure(input + ": clip '" + clip.name() + "': " + in_place.error());
      clip = std::move(in_place->clip);
      file.root_motion[c] = std::move(in_place->track);
    }
    report.raw_clip_bytes += static_cast<size_t>(std::max(clip.frame_count(), 1)) * clip.joint_count() * 40;
  }
  if (options.compress) {
    // Clips are independent: compressed on every core, each timed on its own thread.
    CompressionSettings settings;
    settings.tolerance = static_cast<float>(options.tolerance_mm / 1000.0);
    settings.shell_distance = static_cast<float>(options.shell_mm / 1000.0);
    settings.meshes = asset->meshes;  // morph weights share the tolerance (ossa/offline/morph_compression.h)
    const int count = static_cast<int>(asset->clips.size());
    std::vector<std::optional<Result<Clip>>> compressed(count);
    report.clips.resize(count);
    ThreadPool pool(std::max(1, std::min(count, ThreadPool::default_thread_count())));
    const auto start = Clock::now();
    pool.parallel_for(count, 1, [&](int begin, int end) {
      for (int c = begin; c < end; ++c) {
        const auto t0 = Clock::now();
        compressed[c] = compress_clip(asset->clips[c], asset->skeleton, settings, &report.clips[c].stats);
        report.clips[c].milliseconds = ms_since(t0);
      }
    });
    report.compress_ms = ms_since(start);
    report.compress_threads = pool.thread_count();
    for (int c = 0; c < count; ++c) {
      if (!*compressed[c]) return R::failure(input + ": " + compressed[c]->error());
      ClipConversion& line = report.clips[c];
      line.frame_rate_given = asset->clips[c].frame_rate();
      asset->clips[c] = std::move(*compressed[c]).value();
      line.name = asset->clips[c].name();
      line.frame_rate_stored = asset->clips[c].frame_rate();
      line.segment_frames = asset->clips[c].segment_frames();
      report.worst_error = std::max(report.worst_error, line.stats.max_error);
      report.worst_p99 = std::max(report.worst_p99, line.stats.p99_error);
      report.clip_bytes += line.stats.compressed_bytes;
      report.compress_clip_ms += line.milliseconds;
    }
  } else {
    for (const Clip& clip : asset->clips) report.clip_bytes += clip.memory_bytes();
  }
  if (!options.graph.empty()) {  // checked against this character before it is embedded
    auto graph = AnimGraph::load(options.graph, *asset);
    if (!graph) return R::failure(graph.error());
    std::ifstream in(path_from_utf8(options.graph), std::ios::binary);
    file.anim_graph_json.assign(std::istreambuf_iterator<char>(in), {});
  }
  file.clips = std::move(asset->clips);
  file.skeleton = std::move(asset->skeleton);
  file.meshes = std::move(asset->meshes);

  std::string notify_path = options.notifies;
  if (notify_path.empty()) notify_path = find_notify_sidecar(input);
  if (!notify_path.empty()) {
    std::ifstream in(path_from_utf8(notify_path), std::ios::binary);
    if (!in) return R::failure(notify_path + ": cannot be read");
    std::string json(std::istreambuf_iterator<char>(in), {});
    std::vector<ClipTiming> timings;
    std::vector<std::string> names;
    for (const Clip& c : file.clips) timings.push_back({c.name(), c.duration()}), names.push_back(c.name());
    if (std::string nested = json_nesting_error(json); !nested.empty())
      return R::failure(notify_path + ": " + nested);
    if (!options.clips.empty()) {  // notifies of clips left out are left out too
      auto doc = nlohmann::json::parse(json, nullptr, false);
      if (doc.is_object() && doc.contains("clips") && doc["clips"].is_object()) {
        nlohmann::json kept = nlohmann::json::object();
        for (auto& [name, list] : doc["clips"].items())
          if (match_clip_name(names, name) >= 0) kept[name] = list;
        doc["clips"] = kept;
        json = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
    }
    auto parsed = parse_notifies(json, notify_path, timings);
    if (!parsed) return R::failure(parsed.error());
    file.notifies_json = json;
  }
  report.inputs = scene->source_files;
  report.inputs.push_back(input);
  if (!options.graph.empty()) report.inputs.push_back(options.graph);
  if (!notify_path.empty()) report.inputs.push_back(notify_path);
  if (write_failed) *write_failed = true;
  for (const std::string& read : report.inputs)
    if (same_file(output, read))
      return R::failure(output + ": not written (it is an input of this conversion: " + read + ")");
  auto written = write_ossa(file, output);
  if (!written) return R::failure(written.error());
  if (write_failed) *write_failed = false;
  report.bytes_out = fs::file_size(path_from_utf8(output), ec);
  return report;
}

Result<GltfConversion> convert_to_gltf(const std::string& input, const std::string& output,
                                       const ConvertOptions& options, bool* write_failed) {
  using R = Result<GltfConversion>;
  if (write_failed) *write_failed = false;
  if (options.keys || !options.graph.empty() || options.import.left_handed)
    return R::failure(output +
                      ": glTF keeps the keys, has no animation graphs and is right-handed (keys, "
                      "graph and left_handed are for .ossa output)");
  GltfConversion report;
  std::error_code ec;
  report.bytes_in = fs::file_size(path_from_utf8(input), ec);
  ModelLoadOptions load;
  load.notifies_path = options.notifies;
  const bool frames = options.frame_rate > 0 || options.root_motion;
  load.build = {frames ? Clip::Layout::kFixedRate : Clip::Layout::kKeyed, options.frame_rate};
  // A model file is imported with up to 8 influences a vertex: the runtime meshes keep 4, the export all.
  GltfExportOptions export_options;
  std::vector<RawMesh> source_meshes;
  RawSkeleton source_skeleton;
  auto loaded = Result<std::shared_ptr<const LoadedCharacter>>::failure("");
  if (is_ossa_file(input)) {
    loaded = load_character(input, load);
  } else {
    ImportOptions import = options.import;
    import.max_influences = 8;
    auto scene = import_file(input, import);
    if (!scene) return R::failure(scene.error());
    source_meshes = scene->meshes;
    source_skeleton = scene->skeleton;
    export_options.source_meshes = source_meshes;
    export_options.source_skeleton = &source_skeleton;
    loaded = load_character(std::move(scene).value(), load);
  }
  if (!loaded) return R::failure(loaded.error());
  report.warnings = (*loaded)->notifies.warnings;
  LoadedCharacter character = **loaded;  // a copy, edited by the clip selection and root motion
  if (!options.clips.empty()) {
    std::vector<std::string> names;
    for (const Clip& c : character.asset.clips) names.push_back(c.name());
    LoadedCharacter kept = character;
    kept.asset.clips.clear(), kept.notifies.clips.clear(), kept.root_motion.clear();
    for (const std::string& want : options.clips) {
      const int i = match_clip_name(names, want);
      if (i < 0) return R::failure(input + ": no clip '" + want + "'");
      kept.asset.clips.push_back(character.asset.clips[i]);
      if (static_cast<size_t>(i) < character.notifies.clips.size())
        kept.notifies.clips.push_back(character.notifies.clips[i]);
      if (static_cast<size_t>(i) < character.root_motion.size())
        kept.root_motion.push_back(character.root_motion[i]);
    }
    character = std::move(kept);
  }
  if (options.root_motion) {
    if (!character.root_motion.empty())
      return R::failure(input + ": its clips already have root motion (it is exported with them)");
    auto in_place = extract_root_motion(character.asset.clips, character.asset.skeleton);
    if (!in_place) return R::failure(input + ": " + in_place.error());
    character.asset.clips = std::move(in_place->clips);
    character.root_motion = std::move(in_place->tracks);
  }
  export_options.compress = options.compress;
  export_options.tolerance = static_cast<float>(options.tolerance_mm / 1000.0);
  export_options.shell_distance = static_cast<float>(options.shell_mm / 1000.0);
  if (write_failed) *write_failed = true;
  const auto start = Clock::now();
  auto written = write_gltf(character, output, export_options);
  if (!written) return R::failure(written.error());
  report.export_ms = ms_since(start);
  if (write_failed) *write_failed = false;
  for (const GltfOutputFile& f : written->files) {
    report.bytes_out += f.bytes.size();
    report.files.push_back(f.name.empty() ? output
                                          : utf8_from_path(path_from_utf8(output).parent_path() / f.name));
  }
  report.dropped = std::move(written->dropped);
  report.joint_keys = written->joint_keys, report.joint_keys_full = written->joint_keys_full;
  report.worst_error = written->worst_error;
  return report;
}

}  // namespace ossa
