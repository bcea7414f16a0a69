// ossa/runtime/retarget.h — play one skeleton's animation on another with other names, rest poses and
// proportions: the per-frame side (RetargetJob on a RetargetRig, ContactTrack weights). The rig, the bone map
// that pairs the joints, contact finding and clips baked for the target are offline work
// (ossa/offline/retarget.h, ossa::offline).
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
// rig's constant frames, so most joints cost one 4x4 matrix product of one source rotation, taken four
// joints at a time (with one square root for the four).
//
// Contacts (RetargetRig::build with RetargetContacts): the target's feet (and hands) as two-bone chains
// (thigh, calf, foot), weighted per frame by a ContactTrack (find_contacts, offline). Weighted by it, the job
// bends the target limb with TwoBoneIkJob so that its end lands where the source's is, taken from rest and
// scaled like the hips: so while a source foot is planted the target's stays put, on the ground, whatever its
// leg proportions. The end joint keeps its model-space rotation; the knee bends in the plane the retargeted
// leg had (straight legs: towards the toes).
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

struct BoneMap;  // ossa/offline/retarget.h

// Which limbs the contact pass keeps planted.
enum class RetargetContacts : uint8_t { kNone = 0, kFeet = 1, kHands = 2, kFeetAndHands = 3 };

// What a RetargetJob needs, computed once from the two skeletons' rest poses and the map. Keeps pointers to
// both skeletons: they must outlive it. Fails when contacts are asked for and a limb is missing or unmapped.
struct RetargetRig {
  // Offline work: defined in ossa::offline (ossa/offline/retarget.h, with the BoneMap it reads).
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
  // The mapped joints that follow one source joint between constant frames (most of a rig), four to a group,
  // so that the job turns and normalises four at once: lane l's Transfer column[k][i] is column[k][i][l].
  // Lanes after a group's last joint repeat it.
  struct alignas(16) TransferGroup {
    float column[4][4][4];
    int source[4], target[4];
  };
  std::vector<TransferGroup> transfer_groups;
  std::vector<int> per_joint;       // the other target joints, which the job visits one by one, in order
  std::vector<int> positioned;      // target joints whose model rotations and positions are tracked, in order
  std::vector<int> source_tracked;  // source joints whose model rotations and positions are tracked, in order
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

}  // namespace ossa
