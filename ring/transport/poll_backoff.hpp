// How the host waits for work it polls (a pass's end, a non-blocking NCCL call, an MPI request):
// yield first, as the answer is often microseconds away, then sleep, longer the longer the wait
// (from 10 µs, 1 µs more every 10 polls, up to `max_sleep_us`), so a long wait leaves the core to
// NCCL's proxy thread, the peers of an oversubscribed MPI job and the sweep's watchdog.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

namespace rb::ring {

// `spin`: the polls so far.
inline void poll_backoff(int spin, int max_sleep_us = 20) {
  if (spin < 200)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(std::min(max_sleep_us, (spin - 200) / 10 + 10)));
}

}  // namespace rb::ring
