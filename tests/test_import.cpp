// Import rules on files whose content the test states exactly (written by GltfBuilder), plus bad input.
#include <gtest/gtest.h>

#include "expect_near.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/import/import.h"
#include "ossa/reference/reference_eval.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;
const float kS = std::sin(3.14159265f / 4), kC = std::cos(3.14159265f / 4);

// Two-joint chain Root -> Child (1 m up). A skinned mesh "Body" on a node moved 2 m along z, with one
// vertex per case: on Root, on Child, split 50/50, and one without weights. A rigid mesh on a node that is
// also called "Child" (a name clash with the bone), 5 m along x. Root turns 90 deg about z over 1 s.
std::string write_chain(const std::string& dir, float nan_at = 0, const char* name = "chain.gltf") {
  GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Root"}, {"children", {1}}});
  b.add_node({{"name", "Child"}, {"translation", {0, 1, 0}}});
  b.add_node({{"name", "Body"}, {"mesh", 0}, {"skin", 0}, {"translation", {0, 0, 2}}});
  b.add_node({{"name", "Child"}, {"mesh", 1}, {"translation", {5, 0, 0}}});
  d["scenes"][0]["nodes"] = {0, 2, 3};
  int positions = b.add_floats({0, 0, 0, 0, 1, 0, 0.5f, 1, 0, 1, 0, 0}, "VEC3", true);
  int joints = b.add_u16({0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, "VEC4");
  int weights = b.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0, 0, 0, 0}, "VEC4");
  int indices = b.add_u16({0, 1, 2, 0, 2, 3}, "SCALAR");
  int prop_positions = b.add_floats({0, 0, 0, 0.1f, 0, 0, 0, 0.1f, 0}, "VEC3", true);
  nlohmann::json body_attributes = {{"POSITION", positions}, {"JOINTS_0", joints}, {"WEIGHTS_0", weights}};
  nlohmann::json body_primitive = {{"attributes", body_attributes}, {"indices", indices}};
  nlohmann::json prop_primitive = {{"attributes", {{"POSITION", prop_positions}}}};
  d["meshes"] = nlohmann::json::array();
  d["meshes"].push_back({{"name", "BodyMesh"}, {"primitives", nlohmann::json::array({body_primitive})}});
  d["meshes"].push_back({{"name", "PropMesh"}, {"primitives", nlohmann::json::array({prop_primitive})}});
  int ibm = b.add_floats({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0,  0, 1,  //
                          1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1},
                         "MAT4");
  d["skins"] = nlohmann::json::array();
  d["skins"].push_back({{"joints", {0, 1}}, {"inverseBindMatrices", ibm}, {"skeleton", 0}});
  int times = b.add_floats({0, 1}, "SCALAR", true);
  // glTF stores quaternions (x, y, z, w): 90 deg about z at t = 1.
  int rotations = b.add_floats({0, 0, 0, 1, nan_at, 0, kS, kC}, "VEC4");
  nlohmann::json sampler = {{"input", times}, {"output", rotations}, {"interpolation", "LINEAR"}};
  nlohmann::json channel = {{"sampler", 0}, {"target", {{"node", 0}, {"path", "rotation"}}}};
  d["animations"] = nlohmann::json::array();
  d["animations"].push_back({{"name", "Turn"},
                             {"samplers", nlohmann::json::array({sampler})},
                             {"channels", nlohmann::json::array({channel})}});
  std::string path = (fs::path(dir) / name).string();
  b.write(path);
  return path;
}

class ChainFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir("chain");
    auto result = import_file(write_chain(dir_));
    ASSERT_TRUE(result) << result.error();
    scene_ = std::move(result).value();
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::vector<Mat4> model_at(float t) {
    const RawSkeleton& s = scene_.skeleton;
    return reference::local_to_model(s, reference::sample_clip(s, scene_.clips.at(0), t));
  }
  const RawMesh& mesh(const std::string& name) {
    for (const RawMesh& m : scene_.meshes)
      if (m.name == name) return m;
    ADD_FAILURE() << "no mesh " << name;
    return scene_.meshes.at(0);
  }
  std::string dir_;
  ImportedScene scene_;
};

