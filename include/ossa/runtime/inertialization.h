// ossa/runtime/inertialization.h — switching poses by inertialization: one pose evaluated per frame.
//
// A crossfade evaluates the old and the new animation for its whole duration and blends them. An
// inertialized transition (Bollo, GDC 2018, "Inertialization: High-Performance Animation Transitions in Gears
// of War") evaluates only the new one. At the switch it records, per joint and component, the offset between
// the pose shown last and the new source's pose, and the offset's velocity; from then on it shows
//   shown(t) = source(t) + offset(t),   offset(0) = shown(switch) - source(switch),
//   offset'(0) = shown'(switch) - source'(switch),   offset(t) = 0 for t >= duration,
// so the shown pose and its velocity are continuous at the switch and the new source is shown exactly from
// the duration on. Translation and scale offsets are vectors; a rotation offset is the rotation vector (axis
// * angle, core/math.h) of shown * conjugate(source), applied as quat_from_rotation_vector(offset) * source.
//
// The decay is Bollo's quintic, per component (x0 the offset, v0 its velocity, T the duration):
//   x(t) = A t^5 + B t^4 + C t^3 + a0/2 t^2 + v0 t + x0   (t < T),   x(t) = 0   (t >= T)
//   a0 = max(0, (-8 v0 T - 20 x0) / T^2)   (in the sign of x0: the acceleration that starts the decay)
//   A = -(a0 T^2 + 6 v0 T + 12 x0) / (2 T^5),  B = (3 a0 T^2 + 16 v0 T + 30 x0) / (2 T^4),
//   C = -(3 a0 T^2 + 12 v0 T + 20 x0) / (2 T^3)
// which gives x(T) = x'(T) = x''(T) = 0. Why this curve and not a critically damped spring (Holden's "dead
// blending"): the offset is gone at the duration a game asked for, not asymptotically, so "the transition has
// ended" is a fact, and the cost is a polynomial per component. Unlike Bollo's original, v0 is not clamped to
// point towards zero and T is not shortened: both would break the velocity's continuity, which is the point
// of the technique; an offset whose velocity points away from zero overshoots briefly instead.
//
// Use: make one Inertializer per character (it sizes itself at construction; start() and update() never
// allocate). Each frame, sample the current source into the locals and pass them through update() with dt,
// then go on to model space. To switch, sample the new source at the moment of the last update and h seconds
// before it (the last frame's dt is best) and call start() with both, h and the duration; from then on sample
// the new source each frame. Animator::inertialize and the graph's "blend": "inertialize" do this.
#pragma once

#include <span>
#include <vector>

#include "ossa/asset/joint_pose.h"

namespace ossa {

// One component's decay (the curve above), for offsets that are not joints (a root's velocity, a weight).
struct QuinticDecay {
  float x0 = 0, v0 = 0, a0 = 0, A = 0, B = 0, C = 0, duration = 0;
  // The curve from offset x0 and velocity v0 to zero at `duration` (<= 0: no offset at all).
  static QuinticDecay make(float x0, float v0, float duration);
  float value(float t) const;     // x(t); 0 at and after the duration
  float velocity(float t) const;  // x'(t)
};

class Inertializer {
 public:
  Inertializer() = default;
  explicit Inertializer(int joint_count);

  // Starts a transition to a new source (one in progress is replaced: what it shows is the start). `now`: the
  // new source's pose at the moment of the last update; `before`: the same source `h` seconds earlier (its
  // velocity, a backward difference like the one kept of the shown pose, so that a switch to the same motion
  // gives no offset at all). Returns false, changing nothing, when the sizes are not joint_count(), h <= 0,
  // the duration is not finite or is negative, or nothing has been shown yet (no update since construction or
  // reset()).
  [[nodiscard]] bool start(std::span<const JointPose> now, std::span<const JointPose> before, float h,
                           float duration);
  // One frame, `dt` seconds after the last: `pose` holds the current source's pose on entry and the pose to
  // show on return (the source plus the decaying offset). Tracks the shown pose and its velocity for the next
  // start(). False (nothing changes) when `pose` is not joint_count() long or dt is negative or not finite.
  bool update(std::span<JointPose> pose, float dt);
  // Forgets what was shown: the next update shows its source as it is and starts the history again.
  void reset();

  int joint_count() const { return static_cast<int>(shown_.size()); }
  bool active() const { return elapsed_ < duration_; }
  float elapsed() const { return elapsed_; }
  float duration() const { return duration_; }
  // What the last update showed.
  std::span<const JointPose> shown() const { return shown_; }

 private:
  struct JointOffset {
    QuinticDecay translation[3], rotation[3], scale[3];
  };
  std::vector<JointPose> shown_;     // the last update's output
  std::vector<JointPose> velocity_;  // its velocity per second: translation, rotation vector (x, y, z), scale
  std::vector<JointOffset> offsets_;  // the transition's curves
  float elapsed_ = 0, duration_ = 0;
  int history_ = 0;  // updates shown since construction or reset(): velocities need two
};

}  // namespace ossa
