// The child-process guard behind ImportOptions::isolate (src/import/child_process.h): each way a child can
// end is reported as such, and the caller survives all of them.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>
#include <vector>

#include "../src/import/child_process.h"

namespace ossa::detail {
namespace {

using Kind = ChildOutcome::Kind;

TEST(ChildProcess, FinishedChildSendsItsMessageBack) {
  auto outcome = run_in_child([] { return std::string(100000, 'x'); }, {});
  ASSERT_EQ(outcome.kind, Kind::kFinished);
  EXPECT_EQ(outcome.message.size(), 64u << 10) << "messages are capped at 64 KiB by default";
  EXPECT_EQ(run_in_child([] { return std::string("fine"); }, {}).message, "fine");
  EXPECT_EQ(run_in_child([] { return std::string(); }, {}).message, "");
}

// An imported scene of tens of MB comes back whole (the pipe is read in large chunks straight into place).
TEST(ChildProcess, LargeMessagesComeBackWhole) {
  std::string sent(32u << 20, '\0');
  for (size_t i = 0; i < sent.size(); ++i) sent[i] = static_cast<char>(i * 2654435761u >> 24);
  ChildLimits limits;
  limits.max_message_bytes = 64u << 20;
  auto outcome = run_in_child([&] { return sent; }, limits);
  ASSERT_EQ(outcome.kind, Kind::kFinished) << outcome.message;
  EXPECT_TRUE(outcome.message == sent) << "the message differs (" << outcome.message.size() << " bytes)";
  limits.max_message_bytes = 1000;
  EXPECT_EQ(run_in_child([&] { return sent; }, limits).message, sent.substr(0, 1000)) << "cut at the limit";
}

TEST(ChildProcess, CrashIsReportedWithItsSignal) {
  auto outcome = run_in_child(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      {});
  ASSERT_EQ(outcome.kind, Kind::kCrashed);
  // Under AddressSanitizer its own SEGV handler reports the crash and exits with status 1 instead.
  EXPECT_TRUE(outcome.message.find("signal 11") != std::string::npos ||
              outcome.message.find("exit status") != std::string::npos)
      << outcome.message;
}

TEST(ChildProcess, MemoryBudgetStopsTheChild) {
  ChildLimits limits;
  limits.memory_bytes = 64u << 20;
  auto outcome = run_in_child(
      [] {
        std::vector<std::vector<char>> blocks;
        for (int i = 0; i < 64; ++i) blocks.emplace_back(16u << 20, char(1));  // 1 GiB in 16 MiB steps
        return std::to_string(blocks.size());
      },
      limits);
  EXPECT_EQ(outcome.kind, Kind::kOutOfMemory) << outcome.message;
  // The same work within budget finishes.
  limits.memory_bytes = 2048u << 20;
  auto fits = run_in_child(
      [] {
        std::vector<char> block(16u << 20, char(1));
        return std::to_string(block.size());
      },
      limits);
  EXPECT_EQ(fits.kind, Kind::kFinished);
}

TEST(ChildProcess, HangingChildIsKilledAtTheTimeLimit) {
  ChildLimits limits;
  limits.seconds = 0.2;
  const auto start = std::chrono::steady_clock::now();
  auto outcome = run_in_child(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(30));
        return std::string("woke");
      },
      limits);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.kind, Kind::kTimedOut);
  EXPECT_LT(took, 10.0) << "the child was not killed at its limit";
}

}  // namespace
}  // namespace ossa::detail