TEST_F(ChainFile, QuaternionComponentOrderIsKept) {
  // A swapped (w, x, y, z) / (x, y, z, w) conversion turns Child somewhere else entirely.
  int child = scene_.skeleton.find("Child");
  ASSERT_GE(child, 0);
  expect_near(model_at(0)[child].translation(), {0, 1, 0});
  expect_near(model_at(1)[child].translation(), {-1, 0, 0});
  expect_near(model_at(0.5f)[child].translation(), {-kS, kC, 0});  // slerp halfway: 45 deg
  const Quat& key = scene_.clips[0].tracks.at(0).rotations.at(1);
  EXPECT_NEAR(key.z, kS, 1e-6f);
  EXPECT_NEAR(key.w, kC, 1e-6f);
}

TEST_F(ChainFile, SkeletonComesFromTheNodeTree) {
  const RawSkeleton& s = scene_.skeleton;
  ASSERT_EQ(s.find("Root"), 0);
  EXPECT_EQ(s.joints[s.find("Child")].parent, 0);
  EXPECT_TRUE(s.joints[s.find("Child")].weighted);
  for (size_t j = 0; j < s.joints.size(); ++j) EXPECT_LT(s.joints[j].parent, static_cast<int>(j));
  // The mesh node whose name clashes with the bone gets a distinct, deterministic name.
  EXPECT_GE(s.find("Child#2"), 0);
  EXPECT_TRUE(s.joints[s.find("Child#2")].is_mesh_node);
  EXPECT_FALSE(s.joints[s.find("Child#2")].weighted);
}

TEST_F(ChainFile, WeightsBindToTheBoneNotTheSameNamedMeshNode) {
  auto skinned = reference::skin_mesh(mesh("Body"), model_at(1)).positions;
  expect_near(skinned[0], {0, 0, 0});
  expect_near(skinned[1], {-1, 0, 0});     // on Child: turned with Root
  expect_near(skinned[2], {-1, 0.5f, 0});  // 50/50 between Root and Child
}

TEST_F(ChainFile, UnweightedVerticesFollowTheMeshNode) {
  const RawMesh& body = mesh("Body");
  EXPECT_EQ(body.influence_stats.unweighted_vertices, 1);
  // glTF: a skinned mesh ignores its node's transform, but a vertex without weights can only follow the node.
  for (float t : {0.f, 0.5f, 1.f}) {
    expect_near(reference::skin_mesh(body, model_at(t)).positions[3], {1, 0, 2});
  }
  EXPECT_FALSE(scene_.warnings.empty());
}

TEST_F(ChainFile, RigidMeshesFollowTheirNode) {
  const RawMesh& prop = mesh("Child");  // mesh names are unique among meshes; the joint is "Child#2"
  EXPECT_EQ(scene_.skeleton.joints[prop.node_joint].name, "Child#2");
  EXPECT_FALSE(prop.skinned);
  auto skinned = reference::skin_mesh(prop, model_at(1)).positions;
  expect_near(skinned[1], {5.1f, 0, 0});
}

TEST_F(ChainFile, InfluencesAreSortedAndNormalised) {
  const RawMesh& body = mesh("Body");
  const int k = body.influences_per_vertex;
  ASSERT_EQ(k, 2);  // the most found on a vertex
  for (size_t v = 0; v < body.positions.size(); ++v) {
    float sum = 0;
    for (int i = 0; i < k; ++i) {
      sum += body.influence_weights[v * k + i];
      if (i > 0) {
        EXPECT_GE(body.influence_weights[v * k + i - 1], body.influence_weights[v * k + i]);
      }
    }
    EXPECT_NEAR(sum, 1.f, 1e-6f);
  }
}

