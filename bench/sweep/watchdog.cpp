// The watchdog thread: wakes every 50 ms to look for a stop signal, and at the deadline; once
// fired, it repeats the abort on every wake until the round is over.
#include "bench/sweep/watchdog.hpp"

#include <algorithm>
#include <csignal>

#include <fmt/format.h>

#include "bench/sweep/interrupt.hpp"
#include "common/cancellation.hpp"

namespace rb::bench {

Watchdog::Watchdog(double timeout_s, std::function<void()> on_fire, double used_s) : on_fire_(std::move(on_fire)) {
  clear_cancellation();  // an earlier configuration's, if its watchdog did not outlive it
  thread_ = std::thread([this, timeout_s, used_s] { loop(timeout_s, used_s); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard lk(mu_);
    done_ = true;
  }
  cv_.notify_all();
  thread_.join();
  clear_cancellation();
}

std::string Watchdog::reason() const {
  std::lock_guard lk(mu_);
  return reason_;
}

void Watchdog::pause() {
  std::lock_guard lk(mu_);
  if (!paused_since_) paused_since_ = std::chrono::steady_clock::now();
}

void Watchdog::resume() {
  std::lock_guard lk(mu_);
  if (paused_since_) paused_for_ += std::chrono::steady_clock::now() - *paused_since_;
  paused_since_.reset();
}

void Watchdog::loop(double timeout_s, double used_s) {
  using clock = std::chrono::steady_clock;
  const double left_s = std::max(0.0, timeout_s - used_s);
  const auto deadline = timeout_s > 0
                            ? clock::now() +
                                  std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(left_s))
                            : clock::time_point::max();
  std::unique_lock lk(mu_);
  while (!done_) {
    cv_.wait_for(lk, std::chrono::milliseconds(50));
    if (done_) return;
    if (reason_.empty()) {
      if (const int sig = interrupt_signal())
        reason_ = fmt::format("interrupted by {}", sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal");
      else if (!paused_since_ && clock::now() - paused_for_ >= deadline)
        reason_ = fmt::format("timeout: the configuration ran longer than {} s", timeout_s);
      if (reason_.empty()) continue;
      request_cancellation(reason_);
    }
    lk.unlock();
    on_fire_();
    lk.lock();
  }
}

}  // namespace rb::bench
