#include "ossa/runtime/playhead.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace ossa {
namespace {
double state_end(const Notify& state) {
  return static_cast<double>(state.time) + state.duration;
}
}  // namespace

const char* to_string(EventType type) {
  switch (type) {
    case EventType::kInstant:
      return "instant";
    case EventType::kBegin:
      return "begin";
    case EventType::kEnd:
      return "end";
    case EventType::kLoop:
      return "loop";
    case EventType::kFinished:
      return "finished";
  }
  return "?";
}

const char* to_string(LoopMode mode) {
  switch (mode) {
    case LoopMode::kOnce:
      return "once";
    case LoopMode::kRepeat:
      return "repeat";
    case LoopMode::kPingPong:
      return "pingpong";
  }
  return "?";
}

void Playhead::record(double from, double to) {
  PlayheadSegment seg{static_cast<float>(from), static_cast<float>(to), 1};
  if (!segments_.empty() && segments_.back().from == seg.from && segments_.back().to == seg.to) {
    ++segments_.back().count;
  } else if (segments_.size() < segments_.capacity()) {
    segments_.push_back(seg);
  }  // else: more than 64 distinct stretches in one step (ping-pong over 32 clip lengths): the rest is
     // dropped
}

void Playhead::start(float duration, LoopMode mode, int passes, float time, const ClipNotifies* notifies) {
  segments_.reserve(64);
  duration_ = duration >= kMinDuration ? duration : 0.f;                  // NaN too
  pose_span_ = duration > 0 && duration < kMinDuration ? duration : 0.f;  // notifies a pose still fires
  mode_ = mode;
  passes_ = mode == LoopMode::kOnce ? 1 : std::max(0, passes);
  notifies_ = notifies;
  const size_t states = notifies ? notifies->states.size() : 0;
  active_.assign(states, 0);
  // Sorted again at every start: the lists may have been edited since (the viewer edits notifies in place).
  const size_t instants = notifies ? notifies->instants.size() : 0;
  auto sorted_by = [](std::vector<uint32_t>& order, size_t count, auto key) {
    order.resize(count);
    for (size_t i = 0; i < count; ++i) order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  };
  sorted_by(instants_by_time_, instants, [&](uint32_t i) { return notifies->instants[i].time; });
  instants_in_file_order_ = true;  // as the loaders leave them: the sweep's candidates need no sorting then
  for (size_t i = 0; i < instants; ++i) instants_in_file_order_ &= instants_by_time_[i] == i;
  sorted_by(states_by_start_, states, [&](uint32_t s) { return notifies->states[s].time; });
  sorted_by(states_by_end_, states, [&](uint32_t s) { return state_end(notifies->states[s]); });
  candidates_.reserve(std::max(instants, 2 * states));
  loops_ = 0;
  direction_ = 1;
  finished_ = false;
  seek(time);
}

void Playhead::seek(float time) {
  // A non-finite time (NaN from a caller's bad arithmetic) would make every later step loop forever.
  time_ = std::isfinite(time) ? std::clamp(static_cast<double>(time), 0.0, duration_) : 0.0;
  include_start_ = true;
  finished_ = false;
}

void Playhead::end_states(EventBuffer& out) {
  for (size_t s = 0; s < active_.size(); ++s)
    if (active_[s]) {
      active_[s] = 0;
      out.push({EventType::kEnd, static_cast<int>(s), static_cast<float>(time_), loops_});
    }
}

void Playhead::finish(double at, EventBuffer& out) {
  time_ = at;
  finished_ = true;
  end_states(out);
  out.push({EventType::kFinished, -1, static_cast<float>(at), loops_});
}

// Emits what the playhead crosses moving from `from` to `to` within one pass (no wrap inside), in order.
// Only the notifies the sweep can touch are visited (binary searches over the lists sorted by time, then in
// file order, as one loop over every notify would), so a short step costs O(log n + what it crosses); a
// sweep that starts on a point (include_from) looks at every state, once per pass.
void Playhead::sweep(double from, double to, bool include_from, EventBuffer& out) {
  if (!notifies_) return;
  const bool forward = to >= from;
  const double lo_bound = std::min(from, to), hi_bound = std::max(from, to);
  std::vector<PlaybackEvent>& events = out.storage();
  const size_t first = events.size();
  // Key for ordering within the sweep: distance travelled, then begin < instant < end at the same point.
  auto push = [&](EventType type, int index, double at) {
    out.push({type, index, static_cast<float>(at), loops_});
  };
  // Appends to candidates_ the entries of `order` (sorted by `key`) whose key lies in [lo_bound, hi_bound].
  auto gather = [&](const std::vector<uint32_t>& order, auto key) {
    auto it = std::lower_bound(order.begin(), order.end(), lo_bound,
                               [&](uint32_t i, double t) { return key(i) < t; });
    for (; it != order.end() && key(*it) <= hi_bound; ++it) candidates_.push_back(*it);
  };
  auto in_file_order = [&] {
    std::sort(candidates_.begin(), candidates_.end());
    candidates_.erase(std::unique(candidates_.begin(), candidates_.end()), candidates_.end());
  };
  // Instants in the half-open span, closed at `from` when asked.
  const auto& instants = notifies_->instants;
  candidates_.clear();
  gather(instants_by_time_, [&](uint32_t i) { return static_cast<double>(instants[i].time); });
  if (!instants_in_file_order_) in_file_order();
  for (const uint32_t i : candidates_) {
    const double t = instants[i].time;
    bool inside = forward ? (t > from || (include_from && t == from)) && t <= to
                          : (t < from || (include_from && t == from)) && t >= to;
    if (inside) push(EventType::kInstant, static_cast<int>(i), t);
  }
  // States: entering at the near boundary (or starting inside), leaving past the far one. Candidates: the
  // states that start or end within the sweep, and from a point every state (it may start inside one).
  const auto& states = notifies_->states;
  candidates_.clear();
  if (include_from) {
    for (size_t s = 0; s < states.size(); ++s) candidates_.push_back(static_cast<uint32_t>(s));
  } else {
    gather(states_by_start_, [&](uint32_t s) { return static_cast<double>(states[s].time); });
    gather(states_by_end_, [&](uint32_t s) { return state_end(states[s]); });
    in_file_order();
  }
  for (const uint32_t s : candidates_) {
    const double lo = states[s].time, hi = state_end(states[s]);
    const double enter = forward ? lo : hi, leave = forward ? hi : lo;
    if (include_from && !active_[s] && from >= lo && from <= hi) {
      active_[s] = 1;
      push(EventType::kBegin, static_cast<int>(s), from);
    }
    bool enters = forward ? enter > from && enter <= to : enter < from && enter >= to;
    if (enters && !active_[s]) {
      active_[s] = 1;
      push(EventType::kBegin, static_cast<int>(s), enter);
    }
    bool leaves = forward ? leave >= from && leave < to : leave <= from && leave > to;
    if (leaves && active_[s]) {
      active_[s] = 0;
      push(EventType::kEnd, static_cast<int>(s), leave);
    }
  }
  sort_sweep(events, first, forward);
}

