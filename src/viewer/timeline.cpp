#include "viewer/timeline.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace ossa::viewer {

namespace {
constexpr double kFallbackFrameRate = 30;  // ticks for a clip without a frame rate
constexpr double kPixelsPerFrameMax = 40;  // zoomed in at most this far
constexpr double kMajorSpacingMin = 60;    // labels at least this far apart
constexpr double kMinorSpacingMin = 6;     // unlabelled ticks closer than this are left out
constexpr float kMaxWidth = 1e6f;

// 1, 2, 5, 10, 20, 50, ...: the step after `step`.
long long next_nice_step(long long step) {
  long long decade = 1;
  while (decade * 10 <= step) decade *= 10;
  const long long digit = step / decade;
  return (digit == 1 ? 2 : digit == 2 ? 5 : 10) * decade;
}
}  // namespace

double TimelineView::rate() const {
  return std::isfinite(frame_rate_) && frame_rate_ > 0 ? frame_rate_ : kFallbackFrameRate;
}

double TimelineView::seconds_per_pixel() const {
  return (static_cast<double>(end_) - start_) / width_;
}

void TimelineView::clamp_view(double start, double span) {
  const double duration = duration_;
  const double min_span = std::min(duration, width_ / kPixelsPerFrameMax / rate());
  span = std::clamp(span, min_span, duration);
  start = std::clamp(start, 0.0, duration - span);
  start_ = static_cast<float>(start);
  end_ = std::min(static_cast<float>(start + span), duration_);
}

void TimelineView::set_clip(float duration, float frame_rate) {
  duration_ = std::isfinite(duration) && duration > 0 ? duration : 0.f;
  frame_rate_ = std::isfinite(frame_rate) && frame_rate > 0 ? frame_rate : 0.f;
  show_all();
}

void TimelineView::set_width(float width) {
  width_ = std::isfinite(width) ? std::clamp(width, 1.f, kMaxWidth) : 1.f;
  clamp_view(start_, static_cast<double>(end_) - start_);  // the zoom limit depends on the width
}

void TimelineView::show_all() {
  start_ = 0;
  end_ = duration_;
}

float TimelineView::time_to_x(float time) const {
  const double span = static_cast<double>(end_) - start_;
  if (span <= 0) return 0;
  return static_cast<float>((time - static_cast<double>(start_)) / span * width_);
}

float TimelineView::x_to_time(float x) const {
  return static_cast<float>(start_ + static_cast<double>(x) * seconds_per_pixel());
}

float TimelineView::snapped_time(float x) const {
  return snap_to_frame(x_to_time(x), duration_, frame_rate_);
}

float TimelineView::snap_to_frame(float time_in, float duration, float frame_rate) {
  const double end = std::isfinite(duration) && duration > 0 ? duration : 0.0;
  double time = std::isfinite(time_in) ? std::clamp(static_cast<double>(time_in), 0.0, end) : 0.0;
  if (frame_rate > 0 && std::isfinite(frame_rate)) {
    // The nearest frame, or the clip's end when that is nearer (a clip need not end on a frame).
    const double frame = std::min(std::round(time * frame_rate) / frame_rate, end);
    time = end - time < std::abs(frame - time) ? end : frame;
  }
  return static_cast<float>(time);
}

void TimelineView::zoom(float factor, float anchor_x) {
  if (!std::isfinite(factor) || !(factor > 0) || !std::isfinite(anchor_x)) return;
  const double span = static_cast<double>(end_) - start_;
  const double anchor_time = start_ + anchor_x * seconds_per_pixel();
  const double new_span = span / factor;
  clamp_view(anchor_time - anchor_x / static_cast<double>(width_) * new_span, new_span);
}

void TimelineView::pan(float dx) {
  if (!std::isfinite(dx)) return;
  const double span = static_cast<double>(end_) - start_;
  clamp_view(start_ - dx * seconds_per_pixel(), span);
}

std::vector<Tick> TimelineView::ticks() const {
  std::vector<Tick> ticks;
  const double r = rate(), span = static_cast<double>(end_) - start_;
  const double pixels_per_frame = span > 0 ? width_ / (span * r) : kMajorSpacingMin;
  long long major = 1;
  while (major * pixels_per_frame < kMajorSpacingMin && major < (1ll << 50)) major = next_nice_step(major);
  long long minor = major;
  for (long long step = 1; step < major; step = next_nice_step(step))
    if (major % step == 0 && step * pixels_per_frame >= kMinorSpacingMin) {
      minor = step;
      break;
    }
  // Frames whose times are within a rounding error of the view's ends are in it.
  const long long first = static_cast<long long>(std::ceil(start_ * r / minor - 1e-6)) * minor;
  const long long last = static_cast<long long>(std::floor(end_ * r + 1e-6));
  for (long long frame = first; frame <= last; frame += minor) {
    Tick tick;
    tick.time = static_cast<float>(frame / r);
    tick.x = time_to_x(tick.time);
    tick.major = frame % major == 0;
    if (tick.major) tick.label = std::to_string(frame);
    ticks.push_back(std::move(tick));
  }
  return ticks;
}

std::vector<Lane> TimelineView::lanes(const NotifyDocument& document, int clip,
                                      std::span<const std::string> keep_order) {
  std::vector<Lane> lanes;
  std::unordered_map<std::string, size_t> lane_of;
  for (const std::string& name : keep_order)
    if (lane_of.emplace(name, lanes.size()).second) lanes.push_back({name, {}});
  for (const EditableNotify& e : document.notifies(clip)) {  // by time: lanes by their earliest notify
    auto [it, added] = lane_of.emplace(e.name, lanes.size());
    if (added) lanes.push_back({e.name, {}});
    lanes[it->second].ids.push_back(e.id);
  }
  std::erase_if(lanes, [](const Lane& lane) { return lane.ids.empty(); });
  return lanes;
}

Hit TimelineView::hit_test(const NotifyDocument& document, int clip, float x, float y, float lane_height,
                           float marker_half, std::span<const std::string> keep_order) const {
  if (!(lane_height > 0) || !(y >= 0) || !std::isfinite(x) || !std::isfinite(y)) return {};
  const std::vector<Lane> all = lanes(document, clip, keep_order);
  const double lane = std::floor(y / lane_height);
  if (lane >= static_cast<double>(all.size())) return {};
  marker_half = std::isfinite(marker_half) ? std::max(marker_half, 0.f) : 0.f;
  // Grips first (they are small), then markers (drawn over bars), the nearest one, then bars, the latest
  // (drawn last, on top).
  Hit best;
  int best_rank = 0;
  float best_distance = 0;
  for (uint32_t id : all[static_cast<size_t>(lane)].ids) {
    const EditableNotify* e = document.find(clip, id);
    if (!e) continue;
    int rank = 0;
    float distance = 0;
    HitPart part = HitPart::kNone;
    const float x0 = time_to_x(e->time);
    if (e->duration > 0) {
      const float x1 = time_to_x(e->time + e->duration);
      const float grip = std::min(marker_half, (x1 - x0) / 2);
      if (x >= x1 - grip && x <= x1) {
        part = HitPart::kEnd, rank = 3, distance = x1 - x;
      } else if (x >= x0 && x <= x1) {
        part = HitPart::kBody, rank = 1;
      }
    } else if (std::abs(x - x0) <= marker_half) {
      part = HitPart::kBody, rank = 2, distance = std::abs(x - x0);
    }
    if (rank > best_rank || (rank == best_rank && rank > 0 && distance <= best_distance)) {
      best = {part, id};
      best_rank = rank;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace ossa::viewer
