// Signal handling: the handler only stores the signal number (async-signal-safe); the sweep and
// its watchdog poll it.
#include "bench/interrupt.hpp"

#include <atomic>
#include <csignal>

namespace rb::bench {
namespace {

std::atomic<int> g_signal{0};
struct sigaction g_old_int, g_old_term;

extern "C" void on_signal(int sig) { g_signal.store(sig); }

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal gets the default action: the user insists
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

}  // namespace rb::bench
