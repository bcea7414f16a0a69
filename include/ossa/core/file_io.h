// ossa/core/file_io.h — how Ossa writes files: whole, or not at all.
//
// write_file_atomically() writes the bytes to a new temporary file beside `path` (same folder, so the final
// rename cannot cross file systems), flushes it to disk, then renames it over `path`. Readers of `path` see
// the old file or the new one, never a mix; a failure (full disk, no permission, missing folder) leaves
// `path` as it was and removes the temporary. Every file Ossa writes (`.ossa`, PNG, GIF, baked textures)
// goes through it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ossa/core/result.h"

namespace ossa {

Result<bool> write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

}  // namespace ossa
