#include "ossa/runtime/retarget.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "ossa/asset/notifies.h"
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
  if (options.profiles) {
    const Profile* sp = detect_profile(source_names);
    const Profile* tp = detect_profile(target_names);
    if (sp && tp) {
      map.source_profile = sp->name, map.target_profile = tp->name;
      const std::vector<std::string> sc = canonical_names(source_names, *sp),
                                     tc = canonical_names(target_names, *tp);
      for (int t = 0; t < tn; ++t) {
        if (tc[t] == "0:hips" && map.target_hips < 0) map.target_hips = t;
        if (decided[t] || tc[t].empty()) continue;
        const int s = unique_index(sc, tc[t]);
        if (s >= 0) map.source_of[t] = s, decided[t] = true;
      }
    }
  }
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

Result<RetargetRig> RetargetRig::build(const Skeleton& source, const Skeleton& target, const BoneMap& map) {
  const int sn = source.joint_count(), tn = target.joint_count();
  if (static_cast<int>(map.source_of.size()) != tn)
    return Result<RetargetRig>::failure("retarget: the bone map was made for another target skeleton");
  for (int s : map.source_of)
    if (s >= sn) return Result<RetargetRig>::failure("retarget: the bone map names a joint the source lacks");
  RetargetRig rig;
  rig.source = &source, rig.target = &target;
  rig.source_of = map.source_of;
  std::vector<Quat> s0(sn), t0(tn);
  std::vector<Vec3> sp(sn), tp(tn);
  to_model(source, source.rest_pose(), s0, sp);
  to_model(target, target.rest_pose(), t0, tp);

  rig.offset.assign(tn, Quat{});
  rig.copy.assign(tn, 0);
  std::vector<Quat> aligns(tn, Quat{});
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
    rig.offset[t] = normalize(conjugate(s0[s]) * align * t0[t]);
    // Exactly the same joint on both sides (rest, parent chain): the rotation is copied as is.
    const int p = target.parents()[t], ps = source.parents()[s];
    const bool parents_agree = p < 0 ? ps < 0 : (ps >= 0 && rig.source_of[p] == ps && rig.copy[p]);
    rig.copy[t] = parents_agree && same_pose(source.rest_pose()[s], target.rest_pose()[t]) && align.x == 0 &&
                  align.y == 0 && align.z == 0;
  }
  // Chains: the target's unmapped joints between a mapped ancestor A and a mapped descendant B (the first
  // below) stand for the source's joints between A's and B's sources: together they take the source's turn
  // over those joints (from A to B's source parent, relative to rest), shared evenly by depth. Where the
  // source has no joint between them (a target's extra twist bone), the unmapped joints keep their rest.
  rig.chains.assign(tn, RetargetRig::Chain{});
  for (int t = 0; t < tn; ++t) {
    if (rig.source_of[t] >= 0) continue;
    int top = target.parents()[t], depth = 1;
    while (top >= 0 && rig.source_of[top] < 0) top = target.parents()[top], ++depth;
    const int end = first_mapped_descendant(target, t, [&](int d) { return rig.source_of[d] >= 0; });
    if (top < 0 || end < 0) continue;
    const int source_top = rig.source_of[top], source_parent = source.parents()[rig.source_of[end]];
    if (source_parent <= source_top || source_parent >= source.subtree_end(source_top)) continue;
    int intermediates = 0;
    Quat partial{};
    std::vector<int> path;  // from below top down to end's parent
    for (int j = target.parents()[end]; j != top; j = target.parents()[j]) path.push_back(j);
    Quat chain{};
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      chain = normalize(chain * to_transform(target.rest_pose()[*it]).rotation);
      ++intermediates;
      if (*it == t) partial = chain;
    }
    RetargetRig::Chain& c = rig.chains[t];
    c.top = top, c.source_top = source_top, c.source_parent = source_parent;
    c.fraction = static_cast<float>(depth) / static_cast<float>(intermediates);
    c.rest_to_here = partial;
    c.inverse_source_rest = conjugate(normalize(conjugate(s0[source_top]) * s0[source_parent]));
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
  rig.carries.assign(tn, 0);
  rig.source_positioned.assign(sn, 0);
  rig.target_positioned.assign(tn, 0);
  rig.source_rest_position.assign(tn, Vec3{});
  rig.target_rest_position.assign(tn, Vec3{});
  if (hips >= 0) {
    rig.target_hips = hips, rig.source_hips = rig.source_of[hips];
    const float source_height = sp[rig.source_hips].y, target_height = tp[hips].y;
    if (source_height > 1e-6f && target_height > 1e-6f) rig.hips_scale = target_height / source_height;
    // The hips and the mapped joints above them (a root that carries root motion) travel as the source's.
    for (int t = hips; t >= 0; t = target.parents()[t]) rig.target_positioned[t] = 1;
    for (int j = rig.source_hips; j >= 0; j = source.parents()[j]) rig.source_positioned[j] = 1;
    for (int t = hips; t >= 0; t = target.parents()[t])
      if (rig.source_of[t] >= 0) {
        rig.carries[t] = 1;
        rig.source_rest_position[t] = sp[rig.source_of[t]], rig.target_rest_position[t] = tp[t];
      }
  }
  return rig;
}

RetargetScratch::RetargetScratch(const RetargetRig& rig)
    : source_model(rig.source ? rig.source->joint_count() : 0),
      target_model(rig.target ? rig.target->joint_count() : 0),
      source_position(source_model.size()),
      target_position(target_model.size()) {}

