// Import through assimp 5.2.5 into ImportedScene. The only file that sees assimp types.
//
// Traps handled here (found by comparing assimp with Blender's own importers, ../shared/oracle/README.md):
//  * FBX pivots / PreRotation: AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS = false folds them into each node and
//    its keys; with the default (true) assimp adds "$AssimpFbx$" helper nodes *and* bakes the rotation into
//    the keys, which poses Mixamo/Maya rigs wrongly by metres.
//  * aiMatrix4x4(scaling, rotation, position) composes T*S*R; we never use it, Transform composes T*R*S.
//  * aiBone / aiNodeAnim bind to nodes by name; mesh nodes and bones may share a name, so name lookup prefers
//    nodes that hold no meshes.
//  * The skeleton comes from the node tree, not from bone lists: unweighted sockets, helper and "_end" nodes
//    below bones are kept, and so are ancestors and animated nodes.
//  * FBX UnitScaleFactor and axes are not applied by assimp; we apply them (space.cpp). COLLADA's up axis and
//    unit are applied by assimp to the root node, which we keep as a joint. glTF is already +Y up, metres.
//  * FBX AnimationStack LocalStart is already subtracted by assimp; ticks/s of 0 falls back to the file's
//    frame rate, else 25.
//  * Never OptimizeGraph, Debone or PreTransformVertices: they destroy or bake skinned hierarchies.
//  * glTF sampler interpolation is dropped (STEP and CUBICSPLINE come out as linear keys, CUBICSPLINE weights
//    of several targets misread): gltf_interpolation.h reads the file's own samplers and rewrites those.
//  * glTF morph targets' TANGENT deltas are dropped from targets without NORMAL: gltf_morph_tangents.h reads
//    them from the file.
//  * BVH is not read through assimp at all (position-only joints not animated, a skeleton mesh invented under
//    the root, names with spaces refused): bvh_file.h reads it as Blender does.
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/DefaultIOSystem.h>
#include <algorithm>
#include <assimp/Importer.hpp>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include "bvh_file.h"
#include "child_process.h"
#include "collada_limits.h"
#include "gltf_file.h"
#include "gltf_interpolation.h"
#include "gltf_limits.h"
#include "gltf_morph_tangents.h"
#include "import_worker.h"
#include "ossa/asset/morph.h"
#include "ossa/core/file_io.h"
#include "ossa/core/printable.h"
#include "ossa/import/import.h"
#include "root_scale.h"
#include "scene_wire.h"
#include "space.h"

// Debian's assimp 5.2.5 is built with ASSIMP_BUILD_DEBUG, so its internal ai_assert() checks stay on, and a
// failed one calls Assimp::aiAssertViolation(), whose default handler aborts the process: one wrong index in
// a damaged COLLADA file killed `ossa info` (found by fuzz/fuzz_import). The setter for that handler is not
// exported, but assimp calls the function through its PLT, so this definition replaces it in any program that
// links Ossa. Returning is not an option (the code after a failed check reads out of bounds); throwing
// unwinds to assimp's ReadFile or to guarded() below, and the caller gets an error naming the file.
namespace Assimp {
void aiAssertViolation(const char* expression, const char* file, int line);
void aiAssertViolation(const char* expression, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  throw std::runtime_error("assimp's internal check '" + std::string(expression) + "' failed (" +
                           (base ? base + 1 : file) + ":" + std::to_string(line) + "): the file is damaged");
}
}  // namespace Assimp

namespace ossa {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxJoints = 65535;  // influence joint indices are 16-bit
constexpr double kAbsurdDurationSeconds = 3600.0;
// Morph targets: face rigs have ~50-300; more, or more moved vertices than this in one mesh, is a damaged or
// hostile file (each entry costs 28 bytes at run time).
constexpr unsigned kMaxMorphTargets = MorphTargets::kMaxTargets;
constexpr size_t kMaxMorphEntriesPerMesh = size_t{1} << 24;

// Negligible magnitudes (exporters write values like 3e-35 for zero) are flushed to 0 on the way in; see
// flush_denormal() in ossa/runtime/pose.h for why.
float flush(float v) {
  return std::fabs(v) < 1e-20f ? 0.f : v;
}

// assimp stores quaternions (w, x, y, z); Ossa stores (x, y, z, w). The one place this is converted.
Quat to_quat(const aiQuaternion& q) {
  return {flush(q.x), flush(q.y), flush(q.z), flush(q.w)};
}
Vec3 to_vec3(const aiVector3D& v) {
  return {flush(v.x), flush(v.y), flush(v.z)};
}
Mat4 to_mat4(const aiMatrix4x4& a) {  // assimp is row-major (a1..a4 = first row)
  Mat4 m;
  const float rows[4][4] = {
      {a.a1, a.a2, a.a3, a.a4}, {a.b1, a.b2, a.b3, a.b4}, {a.c1, a.c2, a.c3, a.c4}, {a.d1, a.d2, a.d3, a.d4}};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m.at(r, c) = flush(rows[r][c]);
  return m;
}

bool finite3(const aiVector3D& v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}
bool finite4(const aiQuaternion& q) {
  return std::isfinite(q.w) && std::isfinite(q.x) && std::isfinite(q.y) && std::isfinite(q.z);
}

std::string strip_fbx_prefix(std::string name) {
  if (name.rfind("Model::", 0) == 0) name.erase(0, 7);
  return name;
}

// assimp names unnamed glTF nodes "nodes[N]"; Blender and most tools call them "Node_N". We follow Blender
// so names agree across tools and stay usable as plain identifiers.
std::string gltf_default_name(const std::string& name) {
  if (name.size() < 8 || name.rfind("nodes[", 0) != 0 || name.back() != ']') return name;
  std::string digits = name.substr(6, name.size() - 7);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return name;
  return "Node_" + digits;
}

std::string lower_extension(const std::string& path) {
  std::string ext = utf8_from_path(path_from_utf8(path).extension());
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

template <class T>
bool read_meta(const aiScene* scene, const char* key, T& out) {
  return scene->mMetaData && scene->mMetaData->Get(key, out);
}

// Reads a numeric metadata entry whatever its stored type (assimp uses int32, float and double).
bool read_meta_number(const aiScene* scene, const char* key, double& out) {
  const aiMetadata* md = scene->mMetaData;
  if (!md) return false;
  for (unsigned i = 0; i < md->mNumProperties; ++i) {
    if (std::strcmp(md->mKeys[i].C_Str(), key) != 0) continue;
    const aiMetadataEntry& e = md->mValues[i];
    switch (e.mType) {
      case AI_INT32:
        out = *static_cast<int32_t*>(e.mData);
        return true;
      case AI_UINT64:
        out = static_cast<double>(*static_cast<uint64_t*>(e.mData));
        return true;
      case AI_FLOAT:
        out = *static_cast<float*>(e.mData);
        return true;
      case AI_DOUBLE:
        out = *static_cast<double*>(e.mData);
        return true;
      default:
        return false;
    }
  }
  return false;
}

// Checks the FBX header ourselves so that old versions get a precise message (assimp says "FBX-DOM
// unsupported, old format version" without the number).
// A glTF that requires an extension assimp 5.2.5 reads wrongly or not at all: "" when none, else which and
// what to do. (KHR_mesh_quantization's integer positions came out as non-finite numbers; meshopt and Draco
// buffers are compressed bytes.)
std::string check_gltf_required_extensions(const std::string& path, std::span<const uint8_t> memory) {
  static const char* const kUnreadable[] = {"KHR_mesh_quantization", "EXT_meshopt_compression",
                                            "KHR_draco_mesh_compression"};
  detail::GltfFile file;
  if (!file.open(path, memory).empty()) return "";  // the import reports what is wrong with the file itself
  bool mentioned = false;
  for (const char* name : kUnreadable) mentioned = mentioned || file.mentions(name);
  if (!mentioned || !file.parse().empty()) return "";
  const auto* required = detail::gltf::member(file.doc(), "extensionsRequired");
  if (!required || !required->is_array()) return "";
  for (const auto& extension : *required)
    for (const char* name : kUnreadable)
      if (extension.is_string() && extension.get<std::string>() == name)
        return std::string("it requires the glTF extension ") + name +
               ", which the importer (assimp 5.2) cannot read; export it without it (Ossa: `ossa convert` "
               "without --compress)";
  return "";
}

// What assimp would spend quadratic time on (gltf_limits.h), counted from the JSON: "" or why refused.
std::string check_gltf_work(const std::string& path, std::span<const uint8_t> memory) {
  detail::GltfFile file;
  if (std::string why = file.open(path, memory); !why.empty()) return "cannot read the glTF: " + why;
  if (std::string why = file.parse(); !why.empty())
    if (why = file.parse(/*ascii_only=*/true); !why.empty()) return "cannot read the glTF: " + why;
  std::error_code ec;
  const uint64_t bytes = memory.empty() ? fs::file_size(path_from_utf8(path), ec) : memory.size();
  return detail::check_gltf_work(file.doc(), ec ? 0 : bytes);
}

std::string check_fbx_version(std::span<const uint8_t> head) {
  if (head.size() < 27) return {};
  if (std::memcmp(head.data(), "Kaydara FBX Binary", 18) == 0) {
    uint32_t version = 0;
    std::memcpy(&version, head.data() + 23, 4);  // little-endian on every platform we build for
    if (version < 7100)
      return "FBX version " + std::to_string(version) +
             " is not supported (binary FBX 7100-7700 is; re-export as FBX 2011 or newer)";
    return {};
  }
  // ASCII FBX: "FBXVersion: 6100" near the top.
  std::string text(reinterpret_cast<const char*>(head.data()), std::min<size_t>(head.size(), 4096));
  size_t at = text.find("FBXVersion:");
  if (at != std::string::npos) {
    int version = std::atoi(text.c_str() + at + 11);
    if (version > 0 && version < 7100)
      return "FBX version " + std::to_string(version) + " is not supported (FBX 7100-7700 is)";
  }
  return {};
}

std::vector<uint8_t> read_head(const std::string& path, size_t bytes) {
  std::ifstream in(path_from_utf8(path), std::ios::binary);
  std::vector<uint8_t> head(bytes);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(bytes));
  head.resize(static_cast<size_t>(in.gcount()));
  return head;
}

struct NodeInfo {
  const aiNode* node = nullptr;
  int parent = -1;
  std::string name;
  Mat4 local, global;  // file space
  bool has_meshes = false;
};

// Notes every file assimp opens (a glTF's .bin buffers, COLLADA's references, ...):
// ImportedScene::source_files.
class RecordingIOSystem : public Assimp::DefaultIOSystem {
 public:
  explicit RecordingIOSystem(std::vector<std::string>& opened) : opened_(opened) {}
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    Assimp::IOStream* stream = DefaultIOSystem::Open(file, mode);
    std::error_code ec;
    if (stream) opened_.push_back(utf8_from_path(fs::absolute(path_from_utf8(file), ec).lexically_normal()));
    return stream;
  }

