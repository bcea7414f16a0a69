// Outputs never replace inputs: `render victim.gltf -o victim.gltf` or `bake model.gltf -o model` (whose
// model.bin is the glTF's buffer) are refused before anything is written.
#include <filesystem>

#include "commands.h"
#include "ossa/core/file_io.h"
#include "text_output.h"

namespace ossa::cli {

bool output_is_not_an_input(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (same_file(output, input)) {
      print_error("ossa: %s: refusing to write over an input of this command (%s)\n", output.c_str(),
                  input.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace ossa::cli
