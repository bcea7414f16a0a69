// `ossa eval`: world-space joint origins (and skinned vertices) at clip times, as JSON or text.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "json_output.h"
#include "ossa/runtime/pose_evaluator.h"
#include "ossa/serialize/ossa_file.h"
#include "reference/reference_eval.h"
#include "text_output.h"

namespace ossa::cli {
namespace {
using nlohmann::ordered_json;

// 7 significant digits: enough for 0.1 um at 1 m, and keeps the output readable.
double round7(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.7g", static_cast<double>(v));
  return std::strtod(buf, nullptr);
}
ordered_json vec_json(Vec3 v) {
  return ordered_json::array({round7(v.x), round7(v.y), round7(v.z)});
}

// False, with an error naming the place, when the result holds a number that is not finite.
bool report_non_finite(const std::string& file, const ordered_json& out) {
  const std::string place = first_non_finite(out);
  if (place.empty()) return true;
  print_error("ossa: %s: the result at %s is not finite (the model's numbers overflow when combined)\n",
              file.c_str(), place.c_str());
  return false;
}
}  // namespace

int find_clip_arg(const CharacterAsset& asset, const std::string& source, const std::string& arg) {
  int index = asset.find_clip(arg);
  if (index >= 0) return index;
  char* end = nullptr;
  long n = std::strtol(arg.c_str(), &end, 10);
  if (!arg.empty() && end && *end == '\0' && n >= 0 && n < static_cast<long>(asset.clips.size()))
    return static_cast<int>(n);
  print_error("ossa: %s: no clip '%s' (clips:", source.c_str(), arg.c_str());
  for (size_t i = 0; i < asset.clips.size(); ++i) print_error(" %zu='%s'", i, asset.clips[i].name().c_str());
  print_error(")\n");
  return -1;
}

// .ossa files hold runtime assets: evaluate them through the runtime jobs (the same numbers a game gets).
int run_eval_ossa(const EvalArgs& args) {
  auto file = read_ossa(args.file);
  if (!file) return print_error("ossa: %s\n", file.error().c_str()), kExitBadInput;
  const bool left_handed = file->left_handed;
  auto asset = std::move(*file).character();
  if (!asset) return print_error("ossa: %s: %s\n", args.file.c_str(), asset.error().c_str()), kExitBadInput;
  const Skeleton& skeleton = asset->skeleton;
  int clip_index = -1;
  if (!args.clip.empty()) {
    clip_index = asset->find_clip(args.clip);
    char* end = nullptr;
    long n = std::strtol(args.clip.c_str(), &end, 10);
    if (clip_index < 0 && end && *end == '\0' && n >= 0 && n < static_cast<long>(asset->clips.size()))
      clip_index = static_cast<int>(n);
    if (clip_index < 0)
      return print_error("ossa: %s: no clip '%s'\n", args.file.c_str(), args.clip.c_str()), kExitBadInput;
  } else if (!asset->clips.empty()) {
    clip_index = 0;
  }
  const Clip* clip = clip_index >= 0 ? &asset->clips[clip_index] : nullptr;
  std::vector<double> times = args.times;
  if (times.empty()) {
    double d = clip ? clip->duration() : 0.0;
    times = {0.0, 0.25 * d, 0.5 * d, 0.75 * d};
  }
  ordered_json out;
  out["space"] = {{"up", "+Y"}, {"handedness", left_handed ? "left" : "right"}, {"units", "m"}};
  out["clip"] = clip ? ordered_json{{"name", clip->name()},
                                    {"index", clip_index},
                                    {"duration", round7(clip->duration())}}
                     : ordered_json(nullptr);
  PoseEvaluator eval(*asset);
  auto joints = [&]() {
    ordered_json j = ordered_json::object();
    for (int i = 0; i < skeleton.joint_count(); ++i)
      append_unique(j, skeleton.name(i), vec_json(eval.model()[i].translation()));
    return j;
  };
  // The vertices as stored (`skin` false), or morphed and skinned in the pose evaluated.
  auto meshes = [&](bool skin) {
    ordered_json j = ordered_json::object();
    for (size_t m = 0; m < asset->meshes.size(); ++m) {
      const SkinnedMesh& mesh = asset->meshes[m];
      std::vector<float> out_p(mesh.positions().begin(), mesh.positions().end());
      if (skin) eval.skin(static_cast<int>(m), out_p);
      ordered_json verts = ordered_json::array();
      for (size_t v = 0; v + 2 < out_p.size(); v += 3)
        verts.push_back(vec_json({out_p[v], out_p[v + 1], out_p[v + 2]}));
      append_unique(j, mesh.name(), std::move(verts));
    }
    return j;
  };
  // `rest`: the skeleton's rest pose in the world and the meshes skinned in it (default morph weights);
  // `bind`: the pose the meshes were bound in (the inverse binds, inverted) and their vertices as stored.
  eval.evaluate(-1, 0);
  out["rest"]["joints"] = joints();
  if (args.vertices) out["rest"]["meshes"] = meshes(true);
  eval.bind_pose();
  out["bind"]["joints"] = joints();
  if (args.vertices) out["bind"]["meshes"] = meshes(false);
  ordered_json samples = ordered_json::array();
  for (double t : times) {
    eval.evaluate(clip_index, static_cast<float>(t));
    ordered_json sample;
    sample["time"] = t;
    sample["joints"] = joints();
    if (args.vertices) sample["meshes"] = meshes(true);
    samples.push_back(std::move(sample));
  }
  out["samples"] = std::move(samples);
  if (!report_non_finite(args.file, out)) return kExitBadInput;
  print("%s\n", json_text(out, args.json ? -1 : 2).c_str());
  return 0;
}

#ifdef OSSA_HAS_IMPORT
// A model file: evaluated by the reference (reference/reference_eval.h) straight from the imported keys.
namespace {
ordered_json joints_json(const RawSkeleton& skeleton, const std::vector<Mat4>& model) {
  ordered_json j = ordered_json::object();
  for (size_t i = 0; i < model.size(); ++i)
    append_unique(j, skeleton.joints[i].name, vec_json(model[i].translation()));
  return j;
}

// `model` null: the bind-time vertices; else skinned with `model`, morph targets at `clip`'s weights for
// `time`.
ordered_json meshes_json(const ImportedScene& scene, const std::vector<Mat4>* model, const RawClip* clip,
                         float time) {
  ordered_json j = ordered_json::object();
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    const RawMesh& mesh = scene.meshes[m];
    ordered_json verts = ordered_json::array();
    if (model) {
      const std::vector<float> weights =
          reference::sample_morph_weights(mesh, static_cast<int>(m), clip, time);
      for (const Vec3& p : reference::skin_mesh(mesh, *model, weights).positions)
        verts.push_back(vec_json(p));
    } else {
      for (const Vec3& p : mesh.positions) verts.push_back(vec_json(p));
    }
    append_unique(j, mesh.name, std::move(verts));
  }
  return j;
}
}  // namespace

