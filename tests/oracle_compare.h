// Test helper: compares Ossa's import + reference evaluation with Blender's evaluation of the same file
// (the JSON written by ../shared/oracle/blender_eval.py; its README states the conventions used here).
//
// Oracle positions are in Blender's world (+Z up, -Y forward, metres); Ossa's canonical space is +Y up, so
// an Ossa point (x, y, z) is (x, -z, y) in Blender's world. Vertices are paired by nearest rest position
// (FBX) or nearest position in the first posed sample (glTF, whose Blender rest is a guessed bind pose).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/import/import.h"

namespace ossa::test {

struct OracleTolerance {
  double at_keys = 1e-4;  // relative to the model's bounding-box diagonal
  double between_keys = 5e-3;
};

struct OracleReport {
  bool ran = false;
  std::string error;            // set when the comparison could not be made (import failed, ...)
  double diagonal = 0;          // model size (m)
  double max_joint_error = 0;   // worst joint distance / diagonal, at key times
  double max_vertex_error = 0;  // worst vertex distance / diagonal, at key times
  double max_joint_error_between = 0, max_vertex_error_between = 0;
  // Blender's rest joints against the skeleton's rest pose in the world (`ossa eval`'s `rest`) and against
  // the bind pose (`bind`), exactly and after the best translation of the whole skeleton (bind_translation).
  int rest_joints_compared = 0;
  double max_rest_joint_error = 0, max_bind_joint_error = 0, max_bind_joint_error_translated = 0;
  std::string worst_rest_joint, worst_bind_joint;
  Vec3 bind_translation{0, 0, 0};
  bool rest_is_bind = false;  // the file's default pose is its bind pose (within 1e-5 of the size)
  std::string worst;          // where the worst error occurred
  int samples = 0, joints_compared = 0, vertices_compared = 0;
  std::vector<std::string> problems;  // mismatches beyond tolerance, missing joints/clips, ...
};

// One evaluation of a clip at a time: model-space matrices (one per skeleton joint) and every mesh's posed
// vertices (morphed, then skinned), one list per scene mesh, in Ossa's canonical space.
struct OraclePose {
  std::vector<Mat4> model;
  std::vector<std::vector<Vec3>> meshes;
  std::string error;  // why there is no evaluation (then model and meshes are empty)
};
// Evaluates `scene`'s clip `clip` at time t (seconds). Called with the scene compare_with_oracle imported.
using OracleEvaluator = std::function<OraclePose(const ImportedScene& scene, int clip, float t)>;

// Ossa's reference evaluation (reference/reference_eval.h): what compare_with_oracle uses by default.
OraclePose reference_pose(const ImportedScene& scene, int clip, float t);
// Ossa's runtime path: CharacterAsset::build(scene) in `layout` (built on the first call), an Animator
// playing the clip seeked to t, then per mesh MorphJob (the Animator's weights) and SkinningJob (its
// palette).
OracleEvaluator runtime_evaluator(Clip::Layout layout);

// model_path: the file to import; oracle_path: its Blender evaluation; evaluate: what is compared (the
// reference evaluation when empty).
OracleReport compare_with_oracle(const std::string& model_path, const std::string& oracle_path,
                                 int max_influences, const OracleTolerance& tolerance = {},
                                 const OracleEvaluator& evaluate = {});

// Folder of ../shared (env OSSA_SHARED_DIR overrides); empty when absent.
std::string shared_dir();
// The repository root (for assets/ and tests/golden/).
std::string source_dir();
// Every animated model the runtime tests run on: the bundled sample (FBX, GLB), the 71-joint humanoid, and
// the readable files of ../shared/models when present.
std::vector<std::string> animated_models();

}  // namespace ossa::test
