// Test helper without GoogleTest (ossa_bytes.h wraps it for tests; write_amplifying_ossa.cpp uses it
// directly): writes `value` at `at` within the first section of `type` of an encoded .ossa file (1 skeleton,
// 2 mesh, 3 clip, ... 6 root motion; layout in ossa/serialize/ossa_file.h) and fixes that section's checksum,
// so that only the loader's own validation stands between an edit and the runtime.
#pragma once

#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace ossa::test {

// `index` >= 0: the section of that type and index (the clip's, the mesh's) instead of the first. False when
// the file has no such section or the value would not fit inside it.
template <class T>
bool patch_section(std::vector<uint8_t>& bytes, uint32_t type, size_t at, T value, int64_t index = -1) {
  uint32_t count;
  std::memcpy(&count, bytes.data() + 16, 4);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* entry = bytes.data() + 32 + 32 * i;
    uint32_t t, entry_index;
    uint64_t offset, size;
    std::memcpy(&t, entry, 4);
    std::memcpy(&entry_index, entry + 4, 4);
    std::memcpy(&offset, entry + 8, 8);
    std::memcpy(&size, entry + 16, 8);
    if (t != type || (index >= 0 && entry_index != index)) continue;
    if (at + sizeof value > size) return false;
    std::memcpy(bytes.data() + offset + at, &value, sizeof value);
    const uint64_t checksum = XXH3_64bits(bytes.data() + offset, size);
    std::memcpy(entry + 24, &checksum, 8);
    return true;
  }
  return false;
}

}  // namespace ossa::test