 private:
  std::vector<std::string>& opened_;
};

class Importer {
 public:
  Importer(std::string path, const ImportOptions& options) : path_(std::move(path)), options_(options) {}
  // Reads `memory` instead of the file; `path_` names it (its extension tells the format).
  Importer(std::span<const uint8_t> memory, std::string name, const ImportOptions& options)
      : path_(std::move(name)), options_(options), memory_(memory), from_memory_(true) {}

  Result<ImportedScene> run();

 private:
  friend const detail::WorkerTask& detail::import_worker_task();  // serve()
  Result<ImportedScene> fail(const std::string& what) const {
    return Result<ImportedScene>::failure(path_ + ": " + what);
  }
  void warn(std::string what) { out_.warnings.push_back(std::move(what)); }

  void collect_nodes(const aiNode* node, int parent);
  // The node an animation channel names. Joint channels prefer a node without meshes (a bone and the mesh
  // node beside it may share a name); morph weight channels (`weights`) prefer a node holding meshes with
  // morph targets, the only kind that can take them (three.js's RobotExpressive: a bone and a face mesh both
  // called "Head").
  int resolve_node(const std::string& name, bool weights = false) const;
  std::string build_skeleton();
  std::string build_meshes();
  std::string build_mesh(const aiMesh* am, int node_index, std::set<std::string>& names);
  std::string build_morph_targets(const aiMesh* am, const Mat4& node_global, const std::string& where,
                                  RawMesh& mesh);
  std::string build_morph_tracks(unsigned animation, double tps, const std::string& where, RawClip& clip,
                                 double& last_key);
  std::string morph_track_from_keys(const aiMeshMorphAnim* ch, double tps, const std::string& where,
                                    const std::vector<float>& default_weights, RawMorphTrack& track,
                                    double& last_key);
  std::string build_clips();
  void build_materials();
  int add_texture(const aiString& path, const std::string& material);
  std::string read_external_texture(const std::string& path, Texture& tex);
  void choose_space();
  double file_frame_rate() const;
  const aiScene* read_with_assimp(Assimp::Importer& importer) const;
  std::string import_here();
  std::string check_collada_before_assimp() const;
  std::string check_gltf_before_assimp() const {
    return check_gltf_work(path_, from_memory_ ? memory_ : std::span<const uint8_t>());
  }
  std::string import_bvh_here();
  Result<ImportedScene> import_in_worker();
  // import_in_worker's worker task (child_process.h): `request` says what this Importer was made with.
  std::string worker_request() const;
  static std::string serve(std::string_view request);
  std::string reply_here();

  std::string path_;
  ImportOptions options_;
  std::span<const uint8_t> memory_;
  bool from_memory_ = false;
  const aiScene* scene_ = nullptr;
  ImportedScene out_;
  std::vector<NodeInfo> nodes_;
  std::unordered_multimap<std::string, int> nodes_by_name_;
  std::vector<int> joint_of_node_;
  std::vector<std::vector<int>> meshes_of_node_;  // indices into out_.meshes, per node (morph channels)
  std::map<std::string, int> texture_by_path_;
  detail::SpaceMapper* mapper_ = nullptr;
  detail::GltfInterpolation gltf_interpolation_;   // STEP and CUBICSPLINE channels, which assimp drops
  detail::GltfMorphTangents gltf_morph_tangents_;  // TANGENT deltas of targets without NORMAL, likewise
  bool gltf_morph_tangents_loaded_ = false;
};

void Importer::collect_nodes(const aiNode* node, int parent) {
  // Iterative pre-order walk: hostile files can nest nodes deep enough to overflow a recursive one.
  std::vector<std::pair<const aiNode*, int>> stack{{node, parent}};
  while (!stack.empty()) {
    auto [n, p] = stack.back();
    stack.pop_back();
    NodeInfo info;
    info.node = n;
    info.parent = p;
    info.name = strip_fbx_prefix(n->mName.C_Str());
    if (out_.format == "gltf") info.name = gltf_default_name(info.name);
    info.local = to_mat4(n->mTransformation);
    info.global = p >= 0 ? nodes_[p].global * info.local : info.local;
    info.has_meshes = n->mNumMeshes > 0;
    int index = static_cast<int>(nodes_.size());
    nodes_.push_back(info);
    nodes_by_name_.emplace(info.name, index);
    for (unsigned i = n->mNumChildren; i-- > 0;)  // reversed so children pop in file order
      if (n->mChildren[i]) stack.emplace_back(n->mChildren[i], index);
  }
}

int Importer::resolve_node(const std::string& raw_name, bool weights) const {
  std::string name = strip_fbx_prefix(raw_name);
  if (out_.format == "gltf") name = gltf_default_name(name);
  auto [begin, end] = nodes_by_name_.equal_range(name);
  auto takes_weights = [&](int node) {
    for (int m : meshes_of_node_[node])
      if (m >= 0 && !out_.meshes[m].morph_targets.empty()) return true;
    return false;
  };
  int best = -1;
  for (auto it = begin; it != end; ++it) {
    int candidate = it->second;
    bool better;
    if (best < 0) {
      better = true;
    } else if (weights && takes_weights(best) != takes_weights(candidate)) {
      better = takes_weights(candidate);
    } else if (nodes_[best].has_meshes != nodes_[candidate].has_meshes) {
      better = weights ? nodes_[candidate].has_meshes : !nodes_[candidate].has_meshes;
    } else {
      better = candidate < best;
    }
    if (better) best = candidate;
  }
  return best;
}

