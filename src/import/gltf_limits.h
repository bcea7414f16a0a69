// Internal: the work a glTF's JSON asks of assimp 5.2.5, counted before assimp reads the file, so that any
// glTF is imported or refused in time linear in its size.
//
// assimp's glTF reader and its ValidateDataStructure step compare names pairwise in three places: a node's
// children with each other, each animation channel's node against the whole tree (aiNode::FindNode), and a
// skinned mesh's bones with each other; and they recurse once per level of the node tree. A 10 MB file with
// 70,000 joints in one skin, or one animation with 40,000 channels, takes tens of seconds before any limit of
// Ossa's is reached. check_gltf_work() refuses, from counts alone (one pass over the JSON, no name compared):
//   * a node tree that is not a tree (a node with two parents, a cycle, a child index out of range) or deeper
//     than kMaxGltfNodeDepth;
//   * pairwise work in any of the three places over gltf_pairwise_budget(): kGltfPairwiseWorkPerByte
//     comparisons per byte of the file (time linear in its size: about 0.6 s for 10 MB here), and never less
//     than kGltfPairwiseWorkFloor (half a second), which every ordinary character is far inside;
//   * more than kMaxGltfBones bones made for skinned mesh instances (an aiBone is over 1 KB), or more than
//     kMaxGltfCopiedVertices vertices copied for meshes and their morph targets (a target may reuse a large
//     accessor).
// A real file pays for its channels and joints in bytes (a channel's keys, a joint's inverse bind matrix), so
// its budget grows with it: a 1,000-joint rig with 100 clips of 3,000 channels is a few percent of its own.
// What one skin may hold without that: 11,000 joints on one primitive, or 5,000 on each of five.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ossa::detail {

constexpr uint64_t kMaxGltfNodeDepth = 512;
constexpr uint64_t kGltfPairwiseWorkFloor = uint64_t{1}
                                            << 26;  // name comparisons, in each of the three places
constexpr uint64_t kGltfPairwiseWorkPerByte = 8;
constexpr uint64_t kMaxGltfBones = uint64_t{1} << 18;
constexpr uint64_t kMaxGltfCopiedVertices = uint64_t{1} << 25;

inline uint64_t gltf_pairwise_budget(uint64_t file_bytes) {
  return std::max(kGltfPairwiseWorkFloor, kGltfPairwiseWorkPerByte * file_bytes);
}

// "" or why the file (`doc`, from `file_bytes` bytes) asks for too much work (without the file's name).
std::string check_gltf_work(const nlohmann::json& doc, uint64_t file_bytes);

}  // namespace ossa::detail
