// The tasks of the child-process tests (test_child_process.cpp): the test program runs them in workers, on
// POSIX as forks of itself and on Windows in ossa_test_worker.exe (child_worker_main.cpp), which serves them
// by name. Each reads its orders from the request.
#pragma once

#include <chrono>
#include <csignal>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "../src/import/child_process.h"

namespace ossa::detail::test_tasks {

inline std::string pattern(std::string_view request) {  // `request` bytes of a fixed pattern
  std::string out(std::stoull(std::string(request)), '\0');
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(i * 2654435761u >> 24);
  return out;
}
inline std::string echo(std::string_view request) {
  return std::string(request);
}
inline std::string crash_on_request(std::string_view request) {
#if defined(_WIN32)
  if (request == "crash") *static_cast<volatile int*>(nullptr) = 1;  // an access violation
#else
  if (request == "crash") std::raise(SIGSEGV);
#endif
  return "fine";
}
inline std::string hold_megabytes(std::string_view request) {  // allocates and touches MB in 16 MiB blocks
  std::vector<std::vector<char>> blocks;
  for (size_t mb = 0; mb < std::stoull(std::string(request)); mb += 16)
    blocks.emplace_back(16u << 20, char(1));
  return std::to_string(blocks.size());
}
inline std::string keep_megabytes(
    std::string_view request) {  // "N": N MB held after the request, "" frees them
  static std::vector<std::vector<char>> kept;
  if (request.empty()) kept.clear();
  for (size_t mb = 0; !request.empty() && mb < std::stoull(std::string(request)); mb += 16)
    kept.emplace_back(16u << 20, char(1));
  return "kept";
}
inline std::string sleep_seconds(std::string_view request) {
  std::this_thread::sleep_for(std::chrono::duration<double>(std::stod(std::string(request))));
  return "woke";
}

}  // namespace ossa::detail::test_tasks

namespace ossa::detail {
inline const WorkerTask kPattern(test_tasks::pattern, "pattern", "ossa_test_worker.exe");
inline const WorkerTask kEcho(test_tasks::echo, "echo", "ossa_test_worker.exe");
inline const WorkerTask kCrashOnRequest(test_tasks::crash_on_request, "crash_on_request",
                                        "ossa_test_worker.exe");
inline const WorkerTask kHoldMegabytes(test_tasks::hold_megabytes, "hold_megabytes", "ossa_test_worker.exe");
inline const WorkerTask kKeepMegabytes(test_tasks::keep_megabytes, "keep_megabytes", "ossa_test_worker.exe");
inline const WorkerTask kSleepSeconds(test_tasks::sleep_seconds, "sleep_seconds", "ossa_test_worker.exe");
inline const WorkerTask kTestTasks[] = {kPattern,       kEcho,          kCrashOnRequest,
                                        kHoldMegabytes, kKeepMegabytes, kSleepSeconds};
}  // namespace ossa::detail
