// libFuzzer target: the import front-end (assimp + Ossa's conversion and validation) on arbitrary bytes, read
// as glTF, FBX, COLLADA or BVH (Ossa's own reader) depending on the first byte. An accepted scene must build
// runtime assets; its first clip (when small enough to stay fast) is compressed and the result written and
// read back as .ossa.
#include <cstdint>
#include <span>

#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/offline/compression.h"
#include "ossa/serialize/ossa_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static const char* names[] = {"fuzz.glb", "fuzz.gltf", "fuzz.fbx", "fuzz.dae", "fuzz.bvh"};
  // As a user reading untrusted files gets it: the import runs in a child under a budget (assimp's crashes,
  // hangs and huge allocations become errors there) and sends the scene back through the guard's reader. In
  // this fuzzing build the conversion also runs here, where ASan and the coverage see it, and the two scenes
  // must agree (Importer::import_in_child aborts if not).
  ossa::ImportOptions options;
  options.isolate = true;
  options.memory_limit_mb = 1024;
  options.time_limit_seconds = 20;
  auto scene = ossa::import_memory(std::span<const uint8_t>(data + 1, size - 1), names[data[0] % 5], options);
  if (!scene) return 0;
  auto asset = ossa::CharacterAsset::build(*scene);
  if (!asset || asset->clips.empty()) return 0;
  const ossa::Clip& clip = asset->clips[0];
  if (static_cast<long>(clip.frame_count()) * clip.joint_count() > 20000) return 0;
  auto compressed = ossa::compress_clip(clip, asset->skeleton);
  if (!compressed) return 0;
  ossa::OssaFile file;
  file.skeleton = asset->skeleton;
  file.clips.push_back(std::move(compressed).value());
  file.root_motion.resize(1);
  auto decoded = ossa::decode_ossa(ossa::encode_ossa(file), "fuzz.ossa");
  if (!decoded) __builtin_trap();  // what we write, we must read
  return 0;
}
