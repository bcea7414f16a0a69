// The worker processes behind ImportOptions::isolate (src/import/child_process.h): each way a request can
// end is reported as such, the caller survives all of them, a worker is reused only while it is sound, and
// each request gets its own memory budget and time.
#include <gtest/gtest.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <unistd.h>
#endif
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "child_worker_tasks.h"

namespace ossa::detail {
namespace {

using Kind = ChildOutcome::Kind;

TEST(ChildProcess, FinishedWorkSendsItsMessageBack) {
  auto outcome = run_in_worker(kPattern, "100000", {});
  ASSERT_EQ(outcome.kind, Kind::kFinished);
  EXPECT_EQ(outcome.message.size(), 64u << 10) << "messages are capped at 64 KiB by default";
  EXPECT_EQ(run_in_worker(kEcho, "fine", {}).message, "fine");
  EXPECT_EQ(run_in_worker(kEcho, "", {}).message, "");
}

// An imported scene of tens of MB comes back whole (the socket is read in large chunks straight into place),
// and a request of tens of MB (a file imported from memory) reaches the worker whole.
TEST(ChildProcess, LargeMessagesComeBackWhole) {
  const std::string sent = kPattern.run(std::to_string(32u << 20));
  ChildLimits limits;
  limits.max_message_bytes = 64u << 20;
  auto outcome = run_in_worker(kPattern, std::to_string(sent.size()), limits);
  ASSERT_EQ(outcome.kind, Kind::kFinished) << outcome.message;
  EXPECT_TRUE(outcome.message == sent) << "the message differs (" << outcome.message.size() << " bytes)";
  auto echoed = run_in_worker(kEcho, sent, limits);
  EXPECT_TRUE(echoed.message == sent) << "the request differs (" << echoed.message.size() << " bytes)";
  limits.max_message_bytes = 1000;
  EXPECT_EQ(run_in_worker(kPattern, std::to_string(sent.size()), limits).message, sent.substr(0, 1000))
      << "cut at the limit";
}

TEST(ChildProcess, CrashIsReportedWithItsSignal) {
  auto outcome = run_in_worker(kCrashOnRequest, "crash", {});
  ASSERT_EQ(outcome.kind, Kind::kCrashed) << outcome.message;
#if defined(_WIN32)
  EXPECT_NE(outcome.message.find("0xC0000005 (access violation)"), std::string::npos) << outcome.message;
#else
  // Under AddressSanitizer its own SEGV handler reports the crash and exits with status 1 instead.
  EXPECT_TRUE(outcome.message.find("signal 11") != std::string::npos ||
              outcome.message.find("exit status") != std::string::npos)
      << outcome.message;
#endif
}

// A worker serves request after request (its heap stays warm); one that crashed is replaced.
TEST(ChildProcess, WorkersAreReusedUntilOneFails) {
  ASSERT_EQ(run_in_worker(kCrashOnRequest, "first", {}).kind, Kind::kFinished);
  const int first = last_worker_pid();
  ASSERT_EQ(run_in_worker(kCrashOnRequest, "second", {}).kind, Kind::kFinished);
  EXPECT_EQ(last_worker_pid(), first) << "the idle worker was not reused";
#if defined(_WIN32)
  EXPECT_NE(first, static_cast<int>(GetCurrentProcessId()));
#else
  EXPECT_NE(first, getpid());
#endif
  ASSERT_EQ(run_in_worker(kCrashOnRequest, "crash", {}).kind, Kind::kCrashed);
  ASSERT_EQ(run_in_worker(kCrashOnRequest, "after", {}).kind, Kind::kFinished);
  EXPECT_NE(last_worker_pid(), first) << "the crashed worker served again";
}

TEST(ChildProcess, MemoryBudgetStopsTheWorker) {
  ChildLimits limits;
  limits.memory_bytes = 64u << 20;
  auto outcome = run_in_worker(kHoldMegabytes, "1024", limits);  // 1 GiB in 16 MiB steps
  EXPECT_EQ(outcome.kind, Kind::kOutOfMemory) << outcome.message;
  // The same work within budget finishes.
  limits.memory_bytes = 2048u << 20;
  EXPECT_EQ(run_in_worker(kHoldMegabytes, "16", limits).kind, Kind::kFinished);
}

// Each request has its own budget: a worker that still holds more than a request allows (an earlier
// request's memory) makes way for a fresh one (no false "out of memory"), and a small budget still stops a
// large allocation in a reused worker.
TEST(ChildProcess, EachRequestGetsItsOwnBudget) {
  ChildLimits large, small;
  large.memory_bytes = 2048u << 20;
  small.memory_bytes = 64u << 20;
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(run_in_worker(kKeepMegabytes, "240", large).kind, Kind::kFinished);
    const int holding = last_worker_pid();
    EXPECT_EQ(run_in_worker(kKeepMegabytes, "16", small).kind, Kind::kFinished);
    EXPECT_NE(last_worker_pid(), holding) << "the worker holding 240 MB served a 64 MB budget";
    EXPECT_EQ(run_in_worker(kKeepMegabytes, "", small).kind, Kind::kFinished);  // frees the 16 MB
    EXPECT_EQ(run_in_worker(kHoldMegabytes, "1024", small).kind, Kind::kOutOfMemory);
  }
}

TEST(ChildProcess, HangingWorkerIsKilledAtTheTimeLimit) {
  ChildLimits limits;
  limits.seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  auto outcome = run_in_worker(kSleepSeconds, "30", limits);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.kind, Kind::kTimedOut);
  EXPECT_LT(took, 10.0) << "the worker was not killed at its limit";
  // The time limit is per request: a reused worker's earlier requests do not count against it.
  limits.seconds = 1;
  for (int i = 0; i < 3; ++i) EXPECT_EQ(run_in_worker(kSleepSeconds, "0.4", limits).kind, Kind::kFinished);
}

// Concurrent callers get separate workers and their own replies.
TEST(ChildProcess, ConcurrentRequestsUseSeparateWorkers) {
  std::vector<std::thread> threads;
  std::vector<std::string> replies(4);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        const std::string request = std::to_string(t) + ":" + std::to_string(i);
        auto outcome = run_in_worker(kEcho, request, {});
        if (outcome.kind != Kind::kFinished || outcome.message != request) return;
      }
      replies[t] = "all";
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(replies[t], "all") << "thread " << t;
}

}  // namespace
}  // namespace ossa::detail
