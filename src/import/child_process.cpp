#include "child_process.h"

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

constexpr int kExitOutOfMemory = 86;  // the child's exit status when it went over its memory budget
constexpr char kFinishedMark = 'K';   // first byte of a finished child's reply; its message's length follows
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

void limit_child_memory(size_t budget) {
  if (budget == 0) return;
#if defined(OSSA_UNDER_ASAN)
  child_heap_budget = static_cast<int64_t>(budget);
  __sanitizer_install_malloc_and_free_hooks(count_malloc, count_free);
#else
    // RLIMIT_AS bounds the growth of the address space. Blocks from 32 MiB up (the ones a damaged count asks
    // for) get their own mapping, so they count at once (glibc would otherwise raise that threshold after big
    // frees and serve them from heap the parent has already freed); smaller blocks may first reuse such heap.
    // Below that, the heap grows in 16 MiB steps and is trimmed only past 256 MiB free: a fresh mapping per
    // block of 128 KiB and more, unmapped on free, made the child's import 1.5x slower (page faults on every
    // reuse).
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
#endif
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = address_space_in_use() + budget;
  setrlimit(RLIMIT_AS, &limit);
#endif
}

void write_all(int fd, const char* bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd, bytes + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void child_main(int fd, const std::function<std::string()>& work, const ChildLimits& limits) {
  limit_child_memory(limits.memory_bytes);
  std::string message;
  try {
    message = work();
  } catch (const std::bad_alloc&) {
    _exit(kExitOutOfMemory);
  } catch (...) {
    _exit(1);  // `work` is expected to turn its own exceptions into messages
  }
  const uint64_t size = std::min<uint64_t>(message.size(), limits.max_message_bytes);
  char header[kHeaderBytes] = {kFinishedMark};
  std::memcpy(header + 1, &size, sizeof size);
  write_all(fd, header, sizeof header);
  write_all(fd, message.data(), size);
  _exit(0);
}

// Reads the child's reply as it comes: the header, then the message straight into its final buffer, which
// grows (doubling) only as bytes arrive, so a child that announces more than it sends costs nothing.
// Returns false when the header is not a finished mark or announces more than `max_bytes`.
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

// Children whose reply was complete, not yet reaped (each a zombie once it has exited: no memory held).
std::mutex unreaped_mutex;
std::vector<pid_t> unreaped;

void reap_finished() {
  std::lock_guard lock(unreaped_mutex);
  std::erase_if(unreaped, [](pid_t pid) { return waitpid(pid, nullptr, WNOHANG) != 0; });
}
void reap_later(pid_t pid) {
  std::lock_guard lock(unreaped_mutex);
  unreaped.push_back(pid);
}

}  // namespace

ChildOutcome run_in_child(const std::function<std::string()>& work, const ChildLimits& limits) {
  using Kind = ChildOutcome::Kind;
  reap_finished();
  int fds[2];
  if (pipe(fds) != 0) return {Kind::kUnavailable, std::string("pipe failed: ") + std::strerror(errno)};
#if defined(F_SETPIPE_SZ)
  // A larger pipe for large replies: fewer switches between child and parent (best effort).
  if (limits.max_message_bytes > (64u << 10)) fcntl(fds[0], F_SETPIPE_SZ, 1 << 20);
#endif
  std::fflush(nullptr);  // so buffered output is not written twice
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    return {Kind::kUnavailable, std::string("fork failed: ") + std::strerror(error)};
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(fds[1], work, limits);
  }
  close(fds[1]);

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
    pollfd p{fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      timed_out = ready == 0;
      break;
    }
    if (!reply.read_some(fds[0])) break;  // end of file: the child has exited
    if (reply.complete()) break;          // all that was announced: the child has nothing more to do
  }
  close(fds[0]);
  if (reply.complete() && !timed_out) {
    // The child's exit (the kernel freeing the memory it used: 5-10 ms after an import) need not delay the
    // caller: it is ended now (in case it lingers) and reaped by a later call.
    kill(pid, SIGKILL);
    reap_later(pid);
    return {Kind::kFinished, reply.take()};
  }
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  pid_t waited;
  do waited = waitpid(pid, &status, 0);
  while (waited < 0 && errno == EINTR);

  if (timed_out) return {Kind::kTimedOut, {}};
  if (waited == pid && WIFEXITED(status) && WEXITSTATUS(status) == kExitOutOfMemory)
    return {Kind::kOutOfMemory, {}};
  if (waited == pid && WIFSIGNALED(status))
    return {Kind::kCrashed, std::string("signal ") + std::to_string(WTERMSIG(status)) + " (" +
                                strsignal(WTERMSIG(status)) + ")"};
  if (waited == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return {Kind::kCrashed, "an incomplete or oversized reply"};
  if (waited == pid && WIFEXITED(status))
    return {Kind::kCrashed, "exit status " + std::to_string(WEXITSTATUS(status))};
  return {Kind::kCrashed, "no result"};
}

#else

ChildOutcome run_in_child(const std::function<std::string()>&, const ChildLimits&) {
  return {ChildOutcome::Kind::kUnavailable, "child processes are not supported on this platform"};
}

#endif

}  // namespace ossa::detail