int find_clip_arg(const ImportedScene& scene, const std::string& arg) {
  // The library's rule (ossa/asset/clip_names.h: "Walk" finds "Armature|Walk"), then an index.
  int index = scene.find_clip(arg);
  if (index >= 0) return index;
  char* end = nullptr;
  long n = std::strtol(arg.c_str(), &end, 10);
  if (!arg.empty() && end && *end == '\0' && n >= 0 && n < static_cast<long>(scene.clips.size()))
    return static_cast<int>(n);
  print_error("ossa: %s: no clip '%s' (clips:", scene.source_path.c_str(), arg.c_str());
  for (size_t i = 0; i < scene.clips.size(); ++i) print_error(" %zu='%s'", i, scene.clips[i].name.c_str());
  print_error(")\n");
  return -1;
}

int run_eval(const EvalArgs& args) {
  if (is_ossa_file(args.file)) return run_eval_ossa(args);
  auto scene = load_model(args.file, args.max_influences, args.left_handed);
  if (!scene) return kExitBadInput;
  const RawSkeleton& skeleton = scene->skeleton;

  const RawClip* clip = nullptr;
  int clip_index = -1;
  if (!args.clip.empty()) {
    clip_index = find_clip_arg(*scene, args.clip);
    if (clip_index < 0) return kExitBadInput;
  } else if (!scene->clips.empty()) {
    clip_index = 0;
  }
  if (clip_index >= 0) clip = &scene->clips[clip_index];

  std::vector<double> times = args.times;
  if (times.empty()) {
    double d = clip ? clip->duration : 0.0;
    times = {0.0, 0.25 * d, 0.5 * d, 0.75 * d};
  }
  // --time values are finite and in range for both paths (main.cpp checks them).

  ordered_json out;
  out["space"] = {{"up", "+Y"}, {"handedness", args.left_handed ? "left" : "right"}, {"units", "m"}};
  if (clip)
    out["clip"] = {{"name", clip->name}, {"index", clip_index}, {"duration", round7(clip->duration)}};
  else
    out["clip"] = nullptr;

  // `rest` and `bind` as for .ossa files (run_eval_ossa).
  const std::vector<Mat4> rest = reference::local_to_model(skeleton, reference::rest_pose(skeleton));
  out["rest"]["joints"] = joints_json(skeleton, rest);
  if (args.vertices) out["rest"]["meshes"] = meshes_json(*scene, &rest, nullptr, 0);
  out["bind"]["joints"] = joints_json(skeleton, reference::bind_pose_model(skeleton));
  if (args.vertices) out["bind"]["meshes"] = meshes_json(*scene, nullptr, nullptr, 0);

  ordered_json samples = ordered_json::array();
  for (double t : times) {
    std::vector<Transform> local = clip ? reference::sample_clip(skeleton, *clip, static_cast<float>(t))
                                        : reference::rest_pose(skeleton);
    std::vector<Mat4> model = reference::local_to_model(skeleton, local);
    ordered_json s;
    s["time"] = t;
    s["joints"] = joints_json(skeleton, model);
    if (args.vertices) s["meshes"] = meshes_json(*scene, &model, clip, static_cast<float>(t));
    samples.push_back(std::move(s));
  }
  out["samples"] = std::move(samples);
  if (!report_non_finite(args.file, out)) return kExitBadInput;

  if (args.json) {
    print("%s\n", json_text(out).c_str());
    return 0;
  }
  // Text: one line per joint and time, aligned.
  print("%s  clip %s\n", args.file.c_str(), clip ? ("'" + clip->name + "'").c_str() : "(none: rest pose)");
  for (const auto& s : out["samples"]) {
    print("t = %.4f s\n", s["time"].get<double>());
    for (const auto& [name, p] : s["joints"].items())
      print("  %-32s %10.4f %10.4f %10.4f\n", name.c_str(), p[0].get<double>(), p[1].get<double>(),
            p[2].get<double>());
  }
  return 0;
}
#else
int run_eval(const EvalArgs& args) {
  return is_ossa_file(args.file) ? run_eval_ossa(args) : refuse_model_file(args.file);
}
#endif

}  // namespace ossa::cli
