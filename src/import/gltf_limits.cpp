// The work a glTF asks of assimp, counted from its JSON (see gltf_limits.h).
#include "gltf_limits.h"

#include <string>
#include <vector>

#include "gltf_file.h"

namespace ossa::detail {
namespace {
using gltf::json;

const json& array_member(const json& object, const char* key) {
  static const json kEmpty = json::array();
  const json* v = gltf::member(object, key);
  return v && v->is_array() ? *v : kEmpty;
}

uint64_t pairs(uint64_t n) {
  return n > 0 ? n * (n - 1) / 2 : 0;
}

std::string over(const std::string& what, uint64_t count, const std::string& limit, const char* why) {
  return what + " (" + std::to_string(count) + ") is over Ossa's limit of " + limit + ": " + why;
}

constexpr const char* kPairwise = "assimp's glTF reader compares these names pairwise";

// Every node has at most one parent, no cycle, at most kMaxGltfNodeDepth levels; `sibling_pairs` gets the
// largest count of name pairs among one node's children.
std::string check_tree(const json& nodes, uint64_t& sibling_pairs) {
  constexpr uint32_t kNone = UINT32_MAX;
  const size_t count = nodes.size();
  std::vector<uint32_t> parent(count, kNone);
  for (size_t i = 0; i < count; ++i) {
    const json& children = array_member(nodes[i], "children");
    sibling_pairs = std::max(sibling_pairs, pairs(children.size()));
    for (const json& child : children) {
      if (!child.is_number_unsigned() || child.get<uint64_t>() >= count)
        return "node " + std::to_string(i) + " has a child that is not a node";
      const uint64_t c = child.get<uint64_t>();
      if (parent[c] != kNone || c == i)
        return "node " + std::to_string(c) +
               " has two parents (or is its own child): the nodes are not a tree";
      parent[c] = static_cast<uint32_t>(i);
    }
  }
  // Depths, each node's once: walk up to a node whose depth is known, then back down the path.
  std::vector<uint32_t> depth(count, 0);  // 0: not yet known
  std::vector<uint32_t> path;
  for (size_t i = 0; i < count; ++i) {
    path.clear();
    uint32_t at = static_cast<uint32_t>(i);
    while (at != kNone && depth[at] == 0) {
      if (path.size() > count) return "the nodes' parents form a cycle (node " + std::to_string(i) + ")";
      path.push_back(at);
      at = parent[at];
    }
    uint32_t d = at == kNone ? 0 : depth[at];
    for (size_t k = path.size(); k-- > 0;) {
      depth[path[k]] = ++d;
      if (d > kMaxGltfNodeDepth)
        return over("the node tree's depth", d, std::to_string(kMaxGltfNodeDepth),
                    "assimp reads it recursively");
    }
  }
  return {};
}

}  // namespace

std::string check_gltf_work(const json& doc, uint64_t file_bytes) {
  const uint64_t budget = gltf_pairwise_budget(file_bytes);
  const std::string budget_text =
      std::to_string(budget) + " for a file of " + std::to_string(file_bytes) + " bytes";
  const json& nodes = array_member(doc, "nodes");
  uint64_t sibling_pairs = 0;
  if (std::string why = check_tree(nodes, sibling_pairs); !why.empty()) return why;
  for (const json& scene : array_member(doc, "scenes"))  // a scene's nodes are the children of assimp's root
    sibling_pairs = std::max(sibling_pairs, pairs(array_member(scene, "nodes").size()));
  if (sibling_pairs > budget)
    return over("the name pairs among one node's children", sibling_pairs, budget_text, kPairwise);

  // Meshes: the vertices assimp copies (each primitive's, once more per morph target) and, per instance with
  // a skin, a bone per joint, whose names it compares pairwise.
  const json& meshes = array_member(doc, "meshes");
  const json& skins = array_member(doc, "skins");
  auto vertices = [&](const json& primitive) -> uint64_t {
    const json* attributes = gltf::member(primitive, "attributes");
    auto position = attributes ? gltf::uint_member(*attributes, "POSITION") : std::nullopt;
    const json* accessor = position ? gltf::element(doc, "accessors", *position) : nullptr;
    auto count = accessor ? gltf::uint_member(*accessor, "count") : std::nullopt;
    return count ? std::min<uint64_t>(*count, kMaxGltfCopiedVertices + 1) : 0;
  };
  uint64_t copied = 0;
  for (const json& mesh : meshes)
    for (const json& primitive : array_member(mesh, "primitives")) {
      copied += vertices(primitive) *
                (1 + std::min<uint64_t>(array_member(primitive, "targets").size(), kMaxGltfCopiedVertices));
      if (copied > kMaxGltfCopiedVertices)
        return over("the vertices of the meshes and their morph targets", copied,
                    std::to_string(kMaxGltfCopiedVertices), "assimp copies each target's vertices");
    }
  uint64_t bones = 0, bone_pairs = 0;
  for (const json& node : nodes) {
    auto mesh = gltf::uint_member(node, "mesh"), skin = gltf::uint_member(node, "skin");
    if (!mesh || !skin || *mesh >= meshes.size() || *skin >= skins.size()) continue;
    const uint64_t primitives = array_member(meshes[*mesh], "primitives").size();
    const uint64_t joints = array_member(skins[*skin], "joints").size();
    bones += primitives * joints;
    if (bones > kMaxGltfBones)
      return over("the bones of the skinned mesh instances (primitives x skin joints)", bones,
                  std::to_string(kMaxGltfBones), "assimp makes each over 1 KB");
    bone_pairs += primitives * pairs(joints);  // at most 2^18 x 2^18 here
    if (bone_pairs > budget)
      return over("the bone name pairs of the skinned meshes", bone_pairs, budget_text, kPairwise);
  }

  // Animations: each channel's node is looked for in the whole tree.
  uint64_t channels = 0;
  for (const json& animation : array_member(doc, "animations"))
    channels += array_member(animation, "channels").size();
  if (channels * nodes.size() > budget)
    return over("the animation channels times the nodes (" + std::to_string(channels) + " x " +
                    std::to_string(nodes.size()) + ")",
                channels * nodes.size(), budget_text, "assimp looks for each channel's node by name");
  return {};
}

}  // namespace ossa::detail
