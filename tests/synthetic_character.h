// Test helper: a character made in code (no model file, no assimp), for the tests that must also run where
// only ossa::runtime is built (the aarch64 cross build under qemu). Deterministic for a given seed.
//
// Shaped like the bundled sample where it matters to the runtime: clips named "Armature|Walk", "|Wave",
// "|Idle" and "|Turn" (so assets/sample/ossa_sample.notifies.json attaches to them), keys at 30 fps, a
// skinned mesh with positions, normals and tangents. Beyond the sample: joint counts that are not multiples
// of four, branches that do not follow their parent, non-uniform scale keys, a second mesh with 2 influences
// and a palette remap.
#pragma once

#include <cstdint>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/raw.h"

namespace ossa::test {

struct SyntheticScene {
  RawSkeleton skeleton;
  std::vector<RawClip> clips;
  std::vector<RawMesh> meshes;
};

SyntheticScene synthetic_scene(int joints = 33, uint32_t seed = 1);
// The scene built into runtime assets (aborts the test binary when the builder refuses it: a bug here).
CharacterAsset synthetic_character(int joints = 33, uint32_t seed = 1,
                                   const CharacterBuildOptions& options = {});

// The synthetic character (33 joints) with morph targets of large deltas, for the renderer's tests: `targets`
// on the Body (997 vertices), each moving a window of about 150 vertices (every vertex of it, or a random
// two thirds) by 0.15-0.5 units (the mesh is 2 units across) with normal and tangent deltas (up to 0.6 and
// 0.8), and one that moves vertices scattered over the whole mesh; 3 targets on the Cape (which has no
// tangents), without normal deltas. Default weights 0. The clip "Armature|Walk" animates the Body's first 3
// targets (a weight track). The Body uses material 0 (tilted_normal_map() in backend_comparison.h: a normal
// map, so that its tangents and tangent deltas change the picture). `influences` > 0: each vertex keeps that
// many of its strongest influences, renormalised.
CharacterAsset synthetic_morph_character(int targets = 12, uint32_t seed = 5, int influences = 0);

// The smallest skeleton with a hierarchy: "root", and "child" 1 unit above it.
RawSkeleton two_joint_raw_skeleton();  // "root" and "child", 1 unit above it
Skeleton two_joint_skeleton();

}  // namespace ossa::test
