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
// identity exactly. The job never forms model-space poses except along the hips' chain (and the contact
// limbs): a joint's local rotation is the source's rotation between the two joints' anchors, between the
// rig's constant frames, so most joints cost two quaternion products.
//
// Contacts (RetargetRig::build with RetargetContacts): the target's feet (and hands) as two-bone chains
// (thigh, calf, foot). find_contacts() marks where the source's end joint stands still near the ground (in
// the world, with the clip's root motion when given): weight 1 while it moves under kContactSpeed hip heights
// a second within kContactHeight of its lowest, fading to 0 at twice those. Weighted by it, the job bends the
// target limb with TwoBoneIkJob so that its end lands where the source's is, taken from rest and scaled like
// the hips: so while a source foot is planted the target's stays put, on the ground, whatever its leg
// proportions. The end joint keeps its model-space rotation; the knee bends in the plane the retargeted leg
// had (straight legs: towards the toes).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/clip.h"
#include "ossa/asset/root_motion.h"
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
  std::string explicit_json{};  // {"target joint": "source joint", ...}: wins over every rule; "" for none
  bool profiles = true;         // read names as humanoid bones (Mixamo, Unreal, VRM, Blender metarig)
  // Read both skeletons' names with this profile instead of detecting one ("mixamo", "unreal", "vrm",
  // "blender-metarig"); "" detects. An unknown name is an error that lists the profiles.
  std::string profile{};
};

// The humanoid profiles build_bone_map knows, by name.
std::vector<std::string> bone_map_profiles();

struct BoneMap {
  std::vector<int> source_of;       // per target joint: the source joint it follows, or -1
  std::string source_profile;       // the humanoid profile the source's names match, or ""
  std::string target_profile;       // the target's
  std::vector<std::string> report;  // one line per unmapped or ambiguous bone, by name
  int target_hips = -1;             // the target's hips by its profile, or -1 (RetargetRig then finds them)
  // The target's left foot, right foot, left hand and right hand (by its profile, else by normalised name:
  // "foot", "hand"), or -1: the ends of the limbs a contact pass keeps planted.
  std::array<int, 4> target_limb_ends{-1, -1, -1, -1};
  int mapped() const;
};

// Fails on an explicit map that names a joint either skeleton lacks, or that is not a JSON object of strings.
Result<BoneMap> build_bone_map(const Skeleton& source, const Skeleton& target,
                               const BoneMapOptions& options = {});

// Which limbs the contact pass keeps planted.
enum class RetargetContacts : uint8_t { kNone = 0, kFeet = 1, kHands = 2, kFeetAndHands = 3 };

// What a RetargetJob needs, computed once from the two skeletons' rest poses and the map. Keeps pointers to
// both skeletons: they must outlive it. Fails when contacts are asked for and a limb is missing or unmapped.
struct RetargetRig {
  static Result<RetargetRig> build(const Skeleton& source, const Skeleton& target, const BoneMap& map,
                                   RetargetContacts contacts = RetargetContacts::kNone);

  const Skeleton* source = nullptr;
  const Skeleton* target = nullptr;
  std::vector<int> source_of;  // per target joint, as BoneMap
  int source_hips = -1, target_hips = -1;
  float hips_scale = 1;         // target hip height / source hip height (model y at rest)
  float source_hip_height = 1;  // model y at rest (1 when unknown)

  // A limb the contact pass keeps planted: the target's chain start -> mid -> end (end following the
  // source's source_end).
  struct Contact {
    std::string name;  // "left foot", "right hand", ...
    int start = -1, mid = -1, end = -1, source_end = -1;
    Vec3 source_rest, target_rest;  // the end joints' model positions at rest
    Vec3 pole_in_start;             // where the mid joint bends when the limb is straight, in start's frame
  };
  std::vector<Contact> contacts;

