// BVH motion capture, read by Ossa's own reader (src/import/bvh_file.h) as Blender's importer reads it
// (io_anim_bvh/import_bvh.py): minimal files written here, one per shape that assimp 5.2.5 got wrong, with
// the joints' world positions worked out by hand; hostile text; and the shared mocap files compared with
// assimp's own reading of them (6-channel joints, where assimp is right).
#include <gtest/gtest.h>

#include "expect_near.h"

#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../src/import/bvh_file.h"
#include "../src/import/scene_wire.h"
#include "gltf_builder.h"
#include "oracle_compare.h"
#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/runtime/animator.h"
#include "reference/reference_eval.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

std::string write_bvh(const std::string& name, const std::string& text) {
  const std::string path = temp_dir("bvh") + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The file imported as `ossa eval` imports it (guarded: the worker process reads it).
ImportedScene import_bvh(const std::string& path, double unit_scale = 0) {
  ImportOptions options;
  options.unit_scale = unit_scale;
  auto scene = import_file(path, options);
  if (!scene) ADD_FAILURE() << scene.error();
  return scene ? std::move(scene).value() : ImportedScene{};
}

// World (model-space) positions by joint name, as `ossa eval` computes them: the reference evaluator's
// sample_clip + local_to_model at time t, or the rest pose when `rest`.
std::map<std::string, Vec3> eval_positions(const ImportedScene& scene, float t, bool rest = false) {
  std::map<std::string, Vec3> out;
  if (scene.skeleton.joints.empty() || (!rest && scene.clips.empty())) return out;
  const auto local =
      rest ? reference::rest_pose(scene.skeleton) : reference::sample_clip(scene.skeleton, scene.clips[0], t);
  const auto model = reference::local_to_model(scene.skeleton, local);
  for (size_t j = 0; j < model.size(); ++j) out[scene.skeleton.joints[j].name] = model[j].translation();
  return out;
}
// The same through the runtime: CharacterAsset::build (fixed-rate frames, as `ossa convert` stores them) and
// an Animator playing the clip once (so that the clip's end is its last frame), seeked to t.
std::map<std::string, Vec3> runtime_positions(const ImportedScene& scene, float t) {
  std::map<std::string, Vec3> out;
  auto asset = CharacterAsset::build(scene);
  if (!asset) return ADD_FAILURE() << asset.error(), out;
  Animator animator(*asset);
  EXPECT_TRUE(animator.play(0, LoopMode::kOnce));
  animator.seek(t);
  animator.update(0);
  for (size_t j = 0; j < animator.model().size(); ++j)
    out[scene.skeleton.joints[j].name] = animator.model()[j].translation();
  return out;
}

// Every named joint at `expected`, in the reference evaluation and the runtime's (1e-5 model units).
void expect_pose(const ImportedScene& scene, float t, const std::map<std::string, Vec3>& expected) {
  SCOPED_TRACE("t = " + std::to_string(t));
  const auto reference = eval_positions(scene, t), runtime = runtime_positions(scene, t);
  for (const auto& [name, p] : expected) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(reference.count(name)) << "no joint '" << name << "'";
    expect_near(reference.at(name), p, 1e-5f);
    ASSERT_TRUE(runtime.count(name));
    expect_near(runtime.at(name), p, 1e-5f);
  }
}
// The rest pose (`ossa eval`'s "rest") and the bind pose (its "bind") both at `expected`.
void expect_rest(const ImportedScene& scene, const std::map<std::string, Vec3>& expected) {
  const auto rest = eval_positions(scene, 0, true);
  const auto bind = reference::bind_pose_model(scene.skeleton);
  for (const auto& [name, p] : expected) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(rest.count(name)) << "no joint '" << name << "'";
    expect_near(rest.at(name), p, 1e-5f);
    const int j = scene.skeleton.find_joint(name);
    ASSERT_GE(j, 0);
    expect_near(bind[j].translation(), p, 1e-5f);
  }
}

std::vector<std::string> joint_names(const ImportedScene& scene) {
  std::vector<std::string> names;
  for (const RawJoint& j : scene.skeleton.joints) names.push_back(j.name);
  return names;
}

