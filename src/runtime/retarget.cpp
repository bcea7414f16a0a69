#include "ossa/runtime/retarget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "kernels/kernels.h"
#include "ossa/asset/notifies.h"
#include "ossa/runtime/ik_job.h"
#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
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

// Index of the only `key` among `keys`; -1 when absent, -2 when several.
int unique_index(const std::vector<std::string>& keys, const std::string& key) {
  int found = -1;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) {
      if (found >= 0) return -2;
      found = static_cast<int>(i);
    }
  return found;
}

std::string key_of(const NormalizedBoneName& n) {
  return std::to_string(static_cast<int>(n.side)) + ":" + n.base;
}

Quat rotation_of(const JointPose& p) {
  return {p.rotation[0], p.rotation[1], p.rotation[2], p.rotation[3]};
}
Vec3 translation_of(const JointPose& p) {
  return {p.translation[0], p.translation[1], p.translation[2]};
}
Vec3 scale_of(const JointPose& p) {
  return {p.scale[0], p.scale[1], p.scale[2]};
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

// The first joint below `joint` (depth first) that satisfies `mapped`, or -1.
template <class Pred>
int first_mapped_descendant(const Skeleton& skeleton, int joint, Pred mapped) {
  for (int c = joint + 1; c < skeleton.subtree_end(joint); ++c)
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

  if (!options.explicit_json.empty()) {
    if (std::string e = json_nesting_error(options.explicit_json); !e.empty())
      return Result<BoneMap>::failure("bone map: " + e);
    const nlohmann::json doc = nlohmann::json::parse(options.explicit_json, nullptr, false);
    if (!doc.is_object())
      return Result<BoneMap>::failure("bone map: not a JSON object of target -> source names");
    for (const auto& [target_name, value] : doc.items()) {
      if (!value.is_string() && !value.is_null())
        return Result<BoneMap>::failure("bone map: '" + target_name +
                                        "' must name a source joint (or be null)");
      const int t = target.find_joint(target_name);
      if (t < 0) return Result<BoneMap>::failure("bone map: the target has no joint '" + target_name + "'");
      decided[t] = true;
      if (value.is_null()) continue;  // explicitly unmapped
      const int s = source.find_joint(value.get<std::string>());
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
      const std::string limbs[4] = {"1:foot", "2:foot", "1:hand", "2:hand"};
      for (int t = 0; t < tn; ++t) {
        if (tc[t] == "0:hips" && map.target_hips < 0) map.target_hips = t;
        for (int l = 0; l < 4; ++l)
          if (tc[t] == limbs[l] && map.target_limb_ends[l] < 0) map.target_limb_ends[l] = t;
        if (decided[t] || tc[t].empty()) continue;
        const int s = unique_index(sc, tc[t]);
        if (s >= 0) map.source_of[t] = s, decided[t] = true;
      }
    }
  }
  // Limb ends no profile named: the one target joint normalised as "foot" or "hand" on each side.
  std::vector<std::string> target_keys(tn);
  for (int j = 0; j < tn; ++j) target_keys[j] = key_of(target_names[j]);
  const char* limb_keys[4] = {"1:foot", "2:foot", "1:hand", "2:hand"};
  for (int l = 0; l < 4; ++l)
    if (map.target_limb_ends[l] < 0)
      map.target_limb_ends[l] = std::max(-1, unique_index(target_keys, limb_keys[l]));
  // The same name, then the same normalised name.
  std::vector<std::string> source_keys(sn);
  for (int j = 0; j < sn; ++j) source_keys[j] = key_of(source_names[j]);
  for (int t = 0; t < tn; ++t) {
    if (decided[t]) continue;
    if (const int s = source.find_joint(target.name(t)); s >= 0) {
      map.source_of[t] = s, decided[t] = true;
      continue;
    }
    const int s = unique_index(source_keys, key_of(target_names[t]));
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
void append_relative_path(const Skeleton& source, int a, int b, std::vector<int>& path, uint32_t& first,
                          uint16_t& up, uint16_t& down) {
  std::vector<int> to_a, to_b;
  for (int j = a; j >= 0; j = source.parents()[j]) to_a.push_back(j);
  for (int j = b; j >= 0; j = source.parents()[j]) to_b.push_back(j);
  while (!to_a.empty() && !to_b.empty() && to_a.back() == to_b.back()) to_a.pop_back(), to_b.pop_back();
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

  std::vector<Quat> offset(tn, Quat{}), aligns(tn, Quat{});
  std::vector<uint8_t> copy(tn, 0);
  for (int t = 0; t < tn; ++t) {
    const int s = rig.source_of[t];
    if (s < 0) continue;
    // The bone's direction: to the first mapped child whose source lies below s.
    const int child = first_mapped_descendant(target, t, [&](int c) {
      const int sc = rig.source_of[c];
      return sc > s && sc < source.subtree_end(s);
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
  for (int t = 0; t < tn; ++t) {
    Step& step = rig.steps[t];
    const int p = target.parents()[t], s = rig.source_of[t];
    const int parent_anchor = p < 0 ? -1 : anchor[p];
    if (s >= 0) {
      step.kind = copy[t] ? Step::kCopy : Step::kMapped;
      step.source = anchor[t] = s;
      rig.frame[t] = copy[t] ? Quat{} : offset[t];
      append_relative_path(source, parent_anchor, s, rig.path, step.first, step.up, step.down);
      continue;
    }
    // Chains: the target's unmapped joints between a mapped ancestor A and a mapped descendant B (the first
    // below) stand for the source's joints between A's and B's sources: together they take the source's
    // turn over those joints (from A to B's source parent, relative to rest), shared evenly by depth. Where
    // the source has no joint between them (a target's extra twist bone), the unmapped joints keep their
    // rest.
    int top = p, depth = 1;
    while (top >= 0 && rig.source_of[top] < 0) top = target.parents()[top], ++depth;
    const int end = first_mapped_descendant(target, t, [&](int d) { return rig.source_of[d] >= 0; });
    const int source_top = top >= 0 ? rig.source_of[top] : -1;
    const int source_parent = end >= 0 ? source.parents()[rig.source_of[end]] : -1;
    if (top >= 0 && end >= 0 && source_parent > source_top &&
        source_parent < source.subtree_end(source_top)) {
      int intermediates = 0;
      Quat chain{}, partial{};
      std::vector<int> below;  // from below top down to end's parent
      for (int j = target.parents()[end]; j != top; j = target.parents()[j]) below.push_back(j);
      for (auto it = below.rbegin(); it != below.rend(); ++it) {
        chain = normalize(chain * to_transform(target.rest_pose()[*it]).rotation);
        ++intermediates;
        if (*it == t) partial = chain;
      }
      step.kind = Step::kChain;
      step.dynamic_frame = 1;
      step.source = anchor[t] = source_top;
      step.top = top;
      step.fraction = static_cast<float>(depth) / static_cast<float>(intermediates);
      step.rest_to_here = partial;
      step.inverse_source_rest = conjugate(normalize(conjugate(s0[source_top]) * s0[source_parent]));
      uint16_t up = 0;
      append_relative_path(source, source_top, source_parent, rig.path, step.bend_first, up, step.bend_count);
      append_relative_path(source, parent_anchor, source_top, rig.path, step.first, step.up, step.down);
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
    for (int c = t + 1; c < target.subtree_end(t); c = target.subtree_end(c))
      for (int d = c; d < target.subtree_end(c); ++d)
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
  rig.source_positioned.assign(sn, 0);
  auto track = [&](int target_joint, int source_joint) {
    for (int t = target_joint; t >= 0; t = target.parents()[t]) rig.steps[t].positioned = 1;
    for (int j = source_joint; j >= 0; j = source.parents()[j]) rig.source_positioned[j] = 1;
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
    if (foot < 0 || foot + 1 >= target.subtree_end(foot)) continue;
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
    if (rig.target_hips >= 0 && rig.target_hips >= c.start && rig.target_hips < target.subtree_end(c.start))
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
  return rig;
}

RetargetScratch::RetargetScratch(const RetargetRig& rig)
    : frame(rig.target ? rig.target->joint_count() : 0),
      source_model(rig.source ? rig.source->joint_count() : 0),
      target_model(frame.size()),
      source_position(source_model.size()),
      target_position(frame.size()) {}

bool RetargetJob::validate() const {
  if (!rig || !rig->source || !rig->target || !scratch) return false;
  const size_t sn = static_cast<size_t>(rig->source->joint_count()),
               tn = static_cast<size_t>(rig->target->joint_count());
  if (source.size() != sn || output.size() != tn || rig->steps.size() != tn || rig->frame.size() != tn ||
      rig->transfer.size() != tn || rig->source_of.size() != tn || rig->source_positioned.size() != sn ||
      scratch->frame.size() != tn || scratch->target_model.size() != tn ||
      scratch->target_position.size() != tn || scratch->source_model.size() != sn ||
      scratch->source_position.size() != sn)
    return false;
  if (contact_weights.empty()) return true;
  if (contact_weights.size() != rig->contacts.size()) return false;
  return std::all_of(contact_weights.begin(), contact_weights.end(),
                     [](float w) { return w >= 0 && w <= 1; });  // false for NaN too
}

namespace {

// The job's quaternion arithmetic, inline: unit quaternions stay unit to float precision along a chain, so
// only the rotations written out are normalised.
inline Quat mul(const Quat& a, const Quat& b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Quat conj(const Quat& q) {
  return {-q.x, -q.y, -q.z, q.w};
}
inline Vec3 rot(const Quat& q, Vec3 v) {  // v + w t + q.xyz x t, t = 2 q.xyz x v
  const Vec3 u{q.x, q.y, q.z}, t = cross(u, v) * 2.f;
  return v + t * q.w + cross(u, t);
}
inline Quat unit(const Quat& q) {
  const float inv = 1.f / std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  return {q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}
inline void write(const Quat& q, float* out) {
  out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}
// The product of the source's local rotations at path[0, n), from the top down.
inline Quat product(std::span<const JointPose> source, const int* path, int n) {
  if (n == 0) return {};
  Quat q = rotation_of(source[path[0]]);
  for (int i = 1; i < n; ++i) q = mul(q, rotation_of(source[path[i]]));
  return q;
}
Mat4 rigid(const Quat& rotation, Vec3 position) {
  Mat4 m = rotation_matrix(rotation);
  m.m[12] = position.x, m.m[13] = position.y, m.m[14] = position.z;
  return m;
}

}  // namespace

bool RetargetJob::run() const {
  if (!validate()) return false;
  using Step = RetargetRig::Step;
  const Skeleton& src = *rig->source;
  const Skeleton& dst = *rig->target;
  const std::span<const int> source_parents = src.parents(), target_parents = dst.parents();
  const std::span<const JointPose> rest = dst.rest_pose();
  const Step* steps = rig->steps.data();
  const int* path = rig->path.data();
  const Quat* constant_frame = rig->frame.data();
  Quat* frame = scratch->frame.data();
  Quat* sm = scratch->source_model.data();
  Quat* tm = scratch->target_model.data();
  Vec3* sp = scratch->source_position.data();
  Vec3* tp = scratch->target_position.data();
  auto frame_of = [&](int j) {
    return j < 0 ? Quat{} : steps[j].dynamic_frame ? frame[j] : constant_frame[j];
  };

  // The source in model space where the target needs positions: the hips' chain and the contact limbs.
  for (int j = 0; j < src.joint_count(); ++j) {
    if (!rig->source_positioned[j]) continue;
    const int p = source_parents[j];
    const Quat r = rotation_of(source[j]);
    sm[j] = p < 0 ? r : mul(sm[p], r);
    sp[j] = p < 0 ? translation_of(source[j]) : sp[p] + rot(sm[p], translation_of(source[j]));
  }
  for (int t = 0; t < dst.joint_count(); ++t) {
    const Step& step = steps[t];
    const int p = target_parents[t];
    JointPose& out = output[t];
    if (step.kind == Step::kCopy) {
      out = source[step.source];  // the same joint on both sides: its whole pose
    } else {
      out = rest[t];
      if (step.kind != Step::kRest) {
        Quat here = constant_frame[t];
        if (step.kind == Step::kChain) {
          // The source's turn from top to end's parent since rest, seen in the target top's frame.
          const Quat bend =
              mul(product(source, path + step.bend_first, step.bend_count), step.inverse_source_rest);
          const Quat top = constant_frame[step.top];
          Quat turn = mul(mul(conj(top), bend), top);
          if (turn.w < 0) turn = {-turn.x, -turn.y, -turn.z, -turn.w};
          here = frame[t] = mul(mul(top, nlerp(Quat{}, turn, step.fraction)), step.rest_to_here);
        }
        const int* joints = path + step.first;
        const bool direct = step.up == 0 && step.down == 1;
        Quat relative =
            direct ? rotation_of(source[joints[0]]) : product(source, joints + step.up, step.down);
        if (step.up) relative = mul(conj(product(source, joints, step.up)), relative);
        if (step.kind == Step::kMapped && (p < 0 || !steps[p].dynamic_frame)) {
          const float(&m)[4][4] = rig->transfer[t].column;
          const float q[4] = {relative.x, relative.y, relative.z, relative.w};
          float r[4];
          for (int i = 0; i < 4; ++i)
            r[i] = m[0][i] * q[0] + m[1][i] * q[1] + m[2][i] * q[2] + m[3][i] * q[3];
          write(unit({r[0], r[1], r[2], r[3]}), out.rotation);
        } else {
          write(unit(mul(mul(conj(frame_of(p)), relative), here)), out.rotation);
        }
      } else if (step.dynamic_frame) {
        frame[t] = mul(frame_of(p), rotation_of(out));
      }
    }
    if (!step.positioned) continue;
    const Quat parent = p < 0 ? Quat{} : tm[p];
    const Vec3 parent_position = p < 0 ? Vec3{} : tp[p];
    if (step.carries) {
      const Vec3 travel = sp[step.source] - step.source_rest_position;
      const Vec3 local =
          rot(conj(parent), step.target_rest_position + travel * rig->hips_scale - parent_position);
      out.translation[0] = local.x, out.translation[1] = local.y, out.translation[2] = local.z;
    }
    tm[t] = mul(parent, rotation_of(out));
    tp[t] = parent_position + rot(parent, translation_of(out));
  }

  // Contacts: each limb bent towards where the source's end is, scaled, as much as it is planted.
  for (size_t i = 0; i < contact_weights.size(); ++i) {
    const RetargetRig::Contact& c = rig->contacts[i];
    if (contact_weights[i] <= 0) continue;
    const Vec3 goal = c.target_rest + (sp[c.source_end] - c.source_rest) * rig->hips_scale;
    const Vec3 a = tp[c.start], b = tp[c.mid], e = tp[c.end];
    const Vec3 limb = e - a, to_mid = b - a;
    const float reach = length(to_mid) + length(e - b);
    if (dot(limb, limb) < 1e-12f) continue;
    // Bend in the plane the retargeted limb has; a straight limb bends where the rig says.
    Vec3 pole = to_mid - limb * (dot(to_mid, limb) / dot(limb, limb));
    if (length(pole) < 1e-3f * reach) pole = rot(tm[c.start], c.pole_in_start);
    const Vec3 hinge = rot(conj(tm[c.mid]), cross(limb, pole));
    if (length(hinge) < 1e-12f) continue;
    const Mat4 start = rigid(tm[c.start], a), mid = rigid(tm[c.mid], b), end = rigid(tm[c.end], e);
    Quat start_fix, mid_fix;
    if (!TwoBoneIkJob{.start_joint = &start,
                      .mid_joint = &mid,
                      .end_joint = &end,
                      .target = goal,
                      .pole_vector = pole,
                      .mid_axis = hinge,
                      .weight = contact_weights[i],
                      .start_correction = &start_fix,
                      .mid_correction = &mid_fix}
             .run())
      continue;
    // The corrections, and the end joint's model rotation kept.
    const Quat start_model = unit(mul(tm[c.start], start_fix));
    const Quat mid_model = unit(mul(mul(start_model, rotation_of(output[c.mid])), mid_fix));
    write(unit(mul(rotation_of(output[c.start]), start_fix)), output[c.start].rotation);
    write(unit(mul(rotation_of(output[c.mid]), mid_fix)), output[c.mid].rotation);
    write(unit(mul(conj(mid_model), tm[c.end])), output[c.end].rotation);
    tm[c.start] = start_model, tm[c.mid] = mid_model;
    tp[c.mid] = a + rot(start_model, translation_of(output[c.mid]));
    tp[c.end] = tp[c.mid] + rot(mid_model, translation_of(output[c.end]));
  }
  return true;
}

void ContactTrack::sample(float time, std::span<float> out) const {
  const int frames = frame_count();
  if (frames == 0 || out.size() != static_cast<size_t>(contacts)) {
    std::fill(out.begin(), out.end(), 0.f);
    return;
  }
  const float f = std::clamp(time * frame_rate, 0.f, static_cast<float>(frames - 1));
  const int f0 = std::min(static_cast<int>(f), frames - 1), f1 = std::min(f0 + 1, frames - 1);
  const float u = f - static_cast<float>(f0);
  for (int c = 0; c < contacts; ++c)
    out[c] = weights[static_cast<size_t>(f0) * contacts + c] * (1 - u) +
             weights[static_cast<size_t>(f1) * contacts + c] * u;
}

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

}  // namespace ossa
