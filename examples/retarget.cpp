// Plays one character's clips on another skeleton: a bone map by names and humanoid profiles, a live
// RetargetJob per frame, and every clip baked for the target.
//
//   retarget SOURCE TARGET   (model files or .ossa; e.g. the bundled sample's FBX onto its glTF twin)
#include <ossa/ossa.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) return std::fprintf(stderr, "usage: retarget SOURCE TARGET\n"), 2;
  auto source_file = ossa::load_character(argv[1]), target_file = ossa::load_character(argv[2]);
  if (!source_file || !target_file)
    return std::fprintf(stderr, "%s\n", (source_file ? target_file : source_file).error().c_str()), 1;
  const ossa::CharacterAsset &source = source_file->asset, &target = target_file->asset;
  if (source.clips.empty()) return std::fprintf(stderr, "%s has no clips\n", argv[1]), 1;

  // [snippet retarget]
  // [snippet retarget_live]
  auto map = ossa::build_bone_map(source.skeleton, target.skeleton);  // names, profiles (and a JSON map)
  if (!map) return std::fprintf(stderr, "%s\n", map.error().c_str()), 1;
  for (const std::string& line : map->report) std::printf("  %s\n", line.c_str());  // never guessed
  auto rig = ossa::RetargetRig::build(source.skeleton, target.skeleton, *map);
  if (!rig) return std::fprintf(stderr, "%s\n", rig.error().c_str()), 1;
  // Live, per frame: the source's local pose in, the target's out (no allocation after the scratch).
  ossa::RetargetScratch scratch(*rig);
  std::vector<ossa::JointPose> source_pose(source.skeleton.joint_count()),
      target_pose(target.skeleton.joint_count());
  ossa::SamplingCache cache;
  for (int frame = 0; frame < 60; ++frame) {
    const float time = frame / 60.f;
    if (!ossa::SampleJob{.clip = &source.clips[0], .time = time, .cache = &cache, .output = source_pose}
             .run() ||
        !ossa::RetargetJob{.rig = &*rig, .source = source_pose, .scratch = &scratch, .output = target_pose}
             .run())
      return std::fprintf(stderr, "a job refused its input\n"), 1;
  }
  // [/snippet]
  // Offline: each clip baked for the target, ready to play (or compress) like any of the target's clips.
  std::vector<ossa::Clip> baked;
  for (const ossa::Clip& clip : source.clips) {
    auto retargeted = ossa::retarget_clip(clip, *rig);
    if (!retargeted) return std::fprintf(stderr, "%s\n", retargeted.error().c_str()), 1;
    baked.push_back(std::move(retargeted).value());
  }
  // [/snippet]

  ossa::CharacterAsset retargeted = target;
  retargeted.clips = std::move(baked);
  ossa::Animator anim(retargeted);
  if (!anim.play(0)) return 1;
  anim.update(0.5f);
  std::printf(
      "%d of %d target joints mapped (profiles: %s -> %s); %zu clips baked; '%s' plays on the target\n",
      map->mapped(), target.skeleton.joint_count(), map->source_profile.c_str(), map->target_profile.c_str(),
      retargeted.clips.size(), retargeted.clips[0].name().c_str());
  return map->mapped() > 0 ? 0 : 1;
}