std::string Importer::build_skeleton() {
  const size_t n = nodes_.size();
  std::vector<char> needed(n, 0), drives(n, 0);  // drives: a bone or an animated node

  for (unsigned m = 0; m < scene_->mNumMeshes; ++m) {
    const aiMesh* am = scene_->mMeshes[m];
    for (unsigned b = 0; b < am->mNumBones; ++b) {
      int node = resolve_node(am->mBones[b]->mName.C_Str());
      if (node >= 0) needed[node] = drives[node] = 1;
    }
  }
  for (unsigned a = 0; a < scene_->mNumAnimations; ++a) {
    const aiAnimation* anim = scene_->mAnimations[a];
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      int node = resolve_node(anim->mChannels[c]->mNodeName.C_Str());
      if (node >= 0) needed[node] = drives[node] = 1;
    }
  }
  // RawMesh nodes are joints when something follows them: rigid meshes and unweighted vertices.
  for (size_t i = 0; i < n; ++i) {
    const aiNode* node = nodes_[i].node;
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
      unsigned mi = node->mMeshes[k];
      if (mi >= scene_->mNumMeshes)
        return "node '" + nodes_[i].name + "' references missing mesh " + std::to_string(mi);
      const aiMesh* am = scene_->mMeshes[mi];
      bool all_weighted = am->mNumBones > 0;
      if (all_weighted) {
        std::vector<char> has(am->mNumVertices, 0);
        for (unsigned b = 0; b < am->mNumBones; ++b)
          for (unsigned w = 0; w < am->mBones[b]->mNumWeights; ++w) {
            const aiVertexWeight& vw = am->mBones[b]->mWeights[w];
            if (vw.mVertexId < am->mNumVertices && vw.mWeight > 0) has[vw.mVertexId] = 1;
          }
        all_weighted = std::all_of(has.begin(), has.end(), [](char c) { return c != 0; });
      }
      if (!all_weighted) needed[i] = 1;
    }
  }
  // Sockets and helpers: non-mesh descendants of bones and animated nodes (pre-order: parents seen first).
  for (size_t i = 0; i < n; ++i) {
    int p = nodes_[i].parent;
    if (p >= 0 && drives[p] && !nodes_[i].has_meshes) needed[i] = drives[i] = 1;
  }
  // Ancestors of everything needed.
  for (size_t i = n; i-- > 0;)
    if (needed[i] && nodes_[i].parent >= 0) needed[nodes_[i].parent] = 1;
  // The scene root is kept only when it carries a transform (glTF scene roots, COLLADA up axis) or a role.
  if (n > 0 && !drives[0] && !nodes_[0].has_meshes) {
    const Mat4& m = nodes_[0].local;
    bool identity = true;
    for (int k = 0; k < 16; ++k) identity = identity && std::fabs(m.m[k] - Mat4{}.m[k]) < 1e-7f;
    if (identity) needed[0] = 0;
  }

  // Names shared by several joints: the bone keeps the plain name (as Blender does, and as users see it in
  // their tools: a glTF mesh node and a bone both called "Torso"), the others get "#2", "#3", ... Preferred:
  // a bone or animated node without meshes, then any node without meshes, then the first.
  std::map<std::string, int> plain_owner;
  auto rank = [&](size_t i) {
    return (drives[i] && !nodes_[i].has_meshes) ? 0 : !nodes_[i].has_meshes ? 1 : 2;
  };
  for (size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    auto [it, added] = plain_owner.emplace(nodes_[i].name, static_cast<int>(i));
    if (!added && rank(i) < rank(static_cast<size_t>(it->second))) it->second = static_cast<int>(i);
  }
  joint_of_node_.assign(n, -1);
  std::map<std::string, int> name_uses;
  for (size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    if (out_.skeleton.joints.size() >= kMaxJoints)
      return "too many joints (more than " + std::to_string(kMaxJoints) + ")";
    RawJoint joint;
    if (plain_owner[nodes_[i].name] == static_cast<int>(i)) {
      joint.name = nodes_[i].name;
    } else {
      const int uses = ++name_uses[nodes_[i].name] + 1;  // the plain name counts as the first use
      joint.name = nodes_[i].name + "#" + std::to_string(uses);
    }
    int p = nodes_[i].parent;
    while (p >= 0 && joint_of_node_[p] < 0) p = nodes_[p].parent;  // only the dropped root is skipped
    joint.parent = p >= 0 ? joint_of_node_[p] : -1;
    Mat4 local = joint.parent < 0 ? nodes_[i].global : nodes_[i].local;
    if (!is_finite(local)) return "node '" + nodes_[i].name + "' has a non-finite transform";
    joint.rest = mapper_->local(decompose(local));
    joint.inverse_bind = mapper_->conjugate(inverse(nodes_[i].global));  // replaced by the file's, if any
    joint.is_mesh_node = nodes_[i].has_meshes;
    joint_of_node_[i] = static_cast<int>(out_.skeleton.joints.size());
    out_.skeleton.joints.push_back(std::move(joint));
  }
  // A name used twice gets suffixes; make sure no suffixed name collides with a real one.
  std::set<std::string> seen;
  for (RawJoint& j : out_.skeleton.joints) {
    while (!seen.insert(j.name).second) j.name += "_";
  }
  return {};
}

std::string Importer::build_meshes() {
  std::set<std::string> names;
  meshes_of_node_.assign(nodes_.size(), {});
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const aiNode* node = nodes_[i].node;
    for (unsigned k = 0; k < node->mNumMeshes; ++k) {
      const size_t before = out_.meshes.size();
      std::string error = build_mesh(scene_->mMeshes[node->mMeshes[k]], static_cast<int>(i), names);
      if (!error.empty()) return error;
      // -1 keeps the position of a skipped mesh, so FBX morph channels ("Model*<geometry index>") still
      // find theirs.
      meshes_of_node_[i].push_back(out_.meshes.size() > before ? static_cast<int>(before) : -1);
    }
  }
  uint32_t base = 0;
  for (RawMesh& mesh : out_.meshes) {
    mesh.base_vertex = base;
    base += static_cast<uint32_t>(mesh.positions.size());
  }
  return {};
}

