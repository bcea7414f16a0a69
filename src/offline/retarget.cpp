// Retargeting's offline side (ossa/offline/retarget.h): bone maps (names, humanoid profiles, JSON maps), the
// rig a RetargetJob runs on (RetargetRig::build), where a clip's limbs stand still (find_contacts), and clips
// and root-motion tracks baked for the target. Once per rig or clip, never per frame.
#include "ossa/offline/retarget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "../runtime/kernels/kernels.h"
#include "../runtime/pose_parts.h"
#include "ossa/asset/notifies.h"
#include "ossa/offline/root_motion.h"
#include "ossa/runtime/ik_job.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
using detail::rotation_of;
using detail::scale_of;
using detail::translation_of;

namespace {

// Canonical humanoid bones, and how each profile names them (normalised bases, sides apart).
struct ProfileEntry {
  const char* base;
  const char* canonical;
};
struct Profile {
  const char* name;
  std::vector<ProfileEntry> entries;
};

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> all = {
      {"mixamo",
       {{"hips", "hips"},
        {"spine", "spine"},
        {"spine1", "chest"},
        {"spine2", "upper_chest"},
        {"neck", "neck"},
        {"head", "head"},
        {"shoulder", "shoulder"},
        {"arm", "upper_arm"},
        {"forearm", "lower_arm"},
        {"hand", "hand"},
        {"upleg", "upper_leg"},
        {"leg", "lower_leg"},
        {"foot", "foot"},
        {"toebase", "toes"}}},
      {"unreal",
       {{"pelvis", "hips"},
        {"spine01", "spine"},
        {"spine02", "chest"},
        {"spine03", "upper_chest"},
        {"chest", "upper_chest"},
        {"neck01", "neck"},
        {"neck", "neck"},
        {"head", "head"},
        {"clavicle", "shoulder"},
        {"upperarm", "upper_arm"},
        {"lowerarm", "lower_arm"},
        {"hand", "hand"},
        {"thigh", "upper_leg"},
        {"calf", "lower_leg"},
        {"foot", "foot"},
        {"ball", "toes"}}},
      {"vrm",
       {{"hips", "hips"},
        {"spine", "spine"},
        {"abdomen", "spine"},
        {"torso", "chest"},
        {"chest", "chest"},
        {"upperchest", "upper_chest"},
        {"neck", "neck"},
        {"head", "head"},
        {"shoulder", "shoulder"},
        {"upperarm", "upper_arm"},
        {"lowerarm", "lower_arm"},
        {"hand", "hand"},
        {"upperleg", "upper_leg"},
        {"lowerleg", "lower_leg"},
        {"foot", "foot"},
        {"toes", "toes"}}},
      {"blender-metarig",
       {{"spine", "hips"},
        {"spine001", "spine"},
        {"spine002", "chest"},
        {"spine003", "upper_chest"},
        {"spine004", "neck"},
        {"spine006", "head"},
        {"shoulder", "shoulder"},
        {"upperarm", "upper_arm"},
        {"forearm", "lower_arm"},
        {"hand", "hand"},
        {"thigh", "upper_leg"},
        {"shin", "lower_leg"},
        {"foot", "foot"},
        {"toe", "toes"}}},
  };
  return all;
}

bool is_separator(char c) {
  return c == '_' || c == '.' || c == ' ' || c == '-';
}

// "side:canonical" of every joint under `profile`, or "" for a joint it does not name.
std::vector<std::string> canonical_names(const std::vector<NormalizedBoneName>& names,
                                         const Profile& profile) {
  std::vector<std::string> out(names.size());
  for (size_t j = 0; j < names.size(); ++j)
    for (const ProfileEntry& e : profile.entries)
      if (names[j].base == e.base)
        out[j] = std::to_string(static_cast<int>(names[j].side)) + ":" + e.canonical;
  return out;
}

// The profile naming the most of these joints (at least 6 distinct canonical bones), or null.
const Profile* detect_profile(const std::vector<NormalizedBoneName>& names) {
  const Profile* best = nullptr;
  size_t best_count = 5;
  for (const Profile& p : profiles()) {
    std::vector<std::string> c = canonical_names(names, p);
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    const size_t count = c.size() - (c.front().empty() ? 1 : 0);
    if (count > best_count) best = &p, best_count = count;
  }
  return best;
}

// Where each key is: its index when it is there once, -2 when several times. One lookup per name keeps a
// match of two 60,000-joint skeletons linear (a scan per name took minutes).
class KeyIndex {
 public:
  explicit KeyIndex(const std::vector<std::string>& keys) {
    index_.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      auto [it, added] = index_.try_emplace(keys[i], static_cast<int>(i));
      if (!added) it->second = -2;
    }
  }
  // The index of the key that is there once, -1 when it is not there, -2 when several times.
  int unique(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string, int> index_;
};