bool RetargetJob::validate() const {
  if (!rig || !rig->source || !rig->target || !scratch) return false;
  const size_t sn = static_cast<size_t>(rig->source->joint_count()),
               tn = static_cast<size_t>(rig->target->joint_count());
  return source.size() == sn && output.size() == tn && rig->carries.size() == tn &&
         rig->source_positioned.size() == sn && rig->target_positioned.size() == tn &&
         rig->chains.size() == tn && rig->source_rest_position.size() == tn &&
         scratch->source_model.size() == sn && scratch->source_position.size() == sn &&
         scratch->target_model.size() == tn && scratch->target_position.size() == tn &&
         rig->offset.size() == tn && rig->source_of.size() == tn;
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
inline void write_unit(const Quat& q, float* out) {
  const float inv = 1.f / std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  out[0] = q.x * inv, out[1] = q.y * inv, out[2] = q.z * inv, out[3] = q.w * inv;
}

}  // namespace

bool RetargetJob::run() const {
  if (!validate()) return false;
  const Skeleton& src = *rig->source;
  const Skeleton& dst = *rig->target;
  const std::span<const int> source_parents = src.parents(), target_parents = dst.parents();
  const std::span<const JointPose> rest = dst.rest_pose();
  Quat* sm = scratch->source_model.data();
  Quat* tm = scratch->target_model.data();
  Vec3* sp = scratch->source_position.data();
  Vec3* tp = scratch->target_position.data();
  // Source model space: rotations of every joint, positions of the hips' chain only.
  for (int j = 0; j < src.joint_count(); ++j) {
    const int p = source_parents[j];
    const Quat r = rotation_of(source[j]);
    sm[j] = p < 0 ? r : mul(sm[p], r);
    if (rig->source_positioned[j])
      sp[j] = p < 0 ? translation_of(source[j]) : sp[p] + rot(sm[p], translation_of(source[j]));
  }
  for (int t = 0; t < dst.joint_count(); ++t) {
    const int p = target_parents[t], s = rig->source_of[t];
    JointPose& out = output[t];
    const Quat parent = p < 0 ? Quat{} : tm[p];
    if (s >= 0 && rig->copy[t]) {
      out = source[s];  // the same joint on both sides: its whole pose
      tm[t] = mul(parent, rotation_of(out));
    } else if (s >= 0) {
      out = rest[t];
      tm[t] = mul(sm[s], rig->offset[t]);
      write_unit(mul(conj(parent), tm[t]), out.rotation);
    } else if (const RetargetRig::Chain& c = rig->chains[t]; c.top >= 0) {
      out = rest[t];
      // The source's turn from top to end's parent since rest, seen in the target top's frame.
      const Quat bend = mul(mul(conj(sm[c.source_top]), sm[c.source_parent]), c.inverse_source_rest);
      const Quat& offset = rig->offset[c.top];
      Quat turn = mul(mul(conj(offset), bend), offset);
      if (turn.w < 0) turn = {-turn.x, -turn.y, -turn.z, -turn.w};
      tm[t] = mul(mul(tm[c.top], nlerp(Quat{}, turn, c.fraction)), c.rest_to_here);
      write_unit(mul(conj(parent), tm[t]), out.rotation);
    } else {
      out = rest[t];
      tm[t] = mul(parent, rotation_of(out));
    }
    if (!rig->target_positioned[t]) continue;
    const Vec3 parent_position = p < 0 ? Vec3{} : tp[p];
    if (rig->carries[t] && !rig->copy[t]) {
      const Vec3 travel = sp[s] - rig->source_rest_position[t];
      const Vec3 position = rig->target_rest_position[t] + travel * rig->hips_scale;
      const Vec3 local = rot(conj(parent), position - parent_position);
      out.translation[0] = local.x, out.translation[1] = local.y, out.translation[2] = local.z;
    }
    tp[t] = parent_position + rot(parent, translation_of(out));
  }
  return true;
}

Result<Clip> retarget_clip(const Clip& clip, const RetargetRig& rig) {
  if (!rig.source || !rig.target) return Result<Clip>::failure("retarget: the rig is empty");
  if (clip.joint_count() != rig.source->joint_count())
    return Result<Clip>::failure("clip '" + clip.name() + "' was not made for the retarget rig's source");
  const float rate = clip.layout() == Clip::Layout::kKeyed ? 60.f : clip.frame_rate();
  const int frames = Clip::frame_count_for(clip.duration(), rate);
  const size_t sn = static_cast<size_t>(rig.source->joint_count()),
               tn = static_cast<size_t>(rig.target->joint_count());
  std::vector<JointPose> source(sn), out(static_cast<size_t>(frames) * tn);
  SamplingCache cache;
  RetargetScratch scratch(rig);
  for (int f = 0; f < frames; ++f) {
    const float time = std::min(clip.duration(), static_cast<float>(f) / rate);
    if (!SampleJob{&clip, time, &cache, source}.run())
      return Result<Clip>::failure("retarget: clip '" + clip.name() + "' could not be sampled");
    RetargetJob job{&rig, source, &scratch,
                    std::span<JointPose>(out).subspan(static_cast<size_t>(f) * tn, tn)};
    if (!job.run()) return Result<Clip>::failure("retarget: the job refused the rig");
  }
  return Clip::from_frames(clip.name(), clip.duration(), rate, static_cast<int>(tn), std::move(out));
}

}  // namespace ossa