std::string Importer::build_mesh(const aiMesh* am, int node_index, std::set<std::string>& names) {
  const NodeInfo& node = nodes_[node_index];
  RawMesh mesh;
  std::string base_name = node.name.empty() ? std::string(am->mName.C_Str()) : node.name;
  if (base_name.empty()) base_name = "mesh";
  mesh.name = base_name;
  for (int n = 2; !names.insert(mesh.name).second; ++n) mesh.name = base_name + "#" + std::to_string(n);
  const std::string where = "mesh '" + mesh.name + "'";

  if (am->mNumVertices == 0 || !am->mVertices) {
    warn(where + ": no vertices, skipped");
    return {};
  }
  mesh.node_joint = joint_of_node_[node_index];
  mesh.material = am->mMaterialIndex < scene_->mNumMaterials ? static_cast<int>(am->mMaterialIndex) : -1;
  mesh.skinned = am->mNumBones > 0;

  const Mat4& node_global = node.global;
  const Mat4 node_normal = normal_matrix(node_global);
  const unsigned nv = am->mNumVertices;
  mesh.positions.resize(nv);
  for (unsigned v = 0; v < nv; ++v) {
    if (!finite3(am->mVertices[v]))
      return where + ": vertex " + std::to_string(v) + " position is not finite";
    mesh.positions[v] = mapper_->point(transform_point(node_global, to_vec3(am->mVertices[v])));
  }
  if (am->mNormals) {
    mesh.normals.resize(nv);
    for (unsigned v = 0; v < nv; ++v)
      mesh.normals[v] =
          normalize(mapper_->direction(transform_vector(node_normal, to_vec3(am->mNormals[v]))));
  }
  if (am->mNormals && am->mTangents && am->mBitangents) {
    mesh.tangents.resize(nv);
    for (unsigned v = 0; v < nv; ++v) {
      Vec3 t = normalize(mapper_->direction(transform_vector(node_global, to_vec3(am->mTangents[v]))));
      Vec3 b = mapper_->direction(transform_vector(node_global, to_vec3(am->mBitangents[v])));
      float sign = dot(cross(mesh.normals[v], t), b) < 0 ? -1.f : 1.f;
      mesh.tangents[v] = {t.x, t.y, t.z, sign};
    }
  }
  if (am->mTextureCoords[0]) {
    mesh.uvs.resize(nv);
    for (unsigned v = 0; v < nv; ++v)
      mesh.uvs[v] = {flush(am->mTextureCoords[0][v].x), flush(am->mTextureCoords[0][v].y)};
  }
  // Baking a reflecting node transform or a mirrored space into positions flips the winding: flip it back.
  Vec3 c0{node_global.m[0], node_global.m[1], node_global.m[2]};
  Vec3 c1{node_global.m[4], node_global.m[5], node_global.m[6]};
  Vec3 c2{node_global.m[8], node_global.m[9], node_global.m[10]};
  bool flip = (dot(cross(c0, c1), c2) < 0) != mapper_->mirrored();
  mesh.indices.reserve(am->mNumFaces * 3);
  unsigned skipped_faces = 0;
  for (unsigned f = 0; f < am->mNumFaces; ++f) {
    const aiFace& face = am->mFaces[f];
    if (face.mNumIndices != 3) {
      ++skipped_faces;  // points and lines: not drawn by a skinned-mesh pipeline
      continue;
    }
    for (int c = 0; c < 3; ++c)
      if (face.mIndices[c] >= nv) return where + ": face " + std::to_string(f) + " indexes past the vertices";
    mesh.indices.push_back(face.mIndices[0]);
    mesh.indices.push_back(face.mIndices[flip ? 2 : 1]);
    mesh.indices.push_back(face.mIndices[flip ? 1 : 2]);
  }
  if (skipped_faces) warn(where + ": " + std::to_string(skipped_faces) + " point/line primitives ignored");

  // Influences. Palette slots are per mesh (joint_remap); the mesh node gets a slot when something follows
  // it.
  std::unordered_map<int, int> slot_of_joint;  // a map, not a search: meshes with 40k bones stay linear
  auto slot_for = [&](int joint, const Mat4& inverse_bind) {
    auto [it, added] = slot_of_joint.emplace(joint, static_cast<int>(mesh.joint_remap.size()));
    if (added) {
      mesh.joint_remap.push_back(joint);
      mesh.inverse_binds.push_back(inverse_bind);
    }
    return it->second;
  };
  int weights_ignored = 0;  // negative: no exporter means them
  int unnormalised = 0;     // vertices whose weights do not sum to 1
  float lowest_total = 1e30f, highest_total = -1e30f;
  const Mat4 node_inverse_bind = mapper_->conjugate(inverse(node_global));
  std::vector<std::vector<std::pair<float, int>>> per_vertex(nv);
  for (unsigned b = 0; b < am->mNumBones; ++b) {
    const aiBone* bone = am->mBones[b];
    int node_of_bone = resolve_node(bone->mName.C_Str());
    if (node_of_bone < 0) {
      warn(where + ": bone '" + std::string(bone->mName.C_Str()) +
           "' has no node in the scene; its vertices follow the mesh node");
      continue;
    }
    int joint = joint_of_node_[node_of_bone];
    // Exporters (Blender's among them) list bones that weight nothing; they get no palette slot.
    bool weights_something = false;
    for (unsigned w = 0; w < bone->mNumWeights; ++w)
      weights_something = weights_something || bone->mWeights[w].mWeight > 0;
    Mat4 offset = to_mat4(bone->mOffsetMatrix);
    if (!is_finite(offset))
      return where + ": bone '" + std::string(bone->mName.C_Str()) + "' has a non-finite offset matrix";
    if (Mat4 unused; !invert(offset, unused))
      warn(where + ": bone '" + std::string(bone->mName.C_Str()) +
           "' has a singular offset (inverse bind) matrix; its bind pose cannot be recovered from it, so the "
           "joint's bind position is wrong (check the exporter's scale settings)");
    // offset maps mesh-node space to bone space; our vertices are in model space already.
    Mat4 inverse_bind = mapper_->conjugate(offset * inverse(node_global));
    RawJoint& j = out_.skeleton.joints[joint];
    if (!j.has_file_bind) {
      j.inverse_bind = inverse_bind;
      j.has_file_bind = true;
    }
    if (!weights_something) continue;
    j.weighted = true;
    int slot = slot_for(joint, inverse_bind);
    if (mesh.joint_remap.size() > kMaxJoints) return where + ": too many bones (more than 65535)";
    for (unsigned w = 0; w < bone->mNumWeights; ++w) {
      const aiVertexWeight& vw = bone->mWeights[w];
      if (vw.mVertexId >= nv)
        return where + ": bone '" + std::string(bone->mName.C_Str()) + "' weights vertex " +
               std::to_string(vw.mVertexId) + " of " + std::to_string(nv);
      if (!std::isfinite(vw.mWeight))
        return where + ": bone '" + std::string(bone->mName.C_Str()) + "' has a non-finite weight";
      if (vw.mWeight > 0)
        per_vertex[vw.mVertexId].emplace_back(vw.mWeight, slot);
      else if (vw.mWeight < 0)
        ++weights_ignored;
    }
  }

  const int limit = std::clamp(options_.max_influences, 1, 8);
  InfluenceStats& stats = mesh.influence_stats;
  for (auto& list : per_vertex) {
    // Merge duplicate entries for one slot (a bone listed twice), then strongest first.
    std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.second < b.second; });
    std::vector<std::pair<float, int>> merged;
    for (auto& e : list) {
      if (!merged.empty() && merged.back().second == e.second)
        merged.back().first += e.first;
      else
        merged.push_back(e);
    }
    std::stable_sort(merged.begin(), merged.end(), [](auto& a, auto& b) { return a.first > b.first; });
    list = std::move(merged);
    stats.max_found = std::max(stats.max_found, static_cast<int>(list.size()));
  }
  mesh.influences_per_vertex = mesh.skinned ? std::clamp(stats.max_found, 1, limit) : 1;
  const int k = mesh.influences_per_vertex;
  mesh.influence_joints.assign(static_cast<size_t>(nv) * k, 0);
  mesh.influence_weights.assign(static_cast<size_t>(nv) * k, 0.f);
  int node_slot = -1;
  for (unsigned v = 0; v < nv; ++v) {
    auto& list = per_vertex[v];
    if (list.empty()) {
      if (mesh.skinned) ++stats.unweighted_vertices;
      if (node_slot < 0) {
        if (mesh.node_joint < 0) return where + ": internal error: mesh node is not a joint";
        node_slot = slot_for(mesh.node_joint, node_inverse_bind);
      }
      mesh.influence_joints[static_cast<size_t>(v) * k] = static_cast<uint16_t>(node_slot);
      mesh.influence_weights[static_cast<size_t>(v) * k] = 1.f;
      continue;
    }
    // Weights as read (before the cut) should sum to 1; when they do not, the reader dropped some (assimp's
    // glTF reader skips negative and NaN weights) or the file is unnormalised: renormalised, and reported.
    float total = 0;
    for (auto& e : list) total += e.first;
    if (std::fabs(total - 1.f) > 1e-3f) {
      ++unnormalised;
      lowest_total = std::min(lowest_total, total);
      highest_total = std::max(highest_total, total);
    }
    if (static_cast<int>(list.size()) > k) {
      ++stats.vertices_cut;
      stats.largest_dropped = std::max(stats.largest_dropped, list[k].first);
      list.resize(k);
    }
    float sum = 0;
    for (auto& e : list) sum += e.first;
    for (size_t i = 0; i < list.size(); ++i) {
      mesh.influence_joints[v * k + i] = static_cast<uint16_t>(list[i].second);
      mesh.influence_weights[v * k + i] = list[i].first / sum;
    }
  }
  if (stats.vertices_cut)
    warn(where + ": " + std::to_string(stats.vertices_cut) + " vertices had more than " + std::to_string(k) +
         " influences (up to " + std::to_string(stats.max_found) +
         "); the weakest were dropped (largest dropped " + std::to_string(stats.largest_dropped) +
         ") and the rest renormalised");
  if (unnormalised) {
    char range[96];
    std::snprintf(range, sizeof range, "%.4g-%.4g", lowest_total, highest_total);
    warn(where + ": " + std::to_string(unnormalised) + " vertices had weights summing to " + range +
         " instead of 1 (the file's, or after the reader dropped negative or NaN weights); renormalised");
  }
  if (weights_ignored)
    warn(where + ": " + std::to_string(weights_ignored) +
         " negative weights were ignored (the other influences were renormalised)");
  if (stats.unweighted_vertices)
    warn(where + ": " + std::to_string(stats.unweighted_vertices) +
         " vertices have no weights and follow the mesh node");
  if (std::string e = build_morph_targets(am, node_global, where, mesh); !e.empty()) return e;
  out_.meshes.push_back(std::move(mesh));
  return {};
}

// assimp gives each target as a whole mesh (aiAnimMesh) with absolute positions, normals and tangents (glTF2
// and FBX importers add the file's deltas to copies of the base); JoinIdenticalVertices keeps them in step
// with the base vertices. Ossa stores the differences, sparsely: vertices whose position, normal and tangent
// do not change at all are left out. Tangents: assimp 5.2.5's glTF reader adds a target's TANGENT deltas only
// when the base has TANGENT and the target also has NORMAL (gltf_morph_tangents.h reads the others itself);
// its FBX reader copies the base tangents (FBX shapes have no tangents), which gives no deltas.
std::string Importer::build_morph_targets(const aiMesh* am, const Mat4& node_global, const std::string& where,
                                          RawMesh& mesh) {
  if (am->mNumAnimMeshes == 0 || !am->mAnimMeshes) return {};
  if (am->mNumAnimMeshes > kMaxMorphTargets)
    return where + ": " + std::to_string(am->mNumAnimMeshes) + " morph targets, more than " +
           std::to_string(kMaxMorphTargets);
  const unsigned nv = am->mNumVertices;
  const Mat4 delta_normal_matrix = normal_matrix(node_global);
  // Positions go through the linear part of node and space transforms (deltas are differences of points).
  const Vec3 origin = mapper_->point({0, 0, 0});
  size_t entries = 0;
  for (unsigned t = 0; t < am->mNumAnimMeshes; ++t) {
    const aiAnimMesh* target = am->mAnimMeshes[t];
    if (!target) return where + ": morph target " + std::to_string(t) + " is missing";
    RawMorphTarget raw;
    raw.name = target->mName.length ? target->mName.C_Str() : "target_" + std::to_string(t);
    const std::string tw = where + ", morph target '" + raw.name + "'";
    if (target->mNumVertices != nv)
      return tw + ": " + std::to_string(target->mNumVertices) + " vertices, the mesh has " +
             std::to_string(nv);
    const bool positions = target->mVertices != nullptr;
    const bool normals = target->mNormals != nullptr && am->mNormals != nullptr && !mesh.normals.empty();
    const bool tangents = target->mTangents != nullptr && am->mTangents != nullptr && !mesh.tangents.empty();
    bool tangents_move = false;
    std::vector<Vec3> file_tangent_deltas;  // glTF targets' TANGENT that assimp dropped (file space)
    if (tangents && out_.format == "gltf") {
      if (!gltf_morph_tangents_loaded_) {
        gltf_morph_tangents_.load(path_, from_memory_ ? memory_ : std::span<const uint8_t>(), out_.warnings);
        gltf_morph_tangents_loaded_ = true;
      }
      unsigned mesh_index = 0;
      while (mesh_index < scene_->mNumMeshes && scene_->mMeshes[mesh_index] != am) ++mesh_index;
      std::string warning, error;
      file_tangent_deltas = gltf_morph_tangents_.deltas(mesh_index, *am, t, warning, error);
      if (!error.empty()) return tw + ": " + error;
      if (!warning.empty()) warn(tw + ": TANGENT deltas left out: " + warning);
    }
    for (unsigned v = 0; v < nv; ++v) {
      aiVector3D dp(0, 0, 0), dn(0, 0, 0), dt(0, 0, 0);
      if (positions) {
        if (!finite3(target->mVertices[v]))
          return tw + ": vertex " + std::to_string(v) + " position is not finite";
        dp = target->mVertices[v] - am->mVertices[v];
      }
      if (normals) {
        if (!finite3(target->mNormals[v]))
          return tw + ": vertex " + std::to_string(v) + " normal is not finite";
        dn = target->mNormals[v] - am->mNormals[v];
      }
      if (tangents) {
        if (!finite3(target->mTangents[v]))
          return tw + ": vertex " + std::to_string(v) + " tangent is not finite";
        dt = file_tangent_deltas.empty()
                 ? target->mTangents[v] - am->mTangents[v]
                 : aiVector3D(file_tangent_deltas[v].x, file_tangent_deltas[v].y, file_tangent_deltas[v].z);
        tangents_move = tangents_move || dt != aiVector3D(0, 0, 0);
      }
      if (dp == aiVector3D(0, 0, 0) && dn == aiVector3D(0, 0, 0) && dt == aiVector3D(0, 0, 0))
        continue;  // exact zeros only
      if (++entries > kMaxMorphEntriesPerMesh)
        return where + ": morph targets move more than " + std::to_string(kMaxMorphEntriesPerMesh) +
               " vertices in all";
      raw.vertices.push_back(v);
      raw.position_deltas.push_back(mapper_->point(transform_vector(node_global, to_vec3(dp))) - origin);
      if (normals) {
        // The base normal was normalised after the node transform: scale the delta by the same factor.
        const float base_length = length(transform_vector(delta_normal_matrix, to_vec3(am->mNormals[v])));
        const Vec3 d = mapper_->direction(transform_vector(delta_normal_matrix, to_vec3(dn)));
        raw.normal_deltas.push_back(base_length > 0 ? d * (1.f / base_length) : Vec3{0, 0, 0});
      }
      if (tangents) {
        // Likewise for the tangent, normalised after the node transform (its linear part).
        const float base_length = length(transform_vector(node_global, to_vec3(am->mTangents[v])));
        const Vec3 d = mapper_->direction(transform_vector(node_global, to_vec3(dt)));
        raw.tangent_deltas.push_back(base_length > 0 ? d * (1.f / base_length) : Vec3{0, 0, 0});
      }
    }
    // assimp copies the base tangents into every target (FBX shapes have none; glTF targets without
    // TANGENT): a target whose tangents do not move keeps none.
    if (!tangents_move) raw.tangent_deltas.clear();
    // assimp's FBX reader puts 1 (or DeformPercent / 100 for in-between shapes) in mWeight, not the channel's
    // value: FBX targets start at 0, as in Blender. glTF's mWeight is the mesh's `weights`.
    float weight = out_.format == "fbx" ? 0.f : target->mWeight;
    if (!std::isfinite(weight)) return tw + ": default weight is not finite";
    mesh.morph_default_weights.push_back(weight);
    mesh.morph_targets.push_back(std::move(raw));
  }
  return {};
}

