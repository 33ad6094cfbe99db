// A watchdog for one configuration (or one round of it): when the time limit passes or a stop
// signal arrives it cancels the running configuration (common/cancellation.hpp) and calls
// `on_fire`, so a hung transfer or a runaway configuration is aborted and recorded instead of
// stalling the sweep.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace rb::bench {

class Watchdog {
 public:
  // timeout_s <= 0: no time limit (signals still fire it). `used_s`: already spent against the
  // limit (a configuration's earlier rounds), so it fires timeout_s - used_s from now. Once fired,
  // it calls `on_fire` again every 50 ms until it is destroyed: what was still being made at the
  // first call (an executor of thousands of ranks) is stopped by a later one, so `on_fire` must
  // bear repeating.
  Watchdog(double timeout_s, std::function<void()> on_fire, double used_s = 0);
  // Clears the cancellation it raised, for the next configuration.
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Why it fired ("timeout after 5 s", "interrupted by SIGINT"), or empty.
  std::string reason() const;

  // Between pause() and resume() the time limit stands still (a build of an A/B run by sample
  // waiting for its partner's pass is not running long); a signal still fires it.
  void pause();
  void resume();

 private:
  void loop(double timeout_s, double used_s);

  std::function<void()> on_fire_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::string reason_;
  std::chrono::steady_clock::duration paused_for_{};
  std::optional<std::chrono::steady_clock::time_point> paused_since_;
  std::thread thread_;
};

}  // namespace rb::bench
