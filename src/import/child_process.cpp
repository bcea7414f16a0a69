#include "child_process.h"

#include "ossa/core/result.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#if defined(__unix__)
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define OSSA_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OSSA_UNDER_ASAN 1
#endif
#endif

#if defined(OSSA_UNDER_ASAN)
// From <sanitizer/allocator_interface.h> (clang ships the header, GCC only the functions).
extern "C" {
size_t __sanitizer_get_allocated_size(const volatile void* p);
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                              void (*free_hook)(const volatile void*));
}
#endif

namespace ossa::detail {

#if defined(__unix__)
namespace {

constexpr int kExitOutOfMemory = 86;  // the worker's exit status when it went over its memory budget
constexpr char kFinishedMark = 'K';  // first byte of a finished request's reply; its message's length follows
constexpr char kRetireMark =
    'R';  // first byte of a worker's last reply: a fresh worker must serve the request
constexpr size_t kHeaderBytes = 1 + sizeof(uint64_t);

#if defined(OSSA_UNDER_ASAN)
// AddressSanitizer reserves terabytes of address space for its shadow, so RLIMIT_AS would stop it at once;
// in sanitizer builds the child counts its own heap through the allocator's hooks instead.
std::atomic<int64_t> child_heap{0};
int64_t child_heap_budget = 0;
void count_malloc(const volatile void*, size_t size) {
  if (child_heap.fetch_add(static_cast<int64_t>(size)) + static_cast<int64_t>(size) > child_heap_budget)
    _exit(kExitOutOfMemory);
}
void count_free(const volatile void* p) {
  child_heap.fetch_sub(static_cast<int64_t>(__sanitizer_get_allocated_size(p)));
}
#endif

#if !defined(OSSA_UNDER_ASAN)
// Address space in use now (the parent's, copied), from /proc/self/statm; 0 when unknown.
size_t address_space_in_use() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long pages = 0;
  const bool read = std::fscanf(f, "%lu", &pages) == 1;
  std::fclose(f);
  return read ? pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

#endif

// The worker's memory rules, set once when it starts. RLIMIT_AS bounds the growth of the address space.
// Blocks from 32 MiB up (the ones a damaged count asks for) get their own mapping, so they count at once
// (glibc would otherwise raise that threshold after big frees and serve them from heap already freed);
// smaller blocks may first reuse such heap. Below that, the heap grows in 16 MiB steps and is trimmed only
// past 256 MiB free: a fresh mapping per block of 128 KiB and more, unmapped on free, made an import 1.5x
// slower (page faults on every reuse).
void prepare_worker_memory() {
#if defined(OSSA_UNDER_ASAN)
  child_heap_budget = INT64_MAX;
  __sanitizer_install_malloc_and_free_hooks(count_malloc, count_free);
#elif defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
#endif
}

// This request's budget over `base` (the address space when the worker started); false when the worker
// already holds more than that (an earlier request's heap), so that a fresh worker must serve it.
bool limit_request_memory(size_t base, size_t budget) {
#if defined(OSSA_UNDER_ASAN)
  (void)base;  // the heap counted since the worker started, as the address space since `base` below
  if (budget && child_heap.load() > static_cast<int64_t>(budget)) return false;
  child_heap_budget = budget ? static_cast<int64_t>(budget) : INT64_MAX;
  return true;
#else
  if (budget && address_space_in_use() > base + budget) return false;
  rlimit limit{};
  getrlimit(RLIMIT_AS, &limit);
  limit.rlim_cur = budget ? std::min<rlim_t>(base + budget, limit.rlim_max) : limit.rlim_max;
  setrlimit(RLIMIT_AS, &limit);
  return true;
#endif
}

bool write_all(int fd, const char* bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = send(fd, bytes + done, size - done, MSG_NOSIGNAL);  // a closed peer is an error, not SIGPIPE
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

bool read_all(int fd, char* bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = read(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

[[noreturn]] void worker_main(int fd, const WorkerTask& task) {
#if !defined(OSSA_UNDER_ASAN)
  const size_t base = address_space_in_use();
#else
  const size_t base = 0;
#endif
  prepare_worker_memory();
  for (;;) {
    uint64_t header[3];  // a request: its size, the memory budget and the longest reply, then its bytes
    if (!read_all(fd, reinterpret_cast<char*>(header), sizeof header)) _exit(0);  // the caller is gone
    std::string request;
    try {
      request.resize(header[0]);
    } catch (...) {
      _exit(kExitOutOfMemory);
    }
    if (!read_all(fd, request.data(), request.size())) _exit(0);
    if (!limit_request_memory(base, header[1])) {
      const char retire[kHeaderBytes] = {kRetireMark};
      write_all(fd, retire, sizeof retire);
      _exit(0);
    }
    std::string message;
    try {
      message = task.run(request);
    } catch (const std::bad_alloc&) {
      _exit(kExitOutOfMemory);
    } catch (...) {
      _exit(1);  // the task is expected to turn its own exceptions into messages
    }
    const uint64_t size = std::min<uint64_t>(message.size(), header[2]);
    char reply[kHeaderBytes] = {kFinishedMark};
    std::memcpy(reply + 1, &size, sizeof size);
    if (!write_all(fd, reply, sizeof reply) || !write_all(fd, message.data(), size)) _exit(0);
  }
}

// Reads the worker's reply as it comes: the header, then the message straight into its final buffer, which
// grows (doubling) only as bytes arrive, so a worker that announces more than it sends costs nothing.
// The header is invalid when it is not a finished mark or announces more than `max_bytes`.
class ReplyReader {
 public:
  explicit ReplyReader(size_t max_bytes) : max_bytes_(max_bytes) {}
  // Reads what one read() gives; false at end of file or on an error.
  bool read_some(int fd) {
    ssize_t n;
    if (header_got_ < kHeaderBytes) {
      n = read(fd, header_ + header_got_, kHeaderBytes - header_got_);
      if (n > 0 && (header_got_ += static_cast<size_t>(n)) == kHeaderBytes) {
        std::memcpy(&announced_, header_ + 1, sizeof announced_);
        valid_ = header_[0] == kFinishedMark && announced_ <= max_bytes_;
      }
    } else {
      if (!valid_ || got_ == announced_) {  // nothing more is expected: drain and drop
        char sink[4096];
        n = read(fd, sink, sizeof sink);
        if (n > 0) valid_ = false;
        return n > 0 || (n < 0 && errno == EINTR);
      }
      if (got_ == message_.size())
        message_.resize(std::min<uint64_t>(announced_, std::max<size_t>(2 * got_, size_t{1} << 20)));
      n = read(fd, message_.data() + got_, message_.size() - got_);
      if (n > 0) got_ += static_cast<size_t>(n);
    }
    return n > 0 || (n < 0 && errno == EINTR);
  }
  bool complete() const { return header_got_ == kHeaderBytes && valid_ && got_ == announced_; }
  bool retired() const { return header_got_ == kHeaderBytes && header_[0] == kRetireMark; }
  std::string take() {
    message_.resize(got_);
    return std::move(message_);
  }

 private:
  size_t max_bytes_;
  char header_[kHeaderBytes] = {};
  size_t header_got_ = 0;
  uint64_t announced_ = 0;
  bool valid_ = false;
  std::string message_;
  size_t got_ = 0;
};

struct Worker {
  pid_t pid = -1;
  int fd = -1;  // this end of the worker's socket
};

// Idle workers per task, every live worker's socket (a new worker closes its copies of the others', so that
// each sees the end of its own when the caller closes it), and workers ended but not yet reaped (each a
// zombie once it has exited: no memory held).
std::mutex pool_mutex;
std::vector<std::pair<std::string (*)(std::string_view), Worker>> idle;
std::vector<int> live_sockets;
std::vector<pid_t> unreaped;
constexpr size_t kMaxIdleWorkers = 8;
thread_local pid_t last_pid = -1;

void reap_finished() {
  std::lock_guard lock(pool_mutex);
  std::erase_if(unreaped, [](pid_t pid) { return waitpid(pid, nullptr, WNOHANG) != 0; });
}

// Closes this end of a worker's socket and forgets it; pool_mutex held, so that no other thread reuses the
// descriptor's number (or forks a copy of it) in between.
void close_socket(int fd) {
  std::erase(live_sockets, fd);
  close(fd);
}

// Ends a worker that is not coming back (killed: it may be busy or lingering); reaped by a later call.
void discard(Worker w) {
  kill(w.pid, SIGKILL);
  std::lock_guard lock(pool_mutex);
  close_socket(w.fd);
  unreaped.push_back(w.pid);
}

// An idle worker for `task` that is still alive (an idle worker's socket has nothing to read; end of file
// or data means it died or misbehaved), or a new one.
Result<Worker> take_worker(const WorkerTask& task) {
  for (;;) {
    Worker w;
    {
      std::lock_guard lock(pool_mutex);
      auto it = std::find_if(idle.rbegin(), idle.rend(),
                             [&](const auto& entry) { return entry.first == task.run; });
      if (it == idle.rend()) break;
      w = it->second;
      idle.erase(std::next(it).base());
    }
    pollfd p{w.fd, POLLIN, 0};
    if (poll(&p, 1, 0) == 0) return w;
    discard(w);
  }
  // The socket is made, and the worker's end closed here, under pool_mutex: a worker forked meanwhile by
  // another thread would keep a copy of it, and this worker's death would then go unseen (no end of file)
  // until that other worker ended.
  std::fflush(nullptr);  // so buffered output is not written twice
  std::lock_guard lock(pool_mutex);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return Result<Worker>::failure(std::string("socketpair failed: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(sv[0]);
    close(sv[1]);
    return Result<Worker>::failure(std::string("fork failed: ") + std::strerror(error));
  }
  if (pid == 0) {
    for (int fd : live_sockets) close(fd);  // the caller's ends of the other workers' sockets
    close(sv[0]);
    worker_main(sv[1], task);
  }
  close(sv[1]);
  live_sockets.push_back(sv[0]);
  return Worker{pid, sv[0]};
}

void return_worker(const WorkerTask& task, Worker w) {
  std::lock_guard lock(pool_mutex);
  if (idle.size() < kMaxIdleWorkers) {
    idle.emplace_back(task.run, w);
    return;
  }
  close_socket(w.fd);  // it sees the end of its socket and exits
  unreaped.push_back(w.pid);
}

}  // namespace

ChildOutcome run_in_worker(const WorkerTask& task, std::string_view request, const ChildLimits& limits) {
  using Kind = ChildOutcome::Kind;
  reap_finished();
  const auto start = std::chrono::steady_clock::now();
  // A worker that retires (it holds more memory than this request's budget allows) is replaced once, as is
  // an idle worker that can no longer take a request.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto taken = take_worker(task);
    if (!taken) return {Kind::kUnavailable, taken.error()};
    Worker w = *taken;
    const uint64_t header[3] = {request.size(), limits.memory_bytes, limits.max_message_bytes};
    if (!write_all(w.fd, reinterpret_cast<const char*>(header), sizeof header) ||
        !write_all(w.fd, request.data(), request.size())) {
      discard(w);
      if (attempt == 0) continue;
      return {Kind::kCrashed, "the worker process took no request"};
    }
    ReplyReader reply(limits.max_message_bytes);
    bool timed_out = false;
    for (;;) {
      int wait_ms = -1;
      if (limits.seconds > 0) {
        const double left =
            limits.seconds - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (left <= 0) {
          timed_out = true;
          break;
        }
        wait_ms = static_cast<int>(left * 1000) + 1;
      }
      pollfd p{w.fd, POLLIN, 0};
      const int ready = poll(&p, 1, wait_ms);
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) {
        timed_out = ready == 0;
        break;
      }
      if (!reply.read_some(w.fd)) break;  // end of file: the worker has exited
      if (reply.complete()) break;        // all that was announced: the worker waits for the next request
    }
    if (reply.complete() && !timed_out) {
      last_pid = w.pid;
      return_worker(task, w);
      return {Kind::kFinished, reply.take()};
    }
    if (reply.retired() && !timed_out) {
      discard(w);
      continue;
    }
    kill(w.pid, SIGKILL);  // late, or its reply was incomplete or damaged
    {
      std::lock_guard lock(pool_mutex);
      close_socket(w.fd);
    }
    int status = 0;
    pid_t waited;
    do waited = waitpid(w.pid, &status, 0);
    while (waited < 0 && errno == EINTR);

    if (timed_out) return {Kind::kTimedOut, {}};
    if (waited == w.pid && WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory)
      return {Kind::kOutOfMemory, {}};
    if (waited == w.pid && WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL)
      return {Kind::kCrashed, std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                  strsignal(WTERMSIG(status)) + ")"};
    if (waited == w.pid && WIFEXITED(status) && WEXITSTATUS(status) != 0)
      return {Kind::kCrashed, "exit status " + std::to_string(WEXITSTATUS(status))};
    return {Kind::kCrashed, "an incomplete or oversized reply"};
  }
  return {Kind::kCrashed, "no worker process could serve the request"};
}

int last_worker_pid() {
  return last_pid;
}

#endif

}  // namespace ossa::detail
