// ossa/runtime/playhead.h — where one clip's playback is, and which notifies each step crosses.
//
// The rules (they are what users of every engine expect and what the property tests check):
//  * A step sweeps the half-open span (previous, current] in the direction of play; the first step after
//    start() or seek() also includes its start point. An instant notify fires once per crossing, in the order
//    crossed; a step longer than the clip fires every crossing it contains, each with the loop count so far.
//  * Repeat: reaching the end wraps to the start (both the end and the start point are crossed at the wrap,
//    so notifies at the end and at 0 both fire, end first), and a loop event fires. Reverse play mirrors
//    this.
//  * Ping-pong: the playhead reflects at the ends; a notify exactly at an end fires once per reflection.
//  * Once, or the last pass of a finite repeat/ping-pong: playback stops at the end (a notify there fires
//    once) and a finished event fires.
//  * States ([time, time + duration]) begin when the playhead enters the range and end when it leaves it,
//    wraps out of it, or when playback stops or changes (end_states()); begin and end always pair.
// Times are kept in double precision so that hours of looping do not drift. No allocation in advance().
//
// Cost (SECURITY.md): a step that stays within one pass costs O(log n + the notifies it crosses) for a clip
// of n notifies (binary searches over the time-sorted lists). A step over many whole passes crosses every
// notify once per pass; it sweeps at most max(2, kMaxSweptNotifies / (n + 1)) passes and skips the rest
// arithmetically (the loop count jumps, as for kMaxPasses), so one step costs O(kMaxSweptNotifies + n)
// whatever its length. Clips shorter than kMinDuration play as a pose (duration 0: their notifies fire once,
// then playback finishes): at 60 updates a second a 1 us clip would loop 16,000 times an update.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ossa/asset/notifies.h"

namespace ossa {

enum class LoopMode { kOnce, kRepeat, kPingPong };
enum class EventType { kInstant, kBegin, kEnd, kLoop, kFinished };
const char* to_string(EventType type);
const char* to_string(LoopMode mode);

struct PlaybackEvent {
  EventType type = EventType::kInstant;
  int notify = -1;  // index into the clip's instants (kInstant) or states (kBegin/kEnd); -1 otherwise
  float time = 0;   // clip time at which it fired
  int loop = 0;     // completed loops (passes) so far
};

// A bounded event buffer: reserve once; pushes past capacity are counted in `dropped`, never allocated.
class EventBuffer {
 public:
  explicit EventBuffer(size_t capacity = 256) { events_.reserve(capacity); }
  void clear() { events_.clear(), dropped_ = 0; }
  void push(const PlaybackEvent& e) {
    if (events_.size() < events_.capacity())
      events_.push_back(e);
    else
      ++dropped_;
  }
  std::span<const PlaybackEvent> events() const { return events_; }
  std::vector<PlaybackEvent>& storage() { return events_; }
  size_t dropped() const { return dropped_; }

 private:
  std::vector<PlaybackEvent> events_;
  size_t dropped_ = 0;
};

// One stretch of clip time swept by an advance() without wrapping; `count` identical stretches in a row.
struct PlayheadSegment {
  float from = 0, to = 0;
  int count = 1;
};

class Playhead {
 public:
  static constexpr double kMaxPasses = 100000;          // passes one step sweeps at most, notifies or not
  static constexpr double kMaxSweptNotifies = 1 << 16;  // notify crossings one step sweeps at most (about)
  static constexpr float kMinDuration = 1e-4f;          // seconds; shorter clips play as a pose

  // passes: how many times the clip plays (ping-pong: passes in either direction); 0 = forever. Once = 1.
  // Sizes the state flags for `notifies` (allocates; the per-frame advance() does not).
  void start(float duration, LoopMode mode, int passes, float time, const ClipNotifies* notifies);
  void seek(float time);  // the next advance() includes this point; states are re-entered from here
  void advance(double delta, EventBuffer& out);  // delta in clip seconds, negative = backwards
  void end_states(EventBuffer& out);             // ends every active state (stop, clip change, blend-out)

  float time() const { return static_cast<float>(time_); }
  int loops() const { return loops_; }
  bool finished() const { return finished_; }
  int direction() const { return direction_; }  // ping-pong travel direction (+1 forward, -1 back)
  LoopMode mode() const { return mode_; }
  // The stretches the last advance() swept, in order (root motion composes its deltas from them).
  std::span<const PlayheadSegment> segments() const { return segments_; }

 private:
  void record(double from, double to);
  void sweep(double from, double to, bool include_from, EventBuffer& out);
  static void sort_sweep(std::vector<PlaybackEvent>& events, size_t first, bool forward);
  void finish(double at, EventBuffer& out);

  const ClipNotifies* notifies_ = nullptr;
  std::vector<uint8_t> active_;  // per state
  // The notifies in order of time (instants), start and end (states), for the binary searches, and room for
  // one sweep's candidates; made by start().
  std::vector<uint32_t> instants_by_time_, states_by_start_, states_by_end_, candidates_;
  bool instants_in_file_order_ = true;
  double duration_ = 0, time_ = 0, pose_span_ = 0;
  LoopMode mode_ = LoopMode::kRepeat;
  int passes_ = 0, loops_ = 0, direction_ = 1;
  bool include_start_ = true, finished_ = false;
  std::vector<PlayheadSegment> segments_ = std::vector<PlayheadSegment>(0);
};

}  // namespace ossa
