// Offline work from Python: retargeting a character's clips onto another, glTF export, conversion to .ossa.
#include <algorithm>
#include <cctype>

#include "bindings.h"
#include "ossa/import/convert.h"
#include "ossa/offline/retarget.h"
#include "ossa/serialize/gltf_export.h"

namespace ossa::python {
namespace {

CharacterRef retarget(const CharacterRef& source, const CharacterRef& target, const py::object& map,
                      const std::vector<std::string>& contacts, const std::string& profile,
                      const py::object& clips_arg) {
  std::vector<int> clips;
  if (clips_arg.is_none()) {
    for (size_t c = 0; c < source->asset().clips.size(); ++c) clips.push_back(static_cast<int>(c));
  } else {
    for (const py::handle clip : clips_arg)
      clips.push_back(clip_index(source->asset(), py::reinterpret_borrow<py::object>(clip), false));
  }
  int limbs = 0;
  for (const std::string& limb : contacts) {
    if (limb != "feet" && limb != "hands") throw py::value_error("contacts: 'feet' and/or 'hands'");
    limbs |= limb == "feet" ? 1 : 2;
  }
  BoneMapOptions options;
  if (py::isinstance<py::dict>(map))
    options.explicit_json = name_of(py::module_::import("json").attr("dumps")(map));
  else if (!map.is_none())
    options.explicit_json = name_of(map);
  if (profile == "none")
    options.profiles = false;
  else if (profile != "auto")
    options.profile = profile;
  const LoadedCharacter& from = *source->loaded;
  const LoadedCharacter& to = *target->loaded;
  auto character = std::make_shared<LoadedCharacter>();
  {
    py::gil_scoped_release unlocked;
    const BoneMap map = value_or_raise(build_bone_map(from.asset.skeleton, to.asset.skeleton, options));
    const RetargetRig rig = value_or_raise(RetargetRig::build(from.asset.skeleton, to.asset.skeleton, map,
                                                              static_cast<RetargetContacts>(limbs)));
    RetargetedClips done =
        value_or_raise(retarget_clips(from.asset, from.root_motion, to.asset, rig, clips, true));
    character->source_path = to.source_path;
    character->asset.skeleton = to.asset.skeleton;
    character->asset.meshes = to.asset.meshes;
    character->asset.clips = std::move(done.clips);
    character->materials = to.materials;
    character->textures = to.textures;
    character->flip_textures = to.flip_textures;
    character->left_handed = to.left_handed;
    bool all_tracks = !done.root_motion.empty();
    for (const auto& track : done.root_motion) all_tracks = all_tracks && track.has_value();
    if (all_tracks)
      for (auto& track : done.root_motion) character->root_motion.push_back(std::move(*track));
    // The source's notifies go with its clips (times are clip seconds, which retargeting keeps).
    character->notifies.names = from.notifies.names;
    for (int c : clips)
      character->notifies.clips.push_back(
          static_cast<size_t>(c) < from.notifies.clips.size() ? from.notifies.clips[c] : ClipNotifies{});
  }
  return std::make_shared<Character>(Character{std::move(character)});
}

py::dict export_gltf(const CharacterRef& character, const py::object& path_arg, bool compress,
                     double tolerance_mm, double shell_mm) {
  const std::string path = path_of(path_arg);
  GltfExportOptions options;
  options.binary = !path.ends_with(".gltf");
  options.compress = compress;
  options.tolerance = static_cast<float>(tolerance_mm / 1000);
  options.shell_distance = static_cast<float>(shell_mm / 1000);
  Result<GltfExport> written = Result<GltfExport>::failure("");
  {
    py::gil_scoped_release unlocked;
    written = write_gltf(*character->loaded, path, options);
  }
  const GltfExport out = value_or_raise(std::move(written));
  py::dict report;
  py::list files;
  for (const GltfOutputFile& f : out.files) files.append(py::make_tuple(text(f.name), f.bytes.size()));
  report["files"] = files;
  report["dropped"] = texts(out.dropped);
  report["joint_keys"] = out.joint_keys;
  report["joint_keys_full"] = out.joint_keys_full;
  report["worst_error_mm"] = out.worst_error * 1000;
  return report;
}

py::dict convert(const py::object& input_arg, const py::object& output_arg, bool trusted,
                 const py::object& clips, const std::string& layout, float frame_rate, bool root_motion,
                 bool compress, double tolerance_mm, double shell_mm, const py::object& notifies,
                 const py::object& graph, bool left_handed) {
  const std::string input = path_of(input_arg), output = path_of(output_arg);
  ConvertOptions options;
  options.import.isolate = !trusted;
  options.import.left_handed = left_handed;
  if (!clips.is_none())
    for (const py::handle clip : clips) options.clips.push_back(name_of(clip));
  if (layout != "fixed_rate" && layout != "keyed") throw py::value_error("layout: 'fixed_rate' or 'keyed'");
  std::string extension = output.substr(std::min(output.size(), output.find_last_of('.')));
  for (char& ch : extension) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool gltf = extension == ".glb" || extension == ".gltf";
  options.keys = layout == "keyed" && !gltf;  // glTF keeps the keys unless frames are asked for
  if (options.keys && (compress || root_motion || frame_rate > 0))
    throw py::value_error(
        "layout='keyed' keeps the file's keys: compress, root_motion and frame_rate need frames");
  options.frame_rate = frame_rate;
  options.root_motion = root_motion;
  options.compress = compress;
  options.tolerance_mm = tolerance_mm;
  options.shell_mm = shell_mm;
  options.notifies = path_of(notifies);
  options.graph = path_of(graph);
  py::dict report;
  if (gltf) {
    Result<GltfConversion> exported = Result<GltfConversion>::failure("");
    {
      py::gil_scoped_release unlocked;
      exported = convert_to_gltf(input, output, options);
    }
    const GltfConversion g = value_or_raise(std::move(exported));
    report["bytes_in"] = g.bytes_in;
    report["bytes_out"] = g.bytes_out;
    report["files"] = texts(g.files);
    report["dropped"] = texts(g.dropped);
    report["warnings"] = texts(g.warnings);
    report["joint_keys"] = g.joint_keys;
    report["joint_keys_full"] = g.joint_keys_full;
    report["worst_error_mm"] = g.worst_error * 1000;
    return report;
  }
  Result<Conversion> converted = Result<Conversion>::failure("");
  {
    py::gil_scoped_release unlocked;
    converted = convert_to_ossa(input, output, options);
  }
  const Conversion c = value_or_raise(std::move(converted));
  report["bytes_in"] = c.bytes_in;
  report["bytes_out"] = c.bytes_out;
  report["raw_clip_bytes"] = c.raw_clip_bytes;
  report["clip_bytes"] = c.clip_bytes;
  report["worst_error_mm"] = c.worst_error * 1000;
  report["worst_p99_mm"] = c.worst_p99 * 1000;
  report["compress_ms"] = c.compress_ms;
  py::list lines;
  for (const ClipConversion& clip : c.clips) {
    py::dict d;
    d["name"] = text(clip.name);
    d["raw_bytes"] = clip.stats.raw_bytes;
    d["bytes"] = clip.stats.compressed_bytes;
    d["max_error_mm"] = clip.stats.max_error * 1000;
    d["p99_error_mm"] = clip.stats.p99_error * 1000;
    d["frame_rate"] = clip.frame_rate_stored;
    d["milliseconds"] = clip.milliseconds;
    lines.append(d);
  }
  report["clips"] = lines;
  report["inputs"] = texts(c.inputs);
  return report;
}

}  // namespace

void bind_pipeline(py::module_& m) {
  m.def("retarget", &retarget, py::arg("source"), py::arg("target"), py::kw_only(),
        py::arg("map") = py::none(), py::arg("contacts") = std::vector<std::string>{},
        py::arg("profile") = "auto", py::arg("clips") = py::none(),
        R"(The source character's clips (all, or `clips`) on the target's skeleton and meshes, as a Character.

`map`: a bone map over the automatic one, {"target joint": "source joint"} as a dict or JSON text; `profile`: the humanoid
name profile ('auto', 'none', or one of bone_map_profiles()); `contacts`: limbs held where the source's stand
still ('feet', 'hands'). Morph weights go by target name; notifies and root motion go with their clips.)");
  m.def("bone_map_profiles", &bone_map_profiles, "The humanoid name profiles retargeting knows.");
  m.def(
      "convert", &convert, py::arg("input"), py::arg("output"), py::kw_only(), py::arg("trusted") = false,
      py::arg("clips") = py::none(), py::arg("layout") = "fixed_rate", py::arg("frame_rate") = 0.f,
      py::arg("root_motion") = false, py::arg("compress") = false, py::arg("tolerance_mm") = 0.1,
      py::arg("shell_mm") = 30.0, py::arg("notifies") = py::none(), py::arg("graph") = py::none(),
      py::arg("left_handed") = false,
      R"(Converts a model file to .ossa, or any character file to glTF (.glb, .gltf), as `ossa convert` does.

`clips`: names to keep; `layout`: 'fixed_rate' or 'keyed'; `compress`: within `tolerance_mm` of virtual-vertex
error; `root_motion`: the root's travel into tracks; `notifies`/`graph`: a sidecar and an animation graph to
embed (MODEL.notifies.json beside the input is taken by default). The output is written atomically and never
over an input. Returns a report: to .ossa, sizes, per-clip compression, the worst error in mm and the files
read; to glTF, sizes, the files written, what glTF could not hold, joint keys kept (compress) and warnings.)");
  m.def("export_gltf", &export_gltf, py::arg("character"), py::arg("path"), py::kw_only(),
        py::arg("compress") = false, py::arg("tolerance_mm") = 0.1, py::arg("shell_mm") = 30.0,
        R"(Writes the character as glTF 2.0 (.glb, or .gltf with its .bin and images beside it).

`compress`: joint keys reduced within `tolerance_mm` measured `shell_mm` from each joint. Returns a report:
files written (name, bytes), what glTF could not hold, joint keys kept of all, the worst error in mm.)");
}

}  // namespace ossa::python
