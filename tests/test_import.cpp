// Import rules on files whose content the test states exactly (written by GltfBuilder), plus bad input.
#include <gtest/gtest.h>

#include "expect_near.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "../src/import/scene_wire.h"
#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/import/import.h"
#include "reference/reference_eval.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;
const float kS = std::sin(3.14159265f / 4), kC = std::cos(3.14159265f / 4);

// Two-joint chain Root -> Child (1 m up). A skinned mesh "Body" on a node moved 2 m along z, with one
// vertex per case: on Root, on Child, split 50/50, and one without weights. A rigid mesh on a node that is
// also called "Child" (a name clash with the bone), 5 m along x. Root turns 90 deg about z over 1 s.
// mesh_node_first: the mesh node that shares the bone's name comes first in the scene's node order.
std::string write_chain(const std::string& dir, float nan_at = 0, const char* name = "chain.gltf",
                        bool mesh_node_first = false) {
  GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Root"}, {"children", {1}}});
  b.add_node({{"name", "Child"}, {"translation", {0, 1, 0}}});
  b.add_node({{"name", "Body"}, {"mesh", 0}, {"skin", 0}, {"translation", {0, 0, 2}}});
  b.add_node({{"name", "Child"}, {"mesh", 1}, {"translation", {5, 0, 0}}});
  d["scenes"][0]["nodes"] = mesh_node_first ? nlohmann::json{3, 2, 0} : nlohmann::json{0, 2, 3};
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
  int child = scene_.skeleton.find_joint("Child");
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
  ASSERT_EQ(s.find_joint("Root"), 0);
  EXPECT_EQ(s.joints[s.find_joint("Child")].parent, 0);
  EXPECT_TRUE(s.joints[s.find_joint("Child")].weighted);
  for (size_t j = 0; j < s.joints.size(); ++j) EXPECT_LT(s.joints[j].parent, static_cast<int>(j));
  // The mesh node whose name clashes with the bone gets a distinct, deterministic name.
  EXPECT_GE(s.find_joint("Child#2"), 0);
  EXPECT_TRUE(s.joints[s.find_joint("Child#2")].is_mesh_node);
  EXPECT_FALSE(s.joints[s.find_joint("Child#2")].weighted);
}

