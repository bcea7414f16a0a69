#include "oracle_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/runtime/animator.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/skinning_job.h"
#include "reference/reference_eval.h"
#include "test_paths.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

// Blender world (+Z up) -> Ossa canonical (+Y up): (x, y, z) -> (x, z, -y).
Vec3 from_blender(const json& p) {
  return {p[0].get<float>(), p[2].get<float>(), -p[1].get<float>()};
}
double distance(Vec3 a, Vec3 b) {
  return length(a - b);
}

struct VertexRef {
  int mesh = -1;
  int vertex = -1;
};

// Nearest vertex among `candidates` (mesh index, positions) for `p`.
VertexRef nearest(const std::vector<std::pair<int, const std::vector<Vec3>*>>& candidates, Vec3 p,
                  double& best) {
  VertexRef ref;
  best = std::numeric_limits<double>::max();
  for (const auto& [mesh, positions] : candidates) {
    for (size_t v = 0; v < positions->size(); ++v) {
      double d = distance((*positions)[v], p);
      if (d < best) {
        best = d;
        ref = {mesh, static_cast<int>(v)};
      }
    }
  }
  return ref;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

std::string shared_dir() {
  if (const char* env = std::getenv("OSSA_SHARED_DIR")) return fs::is_directory(env) ? env : "";
  fs::path p = fs::path(build::source_dir()).parent_path() / "shared";
  return fs::is_directory(p / "models") ? p.string() : "";
}

std::string source_dir() {
  return build::source_dir();
}

std::vector<std::string> animated_models() {
  std::vector<std::string> files = {source_dir() + "/assets/sample/ossa_sample.fbx",
                                    source_dir() + "/assets/sample/ossa_sample.glb",
                                    source_dir() + "/assets/bench/ossa_humanoid70.glb"};
  if (std::string shared = shared_dir(); !shared.empty())
    for (const char* f : {"CesiumMan.glb", "Fox.glb", "SimpleSkin.gltf", "animation_with_skeleton.fbx",
                          "blender_279_sausage_7400_binary.fbx", "huesitos.fbx",
                          "maya_game_sausage_7500_binary_combined.fbx"})
      files.push_back(shared + "/models/" + f);
  return files;
}

OraclePose reference_pose(const ImportedScene& scene, int clip, float t) {
  const RawClip& raw = scene.clips[clip];
  OraclePose pose;
  pose.model = reference::local_to_model(scene.skeleton, reference::sample_clip(scene.skeleton, raw, t));
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const RawMesh& mesh = scene.meshes[m];
    const auto weights = reference::sample_morph_weights(mesh, static_cast<int>(m), &raw, t);
    pose.meshes.push_back(reference::skin_mesh(mesh, pose.model, weights).positions);
  }
  return pose;
}

OracleEvaluator runtime_evaluator(Clip::Layout layout) {
  struct Built {
    const ImportedScene* scene = nullptr;
    std::optional<CharacterAsset> asset;
  };
  auto built = std::make_shared<Built>();
  return [built, layout](const ImportedScene& scene, int clip, float t) {
    OraclePose pose;
    if (built->scene != &scene) {
      auto asset = CharacterAsset::build(scene, {layout, 0});
      if (!asset) {
        pose.error = asset.error();
        return pose;
      }
      built->asset.emplace(std::move(asset).value());
      built->scene = &scene;
    }
    const CharacterAsset& asset = *built->asset;
    Animator animator(asset);
    if (!animator.play(clip)) return OraclePose{{}, {}, "no clip " + std::to_string(clip)};
    animator.seek(t);
    animator.update(0);
    pose.model.assign(animator.model().begin(), animator.model().end());
    for (int m = 0; m < static_cast<int>(asset.meshes.size()); ++m) {
      const SkinnedMesh& mesh = asset.meshes[m];
      std::vector<float> morphed(mesh.positions().begin(), mesh.positions().end());
      if (!animator.mesh_morph_weights(m).empty()) {
        MorphJob morph = MorphJob::for_mesh(mesh, animator.mesh_morph_weights(m));
        morph.out_positions = morphed;
        if (!morph.run()) return OraclePose{{}, {}, "MorphJob refused mesh " + std::to_string(m)};
      }
      std::vector<float> skinned(morphed.size());
      SkinningJob skin = SkinningJob::for_mesh(mesh, animator.mesh_palette(m));
      skin.in_positions = morphed;
      skin.out_positions = skinned;
      if (!skin.run()) return OraclePose{{}, {}, "SkinningJob refused mesh " + std::to_string(m)};
      std::vector<Vec3>& out = pose.meshes.emplace_back(mesh.vertex_count());
      for (int v = 0; v < mesh.vertex_count(); ++v)
        out[v] = {skinned[3 * v], skinned[3 * v + 1], skinned[3 * v + 2]};
    }
    return pose;
  };
}

