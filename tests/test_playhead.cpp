// Notify crossings: the playhead against a brute-force reference that unrolls the playhead in closed form
// (an unwrapped coordinate, every crossing enumerated loop by loop), over 100,000 random step sequences:
// steps from ~1e-4 s to 3x the clip, both directions, every loop mode, finite and endless passes, seeks.
// Times are on a dyadic grid (multiples of 2^-13 s) so both sides compute exactly and compare exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "ossa/runtime/playhead.h"

namespace ossa {
namespace {

struct Ev {
  EventType type;
  int notify;
  double time;
  int loop;
  bool operator==(const Ev& o) const {
    return type == o.type && notify == o.notify && std::fabs(time - o.time) < 1e-6 && loop == o.loop;
  }
};

std::string describe(const std::vector<Ev>& evs) {
  std::string s;
  for (const Ev& e : evs)
    s += std::string(to_string(e.type)) + "#" + std::to_string(e.notify) + "@" + std::to_string(e.time) +
         "/L" + std::to_string(e.loop) + " ";
  return s;
}

// The reference: an unfolded coordinate w that grows with travel. Repeat/once forward: clip time = w mod D;
// backward: D - (w mod D); ping-pong: the triangle wave of period 2D. Pass ends (wraps, reflections, the
// finish) sit at the multiples of D. Every crossing of every notify is enumerated in closed form, filtered to
// the swept span and sorted by (w, phase): at a pass end, the notify at the end reached fires before the loop
// event and the one at the start of the next pass after it.
class Reference {
 public:
  Reference(double duration, LoopMode mode, int passes, const std::vector<double>& instants)
      : d_(duration), mode_(mode), passes_(mode == LoopMode::kOnce ? 1 : passes), instants_(instants) {}

  void start(double time, int direction) {
    dir_ = direction;
    loops_ = 0;
    finished_ = false;
    place(time);
  }
  void seek(double time) {
    finished_ = false;
    place(time);
  }

  std::vector<Ev> step(double travel) {
    std::vector<Ev> out;
    if (finished_) return out;
    const double w0 = w_, w1 = w_ + travel;
    // Pass ends reached in this step (the one at w0 only when the playhead starts on the end it heads for).
    std::vector<double> ends;
    for (double m = std::ceil(w0 / d_); m * d_ <= w1; m += 1) {
      double b = m * d_;
      if (b == w0 && !(include_start_ && at_end_)) continue;
      ends.push_back(b);
    }
    double w_end = -1;  // the finish, if passes run out in this step
    if (passes_ > 0) {
      long index = std::max(0L, static_cast<long>(passes_) - loops_ - 1);
      if (index < static_cast<long>(ends.size())) {
        w_end = ends[index];
        ends.resize(index + 1);
      }
    }
    const double stop = w_end >= 0 ? w_end : w1;
    struct Item {
      double w;
      int phase;  // -1: end of a pass, 0: pass end event or ordinary point, +1: start of the next pass
      int order;
      Ev ev;
    };
    std::vector<Item> items;
    for (size_t i = 0; i < ends.size(); ++i) {
      int loop = loops_ + static_cast<int>(i) + 1;
      double at = end_clip_time(ends[i]);
      bool last = ends[i] == w_end;
      items.push_back({ends[i], 0, 0, {last ? EventType::kFinished : EventType::kLoop, -1, at, loop}});
    }
    for (size_t i = 0; i < instants_.size(); ++i) {
      const double tau = instants_[i];
      for (const auto& [w, phase] : positions(tau, w0 - 2 * d_, stop + 2 * d_)) {
        // At the start point: in repeat/once, w0 is both the end of a pass and the start of the next, and
        // only the side the playhead is on counts; in ping-pong each end is a single point.
        bool in =
            w > w0 || (include_start_ && w == w0 && (at_end_ || phase >= 0 || mode_ == LoopMode::kPingPong));
        if (!in || w > stop || (w == w_end && phase > 0)) continue;
        int loop = loops_;
        for (double b : ends) loop += b < w || (b == w && phase > 0);
        items.push_back(
            {w, phase, static_cast<int>(i), {EventType::kInstant, static_cast<int>(i), tau, loop}});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
      if (a.w != b.w) return a.w < b.w;
      return a.phase < b.phase;
    });
    for (const Item& it : items) out.push_back(it.ev);
    loops_ += static_cast<int>(ends.size());
    // Each reflection turns a ping-pong round; finishing at an end does not (playback just stops there).
    size_t reflections = ends.size() - (w_end >= 0 ? 1 : 0);
    if (mode_ == LoopMode::kPingPong && reflections % 2 == 1) dir_ = -dir_;
    include_start_ = false;
    at_end_ = false;
    w_ = stop;
    finished_ = w_end >= 0;
    return out;
  }

