// ossa/offline/retarget.h — retargeting's offline side (ossa::offline): the bone map that pairs a target's
// joints with a source's, the rig a RetargetJob runs on (RetargetRig::build, declared in
// ossa/runtime/retarget.h and defined here), where a clip's limbs stand still, and clips and root-motion
// tracks baked for the target. The per-frame job and the whole example are in ossa/runtime/retarget.h.
//
// The bone map pairs each target joint with a source joint: an explicit map first (JSON, target name ->
// source name), then humanoid profiles (Mixamo, the Unreal mannequin, VRM, Blender's metarig: both skeletons'
// names are read as canonical humanoid bones when each matches a profile), then the same name, then the same
// normalised name (namespaces such as "mixamorig:" and "Armature|" dropped, case and separators ignored,
// Left/L/_l/.L side conventions unified). A name two joints share after normalising is ambiguous: it is
// reported and not mapped, never guessed.
//
//
// Contacts: find_contacts() marks where the source's end joint stands still near the ground (in the world,
// with the clip's root motion when given): weight 1 while it moves under kContactSpeed hip heights a second
// within kContactHeight of its lowest, fading to 0 at twice those.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ossa/asset/character.h"
#include "ossa/asset/clip.h"
#include "ossa/asset/root_motion.h"
#include "ossa/asset/skeleton.h"
#include "ossa/core/result.h"
#include "ossa/runtime/retarget.h"

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

// Clips `clips` (indices into source.clips) retargeted through `rig` as retarget_clip does, each with its
// root-motion track (source_root_motion: one per source clip, or empty) and, with `morph_weights`, its morph
// weights carried by name (retarget_morph_weights; what no target mesh took goes to `unmatched_morphs`).
// What `ossa retarget` writes and ossa.retarget returns.
struct RetargetedClips {
  std::vector<Clip> clips;
  std::vector<std::optional<RootMotionTrack>> root_motion;  // per clip: the source's track retargeted
  std::vector<std::string> unmatched_morphs;
};
Result<RetargetedClips> retarget_clips(const CharacterAsset& source,
                                       std::span<const RootMotionTrack> source_root_motion,
                                       const CharacterAsset& target, const RetargetRig& rig,
                                       std::span<const int> clips, bool morph_weights);

// The clip's root-motion track for the target: travel scaled by rig.hips_scale, on the target joint that
// follows the track's joint (else the target's default root joint).
RootMotionTrack retarget_root_motion(const RootMotionTrack& track, const RetargetRig& rig);

// By names alone, for skeletons that share joint names (no rig, no rest-pose alignment): maps a clip made for
// `source` onto `target` by joint names. Joints of the target the source lacks keep
// their rest pose; `unmatched` receives the source joints the target lacks. Keyed and fixed-rate clips.
Result<Clip> retarget_clip(const Clip& clip, const Skeleton& source, const Skeleton& target,
                           std::vector<std::string>* unmatched = nullptr);

// The same for a whole character, morph weights too (the overload above drops them: they name meshes of the
// source). A target mesh's morph target receives the weights of the source's morph target of the same name,
// taken from the source mesh of the same name when it animates one, else from any animated source mesh; the
// target's other morph targets keep their default weights. Exact: the weights are the source's keys (merged
// across source meshes where one target mesh takes from several, steps kept). `unmatched` also receives the
// animated source morph targets no target took, as "mesh/target".
Result<Clip> retarget_clip(const Clip& clip, const CharacterAsset& source, const CharacterAsset& target,
                           std::vector<std::string>* unmatched = nullptr);
// Only the morph weights of that (what a clip retargeted through a RetargetRig takes with
// Clip::with_morph_weights); empty tracks when the clip animates none.
Result<MorphWeightTracks> retarget_morph_weights(const Clip& clip, const CharacterAsset& source,
                                                 const CharacterAsset& target,
                                                 std::vector<std::string>* unmatched = nullptr);

}  // namespace ossa
