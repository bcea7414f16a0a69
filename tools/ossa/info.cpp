// `ossa info`: what a file holds after import, as text or one JSON object.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "json_output.h"
#include "ossa/serialize/ossa_file.h"
#include "text_output.h"

namespace ossa::cli {
namespace {
using nlohmann::ordered_json;

// A mesh's "morph_targets" (model files and .ossa alike).
void print_morph_targets(const ordered_json& mesh) {
  if (!mesh["morph_targets"].empty()) print("    morph targets: %zu\n", mesh["morph_targets"].size());
  for (const auto& t : mesh["morph_targets"]) {
    const bool normals = t["has_normals"].get<bool>(), tangents = t["has_tangents"].get<bool>();
    const char* also = normals && tangents ? " (and normals, tangents)"
                       : normals           ? " (and normals)"
                       : tangents          ? " (and tangents)"
                                           : "";
    print("      %-24s moves %6zu vertices%s, default weight %.4g\n", t["name"].get<std::string>().c_str(),
          t["vertices_moved"].get<size_t>(), also, t["default_weight"].get<double>());
  }
}

// A clip's "morph_weight_tracks".
void print_morph_weight_tracks(const ordered_json& clip) {
  for (const auto& mt : clip["morph_weight_tracks"])
    print("    morph weights of %-20s %3zu targets %5zu keys%s\n", mt["mesh"].get<std::string>().c_str(),
          mt["targets"].get<size_t>(), mt["keys"].get<size_t>(),
          mt.value("quantized", false) ? " (compressed)" : "");
}
}  // namespace

// An .ossa file: what its sections hold.
int run_info_ossa(const InfoArgs& args) {
  auto file = read_ossa(args.file);
  if (!file) return print_error("ossa: %s\n", file.error().c_str()), kExitBadInput;
  ordered_json out;
  out["file"] = args.file;
  out["format"] = "ossa";
  out["format_version"] = file->version;
  ordered_json joints = ordered_json::array();
  if (file->skeleton)
    for (int j = 0; j < file->skeleton->joint_count(); ++j)
      joints.push_back({{"name", file->skeleton->name(j)}, {"parent", file->skeleton->parents()[j]}});
  out["joints"] = joints;
  out["meshes"] = ordered_json::array();
  for (const SkinnedMesh& m : file->meshes) {
    // As for a model file (run_info's "morph_targets").
    const MorphTargets& morph = m.morph_targets();
    ordered_json targets = ordered_json::array();
    for (int t = 0; t < morph.count(); ++t)
      targets.push_back({{"name", morph.names()[t]},
                         {"vertices_moved", morph.target_first()[t + 1] - morph.target_first()[t]},
                         {"has_normals", !morph.normal_deltas().empty()},
                         {"has_tangents", !morph.tangent_deltas().empty()},
                         {"default_weight", morph.default_weights()[t]}});
    out["meshes"].push_back({{"name", m.name()},
                             {"vertices", m.vertex_count()},
                             {"triangles", m.indices().size() / 3},
                             {"influences_per_vertex", m.influences()},
                             {"joints_used", m.joint_remap().size()},
                             {"morph_targets", std::move(targets)}});
  }
  out["clips"] = ordered_json::array();
  for (size_t c = 0; c < file->clips.size(); ++c) {
    const Clip& clip = file->clips[c];
    const char* layout = clip.layout() == Clip::Layout::kKeyed       ? "keyed"
                         : clip.layout() == Clip::Layout::kFixedRate ? "fixed_rate"
                                                                     : "quantized";
    ordered_json morph = ordered_json::array();
    for (const MorphWeightTracks::Track& t : clip.morph_weights().tracks()) {
      const bool named = t.mesh >= 0 && static_cast<size_t>(t.mesh) < file->meshes.size();
      morph.push_back({{"mesh", named ? file->meshes[t.mesh].name() : std::to_string(t.mesh)},
                       {"targets", t.targets},
                       {"keys", t.key_count},
                       {"quantized", clip.morph_weights().quantized()}});
    }
    out["clips"].push_back({{"name", clip.name()},
                            {"duration", clip.duration()},
                            {"layout", layout},
                            {"frame_rate", clip.frame_rate()},
                            {"bytes", clip.memory_bytes()},
                            {"root_motion", file->root_motion[c].has_value()},
                            {"morph_weight_tracks", std::move(morph)}});
  }
  out["materials"] = file->materials.size();
  out["textures"] = file->textures.size();
  out["notifies"] = !file->notifies_json.empty();
  if (args.json) {
    print("%s\n", json_text(out, 2).c_str());
    return 0;
  }
  print("%s (.ossa version %u)\n", args.file.c_str(), file->version);
  print("skeleton: %zu joints\n", joints.size());
  for (const auto& m : out["meshes"]) {
    print("mesh  %-24s %6d vertices %6zu triangles, %d influences/vertex, %zu joints\n",
          m["name"].get<std::string>().c_str(), m["vertices"].get<int>(), m["triangles"].get<size_t>(),
          m["influences_per_vertex"].get<int>(), m["joints_used"].get<size_t>());
    print_morph_targets(m);
  }
  for (const auto& c : out["clips"]) {
    // Keyed clips keep the file's own key times: they have no frame rate to print.
    const std::string layout = c["layout"].get<std::string>();
    char rate[32];
    if (layout == "keyed")
      std::snprintf(rate, sizeof rate, "%10s", "file keys");
    else
      std::snprintf(rate, sizeof rate, "%6.1f fps", c["frame_rate"].get<double>());
    print("clip  %-24s %8.4f s  %-10s %s  %8zu bytes%s\n", c["name"].get<std::string>().c_str(),
          c["duration"].get<double>(), layout.c_str(), rate, c["bytes"].get<size_t>(),
          c["root_motion"].get<bool>() ? "  root motion" : "");
    print_morph_weight_tracks(c);
  }
  print("materials %zu, textures %zu, notifies %s\n", file->materials.size(), file->textures.size(),
        file->notifies_json.empty() ? "no" : "yes");
  return 0;
}

#ifdef OSSA_HAS_IMPORT
// A model file: what the importer made of it (before the runtime's build).
namespace {
ordered_json build_info(const ImportedScene& scene) {
  ordered_json out;
  out["file"] = scene.source_path;
  out["format"] = scene.format;
  out["space"] = {{"up", "+Y"},
                  {"handedness", scene.space.left_handed ? "left" : "right"},
                  {"units", "m"},
                  {"source_up", scene.space.source_up},
                  {"source_front", scene.space.source_front},
                  {"unit_scale", scene.space.unit_scale},
                  {"conversion", scene.space.note}};
  ordered_json joints = ordered_json::array();
  for (const RawJoint& j : scene.skeleton.joints) {
    joints.push_back({{"name", j.name},
                      {"parent", j.parent},
                      {"weighted", j.weighted},
                      {"mesh_node", j.is_mesh_node},
                      {"bind_from_file", j.has_file_bind}});
  }
  out["joints"] = std::move(joints);
  ordered_json meshes = ordered_json::array();
  for (const RawMesh& m : scene.meshes) {
    const InfluenceStats& s = m.influence_stats;
    ordered_json targets = ordered_json::array();
    for (size_t t = 0; t < m.morph_targets.size(); ++t)
      targets.push_back({{"name", m.morph_targets[t].name},
                         {"vertices_moved", m.morph_targets[t].vertices.size()},
                         {"has_normals", !m.morph_targets[t].normal_deltas.empty()},
                         {"has_tangents", !m.morph_targets[t].tangent_deltas.empty()},
                         {"default_weight", m.morph_default_weights[t]}});
    meshes.push_back({{"name", m.name},
                      {"vertices", m.positions.size()},
                      {"triangles", m.indices.size() / 3},
                      {"skinned", m.skinned},
                      {"joints_used", m.joint_remap.size()},
                      {"influences_per_vertex", m.influences_per_vertex},
                      {"max_influences_found", s.max_found},
                      {"vertices_cut", s.vertices_cut},
                      {"largest_weight_dropped", s.largest_dropped},
                      {"unweighted_vertices", s.unweighted_vertices},
                      {"material", m.material},
                      {"has_normals", !m.normals.empty()},
                      {"has_tangents", !m.tangents.empty()},
                      {"has_uvs", !m.uvs.empty()},
                      {"morph_targets", std::move(targets)}});
  }
  out["meshes"] = std::move(meshes);
  ordered_json clips = ordered_json::array();
  for (const RawClip& c : scene.clips) {
    size_t t = 0, r = 0, s = 0;
    for (const RawTrack& tr : c.tracks) {
      t += tr.translations.size();
      r += tr.rotations.size();
      s += tr.scales.size();
    }
    ordered_json morph = ordered_json::array();
    for (const RawMorphTrack& mt : c.morph_tracks)
      morph.push_back({{"mesh", scene.meshes[mt.mesh].name},
                       {"targets", scene.meshes[mt.mesh].morph_targets.size()},
                       {"keys", mt.times.size()}});
    clips.push_back({{"name", c.name},
                     {"duration", c.duration},
                     {"ticks_per_second", c.ticks_per_second},
                     {"tracks", c.tracks.size()},
                     {"translation_keys", t},
                     {"rotation_keys", r},
                     {"scale_keys", s},
                     {"morph_weight_tracks", std::move(morph)},
                     {"converted_step_channels", c.converted_step_channels},
                     {"converted_cubic_channels", c.converted_cubic_channels}});
  }
  out["clips"] = std::move(clips);
  auto texture_json = [&](int index) -> ordered_json {
    if (index < 0) return nullptr;
    const Texture& t = scene.textures[index];
    return {{"path", t.path}, {"embedded", t.embedded}, {"resolved", t.resolved_path}};
  };
  ordered_json materials = ordered_json::array();
  for (const Material& m : scene.materials) {
    materials.push_back({{"name", m.name},
                         {"base_color", {m.base_color.x, m.base_color.y, m.base_color.z, m.base_color.w}},
                         {"diffuse", texture_json(m.diffuse_texture)},
                         {"normal", texture_json(m.normal_texture)},
                         {"specular", texture_json(m.specular_texture)}});
  }
  out["materials"] = std::move(materials);
  out["warnings"] = scene.warnings;
  return out;
}

void print_text(const ImportedScene& scene, const ordered_json& info) {
  print("%s (%s)\n", scene.source_path.c_str(), scene.format.c_str());
  print("space: +Y up, %s-handed, metres; %s\n", scene.space.left_handed ? "left" : "right",
        scene.space.note.c_str());
  const auto& joints = scene.skeleton.joints;
  size_t weighted = 0;
  for (const RawJoint& j : joints) weighted += j.weighted;
  print(
      "\njoints: %zu (%zu weighted)   * weighted, [mesh] mesh node, (unweighted) socket, helper or "
      "ancestor\n",
      joints.size(), weighted);
  std::vector<int> depth(joints.size(), 0);
  for (size_t i = 0; i < joints.size(); ++i) {
    const RawJoint& j = joints[i];
    depth[i] = j.parent >= 0 ? depth[j.parent] + 1 : 0;
    const char* mark = j.weighted ? " *" : j.is_mesh_node ? " [mesh]" : " (unweighted)";
    print("  %*s%s%s\n", depth[i] * 2, "", j.name.c_str(), mark);
  }
  print("\nmeshes: %zu\n", scene.meshes.size());
  for (const auto& m : info["meshes"]) {
    print(
        "  %-24s %6zu vertices %6zu triangles  %s, %zu joints, %d influences/vertex (max found %d, cut %d, "
        "largest dropped %.4f, unweighted %d)\n",
        m["name"].get<std::string>().c_str(), m["vertices"].get<size_t>(), m["triangles"].get<size_t>(),
        m["skinned"].get<bool>() ? "skinned" : "rigid", m["joints_used"].get<size_t>(),
        m["influences_per_vertex"].get<int>(), m["max_influences_found"].get<int>(),
        m["vertices_cut"].get<int>(), m["largest_weight_dropped"].get<double>(),
        m["unweighted_vertices"].get<int>());
    print_morph_targets(m);
  }
  print("\nclips: %zu\n", scene.clips.size());
  for (const auto& c : info["clips"]) {
    print("  %-28s %8.4f s  %3zu tracks  keys T %zu R %zu S %zu  (%.6g ticks/s)\n",
          c["name"].get<std::string>().c_str(), c["duration"].get<double>(), c["tracks"].get<size_t>(),
          c["translation_keys"].get<size_t>(), c["rotation_keys"].get<size_t>(),
          c["scale_keys"].get<size_t>(), c["ticks_per_second"].get<double>());
    const int step = c["converted_step_channels"].get<int>(),
              cubic = c["converted_cubic_channels"].get<int>();
    if (step > 0 || cubic > 0)
      print(
          "    %d STEP and %d CUBICSPLINE channels rewritten as linear keys (STEP held, CUBICSPLINE "
          "resampled)\n",
          step, cubic);
    print_morph_weight_tracks(c);
  }
  print("\nmaterials: %zu\n", scene.materials.size());
  for (const auto& m : info["materials"]) {
    print("  %-24s base colour (%.3g %.3g %.3g %.3g)", m["name"].get<std::string>().c_str(),
          m["base_color"][0].get<double>(), m["base_color"][1].get<double>(),
          m["base_color"][2].get<double>(), m["base_color"][3].get<double>());
    for (const char* slot : {"diffuse", "normal", "specular"}) {
      const auto& t = m[slot];
      if (t.is_null()) continue;
      std::string where = t["embedded"].get<bool>()                  ? "embedded"
                          : t["resolved"].get<std::string>().empty() ? "MISSING"
                                                                     : t["resolved"].get<std::string>();
      print("  %s: %s (%s)", slot, t["path"].get<std::string>().c_str(), where.c_str());
    }
    print("\n");
  }
  if (!scene.warnings.empty()) {
    print("\nwarnings:\n");
    for (const std::string& w : scene.warnings) print("  - %s\n", w.c_str());
  }
}
}  // namespace

int run_info(const InfoArgs& args) {
  if (is_ossa_file(args.file)) return run_info_ossa(args);
  auto scene = load_model(args.file, args.max_influences, args.left_handed);
  if (!scene) return kExitBadInput;
  ordered_json info = build_info(*scene);
  if (args.json)
    print("%s\n", json_text(info, 2).c_str());
  else
    print_text(*scene, info);
  return 0;
}
#else
int run_info(const InfoArgs& args) {
  return is_ossa_file(args.file) ? run_info_ossa(args) : refuse_model_file(args.file);
}
#endif

}  // namespace ossa::cli
