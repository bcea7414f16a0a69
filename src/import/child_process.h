// Running untrusted work (assimp parsing a file) in a worker process under a memory and time budget, so that
// a crash, a hang or a multi-gigabyte allocation costs an error instead of the calling process. Internal to
// the import stage; see ImportOptions::isolate.
//
// A worker is forked on first use and then serves one request after another (its heap stays warm: a warm
// import in a worker costs what it costs in the caller, where a fresh child paid for the fork and a page
// fault on every page of its new heap). A worker that crashed, went over its budget or its time is gone
// (killed when late); the next request starts a new one. Idle workers wait in a pool, one per task and
// thread at most (up to kMaxIdleWorkers), and exit when the caller's process does (their socket closes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ossa::detail {

struct ChildLimits {
  // Memory the worker may add to what the caller used when the worker was forked (0: no limit). Exact for
  // blocks of 32 MiB and more (the ones a damaged count asks for); smaller blocks may first reuse heap the
  // caller had freed, or an earlier request's.
  size_t memory_bytes = 0;
  double seconds = 0;  // wall clock for this request (0: no limit)
  // The longest message the worker may send back; a longer one is cut there. The caller allocates only as
  // the bytes arrive, and takes a reply that is longer than announced, or announced longer than this, as
  // no reply.
  size_t max_message_bytes = 64u << 10;
};

struct ChildOutcome {
  enum class Kind {
    kFinished,     // the task returned; `message` is what it returned
    kOutOfMemory,  // the worker went over ChildLimits::memory_bytes
    kTimedOut,     // the worker ran past ChildLimits::seconds and was killed
    kCrashed,      // the worker died (`message` names the signal or exit status) or sent no complete reply
    kUnavailable,  // no worker could be started (fork or socket failed); `message` says why
  };
  Kind kind = Kind::kFinished;
  std::string message;
};

// What a worker runs for each request: a plain function (the worker is a copy of the caller's process, so
// the function is there; captured state is not, which is why everything it needs travels in `request`).
// Its exceptions other than std::bad_alloc (out of memory) end the worker.
using WorkerTask = std::string (*)(std::string_view request);

// Sends `request` to an idle worker for `task` (or a new one) and returns what `task` returned there (up to
// ChildLimits::max_message_bytes of it). The worker never returns into the caller's code: it leaves with
// _exit, so destructors, atexit handlers and leak checks of the copied process do not run. Thread-safe:
// concurrent calls use separate workers.
ChildOutcome run_in_worker(WorkerTask task, std::string_view request, const ChildLimits& limits);

// The process id of the worker that served this thread's last successful request (tests: reuse), or -1.
int last_worker_pid();

}  // namespace ossa::detail