// Weight keys (aiMeshMorphAnim) bind to a node by name: glTF names the node, whose meshes (one per
// primitive) all take the weights; FBX names "<model>*<geometry index>", one of the node's meshes. A key
// lists (target, weight) pairs, all targets in glTF, only the keyed ones in FBX: each target's own keys are
// interpolated to every key time so that the track stores full weight vectors.
std::string Importer::build_morph_tracks(unsigned animation, double tps, const std::string& where,
                                         RawClip& clip, double& last_key) {
  const aiAnimation* anim = scene_->mAnimations[animation];
  std::set<int> seen_meshes;
  for (unsigned c = 0; c < anim->mNumMorphMeshChannels; ++c) {
    const aiMeshMorphAnim* ch = anim->mMorphMeshChannels[c];
    if (!ch) continue;
    std::string target = strip_fbx_prefix(ch->mName.C_Str());
    std::vector<int> meshes;
    int node = resolve_node(target, true);
    if (node >= 0) {
      meshes = meshes_of_node_[node];
    } else if (size_t star = target.rfind('*'); star != std::string::npos) {
      node = resolve_node(target.substr(0, star), true);
      const long geometry = std::strtol(target.c_str() + star + 1, nullptr, 10);
      if (node >= 0 && geometry >= 0 && geometry < static_cast<long>(meshes_of_node_[node].size()))
        meshes = {meshes_of_node_[node][geometry]};
    }
    meshes.erase(std::remove_if(meshes.begin(), meshes.end(),
                                [&](int m) { return m < 0 || out_.meshes[m].morph_targets.empty(); }),
                 meshes.end());
    if (meshes.empty()) {
      warn(where + ": morph weights for '" + target + "' target no mesh with morph targets; ignored");
      continue;
    }
    const std::string cw = where + ", morph weights of '" + target + "'";
    const size_t targets = out_.meshes[meshes[0]].morph_targets.size();
    RawMorphTrack track;
    std::string error;
    if (gltf_interpolation_.convert_weights(animation, ch->mName.C_Str(), targets, track, clip, error)) {
      last_key = std::max<double>(last_key, track.times.back());
    } else if (!error.empty()) {
      return cw + ": " + error;
    } else if (auto e = morph_track_from_keys(ch, tps, cw, out_.meshes[meshes[0]].morph_default_weights,
                                              track, last_key);
               !e.empty()) {
      return e;
    }
    if (track.times.empty()) continue;
    for (int m : meshes) {
      if (out_.meshes[m].morph_targets.size() != targets) {
        warn(cw + ": mesh '" + out_.meshes[m].name + "' has another target count; it keeps its weights");
        continue;
      }
      if (!seen_meshes.insert(m).second) {
        warn(cw + ": a second weight channel for mesh '" + out_.meshes[m].name + "' ignored");
        continue;
      }
      track.mesh = m;
      clip.morph_tracks.push_back(track);
    }
  }
  return {};
}

// One weight channel's keys as a track of full weight vectors (one per target of `default_weights`).
std::string Importer::morph_track_from_keys(const aiMeshMorphAnim* ch, double tps, const std::string& cw,
                                            const std::vector<float>& default_weights, RawMorphTrack& track,
                                            double& last_key) {
  if (ch->mNumKeys > 0 && !ch->mKeys) return cw + ": keys are missing";
  // Per target, its own (time, weight) keys.
  const size_t targets = default_weights.size();
  std::vector<std::vector<std::pair<float, float>>> keys(targets);
  std::vector<float> times;
  for (unsigned k = 0; k < ch->mNumKeys; ++k) {
    const aiMeshMorphKey& key = ch->mKeys[k];
    const double t = key.mTime / tps;
    if (!std::isfinite(t)) return cw + ": key " + std::to_string(k) + " time is not finite";
    if (key.mNumValuesAndWeights > 0 && (!key.mValues || !key.mWeights))
      return cw + ": key " + std::to_string(k) + " has no values";
    for (unsigned i = 0; i < key.mNumValuesAndWeights; ++i) {
      if (key.mValues[i] >= targets)
        return cw + ": key " + std::to_string(k) + " weights target " + std::to_string(key.mValues[i]) +
               " of " + std::to_string(targets);
      if (!std::isfinite(key.mWeights[i])) return cw + ": key " + std::to_string(k) + " weight is not finite";
      keys[key.mValues[i]].emplace_back(static_cast<float>(t), static_cast<float>(key.mWeights[i]));
    }
    times.push_back(static_cast<float>(t));
    last_key = std::max(last_key, t);
  }
  if (times.empty()) return {};
  if (!std::is_sorted(times.begin(), times.end())) warn(cw + ": keys were not in time order; sorted");
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  track.times = times;
  track.weights.resize(times.size() * targets);
  for (size_t t = 0; t < targets; ++t) {
    auto& list = keys[t];
    std::stable_sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.first < b.first; });
    std::vector<float> kt, kw;
    for (auto& [time, w] : list) kt.push_back(time), kw.push_back(w);
    for (size_t k = 0; k < times.size(); ++k) {
      float value = default_weights[t];
      if (!kt.empty()) {
        auto hi = std::upper_bound(kt.begin(), kt.end(), times[k]) - kt.begin();
        if (hi == 0) {
          value = kw.front();
        } else if (hi == static_cast<long>(kt.size())) {
          value = kw.back();
        } else {
          const float a = kt[hi - 1], b = kt[hi];
          const float f = b > a ? (times[k] - a) / (b - a) : 0.f;
          value = kw[hi - 1] + (kw[hi] - kw[hi - 1]) * f;
        }
      }
      track.weights[k * targets + t] = value;
    }
  }
  return {};
}

double Importer::file_frame_rate() const {
  double mode = 0, custom = 0;
  if (!read_meta_number(scene_, "FrameRate", mode)) return 0;
  double fps = fbx_time_mode_fps(static_cast<int>(mode));
  if (fps == 0 && read_meta_number(scene_, "CustomFrameRate", custom) && custom > 0) fps = custom;
  return fps;
}

