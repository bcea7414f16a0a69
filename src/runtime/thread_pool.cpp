#include "ossa/runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <string>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ossa {
namespace {

void check_arguments(int count, int chunk) {
  if (count < 0) throw std::invalid_argument("parallel_for: count " + std::to_string(count) + " < 0");
  if (chunk < 1) throw std::invalid_argument("parallel_for: chunk " + std::to_string(chunk) + " < 1");
}

// Every range in order on this thread (64-bit cursor: count + chunk may exceed INT_MAX).
void run_serially(int count, int chunk, const RangeTask& task) {
  for (long long begin = 0; begin < count; begin += chunk)
    task(static_cast<int>(begin), static_cast<int>(std::min<long long>(begin + chunk, count)));
}

}  // namespace

void SerialExecutor::parallel_for(int count, int chunk, RangeTask task) {
  check_arguments(count, chunk);
  run_serially(count, chunk, task);
}

// One parallel_for call. Lives on the caller's stack; the caller returns only when it is unlinked from the
// pool and no worker is inside it (visitors == 0), so no worker can touch it afterwards.
struct ThreadPool::Job {
  Job(RangeTask t, int n, int c) : task(t), count(n), chunk(c) {}

  RangeTask task;
  const long long count, chunk;
  std::atomic<long long> next{
      0};  // first index not yet handed out; 64-bit, so claims past the end cannot wrap
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // first exception, written by the thread that set `failed`

  // Guarded by the pool's mutex.
  Job* next_job = nullptr;
  Job* prev_job = nullptr;
  bool listed = false;
  int visitors = 0;  // workers running (or about to run) chunks of this job
  std::condition_variable left;

  bool exhausted() const {
    return failed.load(std::memory_order_relaxed) || next.load(std::memory_order_relaxed) >= count;
  }

  // Claims and runs chunks until none is left or a task threw.
  void work() {
    while (!failed.load(std::memory_order_relaxed)) {
      const long long begin = next.fetch_add(chunk, std::memory_order_relaxed);
      if (begin >= count) return;
      try {
        task(static_cast<int>(begin), static_cast<int>(std::min(begin + chunk, count)));
      } catch (...) {
        if (!failed.exchange(true, std::memory_order_acq_rel)) error = std::current_exception();
        return;
      }
    }
  }
};

int ThreadPool::default_thread_count() {
  int n = static_cast<int>(std::thread::hardware_concurrency());
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int allowed = CPU_COUNT(&set);
    if (allowed > 0 && (n <= 0 || allowed < n)) n = allowed;
  }
#endif
  return n > 0 ? n : 1;
}

ThreadPool::ThreadPool(int threads) : max_awake_(std::max(1, default_thread_count() - 1)) {
  if (threads <= 0) threads = default_thread_count();
  workers_.reserve(static_cast<size_t>(threads - 1));
  try {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
  } catch (...) {  // std::system_error: stop the workers already running, then report
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
    throw;
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::unlink_locked(Job& job) {
  if (!job.listed) return;
  if (job.prev_job)
    job.prev_job->next_job = job.next_job;
  else
    head_ = job.next_job;
  if (job.next_job) job.next_job->prev_job = job.prev_job;
  job.listed = false;
  job.next_job = job.prev_job = nullptr;
}

// Sleeping workers worth waking: no more awake workers than the hardware has threads besides the caller's. A
// pool with more threads than cores then behaves like one sized to the machine instead of time-slicing.
int ThreadPool::wakeable_locked() const {
  const int awake = static_cast<int>(workers_.size()) - sleeping_;
  return std::max(0, std::min(sleeping_, max_awake_ - awake));
}

// The newest job with chunks left, visited; exhausted jobs met on the way are unlinked.
ThreadPool::Job* ThreadPool::take_job_locked() {
  while (head_) {
    Job* job = head_;
    if (!job->exhausted()) {
      ++job->visitors;
      return job;
    }
    unlink_locked(*job);
    if (job->visitors == 0) job->left.notify_one();
  }
  return nullptr;
}

void ThreadPool::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    Job* job = take_job_locked();
    if (!job) {
      if (stop_) return;
      ++sleeping_;
      wake_.wait(lock);
      --sleeping_;
      continue;
    }
    // Wake up to two more workers while chunks beyond ours are left: workers join in a tree (a few wake-up
    // latencies to fill a large machine), and none is woken for a call the running threads can finish.
    const long long left =
        (job->count - job->next.load(std::memory_order_relaxed) + job->chunk - 1) / job->chunk;
    const long long wake = std::min<long long>({2, wakeable_locked(), left - 1});
    lock.unlock();
    for (long long i = 0; i < wake; ++i) wake_.notify_one();
    job->work();
    lock.lock();
    if (--job->visitors == 0) {
      unlink_locked(*job);  // this worker found it exhausted (or failed)
      job->left.notify_one();
    }
  }
}

void ThreadPool::parallel_for(int count, int chunk, RangeTask task) {
  check_arguments(count, chunk);
  if (count == 0) return;
  if (workers_.empty() || count <= chunk) {
    run_serially(count, chunk, task);
    return;
  }
  Job job(task, count, chunk);
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job.next_job = head_;
    if (head_) head_->prev_job = &job;
    head_ = &job;
    job.listed = true;
    wake = wakeable_locked() > 0;
  }
  if (wake) wake_.notify_one();
  job.work();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    unlink_locked(job);  // no new visitors from here on
    job.left.wait(lock, [&] { return job.visitors == 0; });
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace ossa
