// ThreadPool used the way engine code uses pools: nested calls, several callers at once, throwing tasks,
// bad arguments, more threads than cores, a caller that waits without burning a core; and the crowd and
// Animators giving bit-identical poses and events at 1, 2, 4 and 8 threads. A hang ends the test process with
// a message (within()), so a broken pool fails instead of blocking the suite.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#ifdef _WIN32
#ifndef NOMINMAX  // std::max below, not windows.h's macro (MinGW's libstdc++ already defines it)
#define NOMINMAX
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#endif

#include "ossa/asset/character.h"
#include "ossa/asset/notifies.h"
#ifdef OSSA_HAS_IMPORT
#include "oracle_compare.h"
#include "ossa/import/import.h"
#endif
#include "ossa/runtime/animator.h"
#include "ossa/runtime/crowd.h"
#include "ossa/runtime/executor.h"
#include "ossa/runtime/simd.h"
#include "ossa/runtime/thread_pool.h"
#include "synthetic_character.h"
#include "test_paths.h"

namespace ossa {
namespace {

using namespace std::chrono_literals;

// Runs fn on a thread of its own and waits at most `limit`. A hang cannot be recovered from (the hung
// thread still uses this test's stack), so it ends the process with a message: the test fails, the suite
// goes on.
template <class Fn>
void within(std::chrono::milliseconds limit, const char* what, Fn fn) {
  struct State {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::exception_ptr error;
  };
  auto s = std::make_shared<State>();
  std::thread([s, fn]() mutable {
    std::exception_ptr error;
    try {
      fn();
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(s->m);
    s->error = error;
    s->done = true;
    s->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> lock(s->m);
  if (!s->cv.wait_for(lock, limit, [&] { return s->done; })) {
    std::fprintf(stderr, "FAILED: %s did not finish within %lld ms (hang)\n", what,
                 static_cast<long long>(limit.count()));
    std::fflush(stderr);
    std::_Exit(3);
  }
  if (s->error) std::rethrow_exception(s->error);
}

// Sanitizer builds run several times slower.
constexpr auto kLimit = 60s;

double thread_cpu_seconds() {
#ifdef _WIN32
  FILETIME creation, exit, kernel, user;  // 100 ns units
  if (!GetThreadTimes(GetCurrentThread(), &creation, &exit, &kernel, &user)) return 0;
  auto seconds = [](const FILETIME& t) {
    return static_cast<double>((static_cast<uint64_t>(t.dwHighDateTime) << 32) | t.dwLowDateTime) * 1e-7;
  };
  return seconds(kernel) + seconds(user);
#else
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
#endif
}

TEST(ThreadPool, EveryIndexRunsExactlyOnce) {
  within(kLimit, "plain parallel_for", [] {
    for (int threads : {1, 2, 3, 8}) {
      ThreadPool pool(threads);
      EXPECT_EQ(pool.thread_count(), threads);
      for (int count : {0, 1, 2, 7, 100, 1001}) {
        for (int chunk : {1, 3, 64, 5000}) {
          std::vector<std::atomic<int>> hits(static_cast<size_t>(count));
          pool.parallel_for(count, chunk, [&](int begin, int end) {
            EXPECT_LE(end - begin, chunk);
            for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
          });
          for (int i = 0; i < count; ++i)
            ASSERT_EQ(hits[i].load(), 1) << threads << " " << count << " " << chunk;
        }
      }
    }
  });
}

// A task that itself calls parallel_for on the same pool (the crowd calling a per-character job that is
// parallel too): every inner item runs exactly once.
TEST(ThreadPool, NestedParallelForCompletesEveryItem) {
  within(kLimit, "nested parallel_for", [] {
    ThreadPool pool(4);
    for (int round = 0; round < 50; ++round) {
      std::vector<std::atomic<int>> hits(800);
      pool.parallel_for(8, 1, [&](int begin, int end) {
        for (int outer = begin; outer < end; ++outer)
          pool.parallel_for(100, 3, [&](int b, int e) {
            for (int inner = b; inner < e; ++inner) hits[outer * 100 + inner].fetch_add(1);
          });
      });
      int done = 0;
      for (auto& h : hits) done += h.load() == 1;
      ASSERT_EQ(done, 800) << "round " << round;
    }
  });
}

// Several threads driving one pool at once each get their own, exact, results.
TEST(ThreadPool, ConcurrentCallersEachGetExactResults) {
  within(kLimit, "concurrent callers", [] {
    ThreadPool pool(4);
    constexpr int kCallers = 6, kRounds = 300;
    std::vector<int> wrong(kCallers, 0);
    std::vector<std::thread> callers;
    for (int c = 0; c < kCallers; ++c)
      callers.emplace_back([&, c] {
        const int count = 400 + 300 * c;
        std::vector<int> out(count);
        for (int r = 0; r < kRounds; ++r) {
          std::fill(out.begin(), out.end(), -1);
          pool.parallel_for(count, 1 + (c + r) % 5, [&](int begin, int end) {
            for (int i = begin; i < end; ++i) out[i] = i * 31 + c * 7 + r;
          });
          for (int i = 0; i < count; ++i) wrong[c] += out[i] != i * 31 + c * 7 + r;
        }
      });
    for (auto& t : callers) t.join();
    for (int c = 0; c < kCallers; ++c) EXPECT_EQ(wrong[c], 0) << "caller " << c;
  });
}

// Counts the chunks running now and started so far, to check that nothing runs once parallel_for returned.
struct ChunkTracker {
  std::atomic<int> running{0}, started{0};
  struct Scope {
    ChunkTracker& t;
    explicit Scope(ChunkTracker& tracker) : t(tracker) {
      t.started.fetch_add(1);
      t.running.fetch_add(1);
    }
    ~Scope() { t.running.fetch_sub(1); }
  };
};

// After a call threw: no chunk of it starts later, and the pool still runs a whole call.
void expect_stopped_and_usable(ThreadPool& pool, const ChunkTracker& tracker) {
  const int started = tracker.started.load();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(tracker.started.load(), started) << "chunks started after parallel_for returned";
  std::atomic<int> sum{0};
  pool.parallel_for(1000, 10, [&](int begin, int end) { sum.fetch_add(end - begin); });
  EXPECT_EQ(sum.load(), 1000);
}

// A throw on a worker reaches the caller, after every chunk of the call has stopped; the pool still works.
TEST(ThreadPool, ThrowOnWorkerIsRethrownToTheCallerAfterAllWorkStopped) {
  within(kLimit, "throw on a worker", [] {
    // Shared with chunks that could outlive a broken pool's return.
    static ChunkTracker tracker;
    ThreadPool pool(4);
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> thrown{false};
    bool caught = false;
    try {
      pool.parallel_for(64, 1, [&](int, int) {
        ChunkTracker::Scope scope(tracker);
        std::this_thread::sleep_for(2ms);
        if (std::this_thread::get_id() != caller && !thrown.exchange(true))
          throw std::runtime_error("worker");
      });
    } catch (const std::runtime_error& e) {
      caught = true;
      EXPECT_STREQ(e.what(), "worker");
      EXPECT_EQ(tracker.running.load(), 0) << "chunks still running after parallel_for threw";
    }
    EXPECT_TRUE(caught);
    expect_stopped_and_usable(pool, tracker);
  });
}

// A throw in the caller's own share waits for the workers' chunks before it leaves parallel_for (their
// lambda lives in the caller's frame).
TEST(ThreadPool, ThrowOnCallerIsRethrownAfterAllWorkStopped) {
  within(kLimit, "throw on the caller", [] {
    static ChunkTracker tracker;
    ThreadPool pool(4);
    const auto caller = std::this_thread::get_id();
    bool caught = false;
    try {
      pool.parallel_for(64, 1, [&](int, int) {
        ChunkTracker::Scope scope(tracker);
        if (std::this_thread::get_id() == caller) {
          std::this_thread::sleep_for(1ms);  // let the workers pick up chunks
          throw std::logic_error("caller");
        }
        std::this_thread::sleep_for(5ms);
      });
    } catch (const std::logic_error& e) {
      caught = true;
      EXPECT_STREQ(e.what(), "caller");
      EXPECT_EQ(tracker.running.load(), 0) << "chunks still running after parallel_for threw";
    }
    EXPECT_TRUE(caught);
    expect_stopped_and_usable(pool, tracker);
  });
}

TEST(ThreadPool, NonPositiveChunkOrNegativeCountIsRejected) {
  within(kLimit, "chunk <= 0", [] {
    ThreadPool pool(2);
    int calls = 0;
    EXPECT_THROW(pool.parallel_for(10, 0, [&](int, int) { ++calls; }), std::invalid_argument);
    EXPECT_THROW(pool.parallel_for(10, -1, [&](int, int) { ++calls; }), std::invalid_argument);
    EXPECT_THROW(pool.parallel_for(-1, 1, [&](int, int) { ++calls; }), std::invalid_argument);
    EXPECT_EQ(calls, 0);
    pool.parallel_for(0, 1, [&](int, int) { ++calls; });  // nothing to do is fine
    EXPECT_EQ(calls, 0);
  });
}

// Counts and chunks near INT_MAX: the cursor must not overflow.
TEST(ThreadPool, CountNearIntMaxCoversEveryIndexOnce) {
  within(kLimit, "count near INT_MAX", [] {
    ThreadPool pool(3);
    for (int chunk : {1 << 24, INT_MAX / 3 + 1, INT_MAX - 1, INT_MAX}) {
      std::atomic<long long> covered{0};
      std::atomic<int> last_end{0};
      pool.parallel_for(INT_MAX, chunk, [&](int begin, int end) {
        ASSERT_LE(begin, end);
        covered.fetch_add(static_cast<long long>(end) - begin);
        if (end == INT_MAX) last_end.store(end);
      });
      EXPECT_EQ(covered.load(), INT_MAX) << "chunk " << chunk;
      EXPECT_EQ(last_end.load(), INT_MAX) << "chunk " << chunk;
    }
  });
}

TEST(ThreadPool, MoreThreadsThanCoresWorks) {
  within(kLimit, "more threads than cores", [] {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    ThreadPool pool(hw * 4 + 3);
    EXPECT_EQ(pool.thread_count(), hw * 4 + 3);
    for (int round = 0; round < 300; ++round) {
      std::vector<std::atomic<int>> hits(257);
      pool.parallel_for(257, 1, [&](int begin, int end) {
        for (int i = begin; i < end; ++i) hits[i].fetch_add(1);
      });
      for (auto& h : hits) ASSERT_EQ(h.load(), 1);
    }
  });
}

TEST(ThreadPool, DefaultThreadCountNeverExceedsTheHardware) {
  ThreadPool pool;
  EXPECT_GE(pool.thread_count(), 1);
  EXPECT_LE(pool.thread_count(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

// POSIX only (fork, setrlimit): Windows has no per-process address-space limit to make thread creation fail
// (a job object's memory limit counts committed memory, not reserved stacks, and Wine does not enforce it).
#ifndef _WIN32
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // shadow memory does not fit under an address-space limit
#else
constexpr bool kSanitized = false;
#endif

// A worker that cannot be started is reported (std::system_error from the constructor) instead of terminating
// the program. In a child process whose address space is capped so that only a few thread stacks fit.
TEST(ThreadPool, WorkerThatCannotStartIsReportedNotFatal) {
  if (kSanitized) GTEST_SKIP() << "an address-space limit cannot hold a sanitizer's shadow memory";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    const rlim_t used = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE));
    rlimit limit{used + (64u << 20), used + (64u << 20)};  // room for a few 8 MiB stacks, not 256
    if (pages <= 0 || setrlimit(RLIMIT_AS, &limit) != 0) std::_Exit(10);
    try {
      ThreadPool pool(256);
      std::_Exit(11);  // every thread started: the limit did not bite
    } catch (const std::system_error&) {
      std::_Exit(0);
    } catch (...) {
      std::_Exit(12);
    }
  }
  // The pool before this one hung here (its condition variable destroyed while workers waited on it).
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 3000 && (done = waitpid(child, &status, WNOHANG)) == 0; ++i)
    std::this_thread::sleep_for(10ms);
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the constructor hung after a worker failed to start";
  }
  ASSERT_EQ(done, child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died of signal "
                                 << (WIFSIGNALED(status) ? WTERMSIG(status) : 0) << " (std::terminate?)";
  if (WEXITSTATUS(status) == 10 || WEXITSTATUS(status) == 11)
    GTEST_SKIP() << "cannot limit the address space here";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif  // _WIN32

// While a worker runs a long chunk, the caller waits without burning its core.
TEST(ThreadPool, CallerBlocksInsteadOfSpinningWhileWorkersFinish) {
  within(kLimit, "blocking wait", [] {
    ThreadPool pool(2);
    const auto caller = std::this_thread::get_id();
    for (int attempt = 0; attempt < 20; ++attempt) {
      std::atomic<bool> worker_ran{false};
      const double cpu0 = thread_cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
      pool.parallel_for(2, 1, [&](int, int) {
        if (std::this_thread::get_id() == caller) {
          std::this_thread::sleep_for(5ms);  // gives the worker time to take the other chunk
        } else {
          worker_ran = true;
          std::this_thread::sleep_for(200ms);
        }
      });
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double cpu = thread_cpu_seconds() - cpu0;
      if (!worker_ran) continue;  // the caller took both chunks; try again
      EXPECT_GE(wall, 0.19);
      EXPECT_LT(cpu, 0.05) << "the caller spun for " << cpu << " s of a " << wall << " s wait";
      return;
    }
    ADD_FAILURE() << "no worker ever picked up a chunk";
  });
}

// simd_level may be changed while jobs run on other threads (a data race before it was atomic).
TEST(ThreadPool, SetSimdLevelWhileJobsRun) {
#ifdef OSSA_HAS_IMPORT
  auto scene = import_file(test::source_dir() + "/assets/sample/ossa_sample.glb");
  ASSERT_TRUE(scene) << scene.error();
  auto asset = CharacterAsset::build(*scene);
  ASSERT_TRUE(asset) << asset.error();
#else  // runtime-only builds: a character made in code
  auto asset = std::optional<CharacterAsset>(test::synthetic_character());
#endif
  const SimdLevel saved = simd_level();
  within(kLimit, "set_simd_level during jobs", [&] {
    ThreadPool pool(3);
    std::vector<CharacterInstance> crowd(64);
    for (size_t i = 0; i < crowd.size(); ++i) crowd[i].init(asset->skeleton, &asset->clips[0], 0.01f * i);
    std::atomic<bool> stop{false};
    std::thread toggler([&] {
      int i = 0;
      while (!stop.load()) set_simd_level(++i % 2 ? SimdLevel::kScalar : best_simd_level());
    });
    for (int f = 0; f < 30; ++f) update_crowd(pool, asset->skeleton, crowd, 1.f / 60);
    stop = true;
    toggler.join();
  });
  set_simd_level(saved);
}

// ---- Determinism: poses and events do not depend on the thread count. ----

struct SampleFixture {
  CharacterAsset asset;
  NotifySet notifies;
};

// The bundled sample with its notifies; where only the runtime is built, the synthetic character (whose clips
// carry the sample's names, so the same notifies attach).
const SampleFixture* sample() {
  static const SampleFixture* fixture = [] {
    const std::string base = std::string(build::source_dir()) + "/assets/sample/ossa_sample";
#ifdef OSSA_HAS_IMPORT
    auto scene = import_file(base + ".glb");
    if (!scene) return static_cast<SampleFixture*>(nullptr);
    auto asset = CharacterAsset::build(*scene);
    if (!asset) return static_cast<SampleFixture*>(nullptr);
#else
    const std::optional<test::SyntheticScene> scene = test::synthetic_scene();
    auto asset = CharacterAsset::build(scene->skeleton, scene->clips, scene->meshes, "synthetic");
    if (!asset) return static_cast<SampleFixture*>(nullptr);
#endif
    std::vector<ClipTiming> timings;
    for (const RawClip& c : scene->clips) timings.push_back({c.name, c.duration});
    auto notifies = load_notifies(base + ".notifies.json", timings);
    if (!notifies) return static_cast<SampleFixture*>(nullptr);
    return new SampleFixture{std::move(asset).value(), std::move(notifies).value()};
  }();
  return fixture;
}

// Everything a run produced, in bits: every character's palette after each frame, and every Animator's
// events (clip, name, type, time, loop) in order.
struct RunRecord {
  std::vector<unsigned char> poses;
  std::vector<unsigned char> events;
};

template <class T>
void append_bits(std::vector<unsigned char>& out, const T& value) {
  const auto* p = reinterpret_cast<const unsigned char*>(&value);
  out.insert(out.end(), p, p + sizeof(T));
}

RunRecord run_crowd_and_animators(const SampleFixture& f, int threads) {
  ThreadPool pool(threads);
  const int clips = static_cast<int>(f.asset.clips.size());
  std::mt19937 rng(19);
  std::uniform_real_distribution<float> unit(0, 1);

  std::vector<CharacterInstance> crowd(97);
  for (size_t i = 0; i < crowd.size(); ++i) {
    const Clip& clip = f.asset.clips[i % clips];
    crowd[i].init(f.asset.skeleton, &clip, unit(rng) * clip.duration());
    crowd[i].speed = i % 5 == 0 ? -1.3f : 0.5f + unit(rng);
  }
  std::vector<Animator> animators;
  animators.reserve(61);
  for (int i = 0; i < 61; ++i) {
    animators.emplace_back(f.asset, &f.notifies);
    EXPECT_TRUE(animators.back().play(i % clips, i % 3 == 0 ? LoopMode::kPingPong : LoopMode::kRepeat, 0,
                                      unit(rng) * f.asset.clips[i % clips].duration()));
    animators.back().set_speed(i % 4 == 0 ? -1.f : 0.7f + unit(rng));
  }

  RunRecord record;
  std::vector<std::vector<unsigned char>> frame_events(animators.size());
  for (int frame = 0; frame < 90; ++frame) {
    const float dt = frame % 7 == 0 ? 0.05f : 1.f / 60;
    update_crowd(pool, f.asset.skeleton, crowd, dt);
    pool.parallel_for(static_cast<int>(animators.size()), 1, [&](int begin, int end) {
      for (int i = begin; i < end; ++i) {
        Animator& a = animators[i];
        const FadeSync sync = i % 2 == 0 ? FadeSync::kPhase : FadeSync::kNone;
        if (frame == 30 + i % 20) {
          EXPECT_TRUE(a.crossfade((a.clip() + 1) % clips, 0.3f, sync));
        }
        if (frame == 60 && i % 6 == 0) a.seek_ratio(0.25f);
        a.update(dt);
        std::vector<unsigned char>& ev = frame_events[i];
        ev.clear();
        for (const AnimEvent& e : a.events()) {
          append_bits(ev, e.clip);
          append_bits(ev, e.name_id);
          append_bits(ev, e.type);
          append_bits(ev, e.time);
          append_bits(ev, e.loop);
        }
      }
    });
    for (const CharacterInstance& c : crowd)
      for (const Mat4& m : c.skeleton_palette) append_bits(record.poses, m);
    for (size_t i = 0; i < animators.size(); ++i) {
      for (const Mat4& m : animators[i].skeleton_palette()) append_bits(record.poses, m);
      record.events.insert(record.events.end(), frame_events[i].begin(), frame_events[i].end());
      append_bits(record.events, -1);  // frame separator
    }
  }
  return record;
}

TEST(ThreadPool, CrowdPosesAndEventsAreBitIdenticalAcrossThreadCounts) {
  const SampleFixture* f = sample();
  ASSERT_NE(f, nullptr) << "cannot load the bundled sample";
  within(kLimit, "determinism across thread counts", [&] {
    const RunRecord reference = run_crowd_and_animators(*f, 1);
    EXPECT_GT(reference.events.size(), 61u * 90 * sizeof(int)) << "the run fired no events";
    for (int threads : {2, 4, 8}) {
      const RunRecord r = run_crowd_and_animators(*f, threads);
      ASSERT_EQ(r.poses.size(), reference.poses.size());
      EXPECT_TRUE(r.poses == reference.poses) << "poses differ at " << threads << " threads";
      EXPECT_TRUE(r.events == reference.events) << "events differ at " << threads << " threads";
    }
  });
}

// ---- Executors: the crowd on the game's own job system. ----

// A job system of the simplest kind: one std::thread per range, started last range first.
class ThreadPerRangeExecutor final : public Executor {
 public:
  using Executor::parallel_for;
  void parallel_for(int count, int chunk, RangeTask task) override {
    ++calls;
    std::vector<std::pair<int, int>> ranges;
    for (int begin = 0; begin < count; begin += std::min(chunk, count - begin))
      ranges.emplace_back(begin, begin + std::min(chunk, count - begin));
    std::vector<std::thread> threads;
    for (auto it = ranges.rbegin(); it != ranges.rend(); ++it)
      threads.emplace_back([task, range = *it] { task(range.first, range.second); });
    for (std::thread& t : threads) t.join();
  }
  int concurrency() const override { return 3; }
  int calls = 0;
};

std::vector<unsigned char> crowd_palettes(Executor* executor, const SampleFixture& f) {
  std::vector<CharacterInstance> crowd(53);
  for (size_t i = 0; i < crowd.size(); ++i) {
    crowd[i].init(f.asset.skeleton, &f.asset.clips[i % f.asset.clips.size()], 0.037f * i);
    crowd[i].speed = i % 3 == 0 ? -1.f : 1.f;
  }
  std::vector<unsigned char> out;
  for (int frame = 0; frame < 20; ++frame) {
    if (executor) {
      update_crowd(*executor, f.asset.skeleton, crowd, 1.f / 30);
    } else {
      for (CharacterInstance& c : crowd) update_character(f.asset.skeleton, c, 1.f / 30);
    }
    for (const CharacterInstance& c : crowd)
      for (const Mat4& m : c.skeleton_palette) append_bits(out, m);
  }
  return out;
}

TEST(Executor, CrowdRunsOnACustomExecutor) {
  const SampleFixture* f = sample();
  ASSERT_NE(f, nullptr) << "cannot load the bundled sample";
  const std::vector<unsigned char> reference = crowd_palettes(nullptr, *f);

  ThreadPerRangeExecutor per_range;
  EXPECT_TRUE(crowd_palettes(&per_range, *f) == reference);
  EXPECT_EQ(per_range.calls, 20);

  int callback_calls = 0;
  CallbackExecutor callback(
      [&](int count, int chunk, RangeTask task) {
        ++callback_calls;
        for (int begin = 0; begin < count; begin += chunk) task(begin, std::min(count, begin + chunk));
      },
      2);
  EXPECT_TRUE(crowd_palettes(&callback, *f) == reference);
  EXPECT_EQ(callback_calls, 20);

  SerialExecutor serial;
  EXPECT_TRUE(crowd_palettes(&serial, *f) == reference);
  EXPECT_THROW(serial.parallel_for(3, 0, [](int, int) {}), std::invalid_argument);
}

TEST(Executor, DefaultChunkGivesAboutFourRangesPerThread) {
  EXPECT_EQ(default_chunk(0, 4), 1);
  EXPECT_EQ(default_chunk(1000, 1), 250);
  EXPECT_EQ(default_chunk(1000, 8), 31);
  EXPECT_EQ(default_chunk(5, 8), 1);
  EXPECT_EQ(default_chunk(100, 0), 25);
}

}  // namespace
}  // namespace ossa