// Orders one sweep's events along the direction of travel (stable: notifies at one time keep file order).
void Playhead::sort_sweep(std::vector<PlaybackEvent>& events, size_t first, bool forward) {
  auto rank = [](EventType t) { return t == EventType::kBegin ? 0 : t == EventType::kInstant ? 1 : 2; };
  std::stable_sort(events.begin() + first, events.end(), [&](const PlaybackEvent& a, const PlaybackEvent& b) {
    if (a.time != b.time) return forward ? a.time < b.time : a.time > b.time;
    return rank(a.type) < rank(b.type);
  });
}

void Playhead::advance(double delta, EventBuffer& out) {
  segments_.clear();
  if (finished_ || !std::isfinite(delta)) return;
  const double d = duration_;
  if (d <= 0) {  // a clip without length (or shorter than kMinDuration): its notifies fire once, then it ends
    sweep(0, pose_span_, true, out);
    include_start_ = false;
    finish(0, out);
    return;
  }
  // Travel direction: the sign of delta, flipped while a ping-pong runs backwards.
  int dir = (delta < 0 ? -1 : 1) * (mode_ == LoopMode::kPingPong ? direction_ : 1);
  double remaining = std::fabs(delta);
  // A step of many clip lengths still crosses every pass; absurd steps are cut to a bounded number of passes
  // (their events could not be consumed anyway) and the loop count jumps. The bound shrinks with the notify
  // count, so that one step sweeps about kMaxSweptNotifies crossings at most.
  // Playback with a pass limit skips no further than its last pass. The loop count saturates at INT_MAX.
  const double notify_count =
      notifies_ ? static_cast<double>(notifies_->instants.size() + 2 * notifies_->states.size()) : 0;
  const double max_passes =
      std::min(kMaxPasses, std::max(2.0, std::floor(kMaxSweptNotifies / (notify_count + 1))));
  double skipped = std::floor(remaining / d) - max_passes;
  if (passes_ > 0) skipped = std::min(skipped, static_cast<double>(passes_) - loops_ - 1);
  if (skipped > 0) {
    // fmod is exact: subtracting skipped * d from a step of 1e30 clip lengths would leave rounding noise.
    remaining = passes_ > 0 ? remaining - skipped * d : std::fmod(remaining, d) + max_passes * d;
    loops_ = static_cast<int>(std::min<double>(loops_ + skipped, INT_MAX));
    if (mode_ == LoopMode::kPingPong && std::fmod(skipped, 2.0) != 0) {
      direction_ = -direction_;
      dir = -dir;
    }
  }
  for (;;) {
    const double boundary = dir > 0 ? d : 0;
    const double distance = std::fabs(boundary - time_);
    if (remaining < distance) {
      double to = time_ + dir * remaining;
      record(time_, to);
      sweep(time_, to, include_start_, out);
      include_start_ = false;
      time_ = to;
      return;
    }
    record(time_, boundary);
    sweep(time_, boundary, include_start_, out);
    include_start_ = false;
    remaining -= distance;
    if (loops_ < INT_MAX) ++loops_;  // a pass is complete
    if (passes_ > 0 && loops_ >= passes_) {
      finish(boundary, out);
      return;
    }
    out.push({EventType::kLoop, -1, static_cast<float>(boundary), loops_});
    if (mode_ == LoopMode::kPingPong) {
      direction_ = -direction_;
      dir = -dir;
      time_ = boundary;  // the end point was crossed once; the reflected pass starts past it
    } else {
      for (size_t s = 0; s < active_.size(); ++s)  // wrapping leaves every state (re-entered at the start)
        if (active_[s]) {
          active_[s] = 0;
          out.push({EventType::kEnd, static_cast<int>(s), static_cast<float>(boundary), loops_});
        }
      time_ = dir > 0 ? 0 : d;
      include_start_ = true;  // the wrap crosses the start point as well
      if (remaining == 0) {
        sweep(time_, time_, true, out);
        include_start_ = false;
        return;
      }
    }
  }
}

}  // namespace ossa