 private:
  void place(double time) {
    const double offset = 16 * d_;  // any multiple of 2D: keeps w positive
    if (mode_ == LoopMode::kPingPong) {
      w_ = (dir_ > 0 ? time : 2 * d_ - time) + offset;
      at_end_ = (dir_ > 0 && time == d_) || (dir_ < 0 && time == 0);
    } else {
      w_ = (dir_ > 0 ? time : d_ - time) + offset;
      at_end_ = (dir_ > 0 && time == d_) || (dir_ < 0 && time == 0);
    }
    include_start_ = true;
  }
  // Unfolded positions where clip time `tau` is crossed, with their phase, within [lo, hi].
  std::vector<std::pair<double, int>> positions(double tau, double lo, double hi) const {
    std::vector<std::pair<double, int>> out;
    for (double k = std::floor(lo / d_) - 2; k * d_ <= hi + 2 * d_; k += 1) {
      const double base = k * d_;
      if (mode_ == LoopMode::kPingPong) {
        if (std::fmod(k, 2.0) != 0) continue;  // one period = [2jD, 2(j+1)D)
        if (tau == 0)
          out.push_back({base, -1});  // reflection at 0
        else if (tau == d_)
          out.push_back({base + d_, -1});  // reflection at D
        else
          out.push_back({base + tau, 0}), out.push_back({base + 2 * d_ - tau, 0});
      } else {
        double u = dir_ > 0 ? tau : d_ - tau;  // unfolded offset within a pass
        int phase = u == 0 ? +1 : u == d_ ? -1 : 0;
        out.push_back({base + u, phase});
      }
    }
    return out;
  }
  double end_clip_time(double w) const {
    if (mode_ == LoopMode::kPingPong) return std::fmod(w, 2 * d_) == 0 ? 0 : d_;
    return dir_ > 0 ? d_ : 0;
  }

