// Mirroring clips (ossa/offline/mirror.h): offline work, in ossa::offline.
#include "ossa/offline/mirror.h"

#include <cmath>
#include <string>

#include "ossa/runtime/local_to_model_job.h"
#include "ossa/runtime/sample_job.h"

namespace ossa {
namespace {

// The name with its side swapped, or "" when it has no side mark.
std::string other_side(const std::string& name) {
  static const char* pairs[][2] = {{"_L", "_R"},      {".L", ".R"},      {"_l", "_r"},     {".l", ".r"},
                                   {"Left", "Right"}, {"left", "right"}, {"LEFT", "RIGHT"}};
  for (const auto& pair : pairs) {
    for (int side = 0; side < 2; ++side) {
      const std::string from = pair[side], to = pair[1 - side];
      const size_t at = name.find(from);
      if (at == std::string::npos) continue;
      // Suffix marks ("_L") only at the end or before another separator; words ("Left") anywhere.
      const bool word = from.size() > 2;
      if (!word && at + from.size() != name.size() && name[at + from.size()] != '_' &&
          name[at + from.size()] != '.')
        continue;
      std::string out = name.substr(0, at);
      out.append(to).append(name, at + from.size());
      return out;
    }
  }
  for (const auto& [from, to] :
       {std::pair{"l_", "r_"}, std::pair{"r_", "l_"}, std::pair{"L_", "R_"}, std::pair{"R_", "L_"}})
    if (name.starts_with(from)) {
      std::string out = to;
      out.append(name, 2);
      return out;
    }
  return "";
}

Quat reflect(Quat q) {  // x -> -x applied to a rotation: the axis is a pseudovector
  return {q.x, -q.y, -q.z, q.w};
}

}  // namespace

std::vector<int> mirror_joints(const Skeleton& skeleton) {
  std::vector<int> out(skeleton.joint_count());
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    const std::string other = other_side(skeleton.name(j));
    const int found = other.empty() ? -1 : skeleton.find_joint(other);
    out[j] = found >= 0 ? found : j;
  }
  return out;
}

Result<Clip> mirror_clip(const Clip& clip, const Skeleton& skeleton, float frame_rate) {
  const int joints = skeleton.joint_count();
  if (clip.joint_count() != joints)
    return Result<Clip>::failure("mirror: '" + clip.name() + "' does not fit the skeleton");
  if (frame_rate <= 0) frame_rate = clip.layout() == Clip::Layout::kFixedRate ? clip.frame_rate() : 60.f;
  const std::vector<int> mirror = mirror_joints(skeleton);
  const auto parents = skeleton.parents();
  // Rest orientations in model space.
  std::vector<Mat4> rest_model(joints);
  if (!LocalToModelJob{.skeleton = &skeleton, .input = skeleton.rest_pose(), .output = rest_model}.run())
    return Result<Clip>::failure("mirror: the skeleton's rest pose does not compose");
  std::vector<Quat> rest_rotation(joints);
  for (int j = 0; j < joints; ++j) rest_rotation[j] = normalize(decompose(rest_model[j]).rotation);

  const int64_t count = Clip::frame_count_for(clip.duration(), frame_rate);
  std::vector<JointPose> frames(static_cast<size_t>(count) * joints), locals(joints);
  std::vector<Mat4> model(joints);
  std::vector<Quat> rotation(joints), mirrored_rotation(joints);
  std::vector<Vec3> position(joints), mirrored_position(joints);
  SamplingCache cache;
  for (int64_t f = 0; f < count; ++f) {
    const float time = std::min(static_cast<float>(f) / frame_rate, clip.duration());
    if (!SampleJob{.clip = &clip, .time = time, .cache = &cache, .output = locals}.run() ||
        !LocalToModelJob{.skeleton = &skeleton, .input = locals, .output = model}.run())
      return Result<Clip>::failure("mirror: '" + clip.name() + "' could not be sampled");
    for (int j = 0; j < joints; ++j) {
      const Transform t = decompose(model[j]);
      rotation[j] = normalize(t.rotation), position[j] = t.translation;
    }
    for (int j = 0; j < joints; ++j) {
      const int m = mirror[j];
      mirrored_position[j] = {-position[m].x, position[m].y, position[m].z};
      const Quat turn = rotation[m] * conjugate(rest_rotation[m]);  // the mirror joint's turn from its rest
      mirrored_rotation[j] = normalize(reflect(turn) * rest_rotation[j]);
    }
    JointPose* out = frames.data() + static_cast<size_t>(f) * joints;
    for (int j = 0; j < joints; ++j) {
      const int p = parents[j];
      Quat q = mirrored_rotation[j];
      Vec3 t = mirrored_position[j];
      if (p >= 0) {
        const Quat inverse_parent = conjugate(mirrored_rotation[p]);
        q = normalize(inverse_parent * q);
        t = rotate(inverse_parent, t - mirrored_position[p]);
        const Vec3 parent_scale{locals[p].scale[0], locals[p].scale[1], locals[p].scale[2]};
        t = {t.x / parent_scale.x, t.y / parent_scale.y, t.z / parent_scale.z};
      }
      out[j] = to_joint_pose({t, q, {locals[j].scale[0], locals[j].scale[1], locals[j].scale[2]}});
      flush_denormals(out[j]);
    }
    // Keep rotations on one hemisphere frame to frame, as fixed-rate clips store them.
    if (f > 0) {
      const JointPose* previous = out - joints;
      for (int j = 0; j < joints; ++j) {
        const float d =
            out[j].rotation[0] * previous[j].rotation[0] + out[j].rotation[1] * previous[j].rotation[1] +
            out[j].rotation[2] * previous[j].rotation[2] + out[j].rotation[3] * previous[j].rotation[3];
        if (d < 0)
          for (float& v : out[j].rotation) v = -v;
      }
    }
  }
  return Clip::from_frames(clip.name() + " (mirrored)", clip.duration(), frame_rate, joints,
                           std::move(frames));
}

}  // namespace ossa
