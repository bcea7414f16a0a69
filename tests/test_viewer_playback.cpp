// The viewer's Playback (src/viewer/playback.h) on the bundled sample, against plain Animators driven by
// hand: rebuilding for edited notifies keeps the playhead, frame steps fire what updates fire and stepping
// back fires nothing, root motion travels exactly what the clip as authored travels, the override layer's
// mask is the selected joint's subtree (checked by walking parents), the log keeps the newest events.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "oracle_compare.h"
#include "ossa/import/load_character.h"
#include "ossa/offline/retarget.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"
#include "viewer/graph_document.h"
#include "viewer/playback.h"
#include "viewer/retarget_session.h"

using namespace ossa;
using ossa::viewer::Playback;

namespace {

std::shared_ptr<const LoadedCharacter> sample() {
  static std::shared_ptr<const LoadedCharacter> loaded = [] {
    ModelLoadOptions options;
    options.import.isolate = false;  // a file of ours: no need for the child process
    auto c = load_character(test::source_dir() + "/assets/sample/ossa_sample.fbx", options);
    EXPECT_TRUE(c) << c.error();
    return c ? std::move(c).value() : nullptr;
  }();
  return loaded;
}

Vec3 joint_position(std::span<const Mat4> model, int joint) {
  return model[joint].translation();
}

}  // namespace

TEST(ViewerPlayback, NotifyEditsKeepClipTimeSpeedAndPause) {
  Playback p(sample());
  const int wave = p.asset().find_clip("Wave");
  ASSERT_TRUE(p.play(wave));
  p.set_speed(0.5f);
  for (int i = 0; i < 30; ++i) p.update(1.f / 60);
  p.set_paused(true);
  const float time = p.time();
  EXPECT_NEAR(time, 0.25f, 1e-5f);
  NotifySet none;
  p.set_notifies(none);
  EXPECT_EQ(p.clip(), wave);
  EXPECT_FLOAT_EQ(p.time(), time);
  EXPECT_EQ(p.speed(), 0.5f);
  EXPECT_TRUE(p.paused());
  p.update(1.f / 60);  // paused: nothing moves
  EXPECT_FLOAT_EQ(p.time(), time);
  p.set_paused(false);
  p.update(0.1f);
  EXPECT_NEAR(p.time(), time + 0.05f, 1e-5f);
}

TEST(ViewerPlayback, StepsForwardFireEventsAndBackwardSeeks) {
  Playback p(sample());
  const int walk = p.asset().find_clip("Walk");
  ASSERT_TRUE(p.play(walk));
  p.set_paused(true);
  const float rate = p.asset().clips[walk].frame_rate();
  ASSERT_GT(rate, 0);
  // The sample's Walk: FootL at 0, ArmSwing 0.2-0.5, FootR at 0.5 (assets/sample/ossa_sample.notifies.json).
  p.step_frames(16);  // 16 frames at 30 fps: past 0.5 s
  EXPECT_NEAR(p.time(), 16 / rate, 1e-5f);
  std::vector<std::string> names;
  for (const auto& e : p.events()) names.push_back(e.name + ":" + to_string(e.type));
  EXPECT_EQ(names,
            (std::vector<std::string>{"FootL:instant", "ArmSwing:begin", "FootR:instant", "ArmSwing:end"}));
  EXPECT_TRUE(p.paused());  // stepping leaves the pause as it was
  const size_t before = p.events().size();
  p.step_frames(-10);
  EXPECT_NEAR(p.time(), 6 / rate, 1e-5f);
  EXPECT_EQ(p.events().size(), before);  // stepping back fires nothing
  p.seek(0.9f);
  EXPECT_EQ(p.events().size(), before);
  // The pose after a seek is the clip's pose at that time (an Animator sampled there by hand).
  Animator reference(p.asset());
  EXPECT_TRUE(reference.play(walk, LoopMode::kRepeat, 0, 0.9f));
  reference.update(0);
  for (int j = 0; j < p.asset().skeleton.joint_count(); ++j) {
    const Vec3 a = joint_position(p.animator().model(), j), b = joint_position(reference.model(), j);
    EXPECT_NEAR(length(a - b), 0, 1e-6f) << p.asset().skeleton.name(j);
  }
}

