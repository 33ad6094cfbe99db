// The watchdog's time limit, and what a configuration's earlier rounds have used of it: each
// round's watchdog fires when the configuration as a whole has run for --timeout.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "bench/sweep/watchdog.hpp"

namespace rb::bench {
namespace {

using namespace std::chrono_literals;

TEST(Watchdog, FiresAtItsTimeoutWithTheReason) {
  std::atomic<int> fired{0};
  Watchdog w(0.2, [&] { ++fired; });
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(fired.load(), 0);
  EXPECT_EQ(w.reason(), "");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (fired.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fired.load(), 1);
  EXPECT_NE(w.reason().find("longer than 0.2 s"), std::string::npos) << w.reason();
}

TEST(Watchdog, EarlierRoundsUseUpTheLimit) {
  // 9.9 s of a 10 s limit already spent: it fires within about 0.1 s, and names the whole limit.
  std::atomic<int> fired{0};
  const auto start = std::chrono::steady_clock::now();
  const auto fire = [&] { ++fired; };
  Watchdog w(10.0, fire, 9.9);
  while (fired.load() == 0 && std::chrono::steady_clock::now() - start < 5s) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(fired.load(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_NE(w.reason().find("longer than 10 s"), std::string::npos) << w.reason();
  // A limit already overrun fires at once rather than never.
  std::atomic<int> late{0};
  Watchdog over(
      1.0, [&] { ++late; }, 2.0);
  const auto t0 = std::chrono::steady_clock::now();
  while (late.load() == 0 && std::chrono::steady_clock::now() - t0 < 5s) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(late.load(), 1);
}

TEST(Watchdog, NoLimitNeverFiresOnTime) {
  std::atomic<int> fired{0};
  {
    const auto fire = [&] { ++fired; };
    Watchdog w(0, fire, 100.0);
    std::this_thread::sleep_for(150ms);
  }
  EXPECT_EQ(fired.load(), 0);
}

}  // namespace
}  // namespace rb::bench
