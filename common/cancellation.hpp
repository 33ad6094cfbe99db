// Cooperative cancellation of the configuration that is running. The sweep's watchdog raises it
// when a configuration outlives --timeout or a stop signal arrives; work that no executor's abort()
// reaches (the float64 reference, an executor still being built) polls it, so a configuration in
// the middle of seconds of arithmetic ends within milliseconds instead of at its end. A process
// runs one configuration at a time, so one flag serves the process.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace rb {

// Thrown by the loops that poll the flag, with the reason it was raised.
class Cancelled : public Error {
 public:
  using Error::Error;
};

// The flag itself, for a kernel that takes a pointer to poll (kernels/attention_block_ref.hpp).
inline std::atomic<bool>& cancellation_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}

namespace detail {
struct CancellationReason {
  std::mutex mu;
  std::string text;
};
inline CancellationReason& cancellation_reason() {
  static CancellationReason r;
  return r;
}
}  // namespace detail

// `why` becomes the message of every Cancelled thrown until it is cleared ("timeout: ...").
inline void request_cancellation(std::string why) {
  auto& r = detail::cancellation_reason();
  {
    std::lock_guard lk(r.mu);
    r.text = std::move(why);
  }
  cancellation_flag().store(true);
}
inline void clear_cancellation() { cancellation_flag().store(false); }
inline bool cancellation_requested() { return cancellation_flag().load(std::memory_order_relaxed); }

inline void throw_if_cancelled() {
  if (!cancellation_requested()) return;
  auto& r = detail::cancellation_reason();
  std::lock_guard lk(r.mu);
  throw Cancelled(r.text.empty() ? std::string("cancelled") : r.text);
}

}  // namespace rb
