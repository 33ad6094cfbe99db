// Google Benchmark of the metrics (docs/design.md §6) over a timeline of 1M intervals shaped like a ring
// pass: 8 ranks, compute and comm lanes, steps, some overlap. The figure goes in docs/performance.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <limits>
#include <random>

#include "bench/measure/metrics.hpp"

namespace {

rb::Timeline ring_like_timeline(std::size_t n) {
  rb::Timeline t;
  t.intervals.reserve(n);
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<std::int64_t> jitter(0, 2000);
  constexpr int kRanks = 8;
  const std::size_t per_rank = n / kRanks;
  for (int r = 0; r < kRanks; ++r) {
    std::int64_t clock = 0;
    for (std::size_t i = 0; i < per_rank; ++i) {
      const int step = static_cast<int>(i / 2 % 64);
      const std::int64_t len = 5000 + jitter(rng);
      if (i % 2 == 0) {
        t.intervals.push_back(rb::Interval{r, rb::IntervalKind::compute, "compute", "attention", step, 0, clock,
                                           clock + len});
      } else {  // a transfer starting during the attention, sometimes outlasting it
        t.intervals.push_back(rb::Interval{r, rb::IntervalKind::comm, "comm", "kv_recv", step + 1, 1 << 20,
                                           clock - len + jitter(rng), clock + jitter(rng)});
      }
      clock += len / 2;
    }
  }
  // Recorders emit per lane; shuffle so the sort inside the metrics does real work.
  std::shuffle(t.intervals.begin(), t.intervals.end(), rng);
  t.window_begin_ns = 0;
  t.window_end_ns = std::numeric_limits<std::int64_t>::max();
  return t;
}

void BM_ComputeMetrics(benchmark::State& state) {
  const auto t = ring_like_timeline(static_cast<std::size_t>(state.range(0)));
  rb::bench::MetricsInputs in;
  in.flops = 1e15;
  for (auto _ : state) {
    auto m = rb::bench::compute_metrics(t, in);
    benchmark::DoNotOptimize(m);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ComputeMetrics)->Arg(1 << 10)->Arg(1 << 16)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
