// ossa/runtime/executor.h — where Ossa runs its parallel loops: its own ThreadPool, or the game's job system.
//
// Everything Ossa spreads over threads (update_crowd) is one call of Executor::parallel_for(count, chunk,
// task): run task(begin, end) on ranges of at most `chunk` indices that cover [0, count) exactly once, from
// any threads, and return when every range has run. ossa::ThreadPool is one Executor; to use your own job
// system instead, implement the interface:
//
// snippet: examples/building_blocks.cpp custom_executor
//   struct InlineJobs final : ossa::Executor {  // your job system; this one runs each range on the caller
//     using ossa::Executor::parallel_for;
//     void parallel_for(int count, int chunk, ossa::RangeTask task) override {
//       for (int begin = 0; begin < count; begin += std::min(chunk, count - begin))  // no int overflow
//         task(begin, begin + std::min(chunk, count - begin));
//     }
//     int concurrency() const override { return 1; }  // used to size chunks
//   };
//   InlineJobs game_jobs;
//   ossa::update_crowd(game_jobs, skeleton, crowd, 1 / 60.f);  // returns when every character is updated
//
// or wrap a callback of the same shape:
// snippet: examples/building_blocks.cpp callback_executor
//   ossa::CallbackExecutor jobs(
//       [&](int count, int chunk, ossa::RangeTask task) {
//         pool.parallel_for(count, chunk, task);  // or your job system's parallel_for; return when all ran
//       },
//       pool.thread_count());
//   ossa::update_crowd(jobs, skeleton, crowd, 1 / 60.f);
//
// RangeTask is a non-owning reference to the caller's callable, valid until parallel_for returns: copy it
// into jobs freely, but do not keep it afterwards. Ossa's own tasks (update_character) do not throw; a task
// that runs user code may, and an executor should then let the other ranges finish (or skip those not
// started) before it rethrows on the calling thread, since the callable lives in the caller's stack frame.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace ossa {

// A reference to a callable void(int begin, int end), like a function_ref: two pointers, no allocation.
class RangeTask {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, RangeTask> && std::is_invocable_v<F&, int, int>)
      RangeTask(F&& f)
  noexcept  // NOLINT(google-explicit-constructor): a lambda converts where a task is asked for
      : ctx_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* ctx, int begin, int end) {
          (*static_cast<std::remove_reference_t<F>*>(ctx))(begin, end);
        }) {}

  void operator()(int begin, int end) const { call_(ctx_, begin, end); }

 private:
  void* ctx_;
  void (*call_)(void* ctx, int begin, int end);
};

// Chunk size Ossa uses when the caller gives none: about four ranges per thread, at least 1.
constexpr int default_chunk(int count, int concurrency) {
  const int per = (concurrency < 1 ? 1 : concurrency) * 4;
  return count / per < 1 ? 1 : count / per;
}

class Executor {
 public:
  virtual ~Executor() = default;

  // Runs task(begin, end) over [0, count) in ranges of at most `chunk` indices, each index exactly once, and
  // returns when all ran. count >= 0, chunk >= 1.
  virtual void parallel_for(int count, int chunk, RangeTask task) = 0;
  // How many threads may run ranges at once (1 for a serial executor); Ossa sizes its chunks from it.
  virtual int concurrency() const = 0;

  // parallel_for with default_chunk(count, concurrency()).
  template <class Fn>
  void parallel_for(int count, Fn&& fn) {
    parallel_for(count, default_chunk(count, concurrency()), RangeTask(fn));
  }
};

// Runs every range on the calling thread, in order.
class SerialExecutor final : public Executor {
 public:
  using Executor::parallel_for;
  void parallel_for(int count, int chunk, RangeTask task) override;
  int concurrency() const override { return 1; }
};

// Adapts a callback of parallel_for's shape (the game's job system) to an Executor.
class CallbackExecutor final : public Executor {
 public:
  using Function = std::function<void(int count, int chunk, RangeTask task)>;
  explicit CallbackExecutor(Function fn, int concurrency = 1)
      : fn_(std::move(fn)), concurrency_(concurrency < 1 ? 1 : concurrency) {}

  using Executor::parallel_for;
  void parallel_for(int count, int chunk, RangeTask task) override { fn_(count, chunk, task); }
  int concurrency() const override { return concurrency_; }

 private:
  Function fn_;
  int concurrency_;
};

}  // namespace ossa
