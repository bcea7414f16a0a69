// ossa/runtime/thread_pool.h — a small fork-join pool for spreading characters over cores.
//
//   ossa::ThreadPool pool;                                   // one thread per core (the caller counts as
//   one) pool.parallel_for(count, [&](int begin, int end) { ... });  // blocks until every index ran once
// Work is handed out in chunks from an atomic counter; the calling thread works too. Workers spin briefly
// before sleeping, so a pool driven every frame wakes without a system call. parallel_for() does not
// allocate.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ossa {

class ThreadPool {
 public:
  explicit ThreadPool(int threads = 0);  // 0: std::thread::hardware_concurrency()
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int thread_count() const { return static_cast<int>(workers_.size()) + 1; }

  template <class Fn>
  void parallel_for(int count, int chunk, Fn&& fn) {
    run(
        count, chunk, [](void* ctx, int begin, int end) { (*static_cast<Fn*>(ctx))(begin, end); }, &fn);
  }
  template <class Fn>
  void parallel_for(int count, Fn&& fn) {
    int chunk = count / (thread_count() * 4);
    parallel_for(count, chunk < 1 ? 1 : chunk, static_cast<Fn&&>(fn));
  }

 private:
  using Task = void (*)(void* ctx, int begin, int end);
  void run(int count, int chunk, Task task, void* ctx);
  void worker_loop();
  void work();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<unsigned> generation_{0};
  std::atomic<int> next_{0};
  std::atomic<int> busy_{0};
  bool stop_ = false;
  Task task_ = nullptr;
  void* ctx_ = nullptr;
  int count_ = 0, chunk_ = 1;
};

}  // namespace ossa