std::string Importer::build_clips() {
  std::set<std::string> names;
  if (out_.format == "gltf" && scene_->mNumAnimations > 0)
    gltf_interpolation_.load(path_, from_memory_ ? memory_ : std::span<const uint8_t>(), out_.warnings);
  for (unsigned a = 0; a < scene_->mNumAnimations; ++a) {
    const aiAnimation* anim = scene_->mAnimations[a];
    RawClip clip;
    // Unnamed clips (glTF allows them) are "Anim_<index>", as Blender names them.
    std::string base = anim->mName.length ? anim->mName.C_Str() : "Anim_" + std::to_string(a);
    clip.name = base;
    for (int n = 2; !names.insert(clip.name).second; ++n) clip.name = base + "#" + std::to_string(n);
    const std::string where = "clip '" + clip.name + "'";

    double tps = anim->mTicksPerSecond;
    if (!std::isfinite(tps) || tps < 0) return where + ": invalid ticks per second " + std::to_string(tps);
    if (tps == 0) {
      tps = file_frame_rate();
      if (tps == 0) tps = 25.0;
      warn(where + ": ticks per second is 0; using " + std::to_string(tps));
    }
    clip.ticks_per_second = tps;
    double duration = anim->mDuration / tps;
    if (!std::isfinite(duration) || duration < 0)
      return where + ": invalid duration " + std::to_string(anim->mDuration) + " ticks";

    double last_key = 0;
    std::set<int> seen_joints;
    for (unsigned c = 0; c < anim->mNumChannels; ++c) {
      const aiNodeAnim* ch = anim->mChannels[c];
      std::string target = strip_fbx_prefix(ch->mNodeName.C_Str());
      int node = resolve_node(target);
      if (node < 0 || joint_of_node_[node] < 0) {
        warn(where + ": channel for '" + target + "' targets no node in the scene; ignored");
        continue;
      }
      RawTrack track;
      track.joint = joint_of_node_[node];
      if (!seen_joints.insert(track.joint).second) {
        warn(where + ": a second channel for '" + target + "' ignored");
        continue;
      }
      const std::string cw = where + ", joint '" + target + "'";
      auto key_time = [&](double ticks, const char* kind, unsigned i, float& out) -> std::string {
        double t = ticks / tps;
        if (!std::isfinite(t)) return cw + ": " + kind + " key " + std::to_string(i) + " time is not finite";
        out = static_cast<float>(t);
        last_key = std::max(last_key, t);
        return {};
      };
      for (unsigned i = 0; i < ch->mNumPositionKeys; ++i) {
        const aiVectorKey& k = ch->mPositionKeys[i];
        float t;
        if (auto e = key_time(k.mTime, "translation", i, t); !e.empty()) return e;
        if (!finite3(k.mValue)) return cw + ": translation key " + std::to_string(i) + " is not finite";
        track.translation_times.push_back(t);
        track.translations.push_back(mapper_->translation(to_vec3(k.mValue)));
      }
      for (unsigned i = 0; i < ch->mNumRotationKeys; ++i) {
        const aiQuatKey& k = ch->mRotationKeys[i];
        float t;
        if (auto e = key_time(k.mTime, "rotation", i, t); !e.empty()) return e;
        if (!finite4(k.mValue)) return cw + ": rotation key " + std::to_string(i) + " is not finite";
        Quat q = to_quat(k.mValue);
        if (!(dot(q, q) > 1e-12f))
          return cw + ": rotation key " + std::to_string(i) + " is a zero quaternion";
        track.rotation_times.push_back(t);
        track.rotations.push_back(normalize(mapper_->rotation(normalize(q))));
      }
      for (unsigned i = 0; i < ch->mNumScalingKeys; ++i) {
        const aiVectorKey& k = ch->mScalingKeys[i];
        float t;
        if (auto e = key_time(k.mTime, "scale", i, t); !e.empty()) return e;
        if (!finite3(k.mValue)) return cw + ": scale key " + std::to_string(i) + " is not finite";
        track.scale_times.push_back(t);
        track.scales.push_back(mapper_->scale(to_vec3(k.mValue)));
      }
      // Keys must ascend for sampling; a file with unsorted keys is repaired and reported.
      auto sort_channel = [&](std::vector<float>& times, auto& values, const char* kind) {
        if (std::is_sorted(times.begin(), times.end())) return;
        std::vector<size_t> order(times.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return times[x] < times[y]; });
        std::vector<float> t2;
        std::remove_reference_t<decltype(values)> v2;
        for (size_t i : order) {
          t2.push_back(times[i]);
          v2.push_back(values[i]);
        }
        times.swap(t2);
        values.swap(v2);
        warn(cw + ": " + kind + " keys were not in time order; sorted");
      };
      sort_channel(track.translation_times, track.translations, "translation");
      sort_channel(track.rotation_times, track.rotations, "rotation");
      sort_channel(track.scale_times, track.scales, "scale");
      if (auto e = gltf_interpolation_.convert_track(a, ch->mNodeName.C_Str(), *mapper_, track, clip);
          !e.empty())
        return cw + ": " + e;
      clip.tracks.push_back(std::move(track));
    }
    if (auto e = build_morph_tracks(a, tps, where, clip, last_key); !e.empty()) return e;
    if (duration == 0 && last_key > 0) duration = last_key;
    if (duration > kAbsurdDurationSeconds)
      warn(where + ": duration " + std::to_string(duration) + " s is implausibly long (ticks/s " +
           std::to_string(tps) + ")");
    if (duration > 1e7) return where + ": absurd duration " + std::to_string(duration) + " s";
    clip.duration = static_cast<float>(duration);
    out_.clips.push_back(std::move(clip));
  }
  return {};
}

// The texture policy of ImportOptions::texture_folders: returns "" and fills `tex` with the file's bytes, or
// why the texture is not read.
std::string Importer::read_external_texture(const std::string& path, Texture& tex) {
  if (from_memory_) return "external textures are not resolved for files read from memory";
  std::string normalized = path;
  std::replace(normalized.begin(), normalized.end(), '\\', '/');
  std::error_code ec;
  const fs::path model_dir = fs::absolute(path_from_utf8(path_), ec).parent_path().lexically_normal();
  std::vector<fs::path> allowed{fs::weakly_canonical(model_dir, ec)};
  for (const std::string& folder : options_.texture_folders)
    allowed.push_back(fs::weakly_canonical(fs::absolute(path_from_utf8(folder), ec), ec));
  auto permitted = [&](const fs::path& p) {
    return std::any_of(allowed.begin(), allowed.end(),
                       [&](const fs::path& a) { return path_is_inside(p, a); });
  };
  const fs::path as_written = path_from_utf8(normalized);
  bool escaped = false;
  // As written (relative to the model), then by its file name next to the model (exporters often write
  // absolute paths from the artist's machine).
  for (const fs::path& candidate :
       {(model_dir / as_written).lexically_normal(), model_dir / as_written.filename()}) {
    if (as_written.filename().empty()) break;
    // Lexically first, so that nothing outside the allowed folders is even tested for existence.
    if (!permitted(candidate) && !path_is_inside(candidate, model_dir)) {
      escaped = true;
      continue;
    }
    if (!fs::is_regular_file(candidate, ec)) continue;
    const fs::path real = fs::weakly_canonical(candidate, ec);  // symlinks resolved
    if (ec || !permitted(real)) {
      escaped = true;
      continue;
    }
    const uintmax_t size = fs::file_size(real, ec);
    if (ec) continue;
    if (size > options_.max_texture_bytes)
      return "is " + std::to_string(size) + " bytes, over the " + std::to_string(options_.max_texture_bytes) +
             "-byte limit (ImportOptions::max_texture_bytes)";
    std::ifstream in(real, std::ios::binary);
    tex.data.resize(static_cast<size_t>(size));
    if (size && !in.read(reinterpret_cast<char*>(tex.data.data()), static_cast<std::streamsize>(size))) {
      tex.data.clear();
      return "could not be read";
    }
    tex.resolved_path = utf8_from_path(candidate);
    out_.source_files.push_back(utf8_from_path(real.lexically_normal()));
    std::string ext = real.extension().string();
    tex.format_hint = ext.size() > 1 ? ext.substr(1) : "";
    return {};
  }
  return escaped ? "lies outside the model's folder (ImportOptions::texture_folders allows more)"
                 : "was not found next to the model";
}

int Importer::add_texture(const aiString& ai_path, const std::string& material) {
  std::string path = ai_path.C_Str();
  if (path.empty()) return -1;
  auto it = texture_by_path_.find(path);
  if (it != texture_by_path_.end()) return it->second;
  Texture tex;
  tex.path = path;
  if (const aiTexture* embedded = scene_->GetEmbeddedTexture(path.c_str())) {
    tex.embedded = true;
    tex.format_hint = std::string(embedded->achFormatHint, strnlen(embedded->achFormatHint, 4));
    if (embedded->mHeight == 0 && embedded->pcData) {  // compressed file bytes
      const auto* bytes = reinterpret_cast<const uint8_t*>(embedded->pcData);
      tex.data.assign(bytes, bytes + embedded->mWidth);
    } else {
      warn("texture '" + path + "' is an uncompressed embedded image; its pixels are not kept");
    }
  } else if (std::string why = read_external_texture(path, tex); !why.empty()) {
    warn("material '" + material + "': texture '" + path + "' " + why + "; the material has no such texture");
    texture_by_path_[path] = -1;
    return -1;
  }
  int index = static_cast<int>(out_.textures.size());
  out_.textures.push_back(std::move(tex));
  texture_by_path_[path] = index;
  return index;
}

