// The viewer's timeline as geometry: which clip times are visible, where they are on screen, the frame ticks,
// the notify lanes and what a pointer at (x, y) is over. Plain C++ (no ImGui): the window draws what this
// says, scripts and tests use the same numbers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "notify_document.h"

namespace ossa::viewer {

struct Tick {
  float time = 0;
  float x = 0;
  bool major = false;  // labelled
  std::string label;   // "12" (a frame number) on major ticks
};

// Notifies drawn in lanes, one lane per notify name (in order of first appearance by time; ids by time).
struct Lane {
  std::string name;
  std::vector<uint32_t> ids;  // the notifies of this lane
};

enum class HitPart { kNone, kBody, kEnd };  // kEnd: the right edge of a state's bar (drag changes duration)
struct Hit {
  HitPart part = HitPart::kNone;
  uint32_t id = 0;
};

class TimelineView {
 public:
  // The clip shown: the view resets to the whole clip.
  void set_clip(float duration, float frame_rate);
  // Pixels the time axis spans (x from 0 to width), clamped to [1, 1e6]; the view stays within the zoom
  // limit.
  void set_width(float width);
  float width() const { return width_; }

  float start() const { return start_; }  // first visible clip time
  float end() const { return end_; }      // last visible clip time
  float time_to_x(float time) const;
  float x_to_time(float x) const;
  // Time at x snapped to the nearest frame (frame_rate > 0), clamped into the clip; the clip's end counts as
  // a frame (a clip need not end on one). Without a frame rate: not snapped.
  float snapped_time(float x) const;
  // The same rule for a time: the nearest frame at `frame_rate` (> 0; else `time` as is), or the clip's end
  // when that is nearer, clamped into [0, duration]. What the viewer writes for a notify placed or dragged.
  static float snap_to_frame(float time, float duration, float frame_rate);

  // Zooms by `factor` (> 1 in) keeping the time under `anchor_x` in place; at most one frame per 40 pixels
  // in, the whole clip out (a clip without a frame rate counts 30 frames a second). Pans by `dx` pixels,
  // staying within the clip: the content follows a drag (dx > 0 shows earlier times). Non-finite or <= 0
  // factors, non-finite dx: nothing changes.
  void zoom(float factor, float anchor_x);
  void pan(float dx);
  void show_all();

  // Ticks on frames, major every N frames (N the smallest of 1, 2, 5, 10, 20, 50, ... that puts labels at
  // least 60 pixels apart); minor ticks every M frames (the smallest of that series dividing N that is at
  // least 6 pixels apart; none when no such M < N).
  std::vector<Tick> ticks() const;

  // `keep_order`: lane names to keep in that order first (the order when a drag began, so that lanes do not
  // swap under the pointer); names not in it follow by their earliest notify, names without notifies go.
  static std::vector<Lane> lanes(const NotifyDocument& document, int clip,
                                 std::span<const std::string> keep_order = {});
  // What (x, y) is over, with lanes `lane_height` pixels tall from y = 0 (ordered as lanes() with
  // `keep_order`); instants are markers `marker_half` pixels wide each side, a state's end grip is the last
  // `marker_half` pixels of its bar (the right half of a bar narrower than two grips). Where several overlap:
  // a grip, else the nearest marker, else the bar that starts latest (drawn on top).
  Hit hit_test(const NotifyDocument& document, int clip, float x, float y, float lane_height,
               float marker_half = 5, std::span<const std::string> keep_order = {}) const;

 private:
  double rate() const;  // frames per second for ticks and zoom limits (30 when the clip has none)
  double seconds_per_pixel() const;
  void clamp_view(double start, double span);  // keeps [start, start + span] inside the clip

  float duration_ = 0, frame_rate_ = 0;
  float width_ = 1;
  float start_ = 0, end_ = 0;
};

}  // namespace ossa::viewer
