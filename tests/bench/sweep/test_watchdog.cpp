// The watchdog's time limit, and what a configuration's earlier rounds have used of it: each
// round's watchdog fires when the configuration as a whole has run for --timeout. Once fired it
// raises the process's cancellation and repeats its abort until the round ends, so an executor
// still being made at the first call is stopped by a later one.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "bench/sweep/watchdog.hpp"
#include "common/cancellation.hpp"

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
  EXPECT_GE(fired.load(), 1);
  EXPECT_NE(w.reason().find("longer than 0.2 s"), std::string::npos) << w.reason();
}

TEST(Watchdog, EarlierRoundsUseUpTheLimit) {
  // 9.9 s of a 10 s limit already spent: it fires within about 0.1 s, and names the whole limit.
  std::atomic<int> fired{0};
  const auto start = std::chrono::steady_clock::now();
  const auto fire = [&] { ++fired; };
  Watchdog w(10.0, fire, 9.9);
  while (fired.load() == 0 && std::chrono::steady_clock::now() - start < 5s) std::this_thread::sleep_for(10ms);
  EXPECT_GE(fired.load(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_NE(w.reason().find("longer than 10 s"), std::string::npos) << w.reason();
  // A limit already overrun fires at once rather than never.
  std::atomic<int> late{0};
  Watchdog over(
      1.0, [&] { ++late; }, 2.0);
  const auto t0 = std::chrono::steady_clock::now();
  while (late.load() == 0 && std::chrono::steady_clock::now() - t0 < 5s) std::this_thread::sleep_for(10ms);
  EXPECT_GE(late.load(), 1);
}

TEST(Watchdog, ThePausedTimeDoesNotCountAgainstTheLimit) {
  std::atomic<int> fired{0};
  Watchdog w(0.3, [&] { ++fired; });
  w.pause();
  std::this_thread::sleep_for(600ms);  // twice the limit, paused: a partner's pass
  EXPECT_EQ(fired.load(), 0);
  EXPECT_EQ(w.reason(), "");
  w.resume();
  const auto resumed = std::chrono::steady_clock::now();
  while (fired.load() == 0 && std::chrono::steady_clock::now() - resumed < 10s) std::this_thread::sleep_for(10ms);
  EXPECT_GE(fired.load(), 1);  // the limit runs again once resumed
  EXPECT_NE(w.reason().find("longer than 0.3 s"), std::string::npos) << w.reason();
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

TEST(Watchdog, RepeatsItsAbortUntilTheRoundEnds) {
  // The first call can find nothing to abort (the executor of thousands of ranks is still being
  // made); later calls reach it. After the watchdog is gone, nothing more is called.
  std::atomic<int> fired{0};
  {
    Watchdog w(0.05, [&] { ++fired; });
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (fired.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_GE(fired.load(), 3);
  }
  const int after = fired.load();
  std::this_thread::sleep_for(150ms);
  EXPECT_EQ(fired.load(), after);
}

TEST(Watchdog, RaisesTheCancellationWhileItLives) {
  // What no abort reaches (the float64 reference, an executor's setup) polls the cancellation.
  std::atomic<int> fired{0};
  {
    Watchdog w(0.1, [&] { ++fired; });
    EXPECT_FALSE(cancellation_requested());
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (fired.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(cancellation_requested());
    try {
      throw_if_cancelled();
      FAIL() << "no Cancelled thrown";
    } catch (const Cancelled& e) {
      EXPECT_NE(std::string(e.what()).find("longer than 0.1 s"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(cancellation_requested());  // the next configuration starts clear
}

}  // namespace
}  // namespace rb::bench