// A loop range plays only its part of the clip: over 2 s of 60 Hz updates at speed 1, Walk's [0.2, 0.6) is
// played 5 times (0.4 s a pass): FootR (0.5) fires once a pass, FootL (0) never, the playhead never leaves
// the range; backwards the same range fires FootR as often. Clearing it plays the whole clip again.
TEST(ViewerPlayback, ALoopRangePlaysOnlyItsPart) {
  Playback p(sample());
  const int walk = p.asset().find_clip("Walk");
  ASSERT_TRUE(p.play(walk));
  EXPECT_FALSE(p.set_loop_range(0.6f, 0.2f));
  EXPECT_FALSE(p.set_loop_range(0.2f, 5.f));
  EXPECT_FALSE(p.set_loop_range(-0.1f, 0.5f));
  EXPECT_FALSE(p.has_loop_range());
  ASSERT_TRUE(p.set_loop_range(0.2f, 0.6f));
  EXPECT_FLOAT_EQ(p.time(), 0.2f);  // the playhead was outside it
  p.clear_events();
  auto count = [&](const std::string& name) {
    int n = 0;
    for (const auto& e : p.events()) n += e.name == name && e.type == EventType::kInstant;
    return n;
  };
  for (int i = 0; i < 120; ++i) {
    p.update(1.f / 60);
    EXPECT_GE(p.time(), 0.2f - 1e-6f);
    EXPECT_LT(p.time(), 0.6f);
  }
  EXPECT_EQ(count("FootR"), 5);
  EXPECT_EQ(count("FootL"), 0);
  p.clear_events();
  p.set_speed(-1);
  for (int i = 0; i < 120; ++i) {
    p.update(1.f / 60);
    EXPECT_GT(p.time(), 0.2f);
    EXPECT_LE(p.time(), 0.6f + 1e-6f);
  }
  EXPECT_EQ(count("FootR"), 5);
  EXPECT_EQ(count("FootL"), 0);
  p.set_speed(1);
  p.clear_loop_range();
  p.clear_events();
  for (int i = 0; i < 120; ++i) p.update(1.f / 60);
  EXPECT_EQ(count("FootL"), 2);  // the whole clip again: 2 passes of 1 s
  ASSERT_TRUE(p.set_loop_range(0.2f, 0.6f));
  ASSERT_TRUE(p.play(walk));
  EXPECT_FALSE(p.has_loop_range());  // playing a clip clears it
}

// Onion skin and motion trails sample poses away from the playhead: each is what an Animator seeked there
// gives, and the Playback's own playhead does not move.
TEST(ViewerPlayback, PosesAtOtherTimesAreTheAnimatorsThere) {
  Playback p(sample());
  const int walk = p.asset().find_clip("Walk");
  ASSERT_TRUE(p.play(walk));
  p.seek(0.3f);
  SamplingCache cache;
  std::vector<JointPose> locals;
  std::vector<Mat4> model;
  for (float t : {0.f, 0.2f, 0.5f, 0.9999f, 1.f, 0.1f}) {
    ASSERT_TRUE(Playback::pose_at(p.asset(), walk, t, cache, locals, model));
    Animator reference(p.asset());
    EXPECT_TRUE(reference.play(walk, LoopMode::kOnce, 0, t));
    reference.update(0);
    for (int j = 0; j < p.asset().skeleton.joint_count(); ++j)
      EXPECT_NEAR(length(model[j].translation() - reference.model()[j].translation()), 0, 1e-6f) << t;
  }
  EXPECT_FLOAT_EQ(p.time(), 0.3f);
  EXPECT_FALSE(Playback::pose_at(p.asset(), -1, 0, cache, locals, model));
  EXPECT_FALSE(Playback::pose_at(p.asset(), walk, std::nanf(""), cache, locals, model));
}

