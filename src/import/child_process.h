// Running untrusted work (assimp parsing a file) in a worker process under a memory and time budget, so that
// a crash, a hang or a multi-gigabyte allocation costs an error instead of the calling process. Internal to
// the import stage; see ImportOptions::isolate.
//
// POSIX: a worker is forked on first use and then serves one request after another (its heap stays warm: a
// warm import in a worker costs what it costs in the caller, where a fresh child paid for the fork and a page
// fault on every page of its new heap). A worker that crashed, went over its budget or its time is gone
// (killed when late); the next request starts a new one. Idle workers wait in a pool, one per task and
// thread at most (up to kMaxIdleWorkers), and exit when the caller's process does (their socket closes).
//
// Windows (child_process_win32.cpp): a worker is the task's program, started suspended inside a job object
// (killed when the caller's process ends, no error dialog on a crash, a memory limit as a backstop), the
// request and the reply over pipes; the program counts its own heap against each request's budget. Reuse,
// the pool and the outcomes are as on POSIX; a worker program that cannot be found or started makes the
// request kUnavailable.
#pragma once

#include <cstddef>
#include <span>
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

// What a worker runs for each request, by name. POSIX: the worker is a copy of the caller's process, so `run`
// is there (captured state is not, which is why everything it needs travels in `request`). Windows: the
// worker is `program` (a file name beside the calling program, or the path in OSSA_IMPORT_WORKER for the
// import's), started with serve_worker_requests() in its main, which finds the task by `name`. The task's
// exceptions other than std::bad_alloc (out of memory) end the worker.
struct WorkerTask {
  WorkerTask(std::string (*run_task)(std::string_view), const char* task_name = "",
             const char* program_name = "ossa_import_worker.exe")
      : run(run_task), name(task_name), program(program_name) {}
  std::string (*run)(std::string_view request);
  const char* name;
  const char* program;
};

// Sends `request` to an idle worker for `task` (or a new one) and returns what `task` returned there (up to
// ChildLimits::max_message_bytes of it). The worker never returns into the caller's code: it leaves with
// _exit, so destructors, atexit handlers and leak checks of the copied process do not run. Thread-safe:
// concurrent calls use separate workers.
ChildOutcome run_in_worker(const WorkerTask& task, std::string_view request, const ChildLimits& limits);

// Windows: a worker program's main. Serves the requests that come on standard input with `tasks` (by name),
// replying on standard output, until the caller closes the pipe; returns the exit status. `limit_heap` is
// called before each request with the bytes of heap the worker may hold in all (0: no limit) and returns
// the bytes it holds now, both counted by the program's own operator new (see import_worker_main.cpp).
int serve_worker_requests(std::span<const WorkerTask> tasks, size_t (*limit_heap)(size_t budget_bytes));

// The process id of the worker that served this thread's last successful request (tests: reuse), or -1.
int last_worker_pid();

}  // namespace ossa::detail
