// ossa/core/file_io.h — how Ossa writes files: whole, or not at all.
//
// write_file_atomically() writes the bytes to a new temporary file beside `path` (same folder, so the final
// rename cannot cross file systems), flushes it to disk, then renames it over `path`. Readers of `path` see
// the old file or the new one, never a mix; a failure (full disk, no permission, missing folder) leaves
// `path` as it was and removes the temporary. Every file Ossa writes (`.ossa`, PNG, GIF, baked textures)
// goes through it.
//
// Paths in Ossa's API are UTF-8 strings. path_from_utf8() is how Ossa opens them: on Windows the UTF-16 path,
// so that names outside the ANSI code page work (fopen and std::ifstream of a narrow string would read them
// as ANSI); elsewhere the same bytes. utf8_from_path() is the way back.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "ossa/core/result.h"

namespace ossa {

Result<bool> write_file_atomically(const std::string& path, std::span<const uint8_t> bytes);

// The filesystem path named by a UTF-8 string. On Windows a string that is not valid UTF-8 gives an empty
// path (opening it fails); never throws.
std::filesystem::path path_from_utf8(const std::string& utf8);
// A path as a UTF-8 string (on Windows converted from UTF-16; elsewhere its bytes).
std::string utf8_from_path(const std::filesystem::path& path);
// True when the two UTF-8 paths name the same file: the same absolute path, or (for existing files) the same
// file through links. What tools check before writing, so that an output never replaces one of their inputs.
bool same_file(const std::string& a, const std::string& b);
// True when `path` lies in `folder` or below it, comparing element by element (give both absolute and
// lexically normal, symlinks resolved where that matters: the import's folder policy for textures and
// buffers).
bool path_is_inside(const std::filesystem::path& path, const std::filesystem::path& folder);
// The folder of the running program ("" when the system does not tell): where an installed tool finds what it
// ships beside it (../share/ossa, ossa_hlslc.exe).
std::filesystem::path running_program_folder();

}  // namespace ossa