void Importer::build_materials() {
  for (unsigned i = 0; i < scene_->mNumMaterials; ++i) {
    const aiMaterial* am = scene_->mMaterials[i];
    Material mat;
    aiString name;
    if (am->Get(AI_MATKEY_NAME, name) == AI_SUCCESS) mat.name = name.C_Str();
    aiColor4D color;
    if (am->Get(AI_MATKEY_BASE_COLOR, color) == AI_SUCCESS ||
        am->Get(AI_MATKEY_COLOR_DIFFUSE, color) == AI_SUCCESS)
      mat.base_color = {color.r, color.g, color.b, color.a};
    auto first_texture = [&](std::initializer_list<aiTextureType> types) {
      for (aiTextureType type : types) {
        aiString path;
        if (am->GetTextureCount(type) > 0 && am->GetTexture(type, 0, &path) == AI_SUCCESS)
          return add_texture(path, mat.name);
      }
      return -1;
    };
    mat.diffuse_texture = first_texture({aiTextureType_BASE_COLOR, aiTextureType_DIFFUSE});
    mat.normal_texture =
        first_texture({aiTextureType_NORMALS, aiTextureType_NORMAL_CAMERA, aiTextureType_HEIGHT});
    mat.specular_texture = first_texture({aiTextureType_SPECULAR, aiTextureType_METALNESS});
    out_.materials.push_back(std::move(mat));
  }
}

void Importer::choose_space() {
  double up = 0, up_sign = 0, front = 0, front_sign = 0, coord = 0, coord_sign = 0, unit = 1;
  if (out_.format == "fbx" && read_meta_number(scene_, "UpAxis", up)) {
    read_meta_number(scene_, "UpAxisSign", up_sign);
    read_meta_number(scene_, "FrontAxis", front);
    read_meta_number(scene_, "FrontAxisSign", front_sign);
    read_meta_number(scene_, "CoordAxis", coord);
    read_meta_number(scene_, "CoordAxisSign", coord_sign);
    if (!read_meta_number(scene_, "UnitScaleFactor", unit) || !(unit > 0) || !std::isfinite(unit)) unit = 1;
    out_.space = detail::fbx_space(static_cast<int>(up), static_cast<int>(up_sign), static_cast<int>(front),
                                   static_cast<int>(front_sign), static_cast<int>(coord),
                                   static_cast<int>(coord_sign), unit, options_.left_handed);
  } else if (out_.format == "fbx") {
    out_.space =
        detail::identity_space("FBX without axis metadata: assumed +Y up, centimetres", options_.left_handed);
    out_.space.unit_scale = 0.01;
    out_.space.file_to_canonical = out_.space.file_to_canonical * scale_matrix({0.01f, 0.01f, 0.01f});
  } else if (out_.format == "collada") {
    out_.space = detail::identity_space("COLLADA: <up_axis> and <unit> applied by assimp on the root node",
                                        options_.left_handed);
  } else {
    out_.space = detail::identity_space(out_.format + ": already +Y up, metres", options_.left_handed);
  }
}

const aiScene* Importer::read_with_assimp(Assimp::Importer& importer) const {
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, false);
  importer.SetPropertyBool(AI_CONFIG_IMPORT_FBX_OPTIMIZE_EMPTY_ANIMATION_CURVES, true);
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, 0);
  // ValidateDataStructure guards assimp's other steps against damaged structures (quadratic in the
  // children of one node: 60,000 joints under one parent take 4 s, within the guard's time budget).
  const unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                         aiProcess_GenSmoothNormals | aiProcess_CalcTangentSpace |
                         aiProcess_ValidateDataStructure;
  const std::string ext = lower_extension(path_);
  return from_memory_ ? importer.ReadFileFromMemory(memory_.data(), memory_.size(), flags,
                                                    ext.empty() ? "" : ext.substr(1).c_str())
                      : importer.ReadFile(path_, flags);
}

// Skin indices assimp's COLLADA loader would follow out of its arrays (collada_limits.h): "" or why refused.
std::string Importer::check_collada_before_assimp() const {
  if (from_memory_)
    return detail::check_collada_skins(
        std::string_view(reinterpret_cast<const char*>(memory_.data()), memory_.size()));
  std::ifstream in(path_from_utf8(path_), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return detail::check_collada_skins(text);
}

// assimp's read and Ossa's conversion, in this process, into out_. Returns "" or what is wrong (without the
// file's name).
std::string Importer::import_here() {
  if (out_.format == "bvh") return import_bvh_here();
  if (out_.format == "gltf")
    if (std::string why = check_gltf_before_assimp(); !why.empty()) return why;
  if (out_.format == "collada")
    if (std::string why = check_collada_before_assimp(); !why.empty()) return why;
  Assimp::Importer importer;
  if (!from_memory_) importer.SetIOHandler(new RecordingIOSystem(out_.source_files));  // the importer owns it
  scene_ = read_with_assimp(importer);
  if (!scene_) {
    std::string why = importer.GetErrorString();
    // assimp turns an allocation that failed (under the guard's budget) into an error string.
    if (why.find("bad_alloc") != std::string::npos) throw std::bad_alloc();
    return "cannot import: " + (why.empty() ? std::string("unreadable") : why);
  }
  if (!scene_->mRootNode) return "the file has no scene graph";

  choose_space();
  if (options_.unit_scale > 0)
    warn("ImportOptions::unit_scale (--scale) is for files that state no unit (BVH): ignored for this " +
         out_.format + " file");
  detail::SpaceMapper mapper(out_.space);
  mapper_ = &mapper;

  collect_nodes(scene_->mRootNode, -1);
  if (auto e = build_skeleton(); !e.empty()) return e;
  build_materials();
  if (auto e = build_meshes(); !e.empty()) return e;
  if (auto e = build_clips(); !e.empty()) return e;
  mapper_ = nullptr;
  scene_ = nullptr;  // owned by `importer`
  if (out_.meshes.empty() && out_.clips.empty() && out_.skeleton.joints.empty())
    return "nothing to import: no meshes, joints or animations";
  detail::fold_root_scale(out_);
  return validate_scene(out_);
}

// BVH: Ossa's own reader (bvh_file.h) instead of assimp's, on the file's bytes or the caller's.
std::string Importer::import_bvh_here() {
  std::string text;
  std::string_view view(reinterpret_cast<const char*>(memory_.data()), memory_.size());
  auto too_large = [](uintmax_t size) {
    return "the file is " + std::to_string(size) + " bytes: BVH files over " +
           std::to_string(detail::kBvhMaxFileBytes) + " bytes are refused";
  };
  if (from_memory_) {
    if (memory_.size() > detail::kBvhMaxFileBytes) return too_large(memory_.size());
  } else {
    std::error_code ec;
    const fs::path file = path_from_utf8(path_);
    const uintmax_t size = fs::file_size(file, ec);
    if (ec) return "cannot read the file size (" + ec.message() + ")";
    if (size > detail::kBvhMaxFileBytes) return too_large(size);
    std::ifstream in(file, std::ios::binary);
    text.resize(static_cast<size_t>(size));
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size))) return "cannot read the file";
    out_.source_files.push_back(utf8_from_path(fs::absolute(file, ec).lexically_normal()));
    view = text;
  }
  detail::BvhOptions bvh;
  bvh.unit_scale = options_.unit_scale;
  bvh.left_handed = options_.left_handed;
  if (std::string e = detail::read_bvh(view, bvh, out_); !e.empty()) return e;
  detail::fold_root_scale(out_);
  return validate_scene(out_);
}

// ImportOptions::isolate: the whole import (assimp's read and Ossa's conversion) runs in a worker process
// under the memory and time budget, which sends the scene back (scene_wire.h); the file is parsed once. The
// reply is hostile input like the file: decode_scene checks every byte of it. A reply starts with
// kSceneReply or kErrorReply.
constexpr char kErrorReply = 'E', kSceneReply = 'S';
constexpr size_t kMaxErrorBytes = 4096;

// What the worker needs to make this Importer again: the caller's working folder (relative paths), the
// file's name or bytes, the options that shape the scene, and what run() derived from the name.
void put(std::string& out, uint64_t n) {
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
}
void put(std::string& out, std::string_view text) {
  put(out, text.size()), out.append(text);
}
uint64_t take_number(std::string_view& in) {
  uint64_t n = 0;
  if (in.size() < sizeof n) throw std::runtime_error("truncated request");
  std::memcpy(&n, in.data(), sizeof n);
  in.remove_prefix(sizeof n);
  return n;
}
std::string_view take_text(std::string_view& in) {
  const uint64_t size = take_number(in);
  if (size > in.size()) throw std::runtime_error("truncated request");
  std::string_view text = in.substr(0, size);
  in.remove_prefix(size);
  return text;
}