// The first joint of each name (Skeleton::find_joint's answer), by hash.
class NameIndex {
 public:
  explicit NameIndex(const Skeleton& skeleton) {
    index_.reserve(static_cast<size_t>(skeleton.joint_count()));
    for (int j = skeleton.joint_count() - 1; j >= 0; --j) index_[skeleton.name(j)] = j;
  }
  int find(std::string_view name) const {
    auto it = index_.find(name);
    return it == index_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string_view, int> index_;  // views of the skeleton's names
};

std::string key_of(const NormalizedBoneName& n) {
  return std::to_string(static_cast<int>(n.side)) + ":" + n.base;
}

// Model-space rotations and positions of `locals` (scale applied to the children's offsets).
void to_model(const Skeleton& skeleton, std::span<const JointPose> locals, std::span<Quat> rotations,
              std::span<Vec3> positions) {
  std::vector<Vec3> scales;  // only at build time
  scales.resize(locals.size());
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const int p = skeleton.parents()[j];
    const Quat r = rotation_of(locals[j]);
    if (p < 0) {
      rotations[j] = r, positions[j] = translation_of(locals[j]), scales[j] = scale_of(locals[j]);
      continue;
    }
    rotations[j] = normalize(rotations[p] * r);
    positions[j] = positions[p] + rotate(rotations[p], translation_of(locals[j]) * scales[p]);
    scales[j] = scales[p] * scale_of(locals[j]);
  }
}

// The shortest rotation taking unit vector a onto unit vector b (identity when they agree or either is 0).
Quat rotation_between(Vec3 a, Vec3 b) {
  const float la = length(a), lb = length(b);
  if (la < 1e-9f || lb < 1e-9f) return {};
  a = a * (1 / la), b = b * (1 / lb);
  const float d = dot(a, b);
  if (d > 1 - 1e-7f) return {};
  if (d < -1 + 1e-6f) {  // opposite: half a turn about any axis perpendicular to a
    Vec3 axis = cross(a, Vec3{1, 0, 0});
    if (length(axis) < 1e-3f) axis = cross(a, Vec3{0, 1, 0});
    return quat_from_axis_angle(normalize(axis), 3.14159265f);
  }
  const Vec3 c = cross(a, b);
  return normalize(Quat{c.x, c.y, c.z, 1 + d});
}

// One past the last joint of each joint's sub-tree (Skeleton::subtree_end for every joint at once: parents
// come before their children, so one backward pass; asking per joint walks the sub-tree, quadratic on a
// chain).
std::vector<int> subtree_ends(const Skeleton& skeleton) {
  std::vector<int> end(static_cast<size_t>(skeleton.joint_count()));
  for (int j = skeleton.joint_count() - 1; j >= 0; --j) {
    end[j] = std::max(end[j], j + 1);
    if (const int p = skeleton.parents()[j]; p >= 0) end[p] = std::max(end[p], end[j]);
  }
  return end;
}

std::vector<int> depths(const Skeleton& skeleton) {
  std::vector<int> depth(static_cast<size_t>(skeleton.joint_count()));
  for (int j = 0; j < skeleton.joint_count(); ++j)
    depth[j] = skeleton.parents()[j] < 0 ? 0 : depth[skeleton.parents()[j]] + 1;
  return depth;
}

// The first joint below `joint` (depth first) that satisfies `mapped`, or -1.
template <class Pred>
int first_mapped_descendant(const std::vector<int>& subtree_end, int joint, Pred mapped) {
  for (int c = joint + 1; c < subtree_end[joint]; ++c)
    if (mapped(c)) return c;
  return -1;
}

bool same_pose(const JointPose& a, const JointPose& b) {
  return std::equal(a.rotation, a.rotation + 4, b.rotation) &&
         std::equal(a.translation, a.translation + 3, b.translation) &&
         std::equal(a.scale, a.scale + 3, b.scale);
}

}  // namespace
NormalizedBoneName normalize_bone_name(std::string_view name) {
  if (const size_t cut = name.find_last_of(":|"); cut != std::string_view::npos) name.remove_prefix(cut + 1);
  // Tokens: split at separators and where a lowercase letter or digit meets an uppercase one (camel case).
  std::vector<std::string> tokens(1);
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (is_separator(c)) {
      if (!tokens.back().empty()) tokens.emplace_back();
      continue;
    }
    const bool upper = std::isupper(static_cast<unsigned char>(c));
    if (upper && i > 0 && !tokens.back().empty() &&
        (std::islower(static_cast<unsigned char>(name[i - 1])) ||
         std::isdigit(static_cast<unsigned char>(name[i - 1]))))
      tokens.emplace_back();
    tokens.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (tokens.back().empty()) tokens.pop_back();
  NormalizedBoneName out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    const bool edge = i == 0 || i + 1 == tokens.size();
    if (out.side == NormalizedBoneName::kCenter &&
        (t == "left" || (edge && t == "l") || t == "right" || (edge && t == "r"))) {
      out.side = t[0] == 'l' ? NormalizedBoneName::kLeft : NormalizedBoneName::kRight;
      continue;
    }
    out.base += t;
  }
  // "mixamorig" or "def" prefixes glued on without a separator stay; namespaces were cut above.
  return out;
}