TEST_F(ChainFile, LeftHandedOptionMirrorsZ) {
  ImportOptions options;
  options.left_handed = true;
  auto lh = import_file(write_chain(dir_, 0, "lh.gltf"), options);
  ASSERT_TRUE(lh) << lh.error();
  const RawMesh* body = nullptr;
  for (const RawMesh& m : lh->meshes)
    if (m.name == "Body") body = &m;
  ASSERT_NE(body, nullptr);
  auto model = reference::local_to_model(lh->skeleton, reference::sample_clip(lh->skeleton, lh->clips[0], 1));
  auto skinned = reference::skin_mesh(*body, model).positions;
  expect_near(skinned[3], {1, 0, -2});
  expect_near(skinned[1], {-1, 0, 0});
  // Winding flips with the mirror, so front faces stay front faces.
  EXPECT_EQ(body->indices[1], mesh("Body").indices[2]);
}

TEST(ImportErrors, NaNKeyIsRejectedWithFileAndPlace) {
  std::string dir = temp_dir("nan");
  std::string path = write_chain(dir, std::nanf(""), "nan.gltf");
  auto result = import_file(path);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find("nan.gltf"), std::string::npos) << result.error();
  EXPECT_NE(result.error().find("not finite"), std::string::npos) << result.error();
  EXPECT_NE(result.error().find("Turn"), std::string::npos) << result.error();
  fs::remove_all(dir);
}

