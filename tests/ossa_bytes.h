// Test helper: edits the bytes of an encoded .ossa file (layout in ossa/serialize/ossa_file.h) and fixes the
// edited section's checksum, so that only the loader's own validation stands between an edit and the runtime.
#pragma once

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace ossa::test {

// Writes `value` at `at` within the first section of `type` (1 skeleton, 2 mesh, 3 clip, ... 6 root motion).
template <class T>
void patch_ossa_section(std::vector<uint8_t>& bytes, uint32_t type, size_t at, T value) {
  uint32_t count;
  std::memcpy(&count, bytes.data() + 16, 4);
  for (uint32_t i = 0; i < count; ++i) {
    uint8_t* entry = bytes.data() + 32 + 32 * i;
    uint32_t t;
    uint64_t offset, size;
    std::memcpy(&t, entry, 4);
    std::memcpy(&offset, entry + 8, 8);
    std::memcpy(&size, entry + 16, 8);
    if (t != type) continue;
    ASSERT_LE(at + sizeof value, size);
    std::memcpy(bytes.data() + offset + at, &value, sizeof value);
    const uint64_t checksum = XXH3_64bits(bytes.data() + offset, size);
    std::memcpy(entry + 24, &checksum, 8);
    return;
  }
  FAIL() << "no section of type " << type;
}

}  // namespace ossa::test
