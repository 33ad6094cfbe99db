// The machine probe (see machine_probe.hpp). Its code must not change between versions that are
// compared: its time is only meaningful against the same probe's time in the baseline.
#include "bench/machine_probe.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace rb::bench {
namespace {

using Clock = std::chrono::steady_clock;

// About a millisecond of multiply-adds on one core: eight independent chains keep the FMA units
// busy without letting the compiler fold the loop.
float compute_part(const std::vector<float>& a) {
  std::array<float, 8> acc{};
  for (int rep = 0; rep < 256; ++rep)
    for (std::size_t i = 0; i < a.size(); i += 8)
      for (std::size_t k = 0; k < 8; ++k) acc[k] = acc[k] * 0.999f + a[i + k];
  float s = 0;
  for (float x : acc) s += x;
  return s;
}

struct Worker {
  std::vector<float> a = std::vector<float>(16384);
  std::vector<char> src = std::vector<char>(8 << 20, 1), dst = std::vector<char>(8 << 20);
  float sink = 0;
  void run() {
    sink += compute_part(a);
    std::memcpy(dst.data(), src.data(), src.size());
    sink += static_cast<float>(dst[dst.size() / 2]);
  }
};

}  // namespace

double machine_probe_ms() {
  // One worker per hardware thread, all at once: a VM that loses a core to its neighbours slows a
  // multi-threaded ring pass but not a single-threaded loop, and only a probe that fills every
  // core sees that.
  const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 64u);
  constexpr int kRepeats = 5;
  std::vector<Worker> workers(n);
  for (auto& w : workers)
    for (std::size_t i = 0; i < w.a.size(); ++i) w.a[i] = static_cast<float>(i % 97) * 0.01f;
  std::array<double, kRepeats> ms{};
  Clock::time_point start;
  std::barrier sync(static_cast<std::ptrdiff_t>(n));
  auto body = [&](unsigned t) {
    for (int r = 0; r < kRepeats; ++r) {
      sync.arrive_and_wait();
      if (t == 0) start = Clock::now();
      sync.arrive_and_wait();
      workers[t].run();
      sync.arrive_and_wait();
      if (t == 0) ms[static_cast<std::size_t>(r)] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();
  volatile float keep = 0;
  for (const auto& w : workers) keep = keep + w.sink;
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace rb::bench