  // The job's plan (build() fills it; see the .cpp). Per target joint:
  struct Step {
    enum Kind : uint8_t { kRest, kCopy, kMapped, kChain } kind = kRest;
    uint8_t dynamic_frame = 0;  // the frame depends on the pose (a chain, or below one)
    uint8_t positioned = 0;     // its model rotation and position are tracked (hips' chain, contact limbs)
    uint8_t carries = 0;        // its translation follows the source's travel from rest (scaled)
    int source = -1;            // the source joint it follows (kCopy, kMapped) or its chain's top's
    // Source joints whose local rotations compose the turn from the parent's anchor to this joint's:
    // conj(product of path[first, first + up)) * product of path[first + up, first + up + down).
    uint32_t first = 0;
    uint16_t up = 0, down = 0;
    // kChain: the source's joints from below the top's source down to the end's source parent
    // (path[bend_first, bend_first + bend_count)); the share of their turn this joint takes.
    uint32_t bend_first = 0;
    uint16_t bend_count = 0;
    int top = -1;
    float fraction = 0;
    Quat rest_to_here, inverse_source_rest;
    Vec3 source_rest_position, target_rest_position;  // carries: model positions at rest
  };
  std::vector<Step> steps;
  std::vector<int> path;
  std::vector<Quat> frame;  // per target joint: its constant frame R (model = source model at anchor * R)
  // Per target joint whose frame and parent's frame are constant: q -> conj(R_parent) * q * R as a 4x4 matrix
  // (columns: the images of x, y, z, w), so its local rotation is one matrix product of the source's turn.
  struct Transfer {
    float column[4][4];
  };
  std::vector<Transfer> transfer;
  std::vector<uint8_t> source_positioned;  // source joints whose model positions the job tracks
};

// Per character: what the job computes on the way (sized once, no allocation after).
struct RetargetScratch {
  explicit RetargetScratch(const RetargetRig& rig);
  std::vector<Quat> frame, source_model, target_model;
  std::vector<Vec3> source_position, target_position;
};

// Source locals -> target locals. validate(): spans of both skeletons' joint counts, scratch sized for the
// rig, contact_weights empty or one per rig contact, each in [0, 1]. No allocation.
struct RetargetJob {
  const RetargetRig* rig = nullptr;
  std::span<const JointPose> source;  // rig->source->joint_count() local poses
  RetargetScratch* scratch = nullptr;
  std::span<JointPose> output;  // rig->target->joint_count() local poses
  std::span<const float>
      contact_weights{};  // per rig->contacts: how planted (ContactTrack::sample); or empty

  bool validate() const;
  bool run() const;  // false (nothing written) when validate() fails
};

// Where a clip's source limbs stand still, per frame: weights for RetargetJob::contact_weights.
struct ContactTrack {
  float frame_rate = 0, duration = 0;
  int contacts = 0;
  std::vector<float> weights;  // frame-major: frames x contacts
  int frame_count() const { return contacts ? static_cast<int>(weights.size()) / contacts : 0; }
  // Interpolated between frames, clamped to the clip; `out` holds one weight per contact.
  void sample(float time, std::span<float> out) const;
};

// A limb counts as planted below this speed, in source hip heights per second, and this height above the
// lowest it reaches in the clip, in hip heights (fully at these, not at all from twice these).
constexpr float kContactSpeed = 0.15f;
constexpr float kContactHeight = 0.05f;

// `clip` (made for rig.source) sampled at its frame rate (60 fps for a keyed clip). `root_motion`: the
// clip's track when it plays in place (its travel then counts), else null.
Result<ContactTrack> find_contacts(const Clip& clip, const RetargetRig& rig,
                                   const RootMotionTrack* root_motion = nullptr);

// The clip for the target: `clip` (made for rig.source) sampled at its frame rate (60 fps for a keyed clip)
// and retargeted frame by frame into a fixed-rate clip, which compresses like any other; with the rig's
// contacts held where the source's limbs stand still (find_contacts, with `root_motion` as there). Morph
// weights are not carried (retarget_morph_weights in ossa/serialize/ossa_file.h does, by name).
Result<Clip> retarget_clip(const Clip& clip, const RetargetRig& rig,
                           const RootMotionTrack* root_motion = nullptr);

// The clip's root-motion track for the target: travel scaled by rig.hips_scale, on the target joint that
// follows the track's joint (else the target's default root joint).
RootMotionTrack retarget_root_motion(const RootMotionTrack& track, const RetargetRig& rig);

}  // namespace ossa
