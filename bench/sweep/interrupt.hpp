// SIGINT and SIGTERM during a sweep: the first one asks the sweep to stop (the running
// configuration is aborted and recorded, results.json is written from what exists); a second one
// kills the process the usual way. The same signal again within 100 ms is the echo of one kill
// (coreutils `timeout` signals the process and then its group), not a second request.
#pragma once

namespace rb::bench {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal that asked the sweep to stop, or 0.
int interrupt_signal();

}  // namespace rb::bench