std::vector<std::string> bone_map_profiles() {
  std::vector<std::string> names;
  for (const Profile& p : profiles()) names.push_back(p.name);
  return names;
}

int BoneMap::mapped() const {
  return static_cast<int>(std::count_if(source_of.begin(), source_of.end(), [](int s) { return s >= 0; }));
}

Result<BoneMap> build_bone_map(const Skeleton& source, const Skeleton& target,
                               const BoneMapOptions& options) {
  const int sn = source.joint_count(), tn = target.joint_count();
  BoneMap map;
  map.source_of.assign(tn, -1);
  std::vector<bool> decided(tn, false);
  const NameIndex source_index(source);  // for the explicit map and the same-name rule

  if (!options.explicit_json.empty()) {
    if (std::string e = json_nesting_error(options.explicit_json); !e.empty())
      return Result<BoneMap>::failure("bone map: " + e);
    const nlohmann::json doc = nlohmann::json::parse(options.explicit_json, nullptr, false);
    if (!doc.is_object())
      return Result<BoneMap>::failure("bone map: not a JSON object of target -> source names");
    if (doc.size() > static_cast<size_t>(tn))
      return Result<BoneMap>::failure("bone map: " + std::to_string(doc.size()) +
                                      " entries for a target of " + std::to_string(tn) + " joints");
    const NameIndex target_index(target);
    for (const auto& [target_name, value] : doc.items()) {
      if (!value.is_string() && !value.is_null())
        return Result<BoneMap>::failure("bone map: '" + target_name +
                                        "' must name a source joint (or be null)");
      const int t = target_index.find(target_name);
      if (t < 0) return Result<BoneMap>::failure("bone map: the target has no joint '" + target_name + "'");
      decided[t] = true;
      if (value.is_null()) continue;  // explicitly unmapped
      const int s = source_index.find(value.get<std::string>());
      if (s < 0)
        return Result<BoneMap>::failure("bone map: the source has no joint '" + value.get<std::string>() +
                                        "'");
      map.source_of[t] = s;
    }
  }

  const std::vector<bool> explicitly = decided;
  std::vector<NormalizedBoneName> source_names(sn), target_names(tn);
  for (int j = 0; j < sn; ++j) source_names[j] = normalize_bone_name(source.name(j));
  for (int j = 0; j < tn; ++j) target_names[j] = normalize_bone_name(target.name(j));

  // Humanoid profiles, when both skeletons' names read as one.
  const Profile* forced = nullptr;
  if (!options.profile.empty()) {
    for (const Profile& p : profiles())
      if (options.profile == p.name) forced = &p;
    if (!forced) {
      std::string known;
      for (const std::string& name : bone_map_profiles()) known += (known.empty() ? "" : ", ") + name;
      return Result<BoneMap>::failure("bone map: no humanoid profile '" + options.profile + "' (" + known +
                                      ")");
    }
  }
  if (options.profiles) {
    const Profile* sp = forced ? forced : detect_profile(source_names);
    const Profile* tp = forced ? forced : detect_profile(target_names);
    if (sp && tp) {
      map.source_profile = sp->name, map.target_profile = tp->name;
      const std::vector<std::string> sc = canonical_names(source_names, *sp),
                                     tc = canonical_names(target_names, *tp);
      const KeyIndex source_canonical(sc);
      const std::string limbs[4] = {"1:foot", "2:foot", "1:hand", "2:hand"};
      for (int t = 0; t < tn; ++t) {
        if (tc[t] == "0:hips" && map.target_hips < 0) map.target_hips = t;
        for (int l = 0; l < 4; ++l)
          if (tc[t] == limbs[l] && map.target_limb_ends[l] < 0) map.target_limb_ends[l] = t;
        if (decided[t] || tc[t].empty()) continue;
        const int s = source_canonical.unique(tc[t]);
        if (s >= 0) map.source_of[t] = s, decided[t] = true;
      }
    }
  }
  // Limb ends no profile named: the one target joint normalised as "foot" or "hand" on each side.
  std::vector<std::string> target_keys(tn);
  for (int j = 0; j < tn; ++j) target_keys[j] = key_of(target_names[j]);
  const char* limb_keys[4] = {"1:foot", "2:foot", "1:hand", "2:hand"};
  const KeyIndex target_key_index(target_keys);
  for (int l = 0; l < 4; ++l)
    if (map.target_limb_ends[l] < 0)
      map.target_limb_ends[l] = std::max(-1, target_key_index.unique(limb_keys[l]));
  // The same name, then the same normalised name.
  std::vector<std::string> source_keys(sn);
  for (int j = 0; j < sn; ++j) source_keys[j] = key_of(source_names[j]);
  const KeyIndex source_key_index(source_keys);
  for (int t = 0; t < tn; ++t) {
    if (decided[t]) continue;
    if (const int s = source_index.find(target.name(t)); s >= 0) {
      map.source_of[t] = s, decided[t] = true;
      continue;
    }
    const int s = source_key_index.unique(key_of(target_names[t]));
    if (s == -2) {
      map.report.push_back("ambiguous: target '" + target.name(t) + "' matches several source joints");
      continue;
    }
    if (s >= 0) map.source_of[t] = s, decided[t] = true;
  }
  // A source joint claimed twice is kept for the explicit map's choice, else for the first target joint (a
  // parent before its children).
  std::vector<int> claimed(sn, -1);
  for (int t = 0; t < tn; ++t)
    if (explicitly[t] && map.source_of[t] >= 0) claimed[map.source_of[t]] = t;
  for (int t = 0; t < tn; ++t) {
    const int s = map.source_of[t];
    if (s < 0 || claimed[s] == t) continue;
    if (claimed[s] >= 0) {
      map.report.push_back("ambiguous: source '" + source.name(s) + "' matches target '" +
                           target.name(claimed[s]) + "' and '" + target.name(t) + "': kept for the first");
      map.source_of[t] = -1;
      continue;
    }
    claimed[s] = t;
  }
  for (int t = 0; t < tn; ++t)
    if (map.source_of[t] < 0)
      map.report.push_back("unmapped target joint '" + target.name(t) + "' keeps its rest");
  for (int s = 0; s < sn; ++s)
    if (claimed[s] < 0) map.report.push_back("unmapped source joint '" + source.name(s) + "'");
  return map;
}

