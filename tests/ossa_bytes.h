// Test helper: edits the bytes of an encoded .ossa file (layout in ossa/serialize/ossa_file.h) and fixes the
// edited section's checksum, so that only the loader's own validation stands between an edit and the runtime.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ossa_sections.h"

namespace ossa::test {

// Writes `value` at `at` within the first section of `type` (1 skeleton, 2 mesh, 3 clip, ... 6 root motion).
template <class T>
void patch_ossa_section(std::vector<uint8_t>& bytes, uint32_t type, size_t at, T value) {
  ASSERT_TRUE(patch_section(bytes, type, at, value))
      << "no section of type " << type << " holding byte " << at;
}

}  // namespace ossa::test
