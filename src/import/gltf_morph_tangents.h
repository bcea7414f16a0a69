// Internal: glTF morph targets' TANGENT deltas, which assimp 5.2.5 drops from targets without NORMAL.
//
// assimp's glTF 2.0 reader (code/AssetLib/glTF2/glTF2Importer.cpp at v5.2.5, ImportMeshes) adds a target's
// TANGENT deltas to the base tangents only when the target also has NORMAL (and the primitive has TANGENT);
// a target with TANGENT but no NORMAL reaches aiAnimMesh with the base tangents unchanged (measured; the glTF
// spec allows any subset of POSITION, NORMAL and TANGENT per target). GltfMorphTangents reads those targets'
// TANGENT accessors itself, through GltfFile (gltf_file.h: every index, count, offset and stride checked
// before a byte is read), together with the primitive's POSITION and TANGENT and the target's POSITION, and
// maps the deltas onto assimp's vertices: assimp makes one aiMesh per primitive, in the file's order, and
// JoinIdenticalVertices keeps one of each set of identical vertices, so each of assimp's vertices is matched
// to the file's vertices of exactly the same position, tangent and morphed position. A vertex that matches
// none, or several with different tangent deltas, leaves that target's tangent deltas out, with a warning.
// At most kMaxFloats floats are read for the whole file; non-finite deltas make the import fail.
#pragma once

#include <assimp/mesh.h>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ossa/core/math.h"

namespace ossa::detail {

class GltfMorphTangents {
 public:
  static constexpr size_t kMaxFloats = size_t{1} << 25;  // every accessor read, together

  // Reads the glTF at `path`, or `memory` when it is not empty. Cheap when no target names TANGENT.
  // What cannot be read is a warning (those targets keep assimp's tangents: no deltas).
  void load(const std::string& path, std::span<const uint8_t> memory, std::vector<std::string>& warnings);

  // The file's TANGENT deltas of target `target` of assimp's mesh `mesh` (`am`), in the file's space, one per
  // vertex of `am`, for a target assimp dropped them from; empty otherwise, or with `warning` set when they
  // cannot be mapped onto assimp's vertices. `error` is set when a delta is not finite.
  std::vector<Vec3> deltas(unsigned mesh, const aiMesh& am, unsigned target, std::string& warning,
                           std::string& error) const;

 private:
  struct Target {
    std::vector<float> tangents;   // 3 per file vertex
    std::vector<float> positions;  // 3 per file vertex, or empty (the target has no POSITION)
  };
  struct Primitive {
    std::vector<float> positions;        // 3 per file vertex
    std::vector<float> tangents;         // 4 per file vertex
    std::map<unsigned, Target> targets;  // the targets assimp drops TANGENT from, by index
  };
  std::vector<Primitive> primitives_;  // per primitive, in the file's order (assimp's mesh order)
};

}  // namespace ossa::detail