// The sample with a clip added that walks an arc: its Walk, with the root (and so the whole character) moved
// along x and z and turned about +y by amounts growing with time, so that root motion has both a translation
// and a turn to take out (composed in the wrong order, the two would not give the clip back).
std::shared_ptr<const LoadedCharacter> sample_with_an_arc() {
  auto c = std::make_shared<LoadedCharacter>(*sample());
  CharacterAsset& asset = c->asset;
  const Clip& walk = asset.clips[asset.find_clip("Walk")];
  const int joints = asset.skeleton.joint_count(), root = default_root_joint(asset.skeleton);
  const int parent = asset.skeleton.parents()[root];
  std::vector<JointPose> frames(walk.frames().begin(), walk.frames().end());
  Animator animator(asset);
  EXPECT_TRUE(animator.play(asset.find_clip("Walk"), LoopMode::kOnce));
  for (int f = 0; f < walk.frame_count(); ++f) {
    const float t = static_cast<float>(f) / walk.frame_rate();
    animator.seek(t);
    animator.update(0);
    const Mat4 moved = translation_matrix({0.5f * t, 0, 1.0f * t}) *
                       rotation_matrix(quat_from_axis_angle({0, 1, 0}, 0.8f * t)) * animator.model()[root];
    const Mat4 parent_model = parent >= 0 ? animator.model()[parent] : Mat4{};
    frames[static_cast<size_t>(f) * joints + root] = to_joint_pose(decompose(inverse(parent_model) * moved));
  }
  auto arc = Clip::from_frames("Arc", walk.duration(), walk.frame_rate(), joints, std::move(frames));
  EXPECT_TRUE(arc) << arc.error();
  asset.clips.push_back(std::move(arc).value());
  c->notifies.clips.resize(asset.clips.size());
  return c;
}

TEST(ViewerPlayback, RootMotionTravelsWhatTheClipTravels) {
  Playback p(sample_with_an_arc());
  const int arc = p.asset().find_clip("Arc");
  ASSERT_TRUE(p.play(arc));
  ASSERT_EQ(p.set_root_motion(true), "");
  Animator authored(p.asset());
  EXPECT_TRUE(authored.play(arc));
  authored.update(0);
  // Within the first pass, every joint under the root of the travelled character is where the authored
  // clip puts it (the root's ancestors stay put in the clip, and travel with the character).
  const int root = default_root_joint(p.asset().skeleton);
  for (int step = 1; step <= 55; ++step) {
    p.update(1.f / 60);
    authored.update(1.f / 60);
    for (int j = root; j < p.asset().skeleton.subtree_end(root); ++j) {
      const Vec3 travelled = transform_point(p.world(), joint_position(p.animator().model(), j));
      ASSERT_NEAR(length(travelled - joint_position(authored.model(), j)), 0, 1e-4f)
          << "step " << step << ", " << p.asset().skeleton.name(j);
    }
  }
  EXPECT_GT(length(p.world().translation()), 0.5f);  // it did travel, and drew its path on the ground
  EXPECT_GT(p.path().size(), 10u);
  for (const Vec3& at : p.path()) EXPECT_EQ(at.y, 0.f);
  // Off again: the clip as authored, no travel.
  ASSERT_EQ(p.set_root_motion(false), "");
  EXPECT_TRUE(p.path().empty());
  EXPECT_EQ(p.world().translation().x, 0.f);
}