// Shape 1: a joint with position channels only (CHANNELS 3 Xposition Yposition Zposition) is animated: its
// values replace its OFFSET, as for the root (import_bvh.py: location = bvh_loc - rest_head_local).
TEST(Bvh, PositionOnlyJointIsAnimated) {
  const std::string path = write_bvh("position_only.bvh", R"(HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT Slider
  {
    OFFSET 0 1 0
    CHANNELS 3 Xposition Yposition Zposition
    End Site
    {
      OFFSET 0 0.5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
0 0 0 0 0 0 0 1 0
1 0 0 0 0 0 0.25 2 -0.5
)");
  const ImportedScene scene = import_bvh(path);
  ASSERT_EQ(scene.clips.size(), 1u);
  EXPECT_EQ(joint_names(scene), (std::vector<std::string>{"Hips", "Slider", "EndSite_Slider"}));
  // Frame 0: Slider at its values (0, 1, 0), the End Site 0.5 above it.
  expect_pose(scene, 0, {{"Hips", {0, 0, 0}}, {"Slider", {0, 1, 0}}, {"EndSite_Slider", {0, 1.5f, 0}}});
  // Frame 1 (t = 0.5): Hips at (1, 0, 0); Slider 1 + 0.25 = 1.25 along x, 2 up, -0.5 along z.
  expect_pose(scene, 0.5f,
              {{"Hips", {1, 0, 0}}, {"Slider", {1.25f, 2, -0.5f}}, {"EndSite_Slider", {1.25f, 2.5f, -0.5f}}});
  // Halfway, linearly between the frames.
  expect_pose(scene, 0.25f, {{"Slider", {0.625f, 1.5f, -0.25f}}});
  expect_rest(scene, {{"Hips", {0, 0, 0}}, {"Slider", {0, 1, 0}}, {"EndSite_Slider", {0, 1.5f, 0}}});
}

// Shape 2: a non-zero ROOT OFFSET is the root's rest position (nothing else moves by it); the root's
// position channels replace it when the clip plays, as in Blender.
TEST(Bvh, RootOffsetIsTheRestAndChannelsReplaceIt) {
  const std::string path = write_bvh("root_offset.bvh", R"(HIERARCHY
ROOT Hips
{
  OFFSET 10 20 30
  CHANNELS 6 Xposition Yposition Zposition Xrotation Yrotation Zrotation
  JOINT Chest
  {
    OFFSET 0 5 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 3 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.1
10 20 30 0 0 0 0 0 0
1 2 3 0 0 90 0 0 0
)");
  const ImportedScene scene = import_bvh(path);
  ASSERT_EQ(scene.clips.size(), 1u);
  EXPECT_TRUE(scene.meshes.empty());
  const std::map<std::string, Vec3> rest = {
      {"Hips", {10, 20, 30}}, {"Chest", {10, 25, 30}}, {"EndSite_Chest", {10, 28, 30}}};
  expect_rest(scene, rest);
  expect_pose(scene, 0, rest);  // frame 0's channels are the offsets
  // Frame 1: Hips at (1, 2, 3), turned 90 degrees about z: Chest's (0, 5, 0) becomes (-5, 0, 0), the End
  // Site's (0, 3, 0) becomes (-3, 0, 0).
  expect_pose(scene, 0.1f, {{"Hips", {1, 2, 3}}, {"Chest", {-4, 2, 3}}, {"EndSite_Chest", {-7, 2, 3}}});
}

// The rotation channels compose in the order the CHANNELS line gives them, left to right (Blender:
// Euler(angles, rot_order_str[::-1])), in degrees.
TEST(Bvh, RotationChannelsComposeInTheirFileOrder) {
  const std::string path = write_bvh("order.bvh", R"(HIERARCHY
ROOT Root
{
  OFFSET 0 0 0
  CHANNELS 3 Zrotation Xrotation Yrotation
  JOINT Tip
  {
    OFFSET 1 0 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    End Site
    {
      OFFSET 1 0 0
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.04
90 90 90 90 90 0
)");
  const ImportedScene scene = import_bvh(path);
  // Root: E1 = Rz(90) Rx(90) Ry(90). (1, 0, 0) -Ry-> (0, 0, -1) -Rx-> (0, 1, 0) -Rz-> (-1, 0, 0): Tip.
  // Tip: E2 = Rx(90) Ry(90) Rz(0). (1, 0, 0) -Ry-> (0, 0, -1) -Rx-> (0, 1, 0); then E1 (0, 1, 0): -Ry->
  // (0, 1, 0) -Rx-> (0, 0, 1) -Rz-> (0, 0, 1). The End Site: (-1, 0, 0) + (0, 0, 1).
  expect_pose(scene, 0, {{"Root", {0, 0, 0}}, {"Tip", {-1, 0, 0}}, {"EndSite_Tip", {-1, 0, 1}}});
}

// Shape 3: a name with spaces (and tabs) is one name, its words joined with '_' as Blender joins them.
TEST(Bvh, NameWithSpacesJoinsItsWords) {
  const std::string path = write_bvh("spaces.bvh",
                                     "HIERARCHY\nROOT My Hips\n{\n  OFFSET 0 0 0\n"
                                     "  CHANNELS 3 Xposition Yposition Zposition\n"
                                     "  JOINT Left  Upper\tArm\n  {\n    OFFSET 1 0 0\n"
                                     "    CHANNELS 1 Zrotation\n    End Site\n    {\n"
                                     "      OFFSET 0 -1 0\n    }\n  }\n}\n"
                                     "MOTION\nFrames: 1\nFrame Time: 0.5\n0 0 0 90\n");
  const ImportedScene scene = import_bvh(path);
  EXPECT_EQ(joint_names(scene),
            (std::vector<std::string>{"My_Hips", "Left_Upper_Arm", "EndSite_Left_Upper_Arm"}));
  // Zrotation 90 alone turns the End Site's (0, -1, 0) to (1, 0, 0).
  expect_pose(scene, 0, {{"Left_Upper_Arm", {1, 0, 0}}, {"EndSite_Left_Upper_Arm", {2, 0, 0}}});
}

// Layouts found in the wild read the same: "\r\n" or a lone "\r", a '{' on its ROOT's line, keywords and
// channels in any case, two ROOTs, a name used twice (the later one "#2", Ossa's rule), and a motion line
// with more values than channels (the extra ignored, as Blender ignores them, with a warning).
TEST(Bvh, LayoutVariantsReadTheSame) {
  for (const char* end : {"\r\n", "\r"}) {
    std::string text =
        "hierarchy|root Arm {|  offset 1 0 0|  channels 1 zROTATION|  end site|  {|    offset 1 0 0|"
        "  }|}|ROOT Arm|{|  OFFSET 0 0 2|  CHANNELS 1 Xposition|  End Site|  {|    OFFSET 0 1 0|"
        "  }|}|motion|frames: 1|frame time: 0.1|90 3 7|";
    for (size_t at; (at = text.find('|')) != std::string::npos;) text.replace(at, 1, end);
    SCOPED_TRACE(end[1] ? "CRLF" : "CR");
    const ImportedScene scene = import_bvh(write_bvh("variants.bvh", text));
    EXPECT_EQ(joint_names(scene), (std::vector<std::string>{"Arm", "EndSite_Arm", "Arm#2", "EndSite_Arm#2"}));
    // The first Arm turned 90 degrees about z: its End Site's (1, 0, 0) becomes (0, 1, 0). The second Arm's
    // Xposition 3 replaces its OFFSET's x, and its z (no channel) is 0, as in Blender.
    expect_pose(scene, 0, {{"EndSite_Arm", {1, 1, 0}}, {"Arm#2", {3, 0, 0}}, {"EndSite_Arm#2", {3, 1, 0}}});
    const std::vector<std::string> expected = {
        "1 motion line (line 22) has more values than the hierarchy's 2 channels: the extra values were "
        "ignored, "
        "as Blender ignores them",
        "joint name 'Arm' appears more than once: the later ones are called 'Arm#2', 'Arm#3', ..."};
    EXPECT_EQ(scene.warnings, expected);
  }
}

// tests/bvh/centimetres.bvh, a 175-unit skeleton: hips 95 up, the head 70 above them, its End Site 10 above
// that, the foot on the ground. Frame 0 lifts the hips to 100 and moves them 10 along z.
std::string centimetres_bvh() {  // shared with the CLI tests (tests/CMakeLists.txt)
  return test::source_dir() + "/tests/bvh/centimetres.bvh";
}

// Shape 4: BVH states no unit. The import says so, with the skeleton's height and the likely unit, and
// takes a scale (ImportOptions::unit_scale) that applies to offsets and positions alike.
TEST(Bvh, SaysItHasNoUnitAndTakesAScale) {
  const std::string path = centimetres_bvh();
  const ImportedScene as_read = import_bvh(path);
  EXPECT_NE(as_read.space.note.find("BVH has no unit: read as metres; the skeleton is 175 units tall, likely "
                                    "centimetres: --scale 0.01"),
            std::string::npos)
      << as_read.space.note;
  EXPECT_EQ(as_read.space.unit_scale, 1.0);
  EXPECT_TRUE(std::any_of(as_read.warnings.begin(), as_read.warnings.end(), [](const std::string& w) {
    return w.find("likely centimetres") != std::string::npos;
  }));
  expect_rest(as_read, {{"Hips", {0, 95, 0}}, {"EndSite_Head", {0, 175, 0}}, {"EndSite_Foot", {0, 0, 10}}});

  const ImportedScene scaled = import_bvh(path, 0.01);
  EXPECT_NE(scaled.space.note.find("the skeleton is 1.75 m tall"), std::string::npos) << scaled.space.note;
  EXPECT_DOUBLE_EQ(scaled.space.unit_scale, 0.01);
  for (const std::string& w : scaled.warnings)
    EXPECT_EQ(w.find("likely centimetres"), std::string::npos) << w;
  expect_rest(scaled, {{"Hips", {0, 0.95f, 0}}, {"Head", {0, 1.65f, 0}}, {"EndSite_Head", {0, 1.75f, 0}}});
  expect_pose(scaled, 0,
              {{"Hips", {0, 1, 0.1f}}, {"EndSite_Head", {0, 1.8f, 0.1f}}, {"Foot", {0, 0.05f, 0.1f}}});

  // The same from memory, and unguarded: the scale reaches the reader either way.
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ImportOptions options;
  options.unit_scale = 0.01;
  options.isolate = false;
  auto memory =
      import_memory(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "m.bvh", options);
  ASSERT_TRUE(memory) << memory.error();
  expect_rest(*memory, {{"EndSite_Head", {0, 1.75f, 0}}});

  options.unit_scale = -1;
  auto refused = import_file(path, options);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("unit_scale"), std::string::npos) << refused.error();
}

// Shape 5: a BVH holds a skeleton and motion, no mesh; its one clip keeps the name assimp gave it ("Motion"),
// keys at frame k * Frame Time.
TEST(Bvh, MakesNoMeshAndOneClipCalledMotion) {
  const std::string path = centimetres_bvh();
  const ImportedScene scene = import_bvh(path);
  EXPECT_EQ(scene.format, "bvh");
  EXPECT_TRUE(scene.meshes.empty());
  EXPECT_TRUE(scene.materials.empty());
  ASSERT_EQ(scene.clips.size(), 1u);
  EXPECT_EQ(scene.clips[0].name, "Motion");
  for (const RawJoint& j : scene.skeleton.joints) EXPECT_FALSE(j.weighted) << j.name;
  auto asset = CharacterAsset::build(scene);
  EXPECT_TRUE(asset) << asset.error();
  // The guard's worker sends back exactly what an import in this process makes.
  ImportOptions unguarded;
  unguarded.isolate = false;
  auto here = import_file(path, unguarded);
  ASSERT_TRUE(here) << here.error();
  EXPECT_EQ(detail::scene_difference(scene, *here), "");
  EXPECT_EQ(here->source_files, std::vector<std::string>{fs::absolute(path).lexically_normal().string()});
}

// More or fewer motion lines than the Frames: header says: every motion line is read (Blender reads to the
// end of the file and uses Frames: only to size the scene), with a warning that says which.
TEST(Bvh, FramesHeaderThatDisagreesIsReportedAndEveryLineRead) {
  const std::string head =
      "HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xposition\n"
      "  End Site\n  {\n    OFFSET 1 0 0\n  }\n}\nMOTION\n";
  const std::string lines = "Frame Time: 0.5\n0\n1\n2\n\n";  // a blank line at the end is not a frame
  for (const auto& [header, expected] : std::vector<std::pair<std::string, std::string>>{
           {"Frames: 5\n", "Frames: says 5, the file has 3 motion lines: read 3"},
           {"Frames: 2\n", "Frames: says 2, the file has 3 motion lines: read 3"}}) {
    SCOPED_TRACE(header);
    const ImportedScene scene = import_bvh(write_bvh("frames.bvh", head + header + lines));
    ASSERT_EQ(scene.clips.size(), 1u);
    EXPECT_FLOAT_EQ(scene.clips[0].duration, 1.0f);  // 3 frames, 0.5 s apart
    EXPECT_TRUE(std::find(scene.warnings.begin(), scene.warnings.end(), expected) != scene.warnings.end())
        << ::testing::PrintToString(scene.warnings);
    expect_pose(scene, 1.0f, {{"A", {2, 0, 0}}, {"EndSite_A", {3, 0, 0}}});
  }
  const ImportedScene agreed = import_bvh(write_bvh("frames.bvh", head + "Frames: 3\n" + lines));
  EXPECT_TRUE(agreed.warnings.empty()) << ::testing::PrintToString(agreed.warnings);
}

// Hostile text: every count and number is checked, and the message names the line (quoting input with its
// non-printable bytes escaped).
TEST(Bvh, RefusesDamagedTextNamingTheLine) {
  const std::string head =
      "HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 2 Xposition Zrotation\n"
      "  End Site\n  {\n    OFFSET 1 0 0\n  }\n}\nMOTION\nFrames: 1\nFrame Time: 0.5\n";
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {head + "0 nan\n", "line 14: value 2 ('nan') is not a finite number"},
      {head + "0 inf\n", "line 14: value 2 ('inf') is not a finite number"},
      {head + "0 1e30\n", "line 14: value 2 ('1e30') is outside +-1e7"},
      {head + "0\n", "line 14: 1 value, the hierarchy has 2 channels"},
      {head + "0 x1\n", "line 14: value 2 ('x1') is not a number"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 nan 0\n", "line 4: OFFSET: 'nan' is not a finite number"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0\n  CHANNELS 0\n}\n", "line 4: OFFSET needs 3 numbers"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 7 Xposition\n}\n", "line 5: CHANNELS 7"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 2 Xposition\n}\n",
       "line 5: CHANNELS says 2, the line names 1"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Wrotation\n}\n",
       "line 5: unknown channel 'Wrotation'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 2 Xrotation Xrotation\n}\n",
       "line 5: channel 'Xrotation' twice"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n", "line 5: the file ends inside joint 'A'"},
      {std::string("HIERARCHY\nROOT A\x01\x7f\xff\n{\n"),
       "line 2: the joint name 'A\\x01\\x7f\\xff' has a control character"},
      {"HIERARCHY\nROOT A\n{\n  OFSET 0 0 0\n}\n",
       "line 4: expected OFFSET, CHANNELS, JOINT, End Site or '}', got 'OFSET'"},
      {"ROOT A\n", "line 1: a BVH file starts with HIERARCHY, got 'ROOT'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n}\nMOTION\nFrames: -1\nFrame Time: 0.5\n",
       "line 7: 'Frames:' needs a count, got '-1'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n}\nMOTION\nFrames: 1\nFrame Time: 0\n",
       "line 8: Frame Time must be a positive number of seconds, got '0'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n}\nMOTION\nFrame Time: 0.5\n",
       "line 7: expected 'Frames: <count>'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n}\nMOTION\nFrames: 1\nFrame Time: nan\n",
       "line 8: Frame Time must be a positive number of seconds, got 'nan'"},
      {"HIERARCHY\nROOT A\n{\n  OFFSET 0 0 0\n  JOINT B\n  {\n  CHANNELS 0\n  }\n}\n",
       "line 8: joint 'B' has no OFFSET"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    const std::string path = write_bvh("damaged.bvh", c.text);
    auto scene = import_file(path);
    ASSERT_FALSE(scene) << "read";
    EXPECT_NE(scene.error().find(c.expected), std::string::npos) << scene.error();
  }
  // Caps: an absurdly long line, and more joints than a skeleton holds.
  std::string long_line = "HIERARCHY\nROOT " + std::string(detail::kBvhMaxLineBytes + 1, 'a') + "\n";
  auto too_long = import_file(write_bvh("long.bvh", long_line));
  ASSERT_FALSE(too_long);
  EXPECT_NE(too_long.error().find("line 2 is longer than"), std::string::npos) << too_long.error();
  std::string many = "HIERARCHY\nROOT R\n{\nOFFSET 0 0 0\n";
  for (size_t j = 0; j < detail::kBvhMaxJoints; ++j) many += "JOINT J\n{\nOFFSET 0 0 0\n}\n";
  auto too_many = import_file(write_bvh("many.bvh", many + "}\n"));
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().find("more than 65535 joints"), std::string::npos) << too_many.error();
}

// The shared mocap (../shared/mocap, MANIFEST.md: 6 channels on every joint, centimetres) against assimp's
// reading of the same file, evaluated here from its node tree and keys: every joint's world position at every
// frame within 1e-5 of the body height.
struct AssimpPose {
  std::map<std::string, std::vector<Vec3>> positions;  // per node name, per frame
  int frames = 0;
};
AssimpPose assimp_positions(const std::string& path) {
  AssimpPose out;
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFile(path, 0);
  if (!scene || !scene->mRootNode || scene->mNumAnimations != 1) {
    ADD_FAILURE() << "assimp: " << importer.GetErrorString();
    return out;
  }
  const aiAnimation* anim = scene->mAnimations[0];
  std::map<std::string, const aiNodeAnim*> channels;
  for (unsigned c = 0; c < anim->mNumChannels; ++c)
    channels[anim->mChannels[c]->mNodeName.C_Str()] = anim->mChannels[c];
  for (unsigned c = 0; c < anim->mNumChannels; ++c)
    out.frames = std::max(out.frames, static_cast<int>(anim->mChannels[c]->mNumRotationKeys));
  for (int f = 0; f < out.frames; ++f) {
    // Pre-order walk: local = T * R from the frame's keys (the node's own transform where it has none).
    std::vector<std::pair<const aiNode*, aiMatrix4x4>> stack{{scene->mRootNode, aiMatrix4x4()}};
    while (!stack.empty()) {
      auto [node, parent] = stack.back();
      stack.pop_back();
      aiMatrix4x4 local = node->mTransformation;
      if (auto it = channels.find(node->mName.C_Str()); it != channels.end()) {
        const aiNodeAnim* ch = it->second;
        const aiVector3D t = ch->mPositionKeys[std::min<unsigned>(f, ch->mNumPositionKeys - 1)].mValue;
        const aiQuaternion q = ch->mRotationKeys[std::min<unsigned>(f, ch->mNumRotationKeys - 1)].mValue;
        local = aiMatrix4x4(q.GetMatrix());
        local.a4 = t.x, local.b4 = t.y, local.c4 = t.z;
      }
      const aiMatrix4x4 world = parent * local;
      out.positions[node->mName.C_Str()].push_back({world.a4, world.b4, world.c4});
      for (unsigned i = node->mNumChildren; i-- > 0;) stack.emplace_back(node->mChildren[i], world);
    }
  }
  return out;
}

TEST(Bvh, SharedMocapMatchesAssimpOnSixChannelJoints) {
  const std::string shared = shared_dir();
  if (shared.empty() || !fs::is_directory(shared + "/mocap"))
    GTEST_SKIP() << "../shared/mocap not found (OSSA_SHARED_DIR): the comparison with assimp is skipped";
  const auto start = std::chrono::steady_clock::now();
  for (const char* name : {"dataset-2_run_normal_001.bvh", "dataset-2_walk-turn-left_normal_001.bvh",
                           "dataset-2_walk_normal_001.bvh"}) {
    SCOPED_TRACE(name);
    const std::string path = shared + "/mocap/" + name;
    const ImportedScene scene = import_bvh(path);
    ASSERT_EQ(scene.clips.size(), 1u);
    EXPECT_EQ(scene.clips[0].name, "Motion");
    const AssimpPose truth = assimp_positions(path);
    ASSERT_GT(truth.frames, 10);
    // Body height: the first frame's extent along y (centimetres, as read; the rest pose lies along x).
    float low = 1e30f, high = -1e30f;
    for (const auto& [n, p] : eval_positions(scene, 0)) low = std::min(low, p.y), high = std::max(high, p.y);
    const float height = high - low;
    EXPECT_GT(height, 100.f);
    EXPECT_LT(height, 250.f);
    double worst = 0;
    std::string where;
    int compared = 0;
    for (int f = 0; f < truth.frames; ++f) {
      const auto ours =
          eval_positions(scene, static_cast<float>(f * (1.0 / scene.clips[0].ticks_per_second)));
      for (const auto& [joint, p] : ours) {
        auto it = truth.positions.find(joint);
        ASSERT_NE(it, truth.positions.end()) << "assimp has no node '" << joint << "'";
        const double d = length(p - it->second[f]);
        ++compared;
        if (d > worst) worst = d, where = joint + " at frame " + std::to_string(f);
      }
    }
    EXPECT_LT(worst, 1e-5 * height) << where;
    EXPECT_EQ(compared, truth.frames * static_cast<int>(scene.skeleton.joints.size()));
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
}

}  // namespace
}  // namespace ossa::test
