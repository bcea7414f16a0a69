// ossa/runtime/retarget.h — play one skeleton's animation on another with other names, rest poses and
// proportions.
//
// snippet: examples/retarget.cpp retarget
//   auto map = ossa::build_bone_map(source.skeleton, target.skeleton);  // names, profiles (and a JSON map)
//   if (!map) return std::fprintf(stderr, "%s\n", map.error().c_str()), 1;
//   for (const std::string& line : map->report) std::printf("  %s\n", line.c_str());  // never guessed
//   auto rig = ossa::RetargetRig::build(source.skeleton, target.skeleton, *map);
//   if (!rig) return std::fprintf(stderr, "%s\n", rig.error().c_str()), 1;
//   // Live, per frame: the source's local pose in, the target's out (no allocation after the scratch).
//   ossa::RetargetScratch scratch(*rig);
//   std::vector<ossa::JointPose> source_pose(source.skeleton.joint_count()),
//       target_pose(target.skeleton.joint_count());
//   ossa::SamplingCache cache;
//   for (int frame = 0; frame < 60; ++frame) {
//     const float time = frame / 60.f;
//     if (!ossa::SampleJob{.clip = &source.clips[0], .time = time, .cache = &cache, .output = source_pose}
//              .run() ||
//         !ossa::RetargetJob{.rig = &*rig, .source = source_pose, .scratch = &scratch, .output = target_pose}
//              .run())
//       return std::fprintf(stderr, "a job refused its input\n"), 1;
//   }
//   // Offline: each clip baked for the target, ready to play (or compress) like any of the target's clips.
//   std::vector<ossa::Clip> baked;
//   for (const ossa::Clip& clip : source.clips) {
//     auto retargeted = ossa::retarget_clip(clip, *rig);
//     if (!retargeted) return std::fprintf(stderr, "%s\n", retargeted.error().c_str()), 1;
//     baked.push_back(std::move(retargeted).value());
//   }
//
// The bone map pairs each target joint with a source joint: an explicit map first (JSON, target name ->
// source name), then humanoid profiles (Mixamo, the Unreal mannequin, VRM, Blender's metarig: both skeletons'
// names are read as canonical humanoid bones when each matches a profile), then the same name, then the same
// normalised name (namespaces such as "mixamorig:" and "Armature|" dropped, case and separators ignored,
// Left/L/_l/.L side conventions unified). A name two joints share after normalising is ambiguous: it is
// reported and not mapped, never guessed.
//
// Transfer, per mapped target joint j following source joint s: the source's rotation relative to its rest,
// in model space, S(t) * S0^-1, is applied to the target's rest after aligning the target's rest bone
// direction with the source's (the shortest rotation Q between them, from each joint to its first mapped
// child): T(t) = S(t) * S0^-1 * Q * T0. So an A-pose target plays a T-pose source's clip with the source's
// bone directions, and other bone rolls keep their twist relative to rest. Unmapped target joints between
// two mapped ones (a spine of 5 under a source's 3) take even shares of the source's turn over the joints
// between those two; other unmapped joints keep their rest rotation relative to their parent. Translations
// are the target's own (its bone lengths), except those of the hips (the humanoid hips, else the first mapped
// joint where mapped limbs branch) and of the mapped joints above them: they travel as the source's do from
// rest, scaled by the ratio of the hip heights (model y). Scales are the target's rest scales. Joints whose
// rest poses and parents' agree exactly on both sides copy the source's pose, so identical skeletons give the
// identity exactly. Not handled: keeping feet planted (contacts).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/asset/skeleton.h"
#include "ossa/core/math.h"
#include "ossa/core/result.h"
#include "ossa/runtime/pose.h"