  double d_;
  LoopMode mode_;
  int passes_;
  std::vector<double> instants_;
  int dir_ = 1, loops_ = 0;
  double w_ = 0;
  bool include_start_ = true, at_end_ = false, finished_ = false;
};

TEST(Playhead, SimpleForwardRepeat) {
  ClipNotifies n;
  n.instants = {{0, 0.f, 0, "", {}}, {1, 0.5f, 0, "", {}}, {2, 1.f, 0, "", {}}};
  Playhead p;
  EventBuffer out;
  p.start(1.f, LoopMode::kRepeat, 0, 0, &n);
  p.advance(0.25, out);  // [0, 0.25]: the start point is included
  ASSERT_EQ(out.events().size(), 1u);
  EXPECT_EQ(out.events()[0].notify, 0);
  out.clear();
  p.advance(1.0, out);  // (0.25, 1.25]: 0.5, 1.0 (end, loop 0), loop event, 0 (loop 1)
  ASSERT_EQ(out.events().size(), 4u);
  EXPECT_EQ(out.events()[0].notify, 1);
  EXPECT_EQ(out.events()[1].notify, 2);
  EXPECT_EQ(out.events()[1].loop, 0);
  EXPECT_EQ(out.events()[2].type, EventType::kLoop);
  EXPECT_EQ(out.events()[3].notify, 0);
  EXPECT_EQ(out.events()[3].loop, 1);
}

TEST(Playhead, PingPongFiresEndNotifyOncePerReflection) {
  ClipNotifies n;
  n.instants = {{0, 1.f, 0, "", {}}};
  Playhead p;
  EventBuffer out;
  p.start(1.f, LoopMode::kPingPong, 0, 0.5f, &n);
  p.advance(1.0, out);  // 0.5 -> 1 (fires, reflect) -> 0.5
  int fired = 0;
  for (const auto& e : out.events()) fired += e.type == EventType::kInstant;
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(p.direction(), -1);
  EXPECT_NEAR(p.time(), 0.5f, 1e-6f);
}

TEST(Playhead, OnceStopsAtTheEndAndFiresTheEndNotifyOnce) {
  ClipNotifies n;
  n.instants = {{0, 1.f, 0, "", {}}};
  Playhead p;
  EventBuffer out;
  p.start(1.f, LoopMode::kOnce, 0, 0, &n);
  p.advance(5.0, out);
  ASSERT_EQ(out.events().size(), 2u);
  EXPECT_EQ(out.events()[0].type, EventType::kInstant);
  EXPECT_EQ(out.events()[1].type, EventType::kFinished);
  out.clear();
  p.advance(1.0, out);
  EXPECT_TRUE(out.events().empty());
  EXPECT_TRUE(p.finished());
  EXPECT_FLOAT_EQ(p.time(), 1.f);
}

TEST(Playhead, StatesPairAcrossWrapsAndBigSteps) {
  ClipNotifies n;
  n.states = {{0, 0.25f, 0.25f, "", {}}};
  Playhead p;
  EventBuffer out;
  p.start(1.f, LoopMode::kRepeat, 0, 0, &n);
  p.advance(3.1, out);  // crosses the state three times and enters... no: 0..3.1 covers 3 full passes + 0.1
  int begins = 0, ends = 0;
  for (const auto& e : out.events()) begins += e.type == EventType::kBegin, ends += e.type == EventType::kEnd;
  EXPECT_EQ(begins, 3);
  EXPECT_EQ(ends, 3);
  out.clear();
  p.advance(0.2, out);  // 0.1 -> 0.3: enters
  ASSERT_EQ(out.events().size(), 1u);
  EXPECT_EQ(out.events()[0].type, EventType::kBegin);
  out.clear();
  p.end_states(out);  // stop: the open state ends
  ASSERT_EQ(out.events().size(), 1u);
  EXPECT_EQ(out.events()[0].type, EventType::kEnd);
}

// States on the closed range [time, time + duration] (playhead.h), stepped by hand in 0.25 s steps of a 1 s
// repeating clip: [0.25, 0.5] begins on the step that reaches 0.25 and ends on the one that passes 0.5 (at
// 0.5 the playhead is still inside); [0.75, 1] ends at the wrap (after the loop event, counted in the new
// pass) and begins again next pass.
TEST(Playhead, StatesEndWhenThePlayheadLeavesTheClosedRangeOrWraps) {
  ClipNotifies n;
  n.states = {{0, 0.25f, 0.25f, "", {}}, {0, 0.75f, 0.25f, "", {}}};
  Playhead p;
  EventBuffer out;
  p.start(1.f, LoopMode::kRepeat, 0, 0, &n);
  std::vector<std::string> steps;
  for (int i = 0; i < 8; ++i) {
    out.clear();
    p.advance(0.25, out);
    std::string step;
    for (const PlaybackEvent& e : out.events()) {
      step += std::string(to_string(e.type)) + (e.notify >= 0 ? std::to_string(e.notify) : "") + "@";
      step += std::to_string(static_cast<int>(e.time * 100 + 0.5f)) + "/" + std::to_string(e.loop) + " ";
    }
    steps.push_back(step);
  }
  const std::vector<std::string> expected = {
      "begin0@25/0 ",             // 0 -> 0.25
      "",                         // 0.25 -> 0.5: still inside [0.25, 0.5]
      "end0@50/0 begin1@75/0 ",   // 0.5 -> 0.75
      "loop@100/1 end1@100/1 ",   // 0.75 -> 1: the wrap, then the state it leaves
      "begin0@25/1 ",             // 0 -> 0.25
      "",                         // 0.25 -> 0.5
      "end0@50/1 begin1@75/1 ",   // 0.5 -> 0.75
      "loop@100/2 end1@100/2 "};  // 0.75 -> 1
  EXPECT_EQ(steps, expected);
}

TEST(Playhead, MatchesClosedFormReferenceOnRandomSequences) {
  std::mt19937 rng(20261129);
  const double grid = 1.0 / 8192;  // every time on this dyadic grid: exact sums in double
  int mismatches = 0, state_errors = 0;
  long events_compared = 0;
  for (int sequence = 0; sequence < 100000; ++sequence) {
    const int d_units = std::uniform_int_distribution<int>(64, 4 * 8192)(rng);  // 7.8 ms .. 4 s
    const double d = d_units * grid;
    const LoopMode mode = static_cast<LoopMode>(std::uniform_int_distribution<int>(0, 2)(rng));
    const int passes = mode == LoopMode::kOnce ? 1 : std::uniform_int_distribution<int>(0, 4)(rng);
    const double speeds[] = {1, 2, 0.5, 1.5, -1, -2, -0.5, -1.5};
    const double speed = speeds[std::uniform_int_distribution<int>(0, 7)(rng)];
    std::vector<double> instants;
    ClipNotifies n;
    const int count = std::uniform_int_distribution<int>(0, 5)(rng);
    for (int i = 0; i < count; ++i) {
      int pick = std::uniform_int_distribution<int>(0, 9)(rng);
      double t = pick == 0 ? 0 : pick == 1 ? d : std::uniform_int_distribution<int>(0, d_units)(rng) * grid;
      instants.push_back(t);
    }
    std::sort(instants.begin(), instants.end());
    for (int i = 0; i < count; ++i) n.instants.push_back({i, static_cast<float>(instants[i]), 0, "", {}});
    // States too: the reference covers instants; for states the test checks that begin and end always pair.
    const int state_count = std::uniform_int_distribution<int>(0, 2)(rng);
    for (int i = 0; i < state_count; ++i) {
      int a = std::uniform_int_distribution<int>(0, d_units)(rng),
          b = std::uniform_int_distribution<int>(0, d_units)(rng);
      if (a > b) std::swap(a, b);
      if (a == b) b = std::min(d_units, a + 1);
      if (a == b) continue;
      n.states.push_back({100 + i, static_cast<float>(a * grid), static_cast<float>((b - a) * grid), "", {}});
    }
    std::vector<int> open(n.states.size(), 0);
    auto check_pairs = [&](std::span<const PlaybackEvent> events) {
      for (const PlaybackEvent& e : events) {
        if (e.type == EventType::kBegin) {
          if (open[e.notify]++ != 0) ++state_errors;
        } else if (e.type == EventType::kEnd) {
          if (--open[e.notify] != 0) ++state_errors;
        }
      }
    };
    // float notify times must be exact too: d <= 4 s on a 2^-13 grid fits a float's 24 bits.
    const double start = std::uniform_int_distribution<int>(0, d_units)(rng) * grid;

    Playhead p;
    EventBuffer out(4096);
    p.start(static_cast<float>(d), mode, passes, static_cast<float>(start), &n);
    Reference ref(d, mode, passes, instants);
    ref.start(start, speed > 0 ? 1 : -1);
    const int steps = std::uniform_int_distribution<int>(1, 30)(rng);
    for (int s = 0; s < steps; ++s) {
      if (std::uniform_int_distribution<int>(0, 19)(rng) == 0) {  // a seek now and then
        double to = std::uniform_int_distribution<int>(0, d_units)(rng) * grid;
        out.clear();
        p.end_states(out);  // what a game's seek does (Animator::seek): open states end first
        check_pairs(out.events());
        p.seek(static_cast<float>(to));
        ref.seek(to);
        continue;
      }
      // Step length: log-uniform from ~1e-4 s to 3x the clip, on the grid.
      double len = std::exp(std::uniform_real_distribution<double>(std::log(1e-4), std::log(3 * d))(rng));
      double units = std::max(1.0, std::round(len / grid));
      double dt = units * grid;
      out.clear();
      p.advance(dt * speed, out);
      check_pairs(out.events());
      std::vector<Ev> got;
      for (const auto& e : out.events())
        if (e.type != EventType::kBegin && e.type != EventType::kEnd)
          got.push_back({e.type, e.notify, e.time, e.loop});
      std::vector<Ev> want = ref.step(dt * std::fabs(speed));
      if (got != want) {
        if (++mismatches <= 5)
          ADD_FAILURE() << "sequence " << sequence << " step " << s << " mode " << to_string(mode)
                        << " passes " << passes << " speed " << speed << " D " << d << " start " << start
                        << "\n  got:  " << describe(got) << "\n  want: " << describe(want);
      }
      events_compared += static_cast<long>(want.size());
    }
    out.clear();
    p.end_states(out);  // stop
    check_pairs(out.events());
    for (int o : open) state_errors += o != 0;
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(state_errors, 0) << "begin/end did not pair";
  std::printf("  100000 sequences, %ld events compared\n", events_compared);
}

}  // namespace
}  // namespace ossa