OracleReport compare_with_oracle(const std::string& model_path, const std::string& oracle_path,
                                 int max_influences, const OracleTolerance& tolerance,
                                 const OracleEvaluator& evaluate) {
  OracleReport report;
  std::ifstream in(oracle_path);
  if (!in) {
    report.error = "cannot open " + oracle_path;
    return report;
  }
  json oracle = json::parse(in);
  if (!oracle.value("ok", false)) {
    report.error = "oracle has no evaluation: " + oracle.value("error", std::string("?"));
    return report;
  }
  ImportOptions options;
  options.max_influences = max_influences;
  Result<ImportedScene> imported = import_file(model_path, options);
  if (!imported) {
    report.error = imported.error();
    return report;
  }
  const ImportedScene& scene = *imported;
  const RawSkeleton& skeleton = scene.skeleton;
  report.ran = true;

  // Model size: bounding box of the oracle's rest joints and vertices.
  Vec3 lo{1e30f, 1e30f, 1e30f}, hi{-1e30f, -1e30f, -1e30f};
  auto grow = [&](Vec3 p) {
    lo = {std::min(lo.x, p.x), std::min(lo.y, p.y), std::min(lo.z, p.z)};
    hi = {std::max(hi.x, p.x), std::max(hi.y, p.y), std::max(hi.z, p.z)};
  };
  for (auto& [name, p] : oracle["rest"]["joints"].items()) grow(from_blender(p));
  for (auto& [name, m] : oracle["rest"]["meshes"].items())
    for (auto& p : m["co"]) grow(from_blender(p));
  report.diagonal = distance(lo, hi);
  const double diag = report.diagonal > 0 ? report.diagonal : 1.0;

  // The space conversion must be Blender's file_to_world followed by Z-up -> Y-up.
  if (oracle.contains("conventions") && oracle["conventions"].contains("file_to_world")) {
    const json& f = oracle["conventions"]["file_to_world"];
    for (int c = 0; c < 3; ++c) {
      Vec3 column{f[0][c].get<float>(), f[1][c].get<float>(), f[2][c].get<float>()};
      Vec3 expected{column.x, column.z, -column.y};
      Vec3 ours{scene.space.file_to_canonical.at(0, c), scene.space.file_to_canonical.at(1, c),
                scene.space.file_to_canonical.at(2, c)};
      if (distance(expected, ours) > 1e-6 * (1 + length(expected)))
        report.problems.push_back("space conversion column " + std::to_string(c) + " differs from Blender's");
    }
  }

  // Blender's rest joints against the skeleton's rest pose in the world (each joint's default transform:
  // `ossa eval`'s `rest`) and against the bind pose (the inverse binds inverted: `bind`), the latter also
  // after the one translation of the whole skeleton that fits best (Blender's glTF importer rebuilds the bind
  // pose from the inverse binds and places the armature elsewhere).
  {
    const std::vector<Mat4> rest = reference::local_to_model(skeleton, reference::rest_pose(skeleton));
    const std::vector<Mat4> bind = reference::bind_pose_model(skeleton);
    std::vector<std::pair<int, Vec3>> joints;
    Vec3 offset{0, 0, 0};
    for (auto& [name, p] : oracle["rest"]["joints"].items())
      if (const int j = skeleton.find_joint(name); j >= 0) {
        joints.emplace_back(j, from_blender(p));
        offset = offset + (joints.back().second - bind[j].translation());
      }
    if (!joints.empty()) offset = offset * (1.f / static_cast<float>(joints.size()));
    report.rest_joints_compared = static_cast<int>(joints.size());
    auto worst = [&](double& error, std::string& where, const std::vector<Mat4>& model, Vec3 shift) {
      for (const auto& [j, blender] : joints) {
        const double e = distance(model[j].translation() + shift, blender) / diag;
        if (e > error) error = e, where = skeleton.joints[j].name;
      }
    };
    std::string unused;
    worst(report.max_rest_joint_error, report.worst_rest_joint, rest, {0, 0, 0});
    worst(report.max_bind_joint_error, report.worst_bind_joint, bind, {0, 0, 0});
    worst(report.max_bind_joint_error_translated, unused, bind, offset);
    report.bind_translation = offset;
    double rest_to_bind = 0;
    for (const auto& [j, blender] : joints)
      rest_to_bind = std::max(rest_to_bind, distance(rest[j].translation(), bind[j].translation()) / diag);
    report.rest_is_bind = rest_to_bind <= 1e-5;
  }

  // Pair oracle vertices with ours.
  const bool pair_on_first_sample = oracle.value("format", "") != "fbx";
  std::map<std::string, std::vector<VertexRef>> pairs;
  const json& clips = oracle["clips"];
  for (auto& [mesh_name, mesh] : oracle["rest"]["meshes"].items()) {
    std::vector<std::pair<int, const std::vector<Vec3>*>> candidates;
    std::vector<std::vector<Vec3>> posed(scene.meshes.size());
    // Blender's object is one mesh; the import makes one mesh per material (glTF primitive), named NAME,
    // NAME#2, ... (assimp_import.cpp makes mesh names unique that way): each of them is a candidate.
    auto same_object = [&](const std::string& ours) {
      return ours == mesh_name ||
             (ours.size() > mesh_name.size() + 1 && ours.compare(0, mesh_name.size(), mesh_name) == 0 &&
              ours[mesh_name.size()] == '#');
    };
    for (size_t m = 0; m < scene.meshes.size(); ++m)
      if (same_object(scene.meshes[m].name))
        candidates.emplace_back(static_cast<int>(m), &scene.meshes[m].positions);
    if (candidates.empty())
      for (size_t m = 0; m < scene.meshes.size(); ++m)
        candidates.emplace_back(static_cast<int>(m), &scene.meshes[m].positions);
    const json* targets = &mesh["co"];
    // A mesh parented to a bone has Blender's rest at the bone's posed place: pair it on a posed sample too.
    if (pair_on_first_sample || mesh.value("parent_type", "") == "BONE") {
      if (clips.empty() || !clips[0]["samples"][0]["meshes"].contains(mesh_name)) continue;
      const json& first = clips[0];
      int ci = first["name"].is_string() ? scene.find_clip(first["name"].get<std::string>()) : -1;
      if (ci < 0) ci = first.value("index", 0);
      if (ci >= static_cast<int>(scene.clips.size())) continue;
      const float t0 = first["samples"][0]["t"].get<float>();
      auto model = reference::local_to_model(skeleton, reference::sample_clip(skeleton, scene.clips[ci], t0));
      for (auto& cand : candidates) {
        const RawMesh& mesh = scene.meshes[cand.first];
        posed[cand.first] =
            reference::skin_mesh(mesh, model,
                                 reference::sample_morph_weights(mesh, cand.first, &scene.clips[ci], t0))
                .positions;
        cand.second = &posed[cand.first];
      }
      targets = &first["samples"][0]["meshes"][mesh_name]["co"];
    }
    std::vector<VertexRef>& refs = pairs[mesh_name];
    int unpaired = 0;
    for (const json& p : *targets) {
      double d;
      VertexRef ref = nearest(candidates, from_blender(p), d);
      if (d > 1e-3 * diag) {
        ++unpaired;
        ref = {};
      }
      refs.push_back(ref);
    }
    if (unpaired)
      report.problems.push_back("mesh '" + mesh_name + "': " + std::to_string(unpaired) + " of " +
                                std::to_string(refs.size()) +
                                " vertices have no counterpart within 1e-3 of the size");
  }

  for (const json& oclip : clips) {
    int ci = oclip["name"].is_string() ? scene.find_clip(oclip["name"].get<std::string>()) : -1;
    if (ci < 0) ci = oclip.value("index", -1);
    if (ci < 0 || ci >= static_cast<int>(scene.clips.size())) {
      report.problems.push_back("clip " + oclip["name"].dump() + " not imported");
      continue;
    }
    const RawClip& clip = scene.clips[ci];
    if (std::fabs(clip.duration - oclip["duration_s"].get<double>()) > 1e-3)
      report.problems.push_back("clip '" + clip.name + "' lasts " + fmt(clip.duration) + " s, Blender says " +
                                fmt(oclip["duration_s"].get<double>()));
    std::set<float> key_times;
    for (const RawTrack& t : clip.tracks) {
      key_times.insert(t.translation_times.begin(), t.translation_times.end());
      key_times.insert(t.rotation_times.begin(), t.rotation_times.end());
      key_times.insert(t.scale_times.begin(), t.scale_times.end());
    }
    for (const RawMorphTrack& t : clip.morph_tracks) key_times.insert(t.times.begin(), t.times.end());
    for (const json& sample : oclip["samples"]) {
      const float t = sample["t"].get<float>();
      bool at_key = key_times.empty() || t <= *key_times.begin() + 1e-4f || t >= *key_times.rbegin() - 1e-4f;
      for (float k : key_times) at_key = at_key || std::fabs(k - t) < 1e-4f;
      const double limit = at_key ? tolerance.at_keys : tolerance.between_keys;
      double& joint_worst = at_key ? report.max_joint_error : report.max_joint_error_between;
      double& vertex_worst = at_key ? report.max_vertex_error : report.max_vertex_error_between;
      ++report.samples;
      const std::string where = "clip '" + clip.name + "' t=" + fmt(t);

      const OraclePose pose = evaluate ? evaluate(scene, ci, t) : reference_pose(scene, ci, t);
      if (pose.model.size() != skeleton.joints.size() || pose.meshes.size() != scene.meshes.size()) {
        report.problems.push_back(where + ": no evaluation (" + pose.error + ")");
        continue;
      }
      const std::vector<Mat4>& model = pose.model;
      for (auto& [name, p] : sample["joints"].items()) {
        int j = skeleton.find_joint(name);
        if (j < 0) {
          if (report.samples == 1) report.problems.push_back("joint '" + name + "' not in Ossa's skeleton");
          continue;
        }
        double err = distance(model[j].translation(), from_blender(p)) / diag;
        ++report.joints_compared;
        if (err > joint_worst) {
          joint_worst = err;
          if (at_key) report.worst = where + " joint '" + name + "'";
        }
        if (err > limit && report.problems.size() < 40)
          report.problems.push_back(where + " joint '" + name + "' off by " + fmt(err) + " of the size");
      }
      for (auto& [mesh_name, m] : sample["meshes"].items()) {
        if (!m.contains("co")) continue;
        const std::vector<VertexRef>& refs = pairs[mesh_name];
        const json& co = m["co"];
        for (size_t i = 0; i < co.size() && i < refs.size(); ++i) {
          if (refs[i].mesh < 0) continue;
          double err = distance(pose.meshes[refs[i].mesh][refs[i].vertex], from_blender(co[i])) / diag;
          ++report.vertices_compared;
          if (err > vertex_worst) {
            vertex_worst = err;
            if (at_key && err > report.max_joint_error)
              report.worst = where + " mesh '" + mesh_name + "' vertex " + std::to_string(i);
          }
          if (err > limit && report.problems.size() < 40)
            report.problems.push_back(where + " mesh '" + mesh_name + "' vertex " + std::to_string(i) +
                                      " off by " + fmt(err) + " of the size");
        }
      }
    }
  }
  return report;
}

}  // namespace ossa::test
