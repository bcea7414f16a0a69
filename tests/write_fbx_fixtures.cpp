// Writes the ASCII FBX files of tests/fbx_ascii_writer.h, for the glTF export's checks (tests/gltf/): the
// shapes of real files that once gave invalid glTF (keys before each take's start; a curve object beside the
// mesh).
//   ossa_write_fbx_fixtures DIR     writes DIR/fbx_take_offsets.fbx and DIR/fbx_curve_object.fbx
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "fbx_ascii_writer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: ossa_write_fbx_fixtures DIR\n");
    return 2;
  }
  std::filesystem::create_directories(argv[1]);
  for (const auto& [name, text] : {std::pair{"fbx_take_offsets.fbx", ossa::test::fbx_with_take_offsets()},
                                   std::pair{"fbx_curve_object.fbx", ossa::test::fbx_with_curve_object()}}) {
    const std::string path = std::string(argv[1]) + "/" + name;
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) {
      std::fprintf(stderr, "%s: cannot write\n", path.c_str());
      return 1;
    }
    std::printf("%s: %zu bytes\n", path.c_str(), text.size());
  }
  return 0;
}