namespace {

// Appends to `path` the source joints whose local rotations turn joint a's model frame into joint b's
// (a = -1: the model's): those from below their common ancestor up to a (`up`, conjugated) and down to b
// (`down`), each list from the top down.
void append_relative_path(const Skeleton& source, const std::vector<int>& depth, int a, int b,
                          std::vector<int>& path, uint32_t& first, uint16_t& up, uint16_t& down) {
  // Up from the deeper of the two until they meet: the path's length, not the joints' depths (a walk to the
  // root for every joint is quadratic on a chain).
  std::vector<int> to_a, to_b;
  auto depth_of = [&](int j) { return j < 0 ? -1 : depth[j]; };
  while (a != b) {
    if (depth_of(a) >= depth_of(b))
      to_a.push_back(a), a = source.parents()[a];
    else
      to_b.push_back(b), b = source.parents()[b];
  }
  first = static_cast<uint32_t>(path.size());
  up = static_cast<uint16_t>(to_a.size()), down = static_cast<uint16_t>(to_b.size());
  path.insert(path.end(), to_a.rbegin(), to_a.rend());
  path.insert(path.end(), to_b.rbegin(), to_b.rend());
}

}  // namespace

Result<RetargetRig> RetargetRig::build(const Skeleton& source, const Skeleton& target, const BoneMap& map,
                                       RetargetContacts contacts) {
  const int sn = source.joint_count(), tn = target.joint_count();
  if (static_cast<int>(map.source_of.size()) != tn)
    return Result<RetargetRig>::failure("retarget: the bone map was made for another target skeleton");
  for (int s : map.source_of)
    if (s >= sn) return Result<RetargetRig>::failure("retarget: the bone map names a joint the source lacks");
  if (sn > 65535 || tn > 65535) return Result<RetargetRig>::failure("retarget: over 65,535 joints");
  RetargetRig rig;
  rig.source = &source, rig.target = &target;
  rig.source_of = map.source_of;
  std::vector<Quat> s0(sn), t0(tn);
  std::vector<Vec3> sp(sn), tp(tn);
  to_model(source, source.rest_pose(), s0, sp);
  to_model(target, target.rest_pose(), t0, tp);

  const std::vector<int> source_end = subtree_ends(source), target_end = subtree_ends(target);
  const std::vector<int> source_depth = depths(source), target_depth = depths(target);
  std::vector<Quat> offset(tn, Quat{}), aligns(tn, Quat{});
  std::vector<uint8_t> copy(tn, 0);
  for (int t = 0; t < tn; ++t) {
    const int s = rig.source_of[t];
    if (s < 0) continue;
    // The bone's direction: to the first mapped child whose source lies below s.
    const int child = first_mapped_descendant(target_end, t, [&](int c) {
      const int sc = rig.source_of[c];
      return sc > s && sc < source_end[s];
    });
    // A leaf (or a bone whose child sits on it) turns as its parent was turned.
    const int parent = target.parents()[t];
    Quat align = parent >= 0 ? aligns[parent] : Quat{};
    if (child >= 0 && length(tp[child] - tp[t]) > 1e-6f && length(sp[rig.source_of[child]] - sp[s]) > 1e-6f)
      align = rotation_between(tp[child] - tp[t], sp[rig.source_of[child]] - sp[s]);
    aligns[t] = align;
    offset[t] = normalize(conjugate(s0[s]) * align * t0[t]);
    // Exactly the same joint on both sides (rest, parent chain): the pose is copied as is.
    const int ps = source.parents()[s];
    const bool parents_agree = parent < 0 ? ps < 0 : (ps >= 0 && rig.source_of[parent] == ps && copy[parent]);
    copy[t] = parents_agree && same_pose(source.rest_pose()[s], target.rest_pose()[t]) && align.x == 0 &&
              align.y == 0 && align.z == 0;
  }

  // Each target joint's model rotation is the source's model rotation at its anchor (a source joint, or the
  // model itself) times a frame R: constant for mapped joints (R = S0^-1 Q T0; the identity for copies),
  // per pose for chains. Its local rotation is then conj(R_parent) * (the source's turn from the parent's
  // anchor to its own, a product of source locals) * R: no model-space pass over either skeleton.
  rig.steps.assign(tn, Step{});
  rig.frame.assign(tn, Quat{});
  std::vector<int> anchor(tn, -1);
  // Unmapped joints: the mapped joint above (top) and how far, and the rest rotation from below top to here.
  std::vector<int> chain_top(tn, -1), chain_depth(tn, 0);
  std::vector<Quat> rest_below_top(tn, Quat{});
  std::vector<int> next_mapped(tn + 1, tn);  // the first mapped joint at or after each index
  for (int t = tn - 1; t >= 0; --t) next_mapped[t] = rig.source_of[t] >= 0 ? t : next_mapped[t + 1];
  for (int t = 0; t < tn; ++t) {
    Step& step = rig.steps[t];
    const int p = target.parents()[t], s = rig.source_of[t];
    const int parent_anchor = p < 0 ? -1 : anchor[p];
    if (s >= 0) {
      step.kind = copy[t] ? Step::kCopy : Step::kMapped;
      step.source = anchor[t] = s;
      rig.frame[t] = copy[t] ? Quat{} : offset[t];
      append_relative_path(source, source_depth, parent_anchor, s, rig.path, step.first, step.up, step.down);
      continue;
    }
    // Chains: the target's unmapped joints between a mapped ancestor A and a mapped descendant B (the first
    // below) stand for the source's joints between A's and B's sources: together they take the source's
    // turn over those joints (from A to B's source parent, relative to rest), shared evenly by depth. Where
    // the source has no joint between them (a target's extra twist bone), the unmapped joints keep their
    // rest.
    // Each from its parent's (the segment's joints above t were done first): linear on any chain.
    const bool parent_unmapped = p >= 0 && rig.source_of[p] < 0;
    const int top = parent_unmapped ? chain_top[p] : p, depth = parent_unmapped ? chain_depth[p] + 1 : 1;
    chain_top[t] = top, chain_depth[t] = depth;
    rest_below_top[t] = normalize((parent_unmapped ? rest_below_top[p] : Quat{}) *
                                  to_transform(target.rest_pose()[t]).rotation);
    const int end = next_mapped[t + 1] < target_end[t] ? next_mapped[t + 1] : -1;  // first mapped below t
    const int source_top = top >= 0 ? rig.source_of[top] : -1;
    const int source_parent = end >= 0 ? source.parents()[rig.source_of[end]] : -1;
    if (top >= 0 && end >= 0 && source_parent > source_top && source_parent < source_end[source_top]) {
      // The joints from below top down to end's parent, t among them.
      const int intermediates = target_depth[target.parents()[end]] - target_depth[top];
      const Quat partial = rest_below_top[t];
      step.kind = Step::kChain;
      step.dynamic_frame = 1;
      step.source = anchor[t] = source_top;
      step.top = top;
      step.fraction = static_cast<float>(depth) / static_cast<float>(intermediates);
      step.rest_to_here = partial;
      step.inverse_source_rest = conjugate(normalize(conjugate(s0[source_top]) * s0[source_parent]));
      uint16_t up = 0;
      append_relative_path(source, source_depth, source_top, source_parent, rig.path, step.bend_first, up,
                           step.bend_count);
      append_relative_path(source, source_depth, parent_anchor, source_top, rig.path, step.first, step.up,
                           step.down);
      continue;
    }
    step.kind = Step::kRest;  // keeps its rest local rotation: the parent's anchor, the frame carried on
    anchor[t] = parent_anchor;
    step.dynamic_frame = p >= 0 && rig.steps[p].dynamic_frame;
    rig.frame[t] = normalize((p < 0 ? Quat{} : rig.frame[p]) * rotation_of(target.rest_pose()[t]));
  }

  rig.transfer.assign(tn, Transfer{});
  for (int t = 0; t < tn; ++t) {
    const int p = target.parents()[t];
    const Quat before = p < 0 ? Quat{} : conjugate(rig.frame[p]);
    const Quat basis[4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
    for (int k = 0; k < 4; ++k) {
      const Quat image = before * basis[k] * rig.frame[t];
      rig.transfer[t].column[k][0] = image.x, rig.transfer[t].column[k][1] = image.y;
      rig.transfer[t].column[k][2] = image.z, rig.transfer[t].column[k][3] = image.w;
    }
  }

  // The hips: the profile's, else the first mapped joint where mapped limbs branch, else the first mapped.
  auto mapped_branches = [&](int t) {  // children of t with a mapped joint in their sub-tree
    int branches = 0;
    for (int c = t + 1; c < target_end[t]; c = target_end[c])
      for (int d = c; d < target_end[c]; ++d)
        if (rig.source_of[d] >= 0) {
          ++branches;
          break;
        }
    return branches;
  };
  int hips = map.target_hips >= 0 && rig.source_of[map.target_hips] >= 0 ? map.target_hips : -1;
  for (int t = 0; t < tn && hips < 0; ++t)
    if (rig.source_of[t] >= 0 && mapped_branches(t) >= 2) hips = t;
  for (int t = 0; t < tn && hips < 0; ++t)
    if (rig.source_of[t] >= 0) hips = t;
  std::vector<uint8_t> source_tracked(sn, 0);
  auto track = [&](int target_joint, int source_joint) {
    for (int t = target_joint; t >= 0; t = target.parents()[t]) rig.steps[t].positioned = 1;
    for (int j = source_joint; j >= 0; j = source.parents()[j]) source_tracked[j] = 1;
  };
  if (hips >= 0) {
    rig.target_hips = hips, rig.source_hips = rig.source_of[hips];
    const float source_height = sp[rig.source_hips].y, target_height = tp[hips].y;
    if (source_height > 1e-6f && target_height > 1e-6f)
      rig.hips_scale = target_height / source_height, rig.source_hip_height = source_height;
    // The hips and the mapped joints above them (a root that carries root motion) travel as the source's.
    track(hips, rig.source_hips);
    for (int t = hips; t >= 0; t = target.parents()[t])
      if (Step& step = rig.steps[t]; rig.source_of[t] >= 0 && step.kind != Step::kCopy) {
        step.carries = 1;
        step.source_rest_position = sp[rig.source_of[t]], step.target_rest_position = tp[t];
      }
  }

  // Contacts: each limb's chain, and where its middle joint bends when it is straight.
  const bool feet = (static_cast<int>(contacts) & 1) != 0, hands = (static_cast<int>(contacts) & 2) != 0;
  static const char* const kLimbNames[4] = {"left foot", "right foot", "left hand", "right hand"};
  Vec3 forward{0, 0, 1};  // the character's: from the feet to their toes, level
  for (int l = 0; l < 2; ++l) {
    const int foot = map.target_limb_ends[l];
    if (foot < 0 || foot + 1 >= target_end[foot]) continue;
    const Vec3 toes{tp[foot + 1].x - tp[foot].x, 0, tp[foot + 1].z - tp[foot].z};
    if (length(toes) > 1e-6f) forward = normalize(toes);
  }
  for (int l = 0; l < 4; ++l) {
    if (!(l < 2 ? feet : hands)) continue;
    Contact c;
    c.name = kLimbNames[l];
    c.end = map.target_limb_ends[l];
    if (c.end < 0)
      return Result<RetargetRig>::failure(
          "retarget contacts: the target has no " + c.name +
          " (a humanoid profile's, or a joint named foot or hand with a side)");
    c.mid = target.parents()[c.end];
    c.start = c.mid >= 0 ? target.parents()[c.mid] : -1;
    c.source_end = rig.source_of[c.end];
    if (c.start < 0)
      return Result<RetargetRig>::failure("retarget contacts: the target's " + c.name + " '" +
                                          target.name(c.end) + "' has no two joints above it");
    if (rig.target_hips >= 0 && rig.target_hips >= c.start && rig.target_hips < target_end[c.start])
      return Result<RetargetRig>::failure("retarget contacts: the target's " + c.name + " '" +
                                          target.name(c.end) +
                                          "' does not end a two-bone limb (its chain would " + "start at '" +
                                          target.name(c.start) + "', which holds the hips)");
    if (c.source_end < 0)
      return Result<RetargetRig>::failure("retarget contacts: the target's " + c.name + " '" +
                                          target.name(c.end) + "' follows no source joint");
    c.source_rest = sp[c.source_end], c.target_rest = tp[c.end];
    const Vec3 limb = tp[c.end] - tp[c.start], to_mid = tp[c.mid] - tp[c.start];
    Vec3 bend = length(limb) > 1e-9f ? to_mid - limb * (dot(to_mid, limb) / dot(limb, limb)) : Vec3{};
    if (length(bend) < 1e-3f * (length(to_mid) + length(tp[c.end] - tp[c.mid])))
      bend = l < 2 ? forward : forward * -1.f;  // knees forwards, elbows backwards
    c.pole_in_start = rotate(conjugate(t0[c.start]), normalize(bend));
    track(c.end, c.source_end);
    rig.contacts.push_back(std::move(c));
  }

  // The job's passes: the four-wide groups, the joints it visits one by one, the tracked joints.
  for (int j = 0; j < sn; ++j)
    if (source_tracked[j]) rig.source_tracked.push_back(j);
  std::vector<int> grouped;
  for (int t = 0; t < tn; ++t) {
    const Step& step = rig.steps[t];
    const int p = target.parents()[t];
    const bool constant_frames = p < 0 || !rig.steps[p].dynamic_frame;
    if (step.kind == Step::kMapped && constant_frames && step.up == 0 && step.down == 1)
      grouped.push_back(t);
    else
      rig.per_joint.push_back(t);
    if (step.positioned) rig.positioned.push_back(t);
  }
  for (size_t first = 0; first < grouped.size(); first += 4) {
    TransferGroup& group = rig.transfer_groups.emplace_back();
    for (size_t lane = 0; lane < 4; ++lane) {
      const int t = grouped[std::min(first + lane, grouped.size() - 1)];
      group.source[lane] = rig.steps[t].source, group.target[lane] = t;
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 4; ++i) group.column[k][i][lane] = rig.transfer[t].column[k][i];
    }
  }
  return rig;
}

