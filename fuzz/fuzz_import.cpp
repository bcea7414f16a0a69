// libFuzzer target: the import front-end (assimp + Ossa's conversion and validation) on arbitrary bytes, read
// as glTF, FBX or COLLADA depending on the first byte. An accepted scene must build runtime assets.
#include <cstdint>
#include <span>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const char* names[] = {"fuzz.glb", "fuzz.gltf", "fuzz.fbx", "fuzz.dae"};
  // As a user reading untrusted files gets it: assimp reads first in a child under a budget (its crashes,
  // hangs and huge allocations become errors there), then Ossa's conversion runs here, where ASan sees it.
  ossa::ImportOptions options;
  options.isolate = true;
  options.memory_limit_mb = 1024;
  options.time_limit_seconds = 20;
  auto scene = ossa::import_memory(std::span<const uint8_t>(data + 1, size - 1), names[data[0] % 4], options);
  if (!scene) return 0;
  auto asset = ossa::CharacterAsset::build(*scene);
  (void)asset;
  return 0;
}
