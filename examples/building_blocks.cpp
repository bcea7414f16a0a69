// The building blocks under the Animator, for a pipeline of your own: import and build a character, sample a
// clip, model-space matrices, a mesh's palette, two-bone and aim IK, a blend space, and crowds on a thread
// pool or on your own job system. Each step checks its result; the program fails if one is refused.
//
//   building_blocks MODEL   (.fbx .glb .gltf .dae; the bundled sample has the Idle and Walk clips it blends)
#include <ossa/ossa.h>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: building_blocks MODEL\n"), 2;

  // [snippet import_and_build]
  ossa::ImportOptions options;  // max_influences = 4, right-handed
  options.isolate = false;      // our own file; keep the guard on for files from elsewhere
  auto scene = ossa::import_file(argv[1], options);
  if (!scene) return std::fprintf(stderr, "%s\n", scene.error().c_str()), 1;
  auto built = ossa::CharacterAsset::build(*scene);  // fixed-rate clips by default
  if (!built) return std::fprintf(stderr, "%s\n", built.error().c_str()), 1;
  const ossa::CharacterAsset& asset = *built;  // immutable: shared by every instance and thread
  // [/snippet]
  if (asset.clips.empty() || asset.meshes.empty()) return std::fprintf(stderr, "no clips or meshes\n"), 1;

  // [snippet pose_jobs]
  const ossa::Skeleton& skeleton = asset.skeleton;
  std::vector<ossa::JointPose> locals(skeleton.joint_count());
  std::vector<ossa::Mat4> model(skeleton.joint_count());
  const ossa::Mat4 world;     // identity
  ossa::SamplingCache cache;  // one per character and clip
  // [snippet sample_job]
  if (!ossa::SampleJob{.clip = &asset.clips[0], .time = 0.5f, .cache = &cache, .output = locals}.run())
    return std::fprintf(stderr, "sampling refused its input: nothing written\n"), 1;
  // [/snippet]
  if (!ossa::LocalToModelJob{.skeleton = &skeleton, .input = locals, .output = model, .root = &world}.run())
    return 1;
  // A mesh indexes its own palette slots: slot k is joint joint_remap()[k].
  const ossa::SkinnedMesh& mesh = asset.meshes[0];
  std::vector<ossa::Mat4> palette(mesh.inverse_binds().size());
  if (!ossa::PaletteJob{.model = model,
                        .inverse_binds = mesh.inverse_binds(),
                        .joint_remap = mesh.joint_remap(),
                        .output = palette,
                        .output_affine = {}}
           .run())
    return 1;
  // [/snippet]

  // Local rotation <- local rotation * correction: how the IK jobs' corrections apply.
  auto apply = [](ossa::JointPose& pose, ossa::Quat correction) {
    float* r = pose.rotation;
    const ossa::Quat q = ossa::normalize(ossa::Quat{r[0], r[1], r[2], r[3]} * correction);
    r[0] = q.x, r[1] = q.y, r[2] = q.z, r[3] = q.w;
  };
  // Any chain of three joints: here the last joint with a parent and a grandparent.
  int hand = skeleton.joint_count() - 1;
  while (hand > 0 && (skeleton.parents()[hand] < 0 || skeleton.parents()[skeleton.parents()[hand]] < 0))
    --hand;
  if (hand <= 0) return std::fprintf(stderr, "no three-joint chain\n"), 1;
  const ossa::Vec3 grip = model[hand].translation() + ossa::Vec3{0, -0.05f, 0.05f};
  // [snippet two_bone_ik]
  const int elbow = skeleton.parents()[hand], shoulder = skeleton.parents()[elbow];
  ossa::Quat fix[2];  // local rotation corrections of the shoulder and the elbow
  const ossa::TwoBoneIkJob ik{.start_joint = &model[shoulder],
                              .mid_joint = &model[elbow],
                              .end_joint = &model[hand],
                              .target = grip,             // model space
                              .pole_vector = {0, 0, -1},  // the elbow bends towards it
                              .mid_axis = {0, 0, 1},      // the elbow's hinge, in its own frame
                              .start_correction = &fix[0],
                              .mid_correction = &fix[1]};
  if (!ik.run()) return 1;
  apply(locals[shoulder], fix[0]);
  apply(locals[elbow], fix[1]);
  if (!ossa::LocalToModelJob{
          .skeleton = &skeleton, .input = locals, .output = model, .root = &world, .from = shoulder}
           .run())
    return 1;  // the arm's sub-tree, updated
  // [/snippet]

  const int head = hand;
  const ossa::Vec3 look_at = model[head].translation() + ossa::Vec3{0.5f, 0, 1};
  // [snippet aim_ik]
  ossa::Quat turn;
  const ossa::AimIkJob aim{.joint = &model[head],
                           .target = look_at,           // model space
                           .forward = {0, 0, 1},        // the axis that aims, in the joint's frame
                           .up = {0, 1, 0},             // turned towards pole_vector about the aim
                           .offset = {0, 0.07f, 0.1f},  // the eyes: the aim ray starts here
                           .pole_vector = {0, 1, 0},    // model space
                           .joint_correction = &turn};
  if (!aim.run()) return 1;
  apply(locals[head], turn);
  if (!ossa::LocalToModelJob{
          .skeleton = &skeleton, .input = locals, .output = model, .root = &world, .from = head}
           .run())
    return 1;
  // [/snippet]

  // [snippet blend_space]
  const float speeds[] = {0.f, 1.5f};  // idle and walk, by speed in m/s
  const int clips[] = {asset.find_clip("Idle"), asset.find_clip("Walk")};
  auto space = ossa::BlendSpace::build_1d(speeds);
  if (!space) return std::fprintf(stderr, "%s\n", space.error().c_str()), 1;
  auto player = ossa::BlendSpacePlayer::create(asset, *space, clips);
  if (!player) return std::fprintf(stderr, "%s\n", player.error().c_str()), 1;
  if (!player->set_parameter(0.75f)) return 1;  // each frame: the game's speed,
  player->update(1 / 60.f);                     // then player->locals(), events(), root_delta()
  // [/snippet]
  if (player->weights().size() != 2) return 1;

  // [snippet thread_pool]
  ossa::ThreadPool pool;  // one thread per core, the calling thread included
  std::vector<ossa::CharacterInstance> crowd(64);
  for (size_t i = 0; i < crowd.size(); ++i)
    crowd[i].init(skeleton, &asset.clips[i % asset.clips.size()], 0.1f * i);
  pool.parallel_for(static_cast<int>(crowd.size()), [&](int begin, int end) {
    for (int i = begin; i < end; ++i) ossa::update_character(skeleton, crowd[i], 1 / 60.f);
  });                                                   // returns when every index ran once
  ossa::update_crowd(pool, skeleton, crowd, 1 / 60.f);  // the same loop, done for you
  // [/snippet]

  // [snippet custom_executor]
  struct InlineJobs final : ossa::Executor {  // your job system; this one runs each range on the caller
    using ossa::Executor::parallel_for;
    void parallel_for(int count, int chunk, ossa::RangeTask task) override {
      for (int begin = 0; begin < count; begin += std::min(chunk, count - begin))  // no int overflow
        task(begin, begin + std::min(chunk, count - begin));
    }
    int concurrency() const override { return 1; }  // used to size chunks
  };
  InlineJobs game_jobs;
  ossa::update_crowd(game_jobs, skeleton, crowd, 1 / 60.f);  // returns when every character is updated
  // [/snippet]

  // [snippet callback_executor]
  ossa::CallbackExecutor jobs(
      [&](int count, int chunk, ossa::RangeTask task) {
        pool.parallel_for(count, chunk, task);  // or your job system's parallel_for; return when all ran
      },
      pool.thread_count());
  ossa::update_crowd(jobs, skeleton, crowd, 1 / 60.f);
  // [/snippet]

  std::printf(
      "%s: %d joints; sampled, palette of %zu slots, IK on joints %d-%d-%d, blend weights %.2f %.2f, "
      "%zu characters updated 3 times\n",
      argv[1], skeleton.joint_count(), palette.size(), shoulder, elbow, hand, player->weights()[0],
      player->weights()[1], crowd.size());
  return 0;
}