RetargetScratch::RetargetScratch(const RetargetRig& rig)
    : frame(rig.target ? rig.target->joint_count() : 0),
      source_model(rig.source ? rig.source->joint_count() : 0),
      target_model(frame.size()),
      source_position(source_model.size()),
      target_position(frame.size()) {}

Result<ContactTrack> find_contacts(const Clip& clip, const RetargetRig& rig,
                                   const RootMotionTrack* root_motion) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  if (!rig.source || !rig.target) return Result<ContactTrack>::failure("retarget: the rig is empty");
  if (clip.joint_count() != rig.source->joint_count())
    return Result<ContactTrack>::failure("clip '" + clip.name() +
                                         "' was not made for the retarget rig's source");
  ContactTrack track;
  track.frame_rate = clip.layout() == Clip::Layout::kKeyed ? 60.f : clip.frame_rate();
  track.duration = clip.duration();
  track.contacts = static_cast<int>(rig.contacts.size());
  const int frames = Clip::frame_count_for(clip.duration(), track.frame_rate);
  if (track.contacts == 0 || frames <= 0) return track;
  const Skeleton& skeleton = *rig.source;
  std::vector<JointPose> locals(skeleton.joint_count());
  std::vector<Mat4> model(skeleton.joint_count());
  std::vector<Vec3> where(static_cast<size_t>(frames) * track.contacts);
  SamplingCache cache;
  const RootDelta start = root_motion ? root_motion->at(0).inverse() : RootDelta{};
  auto place = [](const RootDelta& d, Vec3 v) {
    const float c = std::cos(d.yaw), s = std::sin(d.yaw);
    return Vec3{c * v.x + s * v.z + d.x, v.y, -s * v.x + c * v.z + d.z};
  };
  for (int f = 0; f < frames; ++f) {
    const float time = std::min(clip.duration(), static_cast<float>(f) / track.frame_rate);
    if (!SampleJob{&clip, time, &cache, locals}.run() ||
        !LocalToModelJob{.skeleton = &skeleton, .input = locals, .output = model}.run())
      return Result<ContactTrack>::failure("retarget: clip '" + clip.name() + "' could not be sampled");
    for (int c = 0; c < track.contacts; ++c) {
      Vec3 p = model[rig.contacts[c].source_end].translation();
      if (root_motion) p = place(root_motion->at(time), place(start, p));  // the clip's travel put back
      where[static_cast<size_t>(f) * track.contacts + c] = p;
    }
  }
  const float still = kContactSpeed * rig.source_hip_height, low = kContactHeight * rig.source_hip_height;
  std::vector<float> lowest(static_cast<size_t>(track.contacts), std::numeric_limits<float>::max());
  for (int f = 0; f < frames; ++f)
    for (int c = 0; c < track.contacts; ++c)
      lowest[c] = std::min(lowest[c], where[static_cast<size_t>(f) * track.contacts + c].y);
  track.weights.resize(where.size());
  for (int f = 0; f < frames; ++f)
    for (int c = 0; c < track.contacts; ++c) {
      const float height = where[static_cast<size_t>(f) * track.contacts + c].y - lowest[c];
      const int f0 = std::max(0, f - 1), f1 = std::min(frames - 1, f + 1);
      const float seconds = static_cast<float>(f1 - f0) / track.frame_rate;
      const Vec3 moved = where[static_cast<size_t>(f1) * track.contacts + c] -
                         where[static_cast<size_t>(f0) * track.contacts + c];
      const float speed = seconds > 0 ? length(moved) / seconds : 0.f;
      track.weights[static_cast<size_t>(f) * track.contacts + c] =
          std::clamp(std::min(2 - speed / still, 2 - height / low), 0.f, 1.f);
    }
  return track;
}