TEST(ViewerPlayback, LayerMaskIsTheSelectedJointsSubtree) {
  Playback p(sample());
  const Skeleton& skeleton = p.asset().skeleton;
  const int clavicle = skeleton.find_joint("clavicle_l");
  ASSERT_GE(clavicle, 0);
  const auto mask = Playback::subtree_mask(skeleton, clavicle);
  int inside = 0;
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    bool below = false;  // walk up the parents: is clavicle_l j or an ancestor of j?
    for (int a = j; a >= 0; a = skeleton.parents()[a]) below |= a == clavicle;
    EXPECT_EQ(mask[j], below ? 1.f : 0.f) << skeleton.name(j);
    inside += below;
  }
  EXPECT_EQ(inside, 6);  // clavicle_l, upperarm_l, lowerarm_l, hand_l, index_l, thumb_l (ossa info)
  // Wave on the left arm over Walk: the arm's locals are Wave's, the rest Walk's.
  const int walk = p.asset().find_clip("Walk"), wave = p.asset().find_clip("Wave");
  ASSERT_TRUE(p.play(walk));
  ASSERT_TRUE(p.set_layer(wave, 1, clavicle));
  p.update(0.3f);
  Animator walk_only(p.asset()), wave_only(p.asset());
  EXPECT_TRUE(walk_only.play(walk));
  EXPECT_TRUE(wave_only.play(wave));
  walk_only.update(0.3f);
  wave_only.update(0.3f);
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const JointPose& got = p.animator().locals()[j];
    const JointPose& want = (mask[j] > 0 ? wave_only : walk_only).locals()[j];
    float dot = 0;  // q and -q are the same rotation
    for (int k = 0; k < 4; ++k) dot += got.rotation[k] * want.rotation[k];
    EXPECT_NEAR(std::abs(dot), 1, 1e-5f) << skeleton.name(j);
  }
  EXPECT_FALSE(p.set_layer(wave, 1, skeleton.joint_count()));  // not a joint
  EXPECT_TRUE(p.set_layer(-1, 0, -1));                         // off
  EXPECT_EQ(p.layer_clip(), -1);
}

TEST(ViewerPlayback, TheLogKeepsTheNewestEvents) {
  Playback p(sample());
  ASSERT_TRUE(p.play(p.asset().find_clip("Walk")));
  // Three events a pass at least (FootL, FootR, ArmSwing begin/end): enough passes to overflow the log.
  for (int i = 0; i < 2000; ++i) p.update(0.25f);
  EXPECT_EQ(p.events().size(), Playback::kMaxLoggedEvents);
  EXPECT_EQ(p.events().back().step, 1999);
  EXPECT_TRUE(p.play(p.asset().find_clip("Walk")));
  EXPECT_EQ(p.step(), 0);  // steps count from the last play
  EXPECT_FALSE(p.play(-1));
  EXPECT_FALSE(p.play(static_cast<int>(p.asset().clips.size())));
}

// The blend space drives the pose: the same locals and events as a BlendSpacePlayer driven directly, and
// model() is LocalToModelJob of those locals; turned off, the Animator's pose is back.
TEST(ViewerPlayback, ABlendSpaceDrivesThePoseLikeItsPlayer) {
  Playback p(sample());
  const CharacterAsset& asset = p.asset();
  const std::vector<int> clips = {asset.find_clip("Idle"), asset.find_clip("Walk")};
  ASSERT_EQ(p.set_blend_space(clips, {{0, 0}, {1, 0}}, 1, {"FootL", "FootR"}), "");
  auto space = BlendSpace::build_1d(std::vector<float>{0, 1});
  ASSERT_TRUE(space);
  const std::vector<std::string> markers = {"FootL", "FootR"};
  auto player = BlendSpacePlayer::create(asset, *space, clips, &p.notifies(), {}, markers);
  ASSERT_TRUE(player);
  player->update(0);  // as Playback does when it makes the player
  size_t events = 0;
  for (int i = 0; i < 90; ++i) {
    const float x = std::min(1.f, i / 60.f);
    p.set_blend_parameter(x, 0);
    player->set_parameter(x);
    p.update(1.f / 30);
    player->update(1.f / 30);
    events += player->events().size();
    ASSERT_EQ(p.locals().size(), player->locals().size());
    for (size_t j = 0; j < p.locals().size(); ++j)
      for (int k = 0; k < 4; ++k) ASSERT_FLOAT_EQ(p.locals()[j].rotation[k], player->locals()[j].rotation[k]);
  }
  EXPECT_GT(events, 0u);
  EXPECT_EQ(p.events().size(), events);
  std::vector<Mat4> model(asset.skeleton.joint_count());
  LocalToModelJob{&asset.skeleton, player->locals(), model}.run();
  for (size_t j = 0; j < model.size(); ++j)
    for (int k = 0; k < 16; ++k) ASSERT_FLOAT_EQ(p.model()[j].m[k], model[j].m[k]);
  ASSERT_EQ(p.set_blend_space({}, {}, 1), "");
  EXPECT_EQ(p.model().data(), p.animator().model().data());
  // A space the library refuses is refused with its message.
  EXPECT_NE(p.set_blend_space(clips, {{0, 0}, {0, 0}}, 1), "");
  EXPECT_FALSE(p.blend_space_on());
}

