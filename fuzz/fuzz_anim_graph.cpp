// libFuzzer target: the animation graph reader (NAME.animgraph.json) must accept or reject any text with a
// message, never crash or recurse without bound; a graph it accepts must run: an instance updated with
// parameters taken from the input keeps a finite pose and valid states.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ossa/runtime/anim_graph.h"

namespace {

// Four joints (root, spine_02 and its arm) and four clips named like the sample's, each a small swing.
const ossa::CharacterAsset& character() {
  static const ossa::CharacterAsset asset = [] {
    ossa::RawSkeleton raw;
    const char* names[] = {"root", "spine_02", "upperarm_l", "hand_l"};
    for (int j = 0; j < 4; ++j) {
      ossa::RawJoint joint;
      joint.name = names[j];
      joint.parent = j - 1;
      joint.rest.translation = {0, j ? 0.3f : 0.f, 0};
      joint.rest.rotation = {0, 0, 0, 1};
      joint.rest.scale = {1, 1, 1};
      raw.joints.push_back(joint);
    }
    std::vector<ossa::RawClip> clips;
    const char* clip_names[] = {"Idle", "Walk", "Turn", "Wave"};
    for (int c = 0; c < 4; ++c) {
      ossa::RawClip clip;
      clip.name = clip_names[c];
      clip.duration = 0.5f + 0.25f * c;
      clip.tracks.resize(4);
      for (int j = 0; j < 4; ++j) {
        clip.tracks[j].joint = j;
        for (int k = 0; k < 3; ++k) {
          const float angle = 0.3f * std::sin(3.14f * static_cast<float>(k) + static_cast<float>(c + j));
          clip.tracks[j].rotation_times.push_back(clip.duration * static_cast<float>(k) / 2);
          clip.tracks[j].rotations.push_back({0, std::sin(angle / 2), 0, std::cos(angle / 2)});
        }
      }
      clips.push_back(clip);
    }
    auto built = ossa::CharacterAsset::build(raw, clips, {}, "fuzz");
    if (!built) __builtin_trap();
    return std::move(built).value();
  }();
  return asset;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto graph = ossa::AnimGraph::parse(text, character(), "fuzz.animgraph.json");
  if (!graph) {
    if (graph.error().empty()) __builtin_trap();
    return 0;
  }
  ossa::AnimGraphInstance anim(*graph, character());
  const auto parameters = (*graph)->parameters();
  for (size_t step = 0; step < 64; ++step) {
    const uint8_t byte = data[step % size];
    if (!parameters.empty()) {
      const int p = static_cast<int>(byte % parameters.size());
      switch (parameters[p].type) {
        case ossa::AnimGraphParameter::kFloat:
          anim.set_float(p, (byte - 128) / 16.f);
          break;
        case ossa::AnimGraphParameter::kBool:
          anim.set_bool(p, byte & 1);
          break;
        case ossa::AnimGraphParameter::kTrigger:
          anim.set_trigger(p);
          break;
      }
    }
    anim.update((byte % 16) / 60.f);
    for (const ossa::JointPose& pose : anim.locals())
      for (float v : pose.rotation)
        if (!std::isfinite(v)) __builtin_trap();
    for (int l = 0; l < static_cast<int>((*graph)->layers().size()); ++l) {
      const int s = anim.current_state(l);
      if (s < 0 || s >= static_cast<int>((*graph)->layers()[l].states.size())) __builtin_trap();
      if (anim.active_count(l) < 1 || anim.active_count(l) > ossa::AnimGraphInstance::kMaxActiveStates)
        __builtin_trap();
    }
  }
  return 0;
}