Result<Clip> retarget_clip(const Clip& clip, const RetargetRig& rig, const RootMotionTrack* root_motion) {
  detail::PortableKernelsScope portable;  // the same bytes on every CPU (kernels.h)
  if (!rig.source || !rig.target) return Result<Clip>::failure("retarget: the rig is empty");
  if (clip.joint_count() != rig.source->joint_count())
    return Result<Clip>::failure("clip '" + clip.name() + "' was not made for the retarget rig's source");
  auto contacts = find_contacts(clip, rig, root_motion);
  if (!contacts) return Result<Clip>::failure(contacts.error());
  const float rate = contacts->frame_rate;
  const int frames = Clip::frame_count_for(clip.duration(), rate);
  const size_t sn = static_cast<size_t>(rig.source->joint_count()),
               tn = static_cast<size_t>(rig.target->joint_count());
  std::vector<JointPose> source(sn), out(static_cast<size_t>(frames) * tn);
  std::vector<float> weights(rig.contacts.size());
  SamplingCache cache;
  RetargetScratch scratch(rig);
  for (int f = 0; f < frames; ++f) {
    const float time = std::min(clip.duration(), static_cast<float>(f) / rate);
    if (!SampleJob{&clip, time, &cache, source}.run())
      return Result<Clip>::failure("retarget: clip '" + clip.name() + "' could not be sampled");
    contacts->sample(time, weights);
    RetargetJob job{&rig, source, &scratch,
                    std::span<JointPose>(out).subspan(static_cast<size_t>(f) * tn, tn), weights};
    if (!job.run()) return Result<Clip>::failure("retarget: the job refused the rig");
  }
  return Clip::from_frames(clip.name(), clip.duration(), rate, static_cast<int>(tn), std::move(out));
}

