// How the host waits for work it polls (a pass's end, a non-blocking NCCL call): yield first, as
// the answer is often microseconds away, then sleep, so a long wait leaves the core to NCCL's
// proxy thread and the sweep's watchdog.
#pragma once

#include <chrono>
#include <thread>

namespace rb::ring {

inline void poll_backoff(int spin) {
  if (spin < 200)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(20));
}

}  // namespace rb::ring
