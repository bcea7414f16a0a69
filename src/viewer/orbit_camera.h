// The viewer's camera: orbits a target point at a distance (yaw about +Y, pitch), pans in the view plane,
// zooms by changing the distance. Plain math, no GL: the window feeds it mouse motion in pixels.
#pragma once

#include "ossa/render/renderer.h"

namespace ossa::viewer {

class OrbitCamera {
 public:
  // Looks at the box [lo, hi] whole (as frame_bounds does) for a view of the given aspect (width / height).
  void frame(Vec3 lo, Vec3 hi, float aspect);
  // The same box whole from where the camera looks now: target and distance as frame() sets them, yaw and
  // pitch kept (the viewer's F: "show all of it", not "go back to the front").
  void refit(Vec3 lo, Vec3 hi, float aspect);
  void orbit(float dx_pixels, float dy_pixels);  // 0.4 degrees per pixel; pitch within +-89
  void pan(float dx_pixels, float dy_pixels, float view_height_pixels);  // the target follows the cursor
  void zoom(float wheel_steps);  // each step 15 % closer (negative: away)
  // The standard views, keeping target and distance: front (from +z), side (from +x), top (from above, the
  // front at the bottom of the view).
  enum class View { kFront, kSide, kTop };
  void look_from(View view);
  // The character moved from `from` to `to` (world): the target moves with it across the ground (x, z), so
  // the camera keeps its view of a character travelling by root motion (height changes are not followed).
  void follow(Vec3 from, Vec3 to);
  Camera camera() const;

  Vec3 target{0, 1, 0};
  float distance = 4, yaw = 0, pitch = 0;  // radians; yaw 0 looks along -z (from +z), pitch > 0 from above
  float fov_y_degrees = 35;

 private:
  float radius_ = 1;  // the framed box's half diagonal: clip planes follow it
};

}  // namespace ossa::viewer