RootMotionTrack retarget_root_motion(const RootMotionTrack& track, const RetargetRig& rig) {
  RootMotionTrack out = track;
  out.joint = -1;
  for (size_t t = 0; t < rig.source_of.size() && out.joint < 0; ++t)
    if (track.joint >= 0 && rig.source_of[t] == track.joint) out.joint = static_cast<int>(t);
  if (out.joint < 0 && rig.target) out.joint = default_root_joint(*rig.target);
  for (RootDelta& d : out.frames) d.x *= rig.hips_scale, d.z *= rig.hips_scale;
  return out;
}

Result<RetargetedClips> retarget_clips(const CharacterAsset& source,
                                       std::span<const RootMotionTrack> source_root_motion,
                                       const CharacterAsset& target, const RetargetRig& rig,
                                       std::span<const int> clips, bool morph_weights) {
  using R = Result<RetargetedClips>;
  RetargetedClips out;
  for (int c : clips) {
    if (c < 0 || c >= static_cast<int>(source.clips.size()))
      return R::failure("clip " + std::to_string(c) + ": the source has " +
                        std::to_string(source.clips.size()));
    const Clip& from = source.clips[c];
    const RootMotionTrack* motion =
        static_cast<size_t>(c) < source_root_motion.size() ? &source_root_motion[c] : nullptr;
    auto clip = retarget_clip(from, rig, motion);
    if (!clip) return R::failure(clip.error());
    if (morph_weights && !from.morph_weights().empty()) {
      auto weights = retarget_morph_weights(from, source, target, &out.unmatched_morphs);
      if (!weights) return R::failure(weights.error());
      clip = Clip::with_morph_weights(std::move(clip).value(), std::move(weights).value());
    }
    out.clips.push_back(std::move(clip).value());
    out.root_motion.push_back(motion ? std::optional(retarget_root_motion(*motion, rig)) : std::nullopt);
  }
  return out;
}

}  // namespace ossa
