// ossa/serialize/ossa_file.h — the `.ossa` runtime format: what `ossa convert` writes and games load.
//
// Layout (little-endian, every section 16-byte aligned):
//   header   32 bytes: magic "OSSA\r\n\x1a\n", u32 version (3), u32 byte-order mark 0x01020304,
//            u32 section count, u32 flags (bit 0: left-handed data), u64 file size
//   table    32 bytes per section: u32 type, u32 index, u64 offset, u64 size, u64 XXH3-64 checksum of the
//   section sections SKELETON (joints: parent, rest pose, inverse bind, name), MESH (one per mesh: streams,
//            influences, palette map, inverse binds), CLIP (one per clip: keyed, fixed-rate or quantized),
//            MATERIALS (materials and textures, embedded images included), NOTIFIES (the sidecar JSON),
//            ROOT_MOTION (one per clip that has a track), MORPH_TARGETS (one per mesh with targets: names,
//            default weights, per-target offsets, sparse vertex indices, position, normal and tangent
//            deltas; a section that ends after the normal deltas has no tangent deltas),
//            MORPH_WEIGHTS (one per clip with weights: per track mesh, target and key counts, key times, then
//            the weights as floats or, compressed, per-target channels and the bit-packed keys),
//            ANIM_GRAPH (the animation graph's JSON), MOTION_DATABASE (one: the motion-matching database,
//            ossa/asset/motion_database.h; its ranges name the file's clips, its joints the skeleton's)
// Version 3 added the two morph sections; version 4 ends MATERIALS with a byte saying where images have
// v = 0 (1: at the bottom, FBX/COLLADA; 0: at the top, glTF), which earlier files do not record (read as 1,
// what every file but a converted glTF holds). Versions 2-4 are read; older readers refuse newer versions
// rather than skip what they do not know.
// Any subset is valid: an animation-only file holds a skeleton (for joint names) and clips, which
// retarget_clip() maps onto another skeleton by joint names.
// Reading checks the magic, version, byte order, the table against the file size, each section's checksum,
// and every count and offset before use; a damaged or hostile file gives an error naming the file and the
// problem. Loading is a bounds-checked copy of arrays into the runtime objects: no parsing beyond the section
// headers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/motion_database.h"
#include "ossa/asset/notifies.h"
#include "ossa/asset/raw.h"
#include "ossa/asset/root_motion.h"

namespace ossa {

// 2: segmented, bit-packed quantized clips; 3: morph targets and weights; 4: texture orientation (versions
// 2-4 are read).
constexpr uint32_t kOssaFormatVersion = 4;

struct OssaFile {
  uint32_t version = kOssaFormatVersion;  // as read (encode_ossa always writes kOssaFormatVersion)
  bool left_handed = false;               // the space the data was converted to (+Y up, metres either way)
  std::optional<Skeleton> skeleton;
  std::vector<SkinnedMesh> meshes;
  std::vector<Clip> clips;
  std::vector<Material> materials;
  std::vector<Texture> textures;
  bool flip_textures = true;    // images have v = 0 at the bottom (FBX, COLLADA), as LoadedCharacter's
  std::string notifies_json;    // empty when none
  std::string anim_graph_json;  // the animation graph (ossa/runtime/anim_graph.h), empty when none
  std::vector<std::optional<RootMotionTrack>> root_motion;  // parallel to clips
  std::optional<MotionDatabase> motion_database;            // for ossa/runtime/motion_matcher.h

  // Skeleton, clips and meshes as one CharacterAsset (fails without a skeleton): `file->character()` copies
  // them, `std::move(*file).character()` moves them out. ossa/serialize/load.h does it all in one call.
  Result<CharacterAsset> character() const&;
  Result<CharacterAsset> character() &&;
};

Result<bool> write_ossa(const OssaFile& file, const std::string& path);
std::vector<uint8_t> encode_ossa(const OssaFile& file);
Result<OssaFile> read_ossa(const std::string& path);
Result<OssaFile> decode_ossa(std::span<const uint8_t> bytes, const std::string& name);

}  // namespace ossa
