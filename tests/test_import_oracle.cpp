// Import + reference evaluation against Blender's evaluation of real files written by others
// (../shared/models, evaluated by ../shared/oracle/blender_eval.py). Tolerances are relative to each model's
// bounding-box diagonal: 1e-4 at key times, 5e-3 between keys (Blender lerps quaternion components).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "oracle_compare.h"
#include "ossa/import/import.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

struct OracleCase {
  std::string name;          // test name
  std::string model;         // file to import
  std::string oracle;        // Blender evaluation to compare with
  std::string expect_error;  // non-empty: the import must fail with a message containing this
  bool morph = false;        // a morph-target file (no joints; weights animated): held to 1e-5 everywhere
};

std::vector<OracleCase> shared_cases() {
  std::vector<OracleCase> cases;
  std::string shared = shared_dir();
  if (shared.empty()) return cases;
  for (const auto& entry : fs::directory_iterator(fs::path(shared) / "oracle")) {
    std::string file = entry.path().filename().string();
    const std::string suffix = ".blender.json";
    if (file.size() <= suffix.size() || file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    std::string stem = file.substr(0, file.size() - suffix.size());
    fs::path models = fs::path(shared) / "models";
    fs::path model;
    for (const char* ext : {".fbx", ".glb", ".gltf", ".dae"})
      if (fs::exists(models / (stem + ext))) model = models / (stem + ext);
    if (model.empty()) continue;
    OracleCase c{stem, model.string(), entry.path().string(), ""};
    std::ifstream in(entry.path());
    auto j = nlohmann::json::parse(in);
    if (!j.value("ok", false)) {
      std::string error = j.value("error", "");
      if (error.find("ASCII") != std::string::npos) {
        // Blender reads no ASCII FBX: compare with the binary twin's evaluation.
        std::string twin = stem;
        auto at = twin.find("ascii");
        if (at == std::string::npos) continue;
        twin.replace(at, 5, "binary");
        c.oracle = (fs::path(shared) / "oracle" / (twin + suffix)).string();
        if (!fs::exists(c.oracle)) continue;
      } else if (error.find("FBX 6") != std::string::npos || error.find("6100") != std::string::npos) {
        c.expect_error = "not supported";
      } else {
        continue;
      }
    }
    for (char& ch : c.name)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    cases.push_back(c);
  }
  // Blender's evaluations between keys (tests/golden/shared_between_keys, made with --snap none).
  fs::path between = fs::path(source_dir()) / "tests/golden/shared_between_keys";
  if (fs::is_directory(between))
    for (const auto& entry : fs::directory_iterator(between)) {
      std::string file = entry.path().filename().string();
      const std::string suffix = ".blender.json";
      if (file.size() <= suffix.size() ||
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0)
        continue;
      fs::path model = fs::path(shared) / "models" / file.substr(0, file.size() - suffix.size());
      if (!fs::exists(model)) continue;
      OracleCase c{model.stem().string() + "_between_keys", model.string(), entry.path().string(), ""};
      for (char& ch : c.name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      cases.push_back(c);
    }
  // Morph-target files sit in subfolders (models/morph, oracle/morph), named here one by one.
  for (const char* stem : {"AnimatedMorphCube", "AnimatedMorphSphere"}) {
    fs::path model = fs::path(shared) / "models" / "morph" / (std::string(stem) + ".gltf");
    fs::path oracle = fs::path(shared) / "oracle" / "morph" / (std::string(stem) + ".blender.json");
    if (fs::exists(model) && fs::exists(oracle))
      cases.push_back({std::string("morph_") + stem, model.string(), oracle.string(), "", true});
  }
  std::sort(cases.begin(), cases.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return cases;
}

// Test names already say which file; keep CTest's listing free of gtest's byte dumps.
void PrintTo(const OracleCase& c, std::ostream* os) {
  *os << c.name;
}

class SharedModels : public ::testing::TestWithParam<OracleCase> {};

void print_report(const OracleReport& r, int influences) {
  std::printf(
      "  [%d influences] size %.4g m, %d samples, %d joints, %d vertices compared; worst at keys: joints "
      "%.3g, "
      "vertices %.3g (%s); between keys: joints %.3g, vertices %.3g\n",
      influences, r.diagonal, r.samples, r.joints_compared, r.vertices_compared, r.max_joint_error,
      r.max_vertex_error, r.worst.c_str(), r.max_joint_error_between, r.max_vertex_error_between);
}

TEST_P(SharedModels, MatchesBlender) {
  const OracleCase& c = GetParam();
  if (!c.expect_error.empty()) {
    auto result = import_file(c.model);
    ASSERT_FALSE(result) << "expected a clear error for " << c.model;
    EXPECT_NE(result.error().find(c.expect_error), std::string::npos) << result.error();
    EXPECT_NE(result.error().find(fs::path(c.model).filename().string()), std::string::npos)
        << "the message names the file: " << result.error();
    return;
  }
  // Blender keeps every weight: compare with 8 influences, tightly.
  OracleReport full = compare_with_oracle(c.model, c.oracle, 8);
  if (c.morph) {
    // Shape keys are linear in their weights, which Blender interpolates linearly like us: no slack between
    // keys. The vertices are the whole test (these files have no joints).
    ASSERT_TRUE(full.ran) << full.error;
    print_report(full, 8);
    for (const std::string& p : full.problems) ADD_FAILURE() << p;
    EXPECT_GT(full.vertices_compared, 0);
    EXPECT_LE(full.max_vertex_error, 1e-5);
    EXPECT_LE(full.max_vertex_error_between, 1e-5);
    return;
  }
  ASSERT_TRUE(full.ran) << full.error;
  print_report(full, 8);
  for (const std::string& p : full.problems) ADD_FAILURE() << p;
  EXPECT_LE(full.max_joint_error, 1e-4);
  EXPECT_LE(full.max_vertex_error, 1e-4);
  EXPECT_LE(full.max_joint_error_between, 5e-3);
  EXPECT_LE(full.max_vertex_error_between, 5e-3);
  EXPECT_GT(full.joints_compared, 0);
  // Blender's rest is the bind pose: exactly for FBX; for glTF as a shape, placed by one translation of the
  // whole skeleton (SimpleSkin: 0.5 m, which puts it on the file's default pose; RobotExpressive: 2.37 m).
  // Where a file's default pose is its bind pose, `rest` then agrees with Blender too (and else differs by
  // design: docs/cli.md).
  const bool fbx = c.model.size() > 4 && c.model.compare(c.model.size() - 4, 4, ".fbx") == 0;
  std::printf(
      "  rest: %d joints; Blender's rest vs Ossa's rest pose %.3g (%s), bind pose %.3g (%s), bind pose "
      "moved by (%.3g, %.3g, %.3g) %.3g; the file's default pose %s its bind pose\n",
      full.rest_joints_compared, full.max_rest_joint_error, full.worst_rest_joint.c_str(),
      full.max_bind_joint_error, full.worst_bind_joint.c_str(), full.bind_translation.x,
      full.bind_translation.y, full.bind_translation.z, full.max_bind_joint_error_translated,
      full.rest_is_bind ? "is" : "is not");
  EXPECT_GT(full.rest_joints_compared, 0);
  EXPECT_LE(fbx ? full.max_bind_joint_error : full.max_bind_joint_error_translated, 1e-5)
      << "joint '" << full.worst_bind_joint << "'";
  if (full.rest_is_bind) {
    EXPECT_LE(full.max_rest_joint_error, 1e-5) << full.worst_rest_joint;
  }

  // The default 4 influences: report the deviation (files with 5-6 influences move by up to ~1 %).
  OracleReport four = compare_with_oracle(c.model, c.oracle, 4, {1.0, 1.0});
  ASSERT_TRUE(four.ran) << four.error;
  print_report(four, 4);
}

std::string case_name(const ::testing::TestParamInfo<OracleCase>& info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Oracle, SharedModels, ::testing::ValuesIn(shared_cases()), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SharedModels);

TEST(SharedModelsPresent, SkipsVisiblyWithoutShared) {
  if (shared_dir().empty())
    GTEST_SKIP() << "../shared/models not found: the Blender-oracle tests on real files were skipped "
                    "(set OSSA_SHARED_DIR to run them)";
  EXPECT_FALSE(shared_cases().empty());
}

}  // namespace
}  // namespace ossa::test
