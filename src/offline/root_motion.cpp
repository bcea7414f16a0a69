// Root-motion extraction (ossa/offline/root_motion.h): offline work, in ossa::offline.
#include "ossa/offline/root_motion.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

namespace ossa {
namespace {
constexpr float kTwoPi = 6.28318530718f;

// Model matrix of `joint` at frame `f`, from the clip's frame poses down the joint's ancestor chain.
Mat4 joint_model(const Clip& clip, const Skeleton& skeleton, int f, int joint) {
  const JointPose* frame = clip.frames().data() + static_cast<size_t>(f) * clip.joint_count();
  Mat4 m = to_transform(frame[joint]).to_matrix();
  for (int p = skeleton.parents()[joint]; p >= 0; p = skeleton.parents()[p])
    m = to_transform(frame[p]).to_matrix() * m;
  return m;
}
Mat4 parent_model(const Clip& clip, const Skeleton& skeleton, int f, int joint) {
  int p = skeleton.parents()[joint];
  return p >= 0 ? joint_model(clip, skeleton, f, p) : Mat4{};
}
}  // namespace

int default_root_joint(const Skeleton& skeleton) {
  for (int j = 0; j < skeleton.joint_count(); ++j) {
    std::string name = skeleton.name(j);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name == "root" || name.ends_with(":root")) return j;
  }
  // No joint called root: the first joint with a parent (the hips of most rigs sit under an armature node).
  for (int j = 0; j < skeleton.joint_count(); ++j)
    if (skeleton.parents()[j] >= 0) return j;
  return 0;
}

Result<InPlaceClip> extract_root_motion(const Clip& clip, const Skeleton& skeleton, int root) {
  if (clip.layout() != Clip::Layout::kFixedRate)
    return Result<InPlaceClip>::failure(
        "root motion is extracted from fixed-rate clips (a .ossa keeps the tracks of `ossa convert "
        "--root-motion`)");
  const int joints = clip.joint_count(), frames = clip.frame_count();
  if (root < 0) root = default_root_joint(skeleton);
  if (root >= joints) return Result<InPlaceClip>::failure("root joint out of range");

  InPlaceClip out{Clip(), RootMotionTrack{}};
  out.track.joint = root;
  out.track.frame_rate = clip.frame_rate();
  out.track.duration = clip.duration();
  // Heading: the model-space direction of the root's local axis that is most horizontal at frame 0.
  Mat4 m0 = joint_model(clip, skeleton, 0, root);
  int axis = 0;
  float best = -1;
  for (int a = 0; a < 3; ++a) {
    Vec3 d = normalize(Vec3{m0.at(0, a), m0.at(1, a), m0.at(2, a)});
    float horizontal = std::hypot(d.x, d.z);
    if (horizontal > best) best = horizontal, axis = a;
  }
  std::vector<JointPose> in_place(clip.frames().begin(), clip.frames().end());
  float previous_yaw = 0;
  for (int f = 0; f < frames; ++f) {
    Mat4 m = joint_model(clip, skeleton, f, root);
    Vec3 dir{m.at(0, axis), m.at(1, axis), m.at(2, axis)};
    float yaw = std::atan2(dir.x, dir.z);
    if (f > 0) {  // unwrap: full turns accumulate
      while (yaw - previous_yaw > kTwoPi / 2) yaw -= kTwoPi;
      while (yaw - previous_yaw < -kTwoPi / 2) yaw += kTwoPi;
    }
    previous_yaw = yaw;
    Vec3 t = m.translation();
    out.track.frames.push_back({t.x, t.z, yaw});
  }
  // Headings relative to frame 0: the character faces its model axes at the clip's start, so deltas taken
  // there are in model axes (which local axis served as the heading then no longer matters).
  const float yaw0 = out.track.frames[0].yaw;
  for (RootDelta& f : out.track.frames) f.yaw -= yaw0;
  // In place: model' = RM(0) * RM(f)^-1 * model, expressed back in the parent's space.
  const RootDelta first = out.track.frames[0];
  for (int f = 0; f < frames; ++f) {
    RootDelta undo = first.then(out.track.frames[f].inverse());
    Mat4 correction =
        translation_matrix({undo.x, 0, undo.z}) * rotation_matrix(quat_from_axis_angle({0, 1, 0}, undo.yaw));
    Mat4 model = correction * joint_model(clip, skeleton, f, root);
    Mat4 local = inverse(parent_model(clip, skeleton, f, root)) * model;
    JointPose& p = in_place[static_cast<size_t>(f) * joints + root];
    Transform t = decompose(local);
    const float* prev = f > 0 ? in_place[static_cast<size_t>(f - 1) * joints + root].rotation : nullptr;
    p = to_joint_pose(t);
    if (prev && prev[0] * p.rotation[0] + prev[1] * p.rotation[1] + prev[2] * p.rotation[2] +
                        prev[3] * p.rotation[3] <
                    0)
      for (float& q : p.rotation) q = -q;
  }
  auto c = Clip::from_frames(clip.name(), clip.duration(), clip.frame_rate(), joints, std::move(in_place));
  if (!c) return Result<InPlaceClip>::failure(c.error());
  out.clip = Clip::with_morph_weights(std::move(c).value(), clip.morph_weights());  // not root motion
  return out;
}

Result<InPlaceClips> extract_root_motion(std::span<const Clip> clips, const Skeleton& skeleton) {
  InPlaceClips out;
  for (const Clip& clip : clips) {
    auto extracted = extract_root_motion(clip, skeleton);
    if (!extracted)
      return Result<InPlaceClips>::failure("root motion: clip '" + clip.name() + "': " + extracted.error());
    out.clips.push_back(std::move(extracted->clip));
    out.tracks.push_back(std::move(extracted->track));
  }
  return out;
}

}  // namespace ossa