// Foot placement on the sample's legs (found by name) over the slope and step: each foot ends over where the
// clip has it, as high above the ground as the clip has it above the floor (within 1e-5 of the 0.9 m leg),
// the character stands on the ground under its origin, and flat ground at the floor moves only the knees.
TEST(ViewerPlayback, FootPlacementPlantsTheSamplesFeetOnTheGround) {
  Playback p(sample());
  const Skeleton& skeleton = p.asset().skeleton;
  int pelvis = -1;
  const std::vector<LegJoints> legs = Playback::find_legs(skeleton, pelvis);
  ASSERT_EQ(legs.size(), 2u);
  EXPECT_EQ(pelvis, skeleton.find_joint("pelvis"));
  EXPECT_EQ(legs[0].foot, skeleton.find_joint("foot_l"));
  EXPECT_EQ(legs[0].calf, skeleton.find_joint("calf_l"));
  EXPECT_EQ(legs[0].thigh, skeleton.find_joint("thigh_l"));
  EXPECT_EQ(legs[0].toe, skeleton.find_joint("ball_l"));
  EXPECT_EQ(legs[1].foot, skeleton.find_joint("foot_r"));

  const int walk = p.asset().find_clip("Walk");
  ASSERT_TRUE(p.play(walk));
  ASSERT_EQ(p.set_root_motion(true), "");
  ASSERT_EQ(p.set_foot_placement(true, Playback::Ground::kSlopeAndStep), "");
  Animator animated(p.animated_asset());  // the same clip without feet placed: where the clip has them
  EXPECT_TRUE(animated.play(walk));
  int checked = 0;
  for (int i = 0; i < 45; ++i) {
    p.update(1.f / 30);
    animated.update(1.f / 30);
    const Mat4 world = p.world();
    EXPECT_NEAR(world.m[13], p.ground_height(world.m[12], world.m[14]), 1e-6f);
    for (const LegJoints& leg : legs) {
      const Vec3 clip_foot = transform_point(world, joint_position(animated.model(), leg.foot));
      const Vec3 foot = transform_point(world, joint_position(p.model(), leg.foot));
      const float authored = clip_foot.y - world.m[13];
      const float reach = length(joint_position(p.model(), leg.calf) - joint_position(p.model(), leg.thigh)) +
                          length(joint_position(p.model(), leg.foot) - joint_position(p.model(), leg.calf));
      EXPECT_NEAR(foot.x, clip_foot.x, 1e-5f * reach);
      EXPECT_NEAR(foot.z, clip_foot.z, 1e-5f * reach);
      EXPECT_NEAR(foot.y, p.ground_height(clip_foot.x, clip_foot.z) + authored, 1e-5f * reach);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 90);
  ASSERT_EQ(p.set_foot_placement(true, Playback::Ground::kFlat), "");
  p.update(1.f / 30);
  animated.update(1.f / 30);
  // Flat ground at the floor: every foot target is where the clip has the foot, so nothing moves but the
  // knees, which the IK turns into the plane of the pole (forward).
  for (int j = 0; j < skeleton.joint_count(); ++j)
    if (j != legs[0].calf && j != legs[1].calf) {
      EXPECT_LT(length(joint_position(p.model(), j) - joint_position(animated.model(), j)), 1e-5f)
          << skeleton.name(j);
    }
}

// Morph overrides (the expression layer) on the face sample: the override is the weight shown, it survives
// the Animator being rebuilt (notify edits, root motion on: the in-place clips keep the meshes' weights), and
// removing it gives what a plain Animator gives at the same time.
TEST(ViewerPlayback, MorphOverridesReplaceTheClipsWeightsAndSurviveRebuilds) {
  ModelLoadOptions options;
  options.import.isolate = false;
  auto face = load_character(test::source_dir() + "/assets/sample/ossa_face.glb", options);
  ASSERT_TRUE(face) << face.error();
  Playback p(*face);
  const CharacterAsset& asset = p.asset();
  int mesh = -1;
  for (int m = 0; m < static_cast<int>(asset.meshes.size()) && mesh < 0; ++m)
    if (!asset.meshes[m].morph_targets().empty()) mesh = m;
  ASSERT_GE(mesh, 0);
  const int talk = asset.find_clip("Talk");
  ASSERT_TRUE(p.play(talk));
  EXPECT_FALSE(p.set_morph_override(mesh, asset.meshes[mesh].morph_targets().count(), 0.5f));
  EXPECT_FALSE(p.set_morph_override(-1, 0, 0.5f));
  ASSERT_TRUE(p.set_morph_override(mesh, 0, 0.7f));
  p.update(0.4f);
  ASSERT_FALSE(p.morph_weights(mesh).empty());
  EXPECT_FLOAT_EQ(p.morph_weights(mesh)[0], 0.7f);
  p.set_notifies(NotifySet{});
  ASSERT_EQ(p.set_root_motion(true), "");
  p.update(0.1f);
  ASSERT_FALSE(p.morph_weights(mesh).empty());
  EXPECT_FLOAT_EQ(p.morph_weights(mesh)[0], 0.7f);
  ASSERT_EQ(p.set_root_motion(false), "");
  ASSERT_TRUE(p.set_morph_override(mesh, 0, NAN));
  EXPECT_TRUE(std::isnan(p.morph_override(mesh, 0)));
  p.update(0);
  Animator plain(asset);
  EXPECT_TRUE(plain.play(talk, LoopMode::kRepeat, 0, p.time()));
  plain.update(0);
  const auto expected = plain.mesh_morph_weights(mesh), got = p.morph_weights(mesh);
  ASSERT_EQ(expected.size(), got.size());
  for (size_t t = 0; t < got.size(); ++t) EXPECT_NEAR(got[t], expected[t], 1e-6f) << t;
  EXPECT_GT(expected[0], 0.f);  // Talk animates the first target here: the comparison is not 0 == 0
}

namespace ossa {
namespace {

std::shared_ptr<const LoadedCharacter> sample_glb() {
  static std::shared_ptr<const LoadedCharacter> loaded = [] {
    ModelLoadOptions options;
    options.import.isolate = false;
    auto c = load_character(test::source_dir() + "/assets/sample/ossa_sample.glb", options);
    EXPECT_TRUE(c) << c.error();
    return c ? std::move(c).value() : nullptr;
  }();
  return loaded;
}

// The retargeting panel's map: edits rebuild the rig, a source joint drives one target joint, the saved JSON
// read back by build_bone_map gives the same map, the file is never one of the characters', and the pose
// drawn is the RetargetJob's.
TEST(RetargetSession, EditsSaveAsTheMapTheCliReads) {
  auto session = viewer::RetargetSession::create(sample(), sample_glb());
  ASSERT_TRUE(session) << session.error();
  const Skeleton& source = sample()->asset.skeleton;
  const Skeleton& target = sample_glb()->asset.skeleton;
  const int head = target.find_joint("head"), neck = target.find_joint("neck");
  EXPECT_EQ(session->map().source_of[head], source.find_joint("head"));
  EXPECT_FALSE(session->edited());
  // The source's neck already drives the target's neck: refused, naming it.
  const std::string refused = session->set_source(head, source.find_joint("neck"));
  EXPECT_NE(refused.find("'neck' already drives 'neck'"), std::string::npos) << refused;
  EXPECT_EQ(session->set_source(neck, -1), "");
  EXPECT_EQ(session->set_source(head, source.find_joint("neck")), "");
  EXPECT_TRUE(session->edited());
  EXPECT_EQ(session->rig().source_of[head], source.find_joint("neck"));
  EXPECT_NE(session->set_source(target.joint_count(), 0), "");
  // The JSON, read back as an explicit map.
  auto reread = build_bone_map(source, target, {.explicit_json = session->map_json()});
  ASSERT_TRUE(reread) << reread.error();
  EXPECT_EQ(reread->source_of, session->map().source_of);
  // Saved atomically, never over an input.
  EXPECT_FALSE(session->save_map(test::source_dir() + "/assets/sample/ossa_sample.glb"));
  const std::string path =
      (std::filesystem::temp_directory_path() /
       ("ossa_map_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".json"))
          .string();
  ASSERT_TRUE(session->save_map(path));
  EXPECT_FALSE(session->edited());
  std::ifstream in(path);
  const std::string text{std::istreambuf_iterator<char>(in), {}};
  std::filesystem::remove(path);
  EXPECT_EQ(text, session->map_json());
  // The pose drawn: the job's, then local to model.
  std::vector<JointPose> locals(source.joint_count()), expected_locals(target.joint_count());
  SamplingCache cache;
  ASSERT_TRUE(
      (SampleJob{.clip = &sample()->asset.clips[0], .time = 0.4f, .cache = &cache, .output = locals}.run()));
  std::vector<Mat4> model(target.joint_count()), expected(target.joint_count());
  ASSERT_TRUE(session->pose(locals, model));
  RetargetScratch scratch(session->rig());
  ASSERT_TRUE(
      (RetargetJob{.rig = &session->rig(), .source = locals, .scratch = &scratch, .output = expected_locals}
           .run()));
  ASSERT_TRUE((LocalToModelJob{.skeleton = &target, .input = expected_locals, .output = expected}.run()));
  for (int j = 0; j < target.joint_count(); ++j)
    for (int i = 0; i < 16; ++i) EXPECT_EQ(model[j].m[i], expected[j].m[i]) << target.name(j);
  EXPECT_FALSE(session->pose(locals, std::span(model).first(3)));
}

}  // namespace
}  // namespace ossa

namespace ossa {
namespace {

// The viewer's graph: parameters set from text, and a file edited on disk reloaded (the values set so far
// kept by name); a broken edit keeps the graph that plays and says why.
TEST(GraphDocument, ReloadsWhenTheFileChangesAndKeepsTheValues) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("ossa_graph_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".animgraph.json");
  auto write = [&](const std::string& text) { std::ofstream(path, std::ios::binary) << text; };
  const std::string first = R"({"parameters": {"speed": {"type": "float"}, "go": {"type": "trigger"}},
    "layers": [{"name": "base", "entry": "Idle", "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "Walk"}],
                "transitions": [{"from": "Idle", "to": "Walk", "when": [["speed", ">", 1]]}]}]})";
  write(first);
  auto doc = viewer::GraphDocument::open(path.string(), sample());
  ASSERT_TRUE(doc) << doc.error();
  EXPECT_EQ(doc->set("speed", "1.5"), "");
  EXPECT_NE(doc->set("speed", "fast"), "");
  EXPECT_NE(doc->set("go", "true"), "");
  EXPECT_EQ(doc->set("go", "set"), "");
  EXPECT_NE(doc->set("missing", "1"), "");
  EXPECT_FALSE(doc->reload_if_changed()) << "unchanged";
  // An edit: a third state; the speed set above is kept.
  write(R"({"parameters": {"speed": {"type": "float"}},
    "layers": [{"name": "base", "entry": "Idle", "states": [{"name": "Idle", "clip": "Idle"}, {"name": "Walk", "clip": "Walk"}, {"name": "Wave", "clip": "Wave"}],
                "transitions": [{"from": "Idle", "to": "Wave", "when": [["speed", ">", 1]]}]}]})");
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(2));
  ASSERT_TRUE(doc->reload_if_changed()) << doc->error();
  EXPECT_EQ(doc->graph().layers()[0].states.size(), 3u);
  EXPECT_EQ(doc->instance().value(doc->instance().parameter("speed")), 1.5f);
  doc->instance().update(0.1f);
  EXPECT_EQ(doc->instance().current_state(0), doc->graph().find_state(0, "Wave"));
  // A broken edit: the graph that plays stays, the error names the file's problem.
  write(R"({"layers": [{"name": "base", "entry": "Idle", "states": [{"name": "Idle", "clip": "Run"}]}]})");
  std::filesystem::last_write_time(path, std::filesystem::last_write_time(path) + std::chrono::seconds(4));
  EXPECT_FALSE(doc->reload_if_changed());
  EXPECT_NE(doc->error().find("no clip 'Run'"), std::string::npos) << doc->error();
  EXPECT_EQ(doc->graph().layers()[0].states.size(), 3u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ossa

namespace ossa {
namespace {

// The viewer's graph logs the events of each update (what its events panel lists), and fires the notifies as
// the document last edited them: an edit that takes Walk's notifies away stops them, the parameters kept.
TEST(GraphDocument, LogsItsEventsAndFiresTheEditedNotifies) {
  auto doc =
      viewer::GraphDocument::open(test::source_dir() + "/assets/sample/ossa_sample.animgraph.json", sample());
  ASSERT_TRUE(doc) << doc.error();
  EXPECT_EQ(doc->set("speed", "1.5"), "");
  size_t fired = 0;
  for (int i = 0; i < 60; ++i) {
    doc->update(1 / 60.f);
    fired += doc->instance().events().size();
  }
  EXPECT_EQ(doc->step(), 60);
  ASSERT_EQ(doc->events().size(), fired);
  const viewer::GraphLoggedEvent& first = doc->events().front();
  EXPECT_EQ(first.step, 0);
  EXPECT_EQ(first.layer, "base");
  EXPECT_EQ(first.type, "state_enter");
  EXPECT_EQ(first.state, "Locomotion");
  auto walk_notifies = [&] {
    size_t n = 0;
    for (const viewer::GraphLoggedEvent& e : doc->events())
      n += e.notify && e.clip == "Armature|Walk" && !e.name.empty();
    return n;
  };
  EXPECT_GE(walk_notifies(), 2u);  // FootL, FootR, ArmSwing's begin and end over a second of walking

  NotifySet edited = sample()->notifies;
  ClipNotifies& walk = edited.clips[sample()->asset.find_clip("Walk")];
  walk.instants.clear();
  walk.states.clear();
  doc->set_notifies(std::make_shared<const NotifySet>(std::move(edited)));
  doc->clear_events();
  for (int i = 0; i < 60; ++i) doc->update(1 / 60.f);
  EXPECT_EQ(doc->instance().value(doc->instance().parameter("speed")), 1.5f);
  EXPECT_EQ(doc->instance().current_state(0), doc->graph().find_state(0, "Locomotion"));
  EXPECT_FALSE(doc->events().empty());  // the state entered again
  EXPECT_EQ(walk_notifies(), 0u);
}

}  // namespace
}  // namespace ossa
