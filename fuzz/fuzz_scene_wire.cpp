// libFuzzer target: the reader of the import guard's reply (src/import/scene_wire.h) on arbitrary bytes, as
// a compromised child could send them. A reply is an error or a valid scene, and a scene it accepts writes
// back to the same bytes (the form is canonical). scripts/fuzz.sh makes its seeds from the bundled models
// with OSSA_WRITE_WIRE_SEED (below).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "../src/import/scene_wire.h"
#include "ossa/import/import.h"

// OSSA_WRITE_WIRE_SEED=out.seed OSSA_WIRE_SEED_MODEL=model.glb: write the model's scene as a seed and exit.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* out = std::getenv("OSSA_WRITE_WIRE_SEED");
  const char* model = std::getenv("OSSA_WIRE_SEED_MODEL");
  if (!out || !model) return 0;
  ossa::ImportOptions options;
  options.isolate = false;  // our own bundled models
  auto scene = ossa::import_file(model, options);
  if (!scene) {
    std::fprintf(stderr, "%s\n", scene.error().c_str());
    std::exit(1);
  }
  const std::string bytes = ossa::detail::encode_scene(*scene);
  FILE* f = std::fopen(out, "wb");
  const bool written = f && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (f) std::fclose(f);
  std::exit(written ? 0 : 1);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto scene = ossa::detail::decode_scene(std::span<const uint8_t>(data, size));
  if (!scene) return 0;
  if (!ossa::validate_scene(*scene).empty()) __builtin_trap();  // decode_scene promises a valid scene
  const std::string again = ossa::detail::encode_scene(*scene);
  if (again.size() != size || std::memcmp(again.data(), data, size) != 0) __builtin_trap();
  return 0;
}
