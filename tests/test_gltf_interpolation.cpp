// glTF sampler interpolation through the import. assimp 5.2.5 drops a sampler's `interpolation`: STEP
// channels came out interpolated linearly, CUBICSPLINE ones linearly between their values (tangents lost),
// and CUBICSPLINE morph weights of a mesh with two or more targets were read from the wrong places (the
// import failed with "weights target 2 of 2"). The truth here is the glTF 2.0 specification's formulas
// (Appendix C), evaluated by hand below: STEP holds the previous key; CUBICSPLINE is the cubic Hermite
// spline with the tangents scaled by the key interval, rotations normalised after. The reference evaluation
// and the runtime clips (keyed, and fixed-rate at its frame times) must match it.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gltf_builder.h"
#include "ossa/asset/character.h"
#include "ossa/import/import.h"
#include "ossa/runtime/sample_job.h"
#include "reference/reference_eval.h"

namespace ossa::test {
namespace {
namespace fs = std::filesystem;

// Uneven key intervals, so a tangent not scaled by its interval shows.
const std::vector<float> kTimes = {0.f, 0.5f, 1.25f};
const float kS = std::sin(3.14159265f / 4), kC = std::cos(3.14159265f / 4);

// STEP keys: one value per key, `width` floats each.
const std::vector<float> kStepTranslation = {0, 0, 0, 1, 2, 3, -1, 0.5f, 2};
const std::vector<float> kStepRotation = {0, 0, 0, 1, 0, 0, kS, kC, kS, 0, 0, kC};
const std::vector<float> kStepScale = {1, 1, 1, 2, 2, 2, 1, 0.5f, 3};
const std::vector<float> kStepWeights = {0, 1, 1, 0, 0.5f, 0.25f};  // two targets
const std::vector<float> kLinearTranslation = {0, 0, 0, 1, 0, 0, 1, 1, 0};
// CUBICSPLINE keys: in-tangent, value, out-tangent per key (per glTF, all of a key's in-tangents first).
const std::vector<float> kCubicTranslation = {0, 0,  0,  0,    0,  0, 2,  1, 0,  //
                                              1, -1, 3,  1,    2,  0, -2, 0, 1,  //
                                              0, 1,  -1, 0.5f, -1, 3, 0,  0, 0};
const std::vector<float> kCubicRotation = {0,    0,    0,    0,     0, 0,  0,  1,  0, 0,    1,    0,      //
                                           0.2f, 0,    0.5f, -0.3f, 0, 0,  kS, kC, 0, 0.3f, 0.4f, -0.2f,  //
                                           0.1f, 0.8f, 0,    -0.3f, 0, kS, 0,  kC, 0, 0,    0,    0};
const std::vector<float> kCubicScale = {0,  0,    0, 1, 1,    1,    1, 0, -1,  //
                                        0,  1,    0, 2, 1,    0.5f, 0, 0, 2,   //
                                        -1, 0.5f, 0, 1, 1.5f, 1,    0, 0, 0};
const std::vector<float> kCubicWeights = {0,    0, 0,    1,    3,  -2,  //
                                          1,    2, 1,    0,    -1, 1,   //
                                          0.5f, 0, 0.2f, 0.6f, 0,  0};

// What the importer promises for CUBICSPLINE (src/import/gltf_interpolation.h): the resampled keys stay
// within 1e-4 of the spline, per component, in the channel's units; the test allows float rounding on top.
constexpr float kCubicTolerance = 1.05e-4f;
constexpr float kStepTolerance = 1e-6f;

// glTF STEP: the value of the last key at or before t (the first key before it). The importer starts each
// value 16 floats early (2e-6 s at 1 s, gltf_interpolation.h), so that a time meant to be a key's but
// rounded a float or two low gets that key's value; check_times() stays clear of that lead but for the float
// just below each key, which must already see the new value.
constexpr float kStepLead = 1e-5f;  // seconds: more than 16 floats below the keys here
std::vector<double> step_at(const std::vector<float>& values, int width, float t) {
  size_t k = 0;
  while (k + 1 < kTimes.size() && t >= kTimes[k + 1] - kStepLead) ++k;
  return {values.begin() + k * width, values.begin() + (k + 1) * width};
}

// glTF CUBICSPLINE (Appendix C): with s = (t - t_k) / td, td = t_k+1 - t_k,
//   p = (2s^3 - 3s^2 + 1) v_k + td (s^3 - 2s^2 + s) b_k + (-2s^3 + 3s^2) v_k+1 + td (s^3 - s^2) a_k+1
// (a in-tangent, v value, b out-tangent); clamped to the first and last values outside the keys.
std::vector<double> cubic_at(const std::vector<float>& triplets, int width, float t) {
  auto at = [&](size_t key, int part, int c) {
    return static_cast<double>(triplets[(key * 3 + part) * width + c]);
  };
  std::vector<double> out(width);
  const size_t last = kTimes.size() - 1;
  for (int c = 0; c < width; ++c) {
    if (t <= kTimes.front()) {
      out[c] = at(0, 1, c);
      continue;
    }
    if (t >= kTimes.back()) {
      out[c] = at(last, 1, c);
      continue;
    }
    size_t k = 0;
    while (t >= kTimes[k + 1]) ++k;
    const double td = static_cast<double>(kTimes[k + 1]) - kTimes[k];
    const double s = (t - kTimes[k]) / td, s2 = s * s, s3 = s2 * s;
    out[c] = (2 * s3 - 3 * s2 + 1) * at(k, 1, c) + td * (s3 - 2 * s2 + s) * at(k, 2, c) +
             (-2 * s3 + 3 * s2) * at(k + 1, 1, c) + td * (s3 - s2) * at(k + 1, 0, c);
  }
  return out;
}

std::vector<double> normalized(std::vector<double> q) {
  double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double& v : q) v /= n;
  return q;
}

// Largest component difference, rotations compared up to sign.
double difference(const float* got, const std::vector<double>& want, bool rotation = false) {
  double same = 0, flipped = 0;
  for (size_t c = 0; c < want.size(); ++c) {
    same = std::max(same, std::fabs(got[c] - want[c]));
    flipped = std::max(flipped, std::fabs(got[c] + want[c]));
  }
  return rotation ? std::min(same, flipped) : same;
}

// Nodes: Stepper (STEP translation/rotation/scale), Spline (CUBICSPLINE translation/rotation/scale), Linear
// (LINEAR translation, which must stay as it was) and Face, a triangle with two morph targets. Clip "Step":
// Stepper, Linear and Face's weights as STEP; clip "Cubic": Spline and Face's weights as CUBICSPLINE.
GltfBuilder interpolation_file() {
  GltfBuilder b;
  auto& d = b.doc();
  b.add_node({{"name", "Stepper"}});
  b.add_node({{"name", "Spline"}, {"translation", {0, 0, 1}}});
  b.add_node({{"name", "Linear"}});
  b.add_node({{"name", "Face"}, {"mesh", 0}});
  d["scenes"][0]["nodes"] = {0, 1, 2, 3};
  int positions = b.add_floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3", true);
  int up = b.add_floats({0, 0, 0, 0, 1, 0, 0, 0, 0}, "VEC3", true);
  int out = b.add_floats({0, 0, 0, 1, 0, 0, 0, 0, 0}, "VEC3", true);
  nlohmann::json primitive = {{"attributes", {{"POSITION", positions}}},
                              {"targets", nlohmann::json::array({{{"POSITION", up}}, {{"POSITION", out}}})}};
  d["meshes"] = nlohmann::json::array(
      {{{"name", "FaceMesh"}, {"primitives", nlohmann::json::array({primitive})}, {"weights", {0, 0}}}});
  const int times = b.add_floats(kTimes, "SCALAR", true);
  auto animation = [&](const char* name,
                       std::vector<std::tuple<int, const char*, int, const char*>> channels) {
    nlohmann::json samplers = nlohmann::json::array(), list = nlohmann::json::array();
    for (auto& [node, path, output, interpolation] : channels) {
      list.push_back({{"sampler", samplers.size()}, {"target", {{"node", node}, {"path", path}}}});
      samplers.push_back({{"input", times}, {"output", output}, {"interpolation", interpolation}});
    }
    return nlohmann::json{{"name", name}, {"samplers", samplers}, {"channels", list}};
  };
  d["animations"] = nlohmann::json::array();
  d["animations"].push_back(
      animation("Step", {{0, "translation", b.add_floats(kStepTranslation, "VEC3"), "STEP"},
                         {0, "rotation", b.add_floats(kStepRotation, "VEC4"), "STEP"},
                         {0, "scale", b.add_floats(kStepScale, "VEC3"), "STEP"},
                         {2, "translation", b.add_floats(kLinearTranslation, "VEC3"), "LINEAR"},
                         {3, "weights", b.add_floats(kStepWeights, "SCALAR"), "STEP"}}));
  d["animations"].push_back(
      animation("Cubic", {{1, "translation", b.add_floats(kCubicTranslation, "VEC3"), "CUBICSPLINE"},
                          {1, "rotation", b.add_floats(kCubicRotation, "VEC4"), "CUBICSPLINE"},
                          {1, "scale", b.add_floats(kCubicScale, "VEC3"), "CUBICSPLINE"},
                          {3, "weights", b.add_floats(kCubicWeights, "SCALAR"), "CUBICSPLINE"}}));
  return b;
}

// Times to check: a fine sweep (including before and after the keys), every key, the float just below every
// key (a key time rounded low) and 0.1 ms before every key (where STEP still holds the previous value).
std::vector<float> check_times() {
  std::vector<float> times;
  for (int i = -10; i <= 135; ++i) times.push_back(i * 0.01f);
  for (float t : kTimes) {
    times.push_back(t);
    times.push_back(std::nextafter(t, -1.f));
    times.push_back(t - 1e-4f);
  }
  return times;
}

struct Expected {
  const char* joint;
  std::vector<double> (*translation)(float);
  std::vector<double> (*rotation)(float);
  std::vector<double> (*scale)(float);
  std::vector<double> (*weights)(float);
  float tolerance;
};

const Expected kStep = {"Stepper",
                        [](float t) { return step_at(kStepTranslation, 3, t); },
                        [](float t) { return step_at(kStepRotation, 4, t); },
                        [](float t) { return step_at(kStepScale, 3, t); },
                        [](float t) { return step_at(kStepWeights, 2, t); },
                        kStepTolerance};
const Expected kCubic = {"Spline",
                         [](float t) { return cubic_at(kCubicTranslation, 3, t); },
                         [](float t) { return normalized(cubic_at(kCubicRotation, 4, t)); },
                         [](float t) { return cubic_at(kCubicScale, 3, t); },
                         [](float t) { return cubic_at(kCubicWeights, 2, t); },
                         kCubicTolerance};

// The reference evaluation and the keyed runtime at every check time, the fixed-rate clip at its frames.
void expect_clip_matches(const ImportedScene& scene, int clip_index, const Expected& e) {
  SCOPED_TRACE(scene.clips[clip_index].name);
  const RawSkeleton& skeleton = scene.skeleton;
  const int joint = skeleton.find_joint(e.joint);
  ASSERT_GE(joint, 0);
  ASSERT_EQ(scene.meshes.size(), 1u);
  const RawClip& raw = scene.clips[clip_index];
  auto keyed = CharacterAsset::build(scene, {Clip::Layout::kKeyed, 0});
  ASSERT_TRUE(keyed) << keyed.error();
  auto fixed = CharacterAsset::build(scene);
  ASSERT_TRUE(fixed) << fixed.error();
  const int joints = keyed->skeleton.joint_count();
  std::vector<JointPose> locals(joints);
  SamplingCache cache;
  double worst = 0;
  auto check = [&](const char* what, float t, const float* got, const std::vector<double>& want,
                   bool rotation) {
    const double d = difference(got, want, rotation);
    worst = std::max(worst, d);
    EXPECT_LE(d, e.tolerance) << what << " at t = " << t;
  };
  for (float t : check_times()) {
    Transform ref = reference::sample_clip(skeleton, raw, t)[joint];
    check("reference translation", t, &ref.translation.x, e.translation(t), false);
    check("reference rotation", t, &ref.rotation.x, e.rotation(t), true);
    check("reference scale", t, &ref.scale.x, e.scale(t), false);
    std::vector<float> w = reference::sample_morph_weights(scene.meshes[0], 0, &raw, t);
    check("reference weights", t, w.data(), e.weights(t), false);

    const Clip& clip = keyed->clips[clip_index];
    ASSERT_TRUE((SampleJob{&clip, t, &cache, locals}.run()));
    check("keyed translation", t, locals[joint].translation, e.translation(t), false);
    check("keyed rotation", t, locals[joint].rotation, e.rotation(t), true);
    check("keyed scale", t, locals[joint].scale, e.scale(t), false);
    ASSERT_EQ(clip.morph_weights().tracks().size(), 1u);
    float weights[2];
    clip.morph_weights().sample(0, t, weights);
    check("keyed weights", t, weights, e.weights(t), false);
  }
  // Fixed rate: exact at its frame times (up to the cubic bound); between frames it interpolates the frames.
  const Clip& clip = fixed->clips[clip_index];
  for (int f = 0; f < clip.frame_count(); ++f) {
    const float t =
        f == clip.frame_count() - 1 ? clip.duration() : std::min(clip.duration(), f / clip.frame_rate());
    const JointPose& pose = clip.frames()[static_cast<size_t>(f) * joints + joint];
    check("frame translation", t, pose.translation, e.translation(t), false);
    check("frame rotation", t, pose.rotation, e.rotation(t), true);
    check("frame scale", t, pose.scale, e.scale(t), false);
    float weights[2];
    clip.morph_weights().sample(0, t, weights);
    check("fixed-rate weights", t, weights, e.weights(t), false);
  }
  ::testing::Test::RecordProperty(std::string(raw.name) + "_worst", std::to_string(worst));
}

enum class Container { kDataUri, kExternalBin, kGlb };

class GltfInterpolation : public ::testing::TestWithParam<Container> {
 protected:
  void SetUp() override {
    dir_ = temp_dir("gltf_interp");
    GltfBuilder b = interpolation_file();
    std::string path;
    switch (GetParam()) {
      case Container::kDataUri:
        b.write(path = dir_ + "/interp.gltf");
        break;
      case Container::kExternalBin:
        b.write(path = dir_ + "/interp_bin.gltf", "interp_bin.bin");
        break;
      case Container::kGlb:
        b.write_glb(path = dir_ + "/interp.glb");
        break;
    }
    auto scene = import_file(path);
    ASSERT_TRUE(scene) << scene.error();
    scene_ = std::move(scene).value();
    ASSERT_EQ(scene_.clips.size(), 2u);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
  ImportedScene scene_;
};

TEST_P(GltfInterpolation, StepHoldsThePreviousKey) {
  expect_clip_matches(scene_, 0, kStep);
  EXPECT_EQ(scene_.clips[0].converted_step_channels, 4);  // for `ossa info`
  EXPECT_EQ(scene_.clips[0].converted_cubic_channels, 0);
}

TEST_P(GltfInterpolation, CubicSplineFollowsTheHermiteSplineWithItsTangents) {
  expect_clip_matches(scene_, 1, kCubic);
  EXPECT_EQ(scene_.clips[1].converted_step_channels, 0);
  EXPECT_EQ(scene_.clips[1].converted_cubic_channels, 4);
}

TEST_P(GltfInterpolation, LinearChannelsAreLeftAsTheyAre) {
  const int joint = scene_.skeleton.find_joint("Linear");
  ASSERT_GE(joint, 0);
  for (const RawTrack& track : scene_.clips[0].tracks)
    if (track.joint == joint) {
      EXPECT_EQ(track.translation_times.size(), kTimes.size());
    }
  Transform t = reference::sample_clip(scene_.skeleton, scene_.clips[0], 0.25f)[joint];
  EXPECT_NEAR(t.translation.x, 0.5f, 1e-6f);  // halfway between the first two keys
  EXPECT_NEAR(t.translation.y, 0.f, 1e-6f);
}

// assimp clamps morph weights below 0 to 0 (and then may drop the channel): Ossa reads linear weight channels
// from the file itself, so a negative weight (valid glTF, and what a glTF export of such a clip holds) is
// kept.
TEST(GltfInterpolationWeights, LinearWeightsBelowZeroAreKept) {
  const std::string dir = temp_dir("gltf_negative_weights");
  GltfBuilder b = interpolation_file();
  const std::vector<float> weights = {0, 0, -0.5f, 1, 0.25f, -1};  // two targets at kTimes
  const int times = b.add_floats(kTimes, "SCALAR", true);
  b.doc()["animations"].push_back(
      {{"name", "Negative"},
       {"samplers",
        {{{"input", times}, {"output", b.add_floats(weights, "SCALAR")}, {"interpolation", "LINEAR"}}}},
       {"channels", {{{"sampler", 0}, {"target", {{"node", 3}, {"path", "weights"}}}}}}});
  b.write_glb(dir + "/negative.glb");
  auto scene = import_file(dir + "/negative.glb");
  ASSERT_TRUE(scene) << scene.error();
  const int clip = scene->find_clip("Negative");
  ASSERT_GE(clip, 0);
  EXPECT_EQ(scene->clips[clip].converted_step_channels + scene->clips[clip].converted_cubic_channels, 0);
  for (const auto& [t, want0, want1] :
       {std::tuple{0.5f, -0.5f, 1.f}, {0.25f, -0.25f, 0.5f}, {0.875f, -0.125f, 0.f}, {1.25f, 0.25f, -1.f}}) {
    const std::vector<float> w = reference::sample_morph_weights(scene->meshes[0], 0, &scene->clips[clip], t);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_NEAR(w[0], want0, 1e-6f) << "t = " << t;
    EXPECT_NEAR(w[1], want1, 1e-6f) << "t = " << t;
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Containers, GltfInterpolation,
                         ::testing::Values(Container::kDataUri, Container::kExternalBin, Container::kGlb),
                         [](const auto& info) {
                           return info.param == Container::kDataUri       ? std::string("DataUri")
                                  : info.param == Container::kExternalBin ? std::string("ExternalBin")
                                                                          : std::string("Glb");
                         });

bool has_warning(const ImportedScene& scene, const std::string& text) {
  for (const std::string& w : scene.warnings)
    if (w.find(text) != std::string::npos) return true;
  return false;
}

TEST(GltfInterpolationHostile, ANonFiniteTangentIsAnErrorNamingTheFileAndChannel) {
  const std::string dir = temp_dir("gltf_interp_nan");
  GltfBuilder b = interpolation_file();
  // Replace the Cubic clip's translation output: the in-tangent of key 1 is NaN (assimp never reads it).
  std::vector<float> bad = kCubicTranslation;
  bad[9] = std::nanf("");
  b.doc()["animations"][1]["samplers"][0]["output"] = b.add_floats(bad, "VEC3");
  const std::string path = dir + "/nan_tangent.gltf";
  b.write(path);
  auto scene = import_file(path);
  ASSERT_FALSE(scene);
  EXPECT_NE(scene.error().find("nan_tangent.gltf"), std::string::npos) << scene.error();
  EXPECT_NE(scene.error().find("Spline"), std::string::npos) << scene.error();
  EXPECT_NE(scene.error().find("not finite"), std::string::npos) << scene.error();
  fs::remove_all(dir);
}

TEST(GltfInterpolationHostile, JsonOurParserRefusesLeavesTheChannelsLinearWithAWarning) {
  // assimp's JSON reader takes bytes that are not UTF-8 in a string; nlohmann-json refuses them.
  const std::string dir = temp_dir("gltf_interp_utf8");
  GltfBuilder b = interpolation_file();
  b.doc()["animations"].erase(1);  // without our reading, assimp's cubic weights of two targets are refused
  b.doc()["asset"]["generator"] = "GENERATOR";
  const std::string path = dir + "/not_utf8.gltf";
  b.write(path);
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text.replace(text.find("GENERATOR"), 9, "gen\xff\xfe");
  std::ofstream(path, std::ios::binary) << text;
  auto scene = import_file(path);
  ASSERT_TRUE(scene) << scene.error();
  EXPECT_TRUE(has_warning(*scene, "interpolation")) << (scene->warnings.empty() ? "" : scene->warnings[0]);
  EXPECT_EQ(scene->clips[0].converted_step_channels, 0);
  fs::remove_all(dir);
}

TEST(GltfInterpolationHostile, KeyTimesThatDoNotAscendLeaveTheChannelLinearWithAWarning) {
  const std::string dir = temp_dir("gltf_interp_order");
  GltfBuilder b = interpolation_file();
  const int times = b.add_floats({0, 1.25f, 0.5f}, "SCALAR", true);
  b.doc()["animations"][0]["samplers"][0]["input"] = times;  // Stepper's translation
  const std::string path = dir + "/order.gltf";
  b.write(path);
  auto scene = import_file(path);
  ASSERT_TRUE(scene) << scene.error();
  EXPECT_TRUE(has_warning(*scene, "do not ascend")) << (scene->warnings.empty() ? "" : scene->warnings[0]);
  EXPECT_EQ(scene->clips[0].converted_step_channels, 3);  // rotation, scale, weights
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ossa::test
