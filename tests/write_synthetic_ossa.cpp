// Fixture of the CLI tests where ossa::import is not built (tests/CMakeLists.txt): there no model file can be
// converted, so the .ossa the commands read is the synthetic character (synthetic_character.h) written by the
// library's own writer, with notifies on its walk (the sample's "FootL"/"FootR"). With `morph`, the synthetic
// character with morph targets and a weight track (the glTF export's checks use both).
//   ossa_write_synthetic_ossa OUT.ossa [plain|morph]
#include <cstdio>
#include <string>
#include <utility>

#include "ossa/serialize/ossa_file.h"
#include "synthetic_character.h"

int main(int argc, char** argv) {
  const std::string kind = argc == 3 ? argv[2] : "plain";
  const bool morph = kind == "morph";
  if (argc < 2 || argc > 3 || (kind != "plain" && !morph)) {
    std::fprintf(stderr, "usage: ossa_write_synthetic_ossa OUT.ossa [plain|morph]\n");
    return 2;
  }
  ossa::CharacterAsset asset =
      morph ? ossa::test::synthetic_morph_character(12, 5, 4) : ossa::test::synthetic_character();
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