std::string Importer::worker_request() const {
  std::string request;
  std::error_code ec;
  put(request, fs::current_path(ec).string());
  put(request, path_);
  put(request, out_.format);
  put(request, uint64_t{from_memory_});
  put(request, std::string_view(reinterpret_cast<const char*>(memory_.data()), memory_.size()));
  put(request, static_cast<uint64_t>(options_.max_influences));
  put(request, uint64_t{options_.left_handed});
  put(request, static_cast<uint64_t>(options_.max_texture_bytes));
  put(request, static_cast<uint64_t>(options_.texture_folders.size()));
  for (const std::string& folder : options_.texture_folders) put(request, folder);
  put(request, std::bit_cast<uint64_t>(options_.unit_scale));
  return request;
}

std::string Importer::serve(std::string_view request) {
  const std::string folder(take_text(request)), path(take_text(request)), format(take_text(request));
  const bool from_memory = take_number(request) != 0;
  const std::string_view memory = take_text(request);
  ImportOptions options;
  options.max_influences = static_cast<int>(take_number(request));
  options.left_handed = take_number(request) != 0;
  options.max_texture_bytes = static_cast<size_t>(take_number(request));
  for (uint64_t n = take_number(request); n > 0; --n)
    options.texture_folders.emplace_back(take_text(request));
  options.unit_scale = std::bit_cast<double>(take_number(request));
  std::error_code ec;
  if (!folder.empty() && fs::current_path(ec) != fs::path(folder)) {
    fs::current_path(folder, ec);
    if (ec)
      return kErrorReply + std::string("cannot enter the folder the import was asked from: ") + ec.message();
  }
  Importer importer =
      from_memory
          ? Importer(std::span(reinterpret_cast<const uint8_t*>(memory.data()), memory.size()), path, options)
          : Importer(path, options);
  importer.out_.source_path = path;
  importer.out_.format = format;
  return importer.reply_here();
}

std::string Importer::reply_here() {
  std::string why;
  try {
    why = import_here();
  } catch (const std::bad_alloc&) {
    throw;  // the worker reports it as out of memory
  } catch (const std::exception& e) {
    why = std::string("import failed: ") + e.what();
  }
  if (!why.empty()) return kErrorReply + why;
  std::string reply = detail::encode_scene(out_);
  reply[0] = kSceneReply;  // in place of the first magic byte: no copy of a large reply
  return reply;
}

}  // namespace

const detail::WorkerTask& detail::import_worker_task() {
  static const WorkerTask task(&Importer::serve, "import");
  return task;
}

namespace {

Result<ImportedScene> Importer::import_in_worker() {
  detail::ChildLimits limits;
  limits.memory_bytes = options_.memory_limit_mb << 20;
  limits.seconds = options_.time_limit_seconds;
  // The worker cannot build a scene larger than its memory budget; without one, the reply is still bounded
  // by what it actually sends (the parent allocates as bytes arrive).
  limits.max_message_bytes = limits.memory_bytes ? limits.memory_bytes : std::numeric_limits<size_t>::max();
  auto outcome = detail::run_in_worker(detail::import_worker_task(), worker_request(), limits);
  using Kind = detail::ChildOutcome::Kind;
  switch (outcome.kind) {
    case Kind::kFinished:
      break;
    case Kind::kOutOfMemory:
      return fail("the import needed more than " + std::to_string(options_.memory_limit_mb) +
                  " MB to read the file (ImportOptions::memory_limit_mb): damaged or hostile file?");
    case Kind::kTimedOut: {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", options_.time_limit_seconds);
      return fail(std::string("the import took longer than ") + seconds +
                  " s to read the file (ImportOptions::time_limit_seconds): damaged or hostile file?");
    }
    case Kind::kCrashed:
      return fail("the import crashed reading the file (" + outcome.message + "): damaged or hostile file?");
    case Kind::kUnavailable:
      // No worker process on this platform or right now: the import runs here, as without isolation.
      std::fprintf(stderr, "ossa: %s: import not isolated (%s)\n", path_.c_str(), outcome.message.c_str());
      if (std::string why = import_here(); !why.empty()) return fail(why);
      return std::move(out_);
  }
  std::string& reply = outcome.message;
  if (!reply.empty() && reply[0] == kErrorReply) {
    return fail(reply.substr(1, kMaxErrorBytes));  // text from a hostile parse: fail() escapes it
  }
  if (reply.empty() || reply[0] != kSceneReply) return fail("the import's worker process sent no scene");
  reply[0] = 'O';  // the magic's first byte back
  auto scene = detail::decode_scene(std::span(reinterpret_cast<const uint8_t*>(reply.data()), reply.size()));
  if (!scene) return fail("the import's worker process sent a damaged scene: " + scene.error());
  if (scene->source_path != out_.source_path || scene->format != out_.format)
    return fail("the import's worker process sent the scene of another file");
#if defined(FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION)
  // The fuzzer's coverage and sanitizers see only this process: the conversion runs here too (assimp read
  // the file safely in the worker), and both ends of the reply must agree.
  if (std::string why = import_here(); !why.empty()) return fail(why);
  if (std::string differs = detail::scene_difference(*scene, out_); !differs.empty()) {
    std::fprintf(stderr, "ossa: %s: the worker's scene differs from this process's at %s\n", path_.c_str(),
                 differs.c_str());
    std::abort();
  }
#endif
  return scene;
}

Result<ImportedScene> Importer::run() {
  if (!from_memory_) {
    std::error_code ec;
    const fs::path file = path_from_utf8(path_);
    if (!fs::exists(file, ec)) return fail("no such file");
    if (!fs::is_regular_file(file, ec)) return fail("not a regular file");
    auto size = fs::file_size(file, ec);
    if (ec) return fail("cannot read the file size (" + ec.message() + ")");
    if (size == 0) return fail("empty file");
  } else if (memory_.empty()) {
    return fail("empty file");
  }
  if (options_.max_influences < 1 || options_.max_influences > 8)
    return fail("max_influences must be 1-8 (got " + std::to_string(options_.max_influences) + ")");
  if (const double s = options_.unit_scale; !(s == 0 || (s >= 1e-6 && s <= 1e6))) {
    char got[32];
    std::snprintf(got, sizeof got, "%g", s);
    return fail(std::string("unit_scale must be 0 (as read) or 1e-6 to 1e6 (got ") + got + ")");
  }

  std::string ext = lower_extension(path_);
  out_.source_path = path_;
  out_.format = ext == ".fbx"                       ? "fbx"
                : (ext == ".glb" || ext == ".gltf") ? "gltf"
                : ext == ".dae"                     ? "collada"
                : ext.empty()                       ? "unknown"
                                                    : ext.substr(1);
  if (out_.format == "fbx") {
    std::string version_error = from_memory_
                                    ? check_fbx_version(memory_.first(std::min<size_t>(memory_.size(), 4096)))
                                    : check_fbx_version(read_head(path_, 4096));
    if (!version_error.empty()) return fail(version_error);
  }
  if (out_.format == "gltf")
    if (std::string refused =
            check_gltf_required_extensions(path_, from_memory_ ? memory_ : std::span<const uint8_t>());
        !refused.empty())
      return fail(refused);

  if (options_.isolate) return import_in_worker();
  if (std::string why = import_here(); !why.empty()) return fail(why);
  return std::move(out_);
}

}  // namespace

double fbx_time_mode_fps(int time_mode) {
  switch (time_mode) {
    case 1:
      return 120;
    case 2:
      return 100;
    case 3:
      return 60;
    case 4:
      return 50;
    case 5:
      return 48;
    case 6:
      return 30;
    case 7:
      return 30;  // drop frame
    case 8:
      return 29.97;
    case 9:
      return 29.97;
    case 10:
      return 25;
    case 11:
      return 24;
    case 12:
      return 1000;
    case 13:
      return 23.976;
    case 15:
      return 96;
    case 16:
      return 72;
    case 17:
      return 59.94;
    case 18:
      return 119.88;
    default:
      return 0;  // 0 = default, 14 = custom (use CustomFrameRate)
  }
}

namespace {
// No exception crosses the public API: a hostile file that makes assimp (or us) run out of memory is an
// error.
template <class Run>
Result<ImportedScene> guarded(const std::string& name, Run&& run) {
  try {
    Result<ImportedScene> scene = run();
    if (scene)  // quoted names from the file, as in every Result's message (ossa/core/printable.h)
      for (std::string& warning : scene->warnings) warning = printable(warning);
    return scene;
  } catch (const std::bad_alloc&) {
    return Result<ImportedScene>::failure(name +
                                          ": out of memory while importing (damaged or hostile file?)");
  } catch (const std::exception& e) {
    return Result<ImportedScene>::failure(name + ": import failed: " + e.what());
  } catch (...) {
    return Result<ImportedScene>::failure(name + ": import failed");
  }
}
}  // namespace

Result<ImportedScene> import_file(const std::string& path, const ImportOptions& options) {
  return guarded(path, [&] { return Importer(path, options).run(); });
}

Result<ImportedScene> import_memory(std::span<const uint8_t> bytes, const std::string& name,
                                    const ImportOptions& options) {
  return guarded(name, [&] { return Importer(bytes, name, options).run(); });
}

}  // namespace ossa
