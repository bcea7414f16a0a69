// ossa/asset/raw.h — the editable, offline form of a character: Raw* skeleton, meshes, clips, materials.
//
// Plain std::vector-based data (as ozz's offline::Raw*) in Ossa's canonical space: right-handed, +Y up,
// metres, seconds. An import (ossa/import/, ossa::import) produces it inside an ImportedScene; the runtime
// builders (Skeleton::build, Clip::build_*, SkinnedMesh::build) read it, and so can a program that makes its
// own data. Nothing here refers to assimp or any file format, so it belongs to ossa::runtime.
//
// Skinning model, for every mesh m and every vertex v with influences (k_i, w_i):
//   skinned(v) = sum_i w_i * model[m.joint_remap[k_i]] * m.inverse_binds[k_i] * v.position
// where `model` are the joints' model-space matrices (parents first: model[j] = model[parent] * local[j]).
// In assimp terms the palette is rootInverse * global * offset; here the file's root transform and the
// space conversion are already folded into the joints and vertices, so rootInverse is the identity and
// vertex positions are stored in model space at bind time (not in the mesh node's local space).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/core/math.h"

namespace ossa {

struct RawJoint {
  std::string name;            // as in the file (FBX "Model::" stripped); duplicates get "#2", "#3", ...
  int parent = -1;             // index of the parent joint (always < own index), -1 for a root
  Transform rest;              // local transform when no clip drives the joint
  Mat4 inverse_bind;           // model space -> joint space at bind time
  bool has_file_bind = false;  // inverse_bind came from the file (else computed from the rest pose)
  bool weighted = false;       // some vertex of some mesh is weighted to it
  bool is_mesh_node = false;   // the node holds meshes (rigid meshes and unweighted vertices follow it)
};

struct RawSkeleton {
  std::vector<RawJoint> joints;                 // parents before children
  int find_joint(std::string_view name) const;  // -1 when absent (linear search: tools and import only)
};

struct InfluenceStats {
  int max_found = 0;            // most non-zero influences on one vertex in the file
  int vertices_cut = 0;         // vertices that had more than max_influences
  float largest_dropped = 0;    // largest single weight dropped by the cut (before renormalising)
  int unweighted_vertices = 0;  // skinned mesh vertices without weights (they follow the mesh's node)
};

// One morph target (blend shape) of a mesh, stored sparsely: only the vertices it moves. With weights w_t,
//   morphed position(v) = position(v) + sum_t w_t * position_delta_t(v)   (likewise normals and tangents'
//   xyz, not renormalised; a tangent's w, the bitangent sign, is unchanged, as glTF defines it)
// and skinning then applies to the morphed vertex (morph before skinning, as glTF, FBX and Blender do).
// Deltas are in the same model space at bind time as RawMesh::positions.
struct RawMorphTarget {
  std::string name;                   // the file's name for it (glTF targetNames, FBX channel), may be empty
  std::vector<uint32_t> vertices;     // ascending indices of the vertices the target moves
  std::vector<Vec3> position_deltas;  // one per entry of `vertices`
  std::vector<Vec3> normal_deltas;    // one per entry of `vertices`, or empty when the target has none
  std::vector<Vec3> tangent_deltas;   // likewise (xyz of RawMesh::tangents); empty when the mesh has none
};

struct RawMesh {
  std::string name;      // the mesh node's name (unique across the scene)
  int node_joint = -1;   // joint of the node holding the mesh
  int material = -1;     // index into the materials list beside it (ImportedScene, OssaFile)
  bool skinned = false;  // false: rigid, every vertex follows node_joint with weight 1

  // Vertex streams, model space at bind time. normals/tangents/uvs are empty when the file has none.
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;
  std::vector<Vec4> tangents;  // xyz tangent, w = bitangent sign
  std::vector<Vec2> uvs;
  std::vector<uint32_t> indices;  // triangles
  uint32_t base_vertex = 0;       // offset of this mesh's first vertex if all meshes share one buffer

  // Influences: `influences_per_vertex` slots per vertex, strongest first, weights sum to 1, unused
  // slots have weight 0 and joint 0. Joint slots index joint_remap / inverse_binds.
  int influences_per_vertex = 0;
  std::vector<uint16_t> influence_joints;
  std::vector<float> influence_weights;
  std::vector<int> joint_remap;     // mesh palette slot -> skeleton joint
  std::vector<Mat4> inverse_binds;  // mesh palette slot -> inverse bind (model space -> joint space)
  InfluenceStats influence_stats;

  // Morph targets (empty for most meshes) and the weights that hold when no clip animates them.
  std::vector<RawMorphTarget> morph_targets;
  std::vector<float> morph_default_weights;  // one per target
};

// Keys of one joint; each channel has its own times (seconds from the clip start, ascending).
struct RawTrack {
  int joint = -1;
  std::vector<float> translation_times;
  std::vector<Vec3> translations;
  std::vector<float> rotation_times;
  std::vector<Quat> rotations;
  std::vector<float> scale_times;
  std::vector<Vec3> scales;
};

// Keys of one mesh's morph target weights: at times[k], target t has weight weights[k * targets + t]
// (targets = that mesh's morph target count). Sampled by linear interpolation, clamped outside the keys.
struct RawMorphTrack {
  int mesh = -1;               // index into the meshes beside the clip (ImportedScene::meshes)
  std::vector<float> times;    // seconds from the clip start, ascending
  std::vector<float> weights;  // times.size() x the mesh's target count, key-major
};

struct RawClip {
  std::string name;
  float duration = 0;                       // seconds
  double ticks_per_second = 0;              // the file's tick rate after defaulting (informational)
  std::vector<RawTrack> tracks;             // joints without a track keep their rest transform
  std::vector<RawMorphTrack> morph_tracks;  // meshes without one keep their default morph weights
  // Channels (a joint's translation, rotation or scale, a mesh's weights) whose file interpolation was not
  // linear and that the import rewrote as linear keys: stepped ones with a holding key before each key,
  // cubic splines resampled (informational, for `ossa info`).
  int converted_step_channels = 0;
  int converted_cubic_channels = 0;
};

struct Texture {
  std::string path;           // as written in the file ("*0" style for embedded ones)
  std::string resolved_path;  // the file read for it (inside the model's folder), or empty
  bool embedded = false;      // the image came from inside the model file
  std::vector<uint8_t> data;  // the compressed image (png/jpg) bytes; empty when none could be read
  std::string format_hint;    // e.g. "png", "jpg"
};

struct Material {
  std::string name;
  Vec4 base_color{1, 1, 1, 1};
  int diffuse_texture = -1;  // indices into the textures list beside it
  int normal_texture = -1;
  int specular_texture = -1;
};

}  // namespace ossa
