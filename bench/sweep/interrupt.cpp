// Signal handling: the handler only stores the signal number and when it came (both lock-free
// atomics, async-signal-safe); the sweep and its watchdog poll it.
#include "bench/sweep/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <ctime>

namespace rb::bench {
namespace {

std::atomic<int> g_signal{0};
std::atomic<std::int64_t> g_first_ns{0};
struct sigaction g_old_int, g_old_term;

// One kill can arrive twice: coreutils `timeout` signals its child and then the child's process
// group, so the same signal lands twice within microseconds. Both belong to one request.
constexpr std::int64_t kEchoWindowNs = 100'000'000;

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

extern "C" void on_signal(int sig) {
  const std::int64_t t = now_ns();
  int first = 0;
  if (g_signal.compare_exchange_strong(first, sig)) {
    g_first_ns.store(t);
    return;
  }
  if (first == sig && t - g_first_ns.load() < kEchoWindowNs) return;  // the same kill, delivered twice
  // A later signal: the user insists. Die of it the usual way.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

static_assert(std::atomic<int>::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

}  // namespace

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

int interrupt_signal() { return g_signal.load(); }

}  // namespace rb::bench
