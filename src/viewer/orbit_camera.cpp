#include "viewer/orbit_camera.h"

#include <algorithm>
#include <cmath>

namespace ossa::viewer {

namespace {
constexpr float kPi = 3.14159265358979f;
constexpr float kMaxPitch = 89 * kPi / 180;

// Unit vector from the target towards the eye.
Vec3 eye_direction(float yaw, float pitch) {
  return {std::sin(yaw) * std::cos(pitch), std::sin(pitch), std::cos(yaw) * std::cos(pitch)};
}
}  // namespace

void OrbitCamera::frame(Vec3 lo, Vec3 hi, float aspect) {
  const Camera framed = frame_bounds(lo, hi, aspect);
  const Vec3 offset = framed.eye - framed.target;
  target = framed.target;
  distance = length(offset);
  const Vec3 d = offset * (1 / std::max(distance, 1e-6f));
  pitch = std::asin(std::clamp(d.y, -1.f, 1.f));
  yaw = std::atan2(d.x, d.z);
  fov_y_degrees = framed.fov_y_degrees;
  radius_ = std::max(length(hi - lo) * 0.5f, 1e-3f);
}

void OrbitCamera::refit(Vec3 lo, Vec3 hi, float aspect) {
  const float keep_yaw = yaw, keep_pitch = pitch;
  frame(lo, hi, aspect);
  yaw = keep_yaw, pitch = keep_pitch;
}

void OrbitCamera::orbit(float dx_pixels, float dy_pixels) {
  constexpr float kRadiansPerPixel = 0.4f * kPi / 180;
  yaw -= dx_pixels * kRadiansPerPixel;
  yaw = std::remainder(yaw, 2 * kPi);
  pitch = std::clamp(pitch + dy_pixels * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx_pixels, float dy_pixels, float view_height_pixels) {
  // World units per pixel at the target's depth: the target moves with the cursor.
  const float per_pixel =
      2 * distance * std::tan(fov_y_degrees * kPi / 360) / std::max(view_height_pixels, 1.f);
  const Vec3 forward = eye_direction(yaw, pitch) * -1.f;
  const Vec3 right = normalize(cross(forward, Vec3{0, 1, 0}));
  const Vec3 up = cross(right, forward);
  target = target - right * (dx_pixels * per_pixel) + up * (dy_pixels * per_pixel);
}

void OrbitCamera::look_from(View view) {
  yaw = view == View::kSide ? kPi / 2 : 0;
  pitch = view == View::kTop ? kMaxPitch : 0;
}

void OrbitCamera::follow(Vec3 from, Vec3 to) {
  if (!std::isfinite(to.x - from.x) || !std::isfinite(to.z - from.z)) return;
  target = target + Vec3{to.x - from.x, 0, to.z - from.z};
}

void OrbitCamera::zoom(float wheel_steps) {
  distance = std::clamp(distance * std::pow(0.85f, wheel_steps), radius_ * 0.05f, radius_ * 200);
}

Camera OrbitCamera::camera() const {
  Camera c;
  c.target = target;
  c.eye = target + eye_direction(yaw, pitch) * distance;
  c.fov_y_degrees = fov_y_degrees;
  // Near and far planes around what is framed, wherever the camera went.
  c.near_plane = std::max(distance - radius_ * 3, distance * 0.01f);
  c.far_plane = distance + radius_ * 60;
  return c;
}

}  // namespace ossa::viewer
