// Running untrusted work (assimp parsing a file) in a forked child under a memory and time budget, so that a
// crash, a hang or a multi-gigabyte allocation costs an error instead of the calling process. Internal to
// the import stage; see ImportOptions::isolate.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace ossa::detail {

struct ChildLimits {
  // Memory the child may add to what the parent already uses (0: no limit). Exact for blocks of 32 MiB and
  // more (the ones a damaged count asks for); smaller blocks may first reuse heap the parent had freed.
  size_t memory_bytes = 0;
  double seconds = 0;  // wall clock (0: no limit)
  // The longest message the child may send back; a longer one is cut there. The parent allocates only as
  // the bytes arrive, and takes a reply that is longer than announced, or announced longer than this, as
  // no reply.
  size_t max_message_bytes = 64u << 10;
};

struct ChildOutcome {
  enum class Kind {
    kFinished,     // `work` returned; `message` is what it returned
    kOutOfMemory,  // the child went over ChildLimits::memory_bytes
    kTimedOut,     // the child ran past ChildLimits::seconds and was killed
    kCrashed,      // the child died (`message` names the signal or exit status) or sent no complete reply
    kUnavailable,  // no child could be started (fork or pipe failed); `message` says why
  };
  Kind kind = Kind::kFinished;
  std::string message;
};

// Runs `work` in a child process and returns what it returned (up to ChildLimits::max_message_bytes of it),
// piped back in large reads without copies of the whole. The child never
// returns into the caller's code: it leaves with _exit, so destructors, atexit handlers and leak checks of
// the copied process do not run.
ChildOutcome run_in_child(const std::function<std::string()>& work, const ChildLimits& limits);

}  // namespace ossa::detail
