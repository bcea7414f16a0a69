// reference/reference_eval.h — the straightforward, obviously-correct evaluator: a test oracle, private to
// the tests, benchmarks and `ossa eval` (never installed, never included by the library).
//
// It allocates, searches keys with std::upper_bound and slerps: slow, but each step is the textbook one, so
// it is the truth the fast runtime jobs are tested against and what `ossa eval` prints.
//   * sampling: translation/scale lerp, rotation slerp along the shortest arc, clamped outside the keys;
//     joints without a track (or a channel without keys) keep their rest transform;
//   * local -> model: model[j] = model[parent[j]] * (T * R * S)[j], parents first;
//   * morph targets: weights lerped between their keys (clamped), else the mesh's defaults; each target's
//     deltas added to the bind-time vertices before skinning;
//   * skinning: linear blend, position' = sum w_i * model[remap[k_i]] * inverse_bind[k_i] * position,
//     normals through the inverse-transpose of the blended matrix.
#pragma once

#include <vector>

#include "ossa/asset/raw.h"

namespace ossa::reference {

std::vector<Transform> rest_pose(const RawSkeleton& skeleton);
// Local transforms of every joint at `time` seconds (clamped to the keys).
std::vector<Transform> sample_clip(const RawSkeleton& skeleton, const RawClip& clip, float time);
std::vector<Mat4> local_to_model(const RawSkeleton& skeleton, const std::vector<Transform>& local);
// Model matrices at bind time: from the inverse binds where the file has them, else from the rest pose.
std::vector<Mat4> bind_pose_model(const RawSkeleton& skeleton);

struct SkinnedVertices {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;  // empty when the mesh has none
};
// `morph_weights`: one per morph target of the mesh (sample_morph_weights), or empty for none applied.
SkinnedVertices skin_mesh(const RawMesh& mesh, const std::vector<Mat4>& model,
                          const std::vector<float>& morph_weights = {});
// Weights of meshes[mesh_index]'s morph targets in `clip` (may be null) at `time`: the clip's track for that
// mesh, else the mesh's default weights.
std::vector<float> sample_morph_weights(const RawMesh& mesh, int mesh_index, const RawClip* clip, float time);

// Key interpolation used above, exposed for tests.
Vec3 sample_vec3(const std::vector<float>& times, const std::vector<Vec3>& values, float time, Vec3 fallback);
Quat sample_quat(const std::vector<float>& times, const std::vector<Quat>& values, float time, Quat fallback);

}  // namespace ossa::reference
