// Foot placement: a walk played over uneven ground the game describes (a slope and a step), feet planted on
// it with two-bone IK, the pelvis lowered so that both feet stay reachable, the toes turned onto the slope
// with aim IK.
//
//   foot_placement MODEL   (a character with pelvis, thigh_l/calf_l/foot_l/ball_l and the _r side, a Walk)
//
// Per frame: sample, local-to-model (placed in the world by `root`), a target per foot (the animated foot
// moved onto the ground under it, keeping its height above the floor it was authored on: ankle height when
// planted, more when lifted), the pelvis lowered by what the lower target lies under its foot, IK on each
// leg, corrections applied, then a partial local-to-model update of each leg; the same for the toes with an
// aim at the foot. Exit code 1 when a foot misses its target by over 1 mm on a frame where both legs report
// the target reached, when under half the frames are, or when a toe's aim is off by over 1e-4 rad.
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
const ossa::Vec3 ground_normal = ossa::normalize(ossa::Vec3{-0.05f, 1, -0.1f});  // (of the treads)

struct Leg {
  int thigh, calf, foot, ball;
};

ossa::Quat rotation_of(const ossa::Mat4& m) {
  return ossa::decompose(m).rotation;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fprintf(stderr, "usage: foot_placement MODEL\n"), 2;
  ossa::ModelLoadOptions options;
  options.import.isolate = false;  // our own files
  auto loaded = ossa::load_character(argv[1], options);
  if (!loaded) return std::fprintf(stderr, "%s\n", loaded.error().c_str()), 1;
  const ossa::CharacterAsset& asset = (*loaded)->asset;
  const ossa::Skeleton& skeleton = asset.skeleton;
  const int walk = asset.find_clip("Walk"), pelvis = skeleton.find("pelvis");
  Leg legs[2];
  for (int i = 0; i < 2; ++i) {
    const std::string side = i == 0 ? "_l" : "_r";
    legs[i] = {skeleton.find("thigh" + side), skeleton.find("calf" + side), skeleton.find("foot" + side),
               skeleton.find("ball" + side)};
  }
  if (walk < 0 || pelvis < 0 ||
      std::min({legs[0].thigh, legs[0].calf, legs[0].foot, legs[0].ball, legs[1].thigh, legs[1].calf,
                legs[1].foot, legs[1].ball}) < 0)
    return std::fprintf(stderr, "%s: no Walk clip or no pelvis/leg joints\n", argv[1]), 1;
  const ossa::Clip& clip = asset.clips[walk];

  // Set-up, once: the character's forward (heel to toe in the rest pose, level) bends the knees.
  const int n = skeleton.joint_count();
  std::vector<ossa::JointPose> locals(skeleton.rest_pose().begin(), skeleton.rest_pose().end());
  std::vector<ossa::Mat4> model(n);
  ossa::LocalToModelJob{&skeleton, locals, model}.run();
  ossa::Vec3 forward = model[legs[0].ball].translation() - model[legs[0].foot].translation();
  forward = ossa::normalize(ossa::Vec3{forward.x, 0, forward.z});
  std::printf("forward (%.2f %.2f %.2f), ankle heights %.3f %.3f m\n", forward.x, forward.y, forward.z,
              model[legs[0].foot].m[13], model[legs[1].foot].m[13]);

  ossa::SamplingCache cache;
  const float dt = 1 / 30.f, speed = 1.2f, max_drop = 0.25f;
  float worst = 0, worst_toe = 0;  // metres, radians
  int checked = 0, frames = 60;
  for (int frame = 0; frame < frames; ++frame) {
    // Animation, placed in the world: the character's origin stands on the ground under it.
    const float time = frame * dt;
    const ossa::Vec3 origin{0, 0, -0.5f + speed * time};
    const ossa::Mat4 root = ossa::translation_matrix({origin.x, ground_height(origin.x, origin.z), origin.z});
    ossa::SampleJob{&clip, std::fmod(time, clip.duration()), &cache, locals}.run();
    ossa::LocalToModelJob{&skeleton, locals, model, &root}.run();

    // Targets: each foot over the ground under it, as high above it as the clip has it above its floor.
    ossa::Vec3 target[2], toe_target[2];
    float drop = 0;
    for (int i = 0; i < 2; ++i) {
      const ossa::Vec3 foot = model[legs[i].foot].translation(), toe = model[legs[i].ball].translation();
      target[i] = {foot.x, ground_height(foot.x, foot.z) + foot.y - root.m[13], foot.z};
      toe_target[i] = {toe.x, ground_height(toe.x, toe.z) + toe.y - root.m[13], toe.z};
      drop = std::min(drop, target[i].y - foot.y);  // how far the lower target lies under its foot
    }
    drop = std::max(drop, -max_drop);

    // Pelvis down by `drop` (a model-space offset, into its parent's frame), then its sub-tree updated.
    const ossa::Mat4 to_parent = ossa::inverse(model[skeleton.parents()[pelvis]]);
    const ossa::Vec3 down = ossa::transform_vector(to_parent, {0, drop, 0});
    for (int a = 0; a < 3; ++a) locals[pelvis].translation[a] += (&down.x)[a];
    ossa::LocalToModelJob{&skeleton, locals, model, &root, pelvis}.run();

    // Two-bone IK per leg: the knee's hinge is the leg plane's normal (sideways when the leg is straight),
    // the knee bends towards forward.
    bool reached[2];
    for (int i = 0; i < 2; ++i) {
      const Leg& leg = legs[i];
      const ossa::Vec3 hip = model[leg.thigh].translation(), knee = model[leg.calf].translation();
      ossa::Vec3 hinge = ossa::cross(knee - hip, model[leg.foot].translation() - knee);
      if (ossa::length(hinge) < 1e-4f) hinge = ossa::cross(knee - hip, forward);
      ossa::Quat fix[2];
      ossa::TwoBoneIkJob ik;
      ik.start_joint = &model[leg.thigh], ik.mid_joint = &model[leg.calf], ik.end_joint = &model[leg.foot];
      ik.target = target[i];
      ik.pole_vector = forward;
      ik.mid_axis = ossa::rotate(ossa::conjugate(rotation_of(model[leg.calf])), hinge);
      ik.start_correction = fix, ik.mid_correction = fix + 1, ik.reached = &reached[i];
      if (!ik.run()) return std::fprintf(stderr, "frame %d: IK refused its input\n", frame), 1;
      auto apply = [&](int joint, ossa::Quat q) {
        float* r = locals[joint].rotation;
        const ossa::Quat out = ossa::normalize(ossa::Quat{r[0], r[1], r[2], r[3]} * q);
        r[0] = out.x, r[1] = out.y, r[2] = out.z, r[3] = out.w;
      };
      apply(leg.thigh, fix[0]);
      apply(leg.calf, fix[1]);
      ossa::LocalToModelJob{&skeleton, locals, model, &root, leg.thigh}.run();  // the leg only

      // The toes: the foot turns so heel-to-toe points at the toe's target, its up towards the ground normal.
      ossa::AimIkJob aim;
      aim.joint = &model[leg.foot];
      aim.target = toe_target[i];
      const float* ball = locals[leg.ball].translation;  // the toe, in the foot's frame
      aim.forward = {ball[0], ball[1], ball[2]};
      aim.up = ossa::rotate(ossa::conjugate(rotation_of(model[leg.foot])), {0, 1, 0});  // world up, now
      aim.pole_vector = ground_normal;
      aim.joint_correction = fix;
      if (!aim.run()) return std::fprintf(stderr, "frame %d: aim refused its input\n", frame), 1;
      apply(leg.foot, fix[0]);
      ossa::LocalToModelJob{&skeleton, locals, model, &root, leg.foot}.run();
    }

    // Report: each foot's height above the ground under it, and how far it is from its target.
    std::printf("frame %2d  pelvis %+6.3f", frame, drop);
    for (int i = 0; i < 2; ++i) {
      const ossa::Vec3 foot = model[legs[i].foot].translation(), toe = model[legs[i].ball].translation();
      const float error = ossa::length(foot - target[i]);
      std::printf("  %c: ground %.3f foot %.3f above %.4f (target %.4f) miss %.4f mm, toe above %.3f%s",
                  "lr"[i], ground_height(foot.x, foot.z), foot.y, foot.y - ground_height(foot.x, foot.z),
                  target[i].y - ground_height(target[i].x, target[i].z), error * 1000,
                  toe.y - ground_height(toe.x, toe.z), reached[i] ? "" : " (out of reach)");
      if (reached[0] && reached[1]) worst = std::max(worst, error);
      const ossa::Vec3 heel_toe = toe - foot, wanted = toe_target[i] - foot;
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
