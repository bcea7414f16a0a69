// Fixture of the CLI tests where ossa::import is not built (tests/CMakeLists.txt): there no model file can be
// converted, so the .ossa the commands read is the synthetic character (synthetic_character.h) written by the
// library's own writer, with notifies on its walk (the sample's "FootL"/"FootR").
//   ossa_write_synthetic_ossa OUT.ossa
#include <cstdio>
#include <utility>

#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ossa_write_synthetic_ossa OUT.ossa\n");
    return 2;
  }
  ossa::CharacterAsset asset = ossa::test::synthetic_character();
  ossa::OssaFile file;
  file.skeleton = std::move(asset.skeleton);
  file.clips = std::move(asset.clips);
  file.meshes = std::move(asset.meshes);
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