TEST(ImportErrors, MissingEmptyAndForeignFilesAreClearErrors) {
  std::string dir = temp_dir("bad");
  auto missing = import_file(dir + "/nope.fbx");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("nope.fbx: no such file"), std::string::npos) << missing.error();

  std::ofstream(dir + "/empty.fbx").close();
  auto empty = import_file(dir + "/empty.fbx");
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().find("empty.fbx: empty file"), std::string::npos) << empty.error();

  std::ofstream(dir + "/notes.fbx") << "this is not an FBX file at all\n";
  auto foreign = import_file(dir + "/notes.fbx");
  ASSERT_FALSE(foreign);
  EXPECT_NE(foreign.error().find("notes.fbx"), std::string::npos) << foreign.error();

  ImportOptions nine;
  nine.max_influences = 9;
  auto bad_option = import_file(write_chain(dir), nine);
  ASSERT_FALSE(bad_option);
  EXPECT_NE(bad_option.error().find("max_influences"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ossa::test

namespace ossa::test {
namespace {
// The default 4-influence cut keeps the four strongest of six unequal weights, strongest first, renormalised
// over what is kept. Truth: the weights written into the file, sorted by hand.
TEST(Influences, TheStrongestFourOfSixAreKeptAndRenormalised) {
  const std::string dir = temp_dir("six_influences");
  GltfBuilder b;
  for (int i = 0; i < 6; ++i) {
    std::string name = "J";  // (GCC 12 warns falsely on "J" + std::to_string(i))
    name += std::to_string(i);
    nlohmann::json node = {{"name", name}, {"translation", {0, 0.1, 0}}};
    if (i < 5) node["children"] = {i + 1};
    b.add_node(node);
  }
  b.add_node({{"name", "Body"}, {"mesh", 0}, {"skin", 0}});
  b.doc()["scenes"][0]["nodes"] = {0, 6};
  // Vertex 0: J0 0.04, J1 0.30, J2 0.11, J3 0.25 (set 0) and J4 0.20, J5 0.10 (set 1). The others: J0 only.
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  int joints0 = b.add_u16({0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC4");
  int weights0 = b.add_floats({0.04f, 0.3f, 0.11f, 0.25f, 1, 0, 0, 0, 1, 0, 0, 0}, "VEC4");
  int joints1 = b.add_u16({4, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC4");
  int weights1 = b.add_floats({0.2f, 0.1f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "VEC4");
  std::vector<float> binds;
  for (int j = 0; j < 6; ++j)
    for (int k = 0; k < 16; ++k) binds.push_back(k % 5 == 0 ? 1.f : 0.f);
  int ibm = b.add_floats(binds, "MAT4");
  nlohmann::json attributes = {{"POSITION", positions},
                               {"JOINTS_0", joints0},
                               {"WEIGHTS_0", weights0},
                               {"JOINTS_1", joints1},
                               {"WEIGHTS_1", weights1}};
  nlohmann::json primitive = {{"attributes", attributes}};
  b.doc()["meshes"] = nlohmann::json::array({{{"primitives", nlohmann::json::array({primitive})}}});
  b.doc()["skins"] = nlohmann::json::array({{{"joints", {0, 1, 2, 3, 4, 5}}, {"inverseBindMatrices", ibm}}});
  b.write(dir + "/six.gltf");

  auto scene = import_file(dir + "/six.gltf");  // default options: 4 influences
  ASSERT_TRUE(scene) << scene.error();
  const RawMesh& mesh = scene->meshes.at(0);
  ASSERT_EQ(mesh.influences_per_vertex, 4);
  EXPECT_EQ(mesh.influence_stats.max_found, 6);
  EXPECT_EQ(mesh.influence_stats.vertices_cut, 1);
  EXPECT_NEAR(mesh.influence_stats.largest_dropped, 0.1f, 1e-6f);
  const char* expected_joints[4] = {"J1", "J3", "J4", "J2"};
  const float expected_weights[4] = {0.3f / 0.86f, 0.25f / 0.86f, 0.2f / 0.86f, 0.11f / 0.86f};
  for (int i = 0; i < 4; ++i) {
    const int joint = mesh.joint_remap.at(mesh.influence_joints[i]);
    EXPECT_EQ(scene->skeleton.joints.at(joint).name, expected_joints[i]) << "influence " << i;
    EXPECT_NEAR(mesh.influence_weights[i], expected_weights[i], 1e-6f) << "influence " << i;
  }
  fs::remove_all(dir);
}
}  // namespace
}  // namespace ossa::test

namespace ossa::test {
namespace {
// Normals through a node with non-uniform scale must use the node's inverse transpose. Truth that does not go
// through the normal code: the face normal of the imported triangle's own (transformed) corners, and the hand
// value. Triangle (1,0,0) (0,1,0) (0,0,1), file normal (1,1,1)/sqrt(3), node scale (1,4,1) then a +90 deg
// turn about z: corners (0,1,0) (-4,0,0) (0,0,1), face normal (-1,4,4)/sqrt(33). The node matrix itself would
// give R * (1,4,1) = (-4,1,1)/sqrt(18): 51 degrees off.
TEST(ImportNormals, NonUniformScaleUsesTheInverseTranspose) {
  const std::string dir = temp_dir("normals");
  GltfBuilder b;
  b.add_node({{"name", "Plate"}, {"mesh", 0}, {"scale", {1, 4, 1}}, {"rotation", {0, 0, kS, kC}}});
  b.doc()["scenes"][0]["nodes"] = {0};
  const float n = 1 / std::sqrt(3.f);
  int positions = b.add_floats({1, 0, 0, 0, 1, 0, 0, 0, 1}, "VEC3", true);
  int normals = b.add_floats({n, n, n, n, n, n, n, n, n}, "VEC3");
  nlohmann::json primitive = {{"attributes", {{"POSITION", positions}, {"NORMAL", normals}}}};
  b.doc()["meshes"] = nlohmann::json::array({{{"primitives", nlohmann::json::array({primitive})}}});
  b.write(dir + "/plate.gltf");

  auto scene = import_file(dir + "/plate.gltf");
  ASSERT_TRUE(scene) << scene.error();
  ASSERT_EQ(scene->meshes.size(), 1u);
  const RawMesh& mesh = scene->meshes[0];
  ASSERT_EQ(mesh.positions.size(), 3u);
  ASSERT_EQ(mesh.normals.size(), 3u);
  const Vec3 face =
      normalize(cross(mesh.positions[1] - mesh.positions[0], mesh.positions[2] - mesh.positions[0]));
  const float k = 1 / std::sqrt(33.f);
  expect_near(face, Vec3{-k, 4 * k, 4 * k}, 1e-5f);  // the corners themselves are right
  for (int v = 0; v < 3; ++v) {
    SCOPED_TRACE(testing::Message() << "vertex " << v);
    expect_near(mesh.normals[v], face, 1e-5f);
  }
  fs::remove_all(dir);
}

// An FBX without UnitScaleFactor is in centimetres (the FBX SDK's default), with or without axis metadata.
// The files are the bundled sample (UnitScaleFactor 1: centimetres) with one property renamed in place (same
// length, so the binary records stay valid): the truth is the unpatched file's bind pose. Setting the factor
// to 100 (metres) first shows that the property is read at all. (assimp 5.2.5 itself reports the FBX SDK's
// defaults for missing GlobalSettings, so Ossa's own fallback is a second line; the behaviour is what
// counts.)
TEST(ImportUnits, FbxWithoutUnitMetadataIsCentimetres) {
  std::ifstream in(source_dir() + "/assets/sample/ossa_sample.fbx", std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(original.empty());
  // A property name in a binary FBX record: 'S', u32 length, the characters.
  auto property = [](const std::string& name) {
    std::string key = "S";
    const uint32_t length = static_cast<uint32_t>(name.size());
    key.append(reinterpret_cast<const char*>(&length), 4);
    return key + name;
  };
  auto patched = [&](std::string bytes, const std::string& name, const std::string& replacement) {
    const size_t at = bytes.find(property(name));
    EXPECT_NE(at, std::string::npos) << name;
    EXPECT_EQ(bytes.find(property(name), at + 1), std::string::npos) << name << " twice";
    if (at != std::string::npos) bytes.replace(at + 5, name.size(), replacement);
    return bytes;
  };
  const std::string dir = temp_dir("fbx_units");
  auto bind_pose = [&](const std::string& bytes, const std::string& name, ImportedScene* scene_out) {
    const std::string path = dir + "/" + name + ".fbx";
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    auto scene = import_file(path);
    EXPECT_TRUE(scene) << name << ": " << scene.error();
    if (!scene) return std::vector<Mat4>{};
    *scene_out = *scene;
    return reference::local_to_model(scene->skeleton, reference::rest_pose(scene->skeleton));
  };

  ImportedScene reference_scene, metres_scene, no_unit_scene, no_axes_scene;
  const auto truth = bind_pose(original, "original", &reference_scene);
  // UnitScaleFactor 100: the double that follows the property's three type strings ("double", "Number", "").
  std::string metres = original;
  {
    const size_t at = metres.find(property("UnitScaleFactor"));
    ASSERT_NE(at, std::string::npos);
    const size_t value_at = metres.find('D', at + 5 + 15) + 1;
    const double hundred = 100;
    metres.replace(value_at, 8, reinterpret_cast<const char*>(&hundred), 8);
  }
  const auto in_metres = bind_pose(metres, "metres", &metres_scene);
  const auto no_unit =
      bind_pose(patched(original, "UnitScaleFactor", "XnitScaleFactor"), "no_unit", &no_unit_scene);
  const auto no_axes =
      bind_pose(patched(patched(original, "UnitScaleFactor", "XnitScaleFactor"), "UpAxis", "XpAxis"),
                "no_axes", &no_axes_scene);
  ASSERT_FALSE(truth.empty());
  ASSERT_EQ(in_metres.size(), truth.size());
  ASSERT_EQ(no_unit.size(), truth.size());
  ASSERT_EQ(no_axes.size(), truth.size());
  EXPECT_DOUBLE_EQ(reference_scene.space.unit_scale, 0.01);
  EXPECT_DOUBLE_EQ(metres_scene.space.unit_scale, 1.0);
  EXPECT_DOUBLE_EQ(no_unit_scene.space.unit_scale, 0.01);
  EXPECT_DOUBLE_EQ(no_axes_scene.space.unit_scale, 0.01);
  float height = 0;  // the sample is 1.8 m tall: the head joint is well above 1 m
  for (size_t j = 0; j < truth.size(); ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    const Vec3 p = truth[j].translation();
    height = std::max(height, p.y);
    expect_near(in_metres[j].translation(), p * 100.f, 1e-3f);
    expect_near(no_unit[j].translation(), p, 1e-5f);
    expect_near(no_axes[j].translation(), p, 1e-5f);
  }
  EXPECT_GT(height, 1.f);
  fs::remove_all(dir);
}
}  // namespace
}  // namespace ossa::test
