// Foot placement: a walk played over uneven ground the game describes (a slope and a step), feet planted on
// it by ossa::FootPlacementJob (the pelvis lowered so that both feet stay reachable, two-bone IK per leg, the
// toes turned onto the slope).
//
//   foot_placement MODEL   (a character with pelvis, thigh_l/calf_l/foot_l/ball_l and the _r side, a Walk)
//
// Per frame: sample, local-to-model (placed in the world by `root`), then the job. The check here is its
// own: each foot must end over the ground under where the clip had it, as high above the ground as the clip
// had it above the floor, and heel to toe must point at the toe's place found the same way. Exit code 1 when
// a foot misses by over 1 mm on a frame where both legs report the target reached, when under half the
// frames are, or when a toe's aim is off by over 1e-4 rad.
#include <ossa/ossa.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

// Your game's ground: a slope (up along +z, across along x) and a 12 cm step at z = 1.5.
float ground_height(float x, float z) {
  return 0.1f * z + 0.05f * x + (z > 1.5f ? 0.12f : 0.f);
}
float ground_for_job(const void*, float x, float z) {
  return ground_height(x, z);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: foot_placement MODEL\n"), 2;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::CharacterAsset& asset = loaded->asset;
  const ossa::Skeleton& skeleton = asset.skeleton;
  const int walk = asset.find_clip("Walk"), pelvis = skeleton.find_joint("pelvis");
  ossa::LegJoints legs[2];
  for (int i = 0; i < 2; ++i) {
    const std::string side = i == 0 ? "_l" : "_r";
    legs[i] = {skeleton.find_joint("thigh" + side), skeleton.find_joint("calf" + side),
               skeleton.find_joint("foot" + side), skeleton.find_joint("ball" + side)};
  }
  if (walk < 0 || pelvis < 0 || legs[0].toe < 0 || legs[1].toe < 0)
    return std::fprintf(stderr, "%s: no Walk clip, or no pelvis/leg joints\n", argv[1]), 1;

  // Set-up, once: the character's forward (heel to toe in the rest pose, level) bends the knees.
  const int n = skeleton.joint_count();
  std::vector<ossa::JointPose> locals(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  std::vector<ossa::Mat4> model(n);
  ossa::LocalToModelJob{&skeleton, locals, model}.run();
  ossa::Vec3 forward = model[legs[0].toe].translation() - model[legs[0].foot].translation();
  forward = ossa::normalize(ossa::Vec3{forward.x, 0, forward.z});
  std::printf("forward (%.2f %.2f %.2f), ankle heights %.3f %.3f m\n", forward.x, forward.y, forward.z,
              model[legs[0].foot].m[13], model[legs[1].foot].m[13]);

  ossa::SamplingCache cache;
  const float dt = 1 / 30.f, speed = 1.2f;
  // [snippet foot_placement_job]
  ossa::FootPlacementJob feet;
  feet.skeleton = &skeleton, feet.locals = locals, feet.model = model, feet.pelvis = pelvis;
  feet.legs = legs, feet.ground = {ground_for_job, nullptr}, feet.forward = forward;
  bool reached[2];
  float drop[1] = {0};  // how far the pelvis went down
  feet.reached = reached, feet.pelvis_drop = drop;
  // [/snippet]
  if (!feet.validate())
    return std::fprintf(stderr, "%s: the legs are not chains thigh-calf-foot-ball under the pelvis\n",
                        argv[1]),
           1;
  const ossa::Clip& clip = asset.clips[walk];

  float worst = 0, worst_toe = 0;  // metres, radians
  int checked = 0, frames = 60;
  std::vector<ossa::Mat4> animated(n);
  for (int frame = 0; frame < frames; ++frame) {
    // Animation, placed in the world: the character's origin stands on the ground under it.
    const float time = frame * dt;
    const ossa::Vec3 origin{0, 0, -0.5f + speed * time};
    const ossa::Mat4 root = ossa::translation_matrix({origin.x, ground_height(origin.x, origin.z), origin.z});
    ossa::SampleJob{&clip, std::fmod(time, clip.duration()), &cache, locals}.run();
    ossa::LocalToModelJob{&skeleton, locals, model, &root}.run();
    animated = model;
    feet.root = &root;
    if (!feet.run()) return std::fprintf(stderr, "frame %d: foot placement refused its input\n", frame), 1;

    // Report: each foot's height above the ground under it, and how far it is from where it belongs.
    std::printf("frame %2d  pelvis %+6.3f", frame, drop[0]);
    for (int i = 0; i < 2; ++i) {
      const ossa::Vec3 foot = model[legs[i].foot].translation(), toe = model[legs[i].toe].translation();
      const ossa::Vec3 foot0 = animated[legs[i].foot].translation(),
                       toe0 = animated[legs[i].toe].translation();
      const ossa::Vec3 target{foot0.x, ground_height(foot0.x, foot0.z) + foot0.y - root.m[13], foot0.z};
      const ossa::Vec3 toe_target{toe0.x, ground_height(toe0.x, toe0.z) + toe0.y - root.m[13], toe0.z};
      const float error = ossa::length(foot - target);
      std::printf("  %c: ground %.3f foot %.3f above %.4f (target %.4f) miss %.4f mm, toe above %.3f%s",
                  "lr"[i], ground_height(foot.x, foot.z), foot.y, foot.y - ground_height(foot.x, foot.z),
                  target.y - ground_height(target.x, target.z), error * 1000,
                  toe.y - ground_height(toe.x, toe.z), reached[i] ? "" : " (out of reach)");
      if (reached[0] && reached[1]) worst = std::max(worst, error);
      const ossa::Vec3 heel_toe = toe - foot, wanted = toe_target - foot;
      worst_toe = std::max(
          worst_toe, std::atan2(ossa::length(ossa::cross(heel_toe, wanted)), ossa::dot(heel_toe, wanted)));
    }
    std::printf("\n");
    checked += reached[0] && reached[1];
  }
  std::printf("%d of %d frames reachable; worst foot error on them %.4f mm; toes aimed within %.1e rad\n",
              checked, frames, worst * 1000, worst_toe);
  return checked >= frames / 2 && worst <= 1e-3f && worst_toe <= 1e-4f ? 0 : 1;
}
