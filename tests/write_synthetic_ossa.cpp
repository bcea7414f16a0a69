// Fixture of the CLI tests where ossa::import is not built (tests/CMakeLists.txt): there no model file can be
// converted, so the .ossa the commands read is the synthetic character (synthetic_character.h) written by the
// library's own writer, with notifies on its walk (the sample's "FootL"/"FootR"). With `morph`, the synthetic
// character with morph targets and a weight track (the glTF export's checks use both). Two shapes of real
// files that the glTF export once wrote invalid glTF for:
//   keys_outside  keyed clips whose keys begin before the clip's start and end after its end (FBX takes with
//                 offsets: 3ds Max exports whose curves start before the take's LocalStart);
//   empty_mesh    a mesh with vertices and no triangles beside the skinned ones (a Maya NURBS-curve control
//                 object, which assimp gives as a mesh of lines).
//   ossa_write_synthetic_ossa OUT.ossa [plain|morph|keys_outside|empty_mesh]
#include <cstdio>
#include <string>
#include <utility>

#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"

namespace {

// The synthetic scene's clips keyed, each track's keys moved 0.3 s earlier and, on its root track, one more
// key 0.4 s after the clip's end: the clip plays the keys' values at 0 and at its end (interpolated there).
ossa::CharacterAsset keys_outside_character() {
  ossa::test::SyntheticScene scene = ossa::test::synthetic_scene();
  for (ossa::RawClip& clip : scene.clips)
    for (ossa::RawTrack& track : clip.tracks) {
      for (auto* times : {&track.translation_times, &track.rotation_times, &track.scale_times})
        for (float& t : *times) t -= 0.3f;
      if (track.joint == 0 && !track.rotations.empty()) {
        track.rotation_times.push_back(clip.duration + 0.4f);
        track.rotations.push_back(ossa::quat_from_axis_angle({0, 1, 0}, 1.0f));
      }
    }
  auto asset = ossa::CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "keys_outside",
                                           {ossa::Clip::Layout::kKeyed, 0});
  if (!asset) std::fprintf(stderr, "%s\n", asset.error().c_str()), std::exit(1);
  return std::move(asset).value();
}

// The synthetic scene with a rigid mesh of four vertices and no triangles on its root.
ossa::CharacterAsset empty_mesh_character() {
  ossa::test::SyntheticScene scene = ossa::test::synthetic_scene();
  ossa::RawMesh curve;
  curve.name = "ControlCurve";
  curve.node_joint = 0;
  curve.positions = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}};
  curve.influences_per_vertex = 1;  // rigid on the root, as the importer makes it
  curve.influence_joints.assign(4, 0);
  curve.influence_weights.assign(4, 1.f);
  curve.joint_remap = {0};
  curve.inverse_binds = {ossa::inverse(scene.skeleton.joints[0].rest.to_matrix())};
  scene.meshes.push_back(curve);
  auto asset = ossa::CharacterAsset::build(scene.skeleton, scene.clips, scene.meshes, "empty_mesh");
  if (!asset) std::fprintf(stderr, "%s\n", asset.error().c_str()), std::exit(1);
  return std::move(asset).value();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc == 3 ? argv[2] : "plain";
  const bool morph = kind == "morph";
  if (argc < 2 || argc > 3 || (kind != "plain" && !morph && kind != "keys_outside" && kind != "empty_mesh")) {
    std::fprintf(stderr, "usage: ossa_write_synthetic_ossa OUT.ossa [plain|morph|keys_outside|empty_mesh]\n");
    return 2;
  }
  ossa::CharacterAsset asset = morph                    ? ossa::test::synthetic_morph_character(12, 5, 4)
                               : kind == "keys_outside" ? keys_outside_character()
                               : kind == "empty_mesh"   ? empty_mesh_character()
                                                        : ossa::test::synthetic_character();
  ossa::OssaFile file;
  file.skeleton = std::move(asset.skeleton);
  file.clips = std::move(asset.clips);
  file.meshes = std::move(asset.meshes);
  if (morph) file.materials.push_back({"Skin", {0.8f, 0.7f, 0.6f, 1}, -1, -1, -1});  // the Body's material 0
  file.notifies_json = R"({"clips": {"Walk": [{"name": "FootL", "time": 0.0},
                                              {"name": "FootR", "time": 0.5}]}})";
  if (auto written = ossa::write_ossa(file, argv[1]); !written) {
    std::fprintf(stderr, "%s\n", written.error().c_str());
    return 1;
  }
  std::printf("%s: %d joints, %zu clips, %zu meshes\n", argv[1], file.skeleton->joint_count(),
              file.clips.size(), file.meshes.size());
  return 0;
}
