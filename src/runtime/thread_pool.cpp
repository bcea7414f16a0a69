#include "ossa/runtime/thread_pool.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define OSSA_PAUSE() _mm_pause()
#else
#define OSSA_PAUSE() std::this_thread::yield()
#endif

namespace ossa {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::work() {
  for (;;) {
    int begin = next_.fetch_add(chunk_, std::memory_order_relaxed);
    if (begin >= count_) break;
    int end = begin + chunk_ < count_ ? begin + chunk_ : count_;
    task_(ctx_, begin, end);
  }
}

void ThreadPool::run(int count, int chunk, Task task, void* ctx) {
  if (count <= 0) return;
  if (workers_.empty() || count <= chunk) {
    task(ctx, 0, count);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    task_ = task;
    ctx_ = ctx;
    count_ = count;
    chunk_ = chunk;
    next_.store(0, std::memory_order_relaxed);
    busy_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  work();
  while (busy_.load(std::memory_order_acquire) != 0) OSSA_PAUSE();
}

void ThreadPool::worker_loop() {
  unsigned seen = 0;
  for (;;) {
    // Spin for a short while (about 50 us) before sleeping: frame-driven work arrives again soon.
    auto spin_until = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    while (generation_.load(std::memory_order_acquire) == seen &&
           std::chrono::steady_clock::now() < spin_until)
      OSSA_PAUSE();
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      seen = generation_.load(std::memory_order_acquire);
      if (stop_) return;
    }
    work();
    busy_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace ossa
