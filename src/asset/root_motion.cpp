#include "ossa/asset/root_motion.h"

#include <algorithm>
#include <cmath>

namespace ossa {
namespace {

Vec3 rotate_yaw(float yaw, Vec3 v) {
  float c = std::cos(yaw), s = std::sin(yaw);
  return {c * v.x + s * v.z, v.y, -s * v.x + c * v.z};  // rotation about +Y (right-handed)
}

}  // namespace

RootDelta RootDelta::then(const RootDelta& next) const {
  Vec3 t = rotate_yaw(yaw, {next.x, 0, next.z});
  return {x + t.x, z + t.z, yaw + next.yaw};
}

RootDelta RootDelta::inverse() const {
  Vec3 t = rotate_yaw(-yaw, {-x, 0, -z});
  return {t.x, t.z, -yaw};
}

RootDelta RootMotionTrack::at(float time) const {
  if (frames.empty()) return {};
  const int n = static_cast<int>(frames.size());
  // Clamped before the conversion to int: whatever the track's numbers, the index stays in the frames.
  const float f = std::clamp(std::clamp(time, 0.f, duration) * frame_rate, 0.f, static_cast<float>(n - 1));
  int i = static_cast<int>(f);
  float a = f - static_cast<float>(i);
  if (i >= n - 1) return frames[n - 1];
  if (i == n - 2) {  // last stretch ends at the clip's end
    float start = static_cast<float>(i) / frame_rate, span = duration - start;
    a = span > 0 ? std::min((std::clamp(time, 0.f, duration) - start) / span, 1.f) : 0.f;
  }
  const RootDelta &p = frames[i], &q = frames[i + 1];
  return {p.x + (q.x - p.x) * a, p.z + (q.z - p.z) * a, p.yaw + (q.yaw - p.yaw) * a};
}

RootDelta RootMotionTrack::delta(float from, float to) const {
  return at(from).inverse().then(at(to));
}

}  // namespace ossa
