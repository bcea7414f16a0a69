#include "ossa/runtime/inertialization.h"

#include <algorithm>
#include <cmath>

namespace ossa {
namespace {

Vec3 vec(const float* v) {
  return {v[0], v[1], v[2]};
}
Quat quat(const float* v) {
  return {v[0], v[1], v[2], v[3]};
}
void put(float* out, Vec3 v) {
  out[0] = v.x, out[1] = v.y, out[2] = v.z;
}
void put(float* out, Quat q) {
  out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

}  // namespace

QuinticDecay QuinticDecay::make(float x0, float v0, float duration) {
  QuinticDecay d;
  if (!(duration > 0) || !std::isfinite(duration)) return d;
  // Worked in the sign of the offset (towards zero is negative), as Bollo does; an offset of 0 takes the
  // velocity's sign, so a0 never pushes against the velocity.
  const float s = x0 > 0 ? 1.f : x0 < 0 ? -1.f : (v0 >= 0 ? 1.f : -1.f);
  const double x = s * x0, v = s * v0, T = duration;
  const double a = std::max(0.0, (-8 * v * T - 20 * x) / (T * T));
  d.x0 = x0, d.v0 = v0, d.duration = duration;
  d.a0 = static_cast<float>(s * a);
  d.A = static_cast<float>(s * -(a * T * T + 6 * v * T + 12 * x) / (2 * std::pow(T, 5)));
  d.B = static_cast<float>(s * (3 * a * T * T + 16 * v * T + 30 * x) / (2 * std::pow(T, 4)));
  d.C = static_cast<float>(s * -(3 * a * T * T + 12 * v * T + 20 * x) / (2 * std::pow(T, 3)));
  return d;
}

float QuinticDecay::value(float t) const {
  if (!(t < duration)) return 0;
  return (((((A * t + B) * t + C) * t) + 0.5f * a0) * t + v0) * t + x0;
}

float QuinticDecay::velocity(float t) const {
  if (!(t < duration)) return 0;
  return (((5 * A * t + 4 * B) * t + 3 * C) * t + a0) * t + v0;
}

Inertializer::Inertializer(int joint_count)
    : shown_(static_cast<size_t>(std::max(joint_count, 0))),
      velocity_(shown_.size()),
      offsets_(shown_.size()) {}

void Inertializer::reset() {
  history_ = 0;
  elapsed_ = duration_ = 0;
}

bool Inertializer::start(std::span<const JointPose> now, std::span<const JointPose> before, float h,
                         float duration) {
  const size_t n = shown_.size();
  if (now.size() != n || before.size() != n || !(h > 0) || !std::isfinite(h) || !(duration >= 0) ||
      !std::isfinite(duration) || history_ == 0)
    return false;
  for (size_t j = 0; j < n; ++j) {
    const JointPose &shown = shown_[j], &vel = velocity_[j], &a = now[j], &b = before[j];
    JointOffset& off = offsets_[j];
    // The shown pose taken back h seconds at its velocity, against the new source there: the offset's
    // velocity is the change of the offset over h, which keeps the rotation's Jacobian exact to first order.
    for (int c = 0; c < 3; ++c) {
      const float x0 = shown.translation[c] - a.translation[c];
      const float xh = shown.translation[c] - vel.translation[c] * h - b.translation[c];
      off.translation[c] = QuinticDecay::make(x0, (x0 - xh) / h, duration);
      const float s0 = shown.scale[c] - a.scale[c];
      const float sh = shown.scale[c] - vel.scale[c] * h - b.scale[c];
      off.scale[c] = QuinticDecay::make(s0, (s0 - sh) / h, duration);
    }
    const Quat shown_q = quat(shown.rotation);
    const Vec3 r0 = rotation_vector(shown_q * conjugate(quat(a.rotation)));
    const Quat shown_h = quat_from_rotation_vector(vec(vel.rotation) * -h) * shown_q;
    const Vec3 rh = rotation_vector(shown_h * conjugate(quat(b.rotation)));
    const Vec3 rv = (r0 - rh) * (1 / h);
    off.rotation[0] = QuinticDecay::make(r0.x, rv.x, duration);
    off.rotation[1] = QuinticDecay::make(r0.y, rv.y, duration);
    off.rotation[2] = QuinticDecay::make(r0.z, rv.z, duration);
  }
  elapsed_ = 0;
  duration_ = duration;
  return true;
}

bool Inertializer::update(std::span<JointPose> pose, float dt) {
  const size_t n = shown_.size();
  if (pose.size() != n || !(dt >= 0) || !std::isfinite(dt)) return false;
  if (elapsed_ < duration_) {
    elapsed_ += dt;
    if (elapsed_ < duration_) {
      const float t = elapsed_;
      for (size_t j = 0; j < n; ++j) {
        JointPose& p = pose[j];
        const JointOffset& off = offsets_[j];
        for (int c = 0; c < 3; ++c) {
          p.translation[c] += off.translation[c].value(t);
          p.scale[c] += off.scale[c].value(t);
        }
        const Vec3 r{off.rotation[0].value(t), off.rotation[1].value(t), off.rotation[2].value(t)};
        put(p.rotation, normalize(quat_from_rotation_vector(r) * quat(p.rotation)));
      }
    }
  }
  for (size_t j = 0; j < n; ++j) {
    JointPose &shown = shown_[j], &vel = velocity_[j];
    const JointPose& p = pose[j];
    if (history_ > 0 && dt > 0) {
      const float inv = 1 / dt;
      for (int c = 0; c < 3; ++c) {
        vel.translation[c] = (p.translation[c] - shown.translation[c]) * inv;
        vel.scale[c] = (p.scale[c] - shown.scale[c]) * inv;
      }
      put(vel.rotation, rotation_vector(quat(p.rotation) * conjugate(quat(shown.rotation))) * inv);
    } else if (history_ == 0) {
      vel = JointPose{};
      vel.rotation[3] = vel.scale[0] = vel.scale[1] = vel.scale[2] = 0;
    }
    shown = p;
  }
  history_ = std::min(history_ + 1, 2);
  return true;
}

}  // namespace ossa
