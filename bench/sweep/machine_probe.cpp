// The machine probe (see machine_probe.hpp). Its time is only meaningful against the same probe's
// time in the baseline: a change to this file's workload must raise kMachineProbeVersion.
#include "bench/sweep/machine_probe.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "reports/results/record_timing.hpp"

namespace rb::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One worker's share: one query block (64 x 64) attending to 4096 keys in blocks of 64 (scores =
// q k^T, exp, then p v; about 4 ms on a current x86 core), then a copy of 4 MiB. The shape is the
// attention kernel's: unit-stride inner loops with independent lanes, which the compiler
// vectorises, so they are throughput-bound, and K and V of 1 MiB each, read once per run, so they
// live in L2/L3 as a ring pass's blocks do. A neighbour sharing the core or the last-level cache
// slows it as it slows a pass, where the latency-bound, L1-resident chains of probe version 1
// hardly noticed. Each repetition lasts about as long as a short pass, so a host that takes the
// vCPU away for a few ms at a time shows in it as in a pass.
struct Worker {
  static constexpr int kBlock = 64, kKeys = 4096;
  std::vector<float> q = std::vector<float>(kBlock * kBlock), s = q, o = q;
  std::vector<float> kt = std::vector<float>(static_cast<std::size_t>(kBlock) * kKeys), v = kt;  // (D, keys), (keys, D)
  std::vector<char> src = std::vector<char>(4 << 20, 1), dst = std::vector<char>(4 << 20);
  float sink = 0;

  Worker() {
    for (std::size_t i = 0; i < q.size(); ++i) q[i] = static_cast<float>(i % 13) * 0.01f;
    for (std::size_t i = 0; i < kt.size(); ++i) {
      kt[i] = static_cast<float>(i % 7) * 0.02f;
      v[i] = static_cast<float>(i % 5) * 0.03f;
    }
  }
  // The report prices the cpu backend's compute from this arithmetic (reports/html/report_pricing.cpp).
  static_assert(kMachineProbeVersion == reports::kMachineProbeFlopsVersion &&
                    4.0 * kBlock * (static_cast<double>(kBlock) * kKeys) == reports::kMachineProbeFlopsPerThread,
                "the probe's workload changed: raise kMachineProbeVersion and the report's figure");
  void block(int key0) {
    for (int i = 0; i < kBlock; ++i) {
      float* si = &s[static_cast<std::size_t>(i) * kBlock];
      std::fill(si, si + kBlock, 0.0f);
      for (int d = 0; d < kBlock; ++d) {
        const float a = q[static_cast<std::size_t>(i) * kBlock + d];
        const float* kd = &kt[static_cast<std::size_t>(d) * kKeys + key0];
        for (int j = 0; j < kBlock; ++j) si[j] += a * kd[j];
      }
      for (int j = 0; j < kBlock; ++j) si[j] = std::exp(si[j] * 0.01f - 1.0f);
      float* oi = &o[static_cast<std::size_t>(i) * kBlock];
      for (int j = 0; j < kBlock; ++j) {
        const float p = si[j];
        const float* vj = &v[static_cast<std::size_t>(key0 + j) * kBlock];
        for (int d = 0; d < kBlock; ++d) oi[d] += p * vj[d];
      }
    }
  }
  void run() {
    for (int key0 = 0; key0 < kKeys; key0 += kBlock) block(key0);
    sink += o[o.size() / 2];
    std::memcpy(dst.data(), src.data(), src.size());
    sink += static_cast<float>(dst[dst.size() / 2]);
  }
};

}  // namespace

MachineProbe machine_probe() {
  // One worker per hardware thread, all at once: a VM that loses a core to its neighbours slows a
  // multi-threaded ring pass but not a single-threaded loop, and only a probe that fills every
  // core sees that.
  const unsigned n = std::clamp(std::thread::hardware_concurrency(), 1u, 64u);
  constexpr int kRepeats = 5;
  // Made once per process and kept (10 MiB per hardware thread): filling them costs far more than
  // the probe itself, and the probe runs before every round of every CPU configuration. Only the
  // sweep's thread calls the probe.
  static std::vector<Worker> workers(n);
  std::array<double, kRepeats> ms{}, spread{};
  std::vector<double> own(n);  // each worker's own time in the current repetition
  Clock::time_point start;
  std::barrier sync(static_cast<std::ptrdiff_t>(n));
  auto body = [&](unsigned t) {
    for (int r = 0; r < kRepeats; ++r) {
      sync.arrive_and_wait();
      if (t == 0) start = Clock::now();
      sync.arrive_and_wait();
      const auto mine = Clock::now();
      workers[t].run();
      own[t] = std::chrono::duration<double, std::milli>(Clock::now() - mine).count();
      sync.arrive_and_wait();
      if (t == 0) {
        const auto k = static_cast<std::size_t>(r);
        ms[k] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        const auto [lo, hi] = std::minmax_element(own.begin(), own.end());
        spread[k] = *lo > 0 ? (*hi - *lo) / *lo : 0.0;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(body, t);
  body(0);
  for (auto& th : threads) th.join();
  volatile float keep = 0;
  for (const auto& w : workers) keep = keep + w.sink;
  std::sort(ms.begin(), ms.end());
  std::sort(spread.begin(), spread.end());
  return {ms[ms.size() / 2], spread[spread.size() / 2]};
}

}  // namespace rb::bench