namespace ossa {

// A bone name taken apart: its side and the rest, lowercase, without separators or namespace
// ("mixamorig:LeftUpLeg" -> left, "upleg"; "upper_arm.L" -> left, "upperarm"; "thigh_r" -> right, "thigh").
struct NormalizedBoneName {
  enum Side : uint8_t { kCenter, kLeft, kRight } side = kCenter;
  std::string base;
  bool operator==(const NormalizedBoneName&) const = default;
};
NormalizedBoneName normalize_bone_name(std::string_view name);

struct BoneMapOptions {
  std::string explicit_json;  // {"target joint": "source joint", ...}: wins over every rule; "" for none
  bool profiles = true;       // read names as humanoid bones (Mixamo, Unreal, VRM, Blender metarig)
};

struct BoneMap {
  std::vector<int> source_of;       // per target joint: the source joint it follows, or -1
  std::string source_profile;       // the humanoid profile the source's names match, or ""
  std::string target_profile;       // the target's
  std::vector<std::string> report;  // one line per unmapped or ambiguous bone, by name
  int target_hips = -1;             // the target's hips by its profile, or -1 (RetargetRig then finds them)
  int mapped() const;
};

// Fails on an explicit map that names a joint either skeleton lacks, or that is not a JSON object of strings.
Result<BoneMap> build_bone_map(const Skeleton& source, const Skeleton& target,
                               const BoneMapOptions& options = {});

// What a RetargetJob needs, computed once from the two skeletons' rest poses and the map. Keeps pointers to
// both skeletons: they must outlive it.
struct RetargetRig {
  static Result<RetargetRig> build(const Skeleton& source, const Skeleton& target, const BoneMap& map);

  const Skeleton* source = nullptr;
  const Skeleton* target = nullptr;
  std::vector<int> source_of;  // per target joint, as BoneMap
  std::vector<Quat> offset;    // per mapped target joint: S0^-1 * Q * T0 (T(t) = S(t) * offset)
  std::vector<uint8_t> copy;   // per target joint: 1 when the source's local rotation is copied as is
  int source_hips = -1, target_hips = -1;
  float hips_scale = 1;  // target hip height / source hip height (model y at rest)
  // Per target joint: 1 for the hips and the mapped joints above them, whose translations follow the
  // source's travel from rest (scaled); their rest positions in model space on both sides.
  std::vector<uint8_t> carries;
  std::vector<Vec3> source_rest_position, target_rest_position;
  // Per target joint left unmapped between two mapped ones: the share it takes of the source's turn between
  // source_top (top's source) and source_parent (the parent of the mapped joint below).
  struct Chain {
    int top = -1, source_top = -1, source_parent = -1;
    float fraction = 0;        // its depth below top over the count of unmapped joints down to the end
    Quat rest_to_here;         // rest local rotations from below top down to this joint
    Quat inverse_source_rest;  // inverse of source_top -> source_parent at the source's rest
  };
  std::vector<Chain> chains;
  // The joints whose model-space positions the job computes: the hips and their ancestors, on each side.
  std::vector<uint8_t> source_positioned, target_positioned;
};

// Per character: the model-space rotations and positions the job works in (sized once, no allocation after).
struct RetargetScratch {
  explicit RetargetScratch(const RetargetRig& rig);
  std::vector<Quat> source_model, target_model;
  std::vector<Vec3> source_position, target_position;
};

// Source locals -> target locals. validate(): spans of both skeletons' joint counts, scratch sized for the
// rig. No allocation.
struct RetargetJob {
  const RetargetRig* rig = nullptr;
  std::span<const JointPose> source;  // rig->source->joint_count() local poses
  RetargetScratch* scratch = nullptr;
  std::span<JointPose> output;  // rig->target->joint_count() local poses

  bool validate() const;
  bool run() const;  // false (nothing written) when validate() fails
};

// The clip for the target: `clip` (made for rig.source) sampled at its frame rate (60 fps for a keyed clip)
// and retargeted frame by frame into a fixed-rate clip, which compresses like any other. Morph weights are
// not carried (see retarget_clip in ossa/serialize/ossa_file.h for those, by name).
Result<Clip> retarget_clip(const Clip& clip, const RetargetRig& rig);

}  // namespace ossa
