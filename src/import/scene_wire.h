// A compact private byte form of ImportedScene, for the import guard (ImportOptions::isolate): the child
// process that parsed the file sends its finished scene back to the parent in this form, so the file is
// parsed once. Internal to the import stage; never written to disk, and not stable across builds (both ends
// are the same binary: native byte order, no version).
//
// The reader treats the bytes as hostile (the child parsed a hostile file and may be compromised): every
// count is checked against the bytes left before anything is allocated, every float must be finite, every
// flag 0 or 1, every index in range (decode_scene ends with validate_scene), and the bytes must end exactly
// where the scene does. Anything inconsistent is an error, never a crash or a large allocation: decoding
// allocates at most a small multiple of the input's size.
//
// Layout: "OSSAWIRE" magic, then each field in declaration order. A string or an array is a uint64 count
// followed by its elements; plain-float structs (Vec3, Quat, Mat4, ...) and integers are their bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "ossa/core/result.h"
#include "ossa/import/imported_scene.h"

namespace ossa::detail {

// The scene's bytes, allocated once at their exact size.
std::string encode_scene(const ImportedScene& scene);

// The scene back, or what is wrong with the bytes and at which offset.
Result<ImportedScene> decode_scene(std::span<const uint8_t> bytes);

// "" when the two scenes are equal field by field (floats bit for bit), else the first field that differs,
// e.g. "meshes[1].positions[17]". Written independently of the byte form, so it can judge a round trip.
std::string scene_difference(const ImportedScene& a, const ImportedScene& b);

}  // namespace ossa::detail