// A bone and a mesh node of the same name: the bone keeps the plain name whatever the node order (Blender's
// rule, and the name users see in their tools), so find() by that name gives the bone.
TEST(Import, TheBoneKeepsThePlainNameWhenAMeshNodeComesFirst) {
  const std::string dir = temp_dir("chain_mesh_first");
  auto scene = import_file(write_chain(dir, 0, "chain.gltf", true));
  fs::remove_all(dir);
  ASSERT_TRUE(scene) << scene.error();
  const RawSkeleton& s = scene->skeleton;
  ASSERT_GE(s.find_joint("Child"), 0);
  ASSERT_GE(s.find_joint("Child#2"), 0);
  EXPECT_TRUE(s.joints[s.find_joint("Child")].weighted);
  EXPECT_FALSE(s.joints[s.find_joint("Child")].is_mesh_node);
  EXPECT_TRUE(s.joints[s.find_joint("Child#2")].is_mesh_node);
  EXPECT_LT(s.find_joint("Child#2"), s.find_joint("Child"));  // the mesh node did come first
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

// The bundled sample FBX with properties of its GlobalSettings changed in place (binary FBX: a property
// record holds its name as 'S', u32 length, characters, then three type strings, then a typed value),
// imported.
class PatchedSampleFbx {
 public:
  PatchedSampleFbx() : dir_(temp_dir("fbx_patched")) {
    std::ifstream in(source_dir() + "/assets/sample/ossa_sample.fbx", std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ~PatchedSampleFbx() { fs::remove_all(dir_); }
  bool loaded() const { return !bytes_.empty(); }
  // Renames the property (same length, so the records stay valid): as if the file did not have it.
  void remove(const std::string& name, const std::string& same_length_name) {
    if (size_t at = find(name); at != std::string::npos)
      bytes_.replace(at + 5, name.size(), same_length_name);
  }
  void set_int(const std::string& name, int32_t value) { set_value(name, 'I', &value, 4); }
  void set_double(const std::string& name, double value) { set_value(name, 'D', &value, 8); }
  Result<ImportedScene> import(const std::string& name) const {
    const std::string path = dir_ + "/" + name + ".fbx";
    std::ofstream(path, std::ios::binary).write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    return import_file(path);
  }

 private:
  size_t find(const std::string& name) const {
    std::string key = "S";
    const uint32_t length = static_cast<uint32_t>(name.size());
    key.append(reinterpret_cast<const char*>(&length), 4);
    key += name;
    const size_t at = bytes_.find(key);
    EXPECT_NE(at, std::string::npos) << name;
    EXPECT_EQ(bytes_.find(key, at + 1), std::string::npos) << name << " twice";
    return at;
  }
  void set_value(const std::string& name, char type, const void* value, size_t size) {
    size_t at = find(name);
    if (at == std::string::npos) return;
    at += 5 + name.size();
    for (int k = 0; k < 3; ++k) {  // the type strings
      uint32_t length;
      ASSERT_EQ(bytes_[at], 'S') << name;
      std::memcpy(&length, &bytes_[at + 1], 4);
      at += 5 + length;
    }
    ASSERT_EQ(bytes_[at], type) << name;
    bytes_.replace(at + 1, size, static_cast<const char*>(value), size);
  }
  std::string dir_, bytes_;
};

std::vector<Mat4> bind_pose(const ImportedScene& scene) {
  return reference::local_to_model(scene.skeleton, reference::rest_pose(scene.skeleton));
}

// An FBX without UnitScaleFactor is in centimetres (the FBX SDK's default), with or without axis metadata:
// the truth is the unpatched sample's bind pose (UnitScaleFactor 1: centimetres). Setting the factor to 100
// (metres) first shows that the property is read at all. (assimp 5.2.5 itself reports the FBX SDK's defaults
// for missing GlobalSettings, so Ossa's own fallback is a second line; the behaviour is what counts.)
TEST(ImportUnits, FbxWithoutUnitMetadataIsCentimetres) {
  PatchedSampleFbx file;
  ASSERT_TRUE(file.loaded());
  auto original = file.import("original");
  file.set_double("UnitScaleFactor", 100);
  auto metres = file.import("metres");
  file.remove("UnitScaleFactor", "XnitScaleFactor");
  auto no_unit = file.import("no_unit");
  file.remove("UpAxis", "XpAxis");
  auto no_axes = file.import("no_axes");
  ASSERT_TRUE(original && metres && no_unit && no_axes);
  const auto truth = bind_pose(*original), in_metres = bind_pose(*metres), without_unit = bind_pose(*no_unit),
             without_axes = bind_pose(*no_axes);
  ASSERT_FALSE(truth.empty());
  ASSERT_EQ(in_metres.size(), truth.size());
  ASSERT_EQ(without_unit.size(), truth.size());
  ASSERT_EQ(without_axes.size(), truth.size());
  EXPECT_DOUBLE_EQ(original->space.unit_scale, 0.01);
  EXPECT_DOUBLE_EQ(metres->space.unit_scale, 1.0);
  EXPECT_DOUBLE_EQ(no_unit->space.unit_scale, 0.01);
  EXPECT_DOUBLE_EQ(no_axes->space.unit_scale, 0.01);
  float height = 0;  // the sample is 1.8 m tall: the head joint is well above 1 m
  for (size_t j = 0; j < truth.size(); ++j) {
    SCOPED_TRACE(testing::Message() << "joint " << j);
    const Vec3 p = truth[j].translation();
    height = std::max(height, p.y);
    expect_near(in_metres[j].translation(), p * 100.f, 1e-3f);
    expect_near(without_unit[j].translation(), p, 1e-5f);
    expect_near(without_axes[j].translation(), p, 1e-5f);
  }
  EXPECT_GT(height, 1.f);
}

// FBX axis metadata other than +Y up: the sample (+Y up, +Z front, +X right) declared Z-up (front -Y) or
// upside down (up -Y, front -Z). The file's numbers are unchanged, so the import must be the original turned
// by the axis change A (hand-written below): model matrices A M A^T at rest and while animated (which checks
// how rotations are converted), vertices A p.
TEST(ImportAxes, FbxAxisMetadataTurnsTheWholeScene) {
  struct Case {
    const char* name;
    int up, up_sign, front, front_sign;
    Mat4 axes;  // file -> canonical (Ossa: +Y up, +Z front)
  };
  Mat4 z_up, upside_down;
  z_up.at(1, 1) = 0, z_up.at(1, 2) = 1, z_up.at(2, 1) = -1, z_up.at(2, 2) = 0;  // (x, y, z) -> (x, z, -y)
  upside_down.at(1, 1) = -1, upside_down.at(2, 2) = -1;                         // (x, y, z) -> (x, -y, -z)
  const Case cases[] = {{"z_up", 2, 1, 1, -1, z_up}, {"upside_down", 1, -1, 2, -1, upside_down}};
  PatchedSampleFbx original_file;
  auto original = original_file.import("original");
  ASSERT_TRUE(original) << original.error();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    PatchedSampleFbx file;
    file.set_int("UpAxis", c.up);
    file.set_int("UpAxisSign", c.up_sign);
    file.set_int("FrontAxis", c.front);
    file.set_int("FrontAxisSign", c.front_sign);
    auto turned = file.import(c.name);
    ASSERT_TRUE(turned) << turned.error();
    const Mat4 a = c.axes, a_t = transpose(c.axes);
    ASSERT_EQ(turned->skeleton.joints.size(), original->skeleton.joints.size());
    ASSERT_FALSE(original->clips.empty());
    const float t = original->clips[0].duration * 0.4f;
    const auto rest = bind_pose(*original), rest_turned = bind_pose(*turned);
    const auto moving = reference::local_to_model(
        original->skeleton, reference::sample_clip(original->skeleton, original->clips[0], t));
    const auto moving_turned = reference::local_to_model(
        turned->skeleton, reference::sample_clip(turned->skeleton, turned->clips[0], t));
    for (size_t j = 0; j < rest.size(); ++j) {
      SCOPED_TRACE(testing::Message() << "joint " << j);
      const Mat4 expected_rest = a * rest[j] * a_t, expected_moving = a * moving[j] * a_t;
      // Float rounding relative to the matrix (the armature's joints carry a scale of 100: centimetres).
      auto tolerance = [](const Mat4& m) {
        float largest = 1;
        for (float e : m.m) largest = std::max(largest, std::fabs(e));
        return 1e-5f * largest;
      };
      for (int e = 0; e < 16; ++e) {
        EXPECT_NEAR(rest_turned[j].m[e], expected_rest.m[e], tolerance(expected_rest))
            << "rest, element " << e;
        EXPECT_NEAR(moving_turned[j].m[e], expected_moving.m[e], tolerance(expected_moving))
            << "at " << t << " s, element " << e;
      }
    }
    ASSERT_EQ(turned->meshes.size(), original->meshes.size());
    for (size_t m = 0; m < turned->meshes.size(); ++m)
      for (size_t v = 0; v < turned->meshes[m].positions.size(); v += 97)
        expect_near(turned->meshes[m].positions[v], transform_point(a, original->meshes[m].positions[v]),
                    1e-4f);
  }
}

// ImportOptions::isolate: a worker process imports and sends the scene back (src/import/scene_wire.h); the
// caller gets exactly what an import in its own process makes, field by field and bit for bit, on every model
// we have: the bundled assets and the shared models (skins, morph targets, embedded and external textures).
TEST(ImportGuard, GuardedImportEqualsTheUnguardedOneOnEveryModel) {
  std::vector<std::string> models;
  for (const std::string& dir : {source_dir() + "/assets", shared_dir() + "/models"}) {
    if (dir == "/models" || !fs::is_directory(dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext == ".fbx" || ext == ".glb" || ext == ".gltf" || ext == ".dae")
        models.push_back(entry.path().string());
    }
  }
  std::sort(models.begin(), models.end());
  ASSERT_GE(models.size(), 4u) << "the bundled sample (fbx, glb, dae) and the humanoid at least";
  ImportOptions unguarded;
  unguarded.isolate = false;
  for (const std::string& model : models) {
    SCOPED_TRACE(model);
    auto guarded_scene = import_file(model);
    auto unguarded_scene = import_file(model, unguarded);
    ASSERT_EQ(guarded_scene.ok(), unguarded_scene.ok())
        << (guarded_scene ? unguarded_scene.error() : guarded_scene.error());
    if (!guarded_scene) {
      EXPECT_EQ(guarded_scene.error(), unguarded_scene.error());
      continue;
    }
    EXPECT_EQ(detail::scene_difference(*guarded_scene, *unguarded_scene), "");
  }
}

// The worker that serves guarded imports was forked earlier, in another working folder: relative paths (of
// the model and of texture folders) still name what they name for the caller at the time of the call.
TEST(ImportGuard, RelativePathsFollowTheCallersWorkingFolder) {
  const fs::path assets = fs::path(source_dir()) / "assets";
  const fs::path before = fs::current_path();
  fs::current_path(assets / "sample");
  auto first = import_file("ossa_sample.glb");
  fs::current_path(assets);
  auto second = import_file("sample/ossa_sample.glb");
  auto missing = import_file("ossa_sample.glb");  // there in the first folder, not in this one
  fs::current_path(before);
  ASSERT_TRUE(first) << first.error();
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(second->source_path, "sample/ossa_sample.glb");
  second->source_path = first->source_path;
  EXPECT_EQ(detail::scene_difference(*first, *second), "") << "the same file read in both folders";
  EXPECT_FALSE(missing);
}
}  // namespace
}  // namespace ossa::test
