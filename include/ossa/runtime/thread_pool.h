// ossa/runtime/thread_pool.h — a small fork-join pool for spreading characters over cores (an Executor).
//
// snippet: examples/building_blocks.cpp thread_pool
//   ossa::ThreadPool pool;  // one thread per core, the calling thread included
//   std::vector<ossa::CharacterInstance> crowd(64);
//   for (size_t i = 0; i < crowd.size(); ++i)
//     crowd[i].init(skeleton, &asset.clips[i % asset.clips.size()], 0.1f * i);
//   pool.parallel_for(static_cast<int>(crowd.size()), [&](int begin, int end) {
//     for (int i = begin; i < end; ++i) ossa::update_character(skeleton, crowd[i], 1 / 60.f);
//   });                                                   // returns when every index ran once
//   ossa::update_crowd(pool, skeleton, crowd, 1 / 60.f);  // the same loop, done for you
//
// Thread safety and guarantees:
// - Any number of threads may call parallel_for on one pool at the same time, and a task may itself call
//   parallel_for on the same pool (nested): every call is its own job, with its own cursor and result.
// - The calling thread works on its own call's chunks; idle workers help. The caller then waits only for the
//   chunks other threads have already taken (blocking, not spinning); workers sleep on a condition variable
//   when there is nothing to do. A call wakes one worker, and each worker that joins wakes up to two more
//   while chunks are left, so a small call wakes nobody it does not need. No more workers are awake at once
//   than the hardware has threads besides the caller's: a pool with more threads than cores does not
//   time-slice itself.
// - If a task throws, chunks not yet started are skipped, the call waits for the running ones, and the first
//   exception is rethrown from parallel_for on the calling thread. The pool remains usable.
// - count < 0 or chunk < 1 throws std::invalid_argument; counts up to INT_MAX are fine.
// - Ranges a task receives are at most `chunk` long; which thread runs which range is not fixed, so a task
//   must only write data of its own indices (then results do not depend on the thread count).
// - Constructing and destroying the pool are not thread-safe; destroy it only when no call is in progress.
// - parallel_for does not allocate.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "ossa/runtime/executor.h"

namespace ossa {

class ThreadPool final : public Executor {
 public:
  // threads: total, the calling thread included (threads - 1 workers are started). 0 or less: one per
  // hardware thread this process may run on (never more than std::thread::hardware_concurrency()). Throws
  // std::system_error when a worker cannot be started (the ones already started are stopped first).
  explicit ThreadPool(int threads = 0);
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int thread_count() const { return static_cast<int>(workers_.size()) + 1; }
  int concurrency() const override { return thread_count(); }

  using Executor::parallel_for;  // parallel_for(count, fn): default chunk
  void parallel_for(int count, int chunk, RangeTask task) override;

  // The default thread count: hardware threads available to this process, at least 1.
  static int default_thread_count();

 private:
  struct Job;
  void worker_loop();
  Job* take_job_locked();
  void unlink_locked(Job& job);
  int wakeable_locked() const;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  Job* head_ =
      nullptr;        // jobs that may still have chunks to hand out (newest first: nested calls finish first)
  int sleeping_ = 0;  // workers waiting on wake_
  int max_awake_;     // workers woken at most at once: the hardware threads besides the caller's
  bool stop_ = false;
};

}  // namespace ossa
