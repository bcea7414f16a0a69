// Test helper: compares Ossa's import + reference evaluation with Blender's evaluation of the same file
// (the JSON written by ../shared/oracle/blender_eval.py; its README states the conventions used here).
//
// Oracle positions are in Blender's world (+Z up, -Y forward, metres); Ossa's canonical space is +Y up, so
// an Ossa point (x, y, z) is (x, -z, y) in Blender's world. Vertices are paired by nearest rest position
// (FBX) or nearest position in the first posed sample (glTF, whose Blender rest is a guessed bind pose).
#pragma once

#include <string>
#include <vector>

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
  std::string worst;  // where the worst error occurred
  int samples = 0, joints_compared = 0, vertices_compared = 0;
  std::vector<std::string> problems;  // mismatches beyond tolerance, missing joints/clips, ...
};

// model_path: the file to import; oracle_path: its Blender evaluation.
OracleReport compare_with_oracle(const std::string& model_path, const std::string& oracle_path,
                                 int max_influences, const OracleTolerance& tolerance = {});

// Folder of ../shared (env OSSA_SHARED_DIR overrides); empty when absent.
std::string shared_dir();
// The repository root (for assets/ and tests/golden/).
std::string source_dir();
// Every animated model the runtime tests run on: the bundled sample (FBX, GLB), the 71-joint humanoid, and
// the readable files of ../shared/models when present.
std::vector<std::string> animated_models();

}  // namespace ossa::test
