// The bundled sample character (assets/sample, made by tools/assets/make_sample.py) against Blender's
// evaluation committed in tests/golden: runs everywhere, no ../shared needed.
#include <gtest/gtest.h>

#include <filesystem>

#include "oracle_compare.h"
#include "ossa/import/import.h"
#include "ossa/reference/reference_eval.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

std::string sample(const char* file) {
  return (fs::path(source_dir()) / "assets/sample" / file).string();
}
std::string golden(const char* file) {
  return (fs::path(source_dir()) / "tests/golden" / file).string();
}

void check_against_golden(const char* model, const char* oracle) {
  OracleReport full = compare_with_oracle(sample(model), golden(oracle), 8);
  ASSERT_TRUE(full.ran) << full.error;
  std::printf(
      "  [8 influences] %d samples, %d joints, %d vertices; worst at keys: joints %.3g, vertices %.3g (%s); "
      "between keys: joints %.3g, vertices %.3g\n",
      full.samples, full.joints_compared, full.vertices_compared, full.max_joint_error, full.max_vertex_error,
      full.worst.c_str(), full.max_joint_error_between, full.max_vertex_error_between);
  for (const std::string& p : full.problems) ADD_FAILURE() << p;
  EXPECT_LE(full.max_joint_error, 1e-4);
  EXPECT_LE(full.max_vertex_error, 1e-4);
  EXPECT_LE(full.max_joint_error_between, 5e-3);
  EXPECT_LE(full.max_vertex_error_between, 5e-3);
  EXPECT_GT(full.vertices_compared, 1000);

  OracleReport four = compare_with_oracle(sample(model), golden(oracle), 4, {1.0, 1.0});
  ASSERT_TRUE(four.ran) << four.error;
  std::printf("  [4 influences] worst deviation: vertices %.3g of the size at keys, %.3g between\n",
              four.max_vertex_error, four.max_vertex_error_between);
}

TEST(SampleGolden, FbxMatchesBlender) {
  check_against_golden("ossa_sample.fbx", "ossa_sample.fbx.blender.json");
}
TEST(SampleGolden, GlbMatchesBlender) {
  check_against_golden("ossa_sample.glb", "ossa_sample.glb.blender.json");
}

TEST(SampleContent, HasWhatTheSampleMustExercise) {
  auto scene = import_file(sample("ossa_sample.fbx"));
  ASSERT_TRUE(scene) << scene.error();
  const RawSkeleton& skeleton = scene->skeleton;
  EXPECT_GE(skeleton.joints.size(), 20u);
  ASSERT_GE(skeleton.find("hand_r_socket"), 0);
  EXPECT_FALSE(skeleton.joints[skeleton.find("hand_r_socket")].weighted);  // socket kept although unweighted
  EXPECT_FALSE(skeleton.joints[skeleton.find("head_socket")].weighted);
  int skinned = 0, rigid = 0;
  for (const RawMesh& m : scene->meshes) {
    skinned += m.skinned;
    rigid += !m.skinned;
    if (m.name == "Body") {
      EXPECT_GT(m.influence_stats.max_found, 4);
      EXPECT_GT(m.influence_stats.vertices_cut, 0);
      EXPECT_EQ(m.influences_per_vertex, 4);
    }
  }
  EXPECT_EQ(skinned, 2);
  EXPECT_EQ(rigid, 1);
  ASSERT_EQ(scene->clips.size(), 4u);
  EXPECT_NEAR(scene->clips[scene->find_clip("Armature|Walk")].duration, 1.0f, 1e-6f);
  EXPECT_NEAR(scene->clips[scene->find_clip("Armature|Idle")].duration, 2.0f, 1e-6f);
  bool diffuse_found = false;
  for (const Material& m : scene->materials)
    if (m.diffuse_texture >= 0) diffuse_found = !scene->textures[m.diffuse_texture].resolved_path.empty();
  EXPECT_TRUE(diffuse_found) << "the FBX's diffuse texture should resolve next to the model";
}

// The same character through two formats and two assimp readers: joints agree at every key.
TEST(SampleContent, FbxAndGlbAgree) {
  auto fbx = import_file(sample("ossa_sample.fbx"));
  auto glb = import_file(sample("ossa_sample.glb"));
  ASSERT_TRUE(fbx && glb);
  int compared = 0;
  for (const RawClip& clip : glb->clips) {
    int fi = fbx->find_clip("Armature|" + clip.name);
    ASSERT_GE(fi, 0) << clip.name;
    for (float t = 0; t <= clip.duration; t += 1.0f / 30) {
      auto gm = reference::local_to_model(glb->skeleton, reference::sample_clip(glb->skeleton, clip, t));
      auto fm =
          reference::local_to_model(fbx->skeleton, reference::sample_clip(fbx->skeleton, fbx->clips[fi], t));
      for (size_t j = 0; j < glb->skeleton.joints.size(); ++j) {
        int k = fbx->skeleton.find(glb->skeleton.joints[j].name);
        if (k < 0) continue;
        EXPECT_LT(length(gm[j].translation() - fm[k].translation()), 1e-4f)
            << clip.name << " t=" << t << " " << glb->skeleton.joints[j].name;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1000);
}

}  // namespace
}  // namespace ossa::test
