// Metrics over timelines: hand-worked cases (touching, nested, empty comm, clipping, steps,
// imbalance, rates) and random timelines checked cell by cell against brute force.
#include <gtest/gtest.h>

#include <random>

#include "bench/measure/metrics.hpp"
#include "common/error.hpp"

namespace rb::bench {
namespace {

Interval iv(int rank, IntervalKind k, const char* name, int step, std::int64_t b, std::int64_t e,
            std::int64_t bytes = 0) {
  return Interval{rank, k, k == IntervalKind::comm ? "comm" : "compute", name, step, bytes, b, e};
}
constexpr auto C = IntervalKind::compute;
constexpr auto M = IntervalKind::comm;

TEST(Metrics, TouchingCommIntervalsMergeBeforeOverlap) {
  Timeline t{{iv(0, M, "kv_recv", 1, 0, 10), iv(0, M, "kv_recv", 2, 10, 20), iv(0, C, "attention", 0, 5, 15)}, 0, 20};
  const auto m = compute_metrics(t);
  ASSERT_EQ(m.per_rank.size(), 1u);
  EXPECT_EQ(m.per_rank[0].comm_ns, 20);
  EXPECT_EQ(m.per_rank[0].compute_ns, 10);
  EXPECT_EQ(m.per_rank[0].overlap_ns, 10);
  EXPECT_EQ(m.per_rank[0].exposed_comm_ns, 10);
  EXPECT_DOUBLE_EQ(*m.per_rank[0].overlap_fraction, 0.5);
}

// One definition of comm time, HTA's: execution. The first H200 run measured a copy's event span
// (1.874 ms: the copy waited for SMs behind attention) against its execution under CUPTI (0.038 ms)
// and reported the first as comm time. Now the span is comm in flight, beside it, and only a rank
// with no execution intervals (NCCL under the timed passes) takes its comm time from the spans.
TEST(Metrics, CommTimeIsExecutionAndInFlightIsReportedBeside) {
  constexpr auto F = IntervalKind::comm_in_flight;
  Timeline t{{iv(0, F, "kv_recv", 1, 0, 100, 1000), iv(0, M, "kv_recv", 1, 60, 80, 1000),
              iv(0, C, "attention", 0, 0, 70), iv(1, F, "kv_recv", 1, 0, 50, 500), iv(1, C, "attention", 0, 0, 40)},
             0,
             100};
  const auto m = compute_metrics(t);
  ASSERT_EQ(m.per_rank.size(), 2u);
  const auto& r0 = m.per_rank[0];
  EXPECT_EQ(r0.comm_ns, 20);  // the copy executing, not the 100 ns it was in flight
  EXPECT_EQ(r0.comm_in_flight_ns, 100);
  EXPECT_EQ(r0.overlap_ns, 10);  // [60, 70): execution under compute
  EXPECT_EQ(r0.exposed_comm_ns, 10);
  EXPECT_EQ(*r0.comm_basis, "execution");
  EXPECT_EQ(r0.comm_bytes, 1000);  // counted once, from the basis intervals
  EXPECT_DOUBLE_EQ(*r0.comm_bandwidth_gbyte_per_s, 1000.0 / 20.0);
  EXPECT_EQ(r0.steps, std::vector<int>{0});  // a bracket starts no step
  const auto& r1 = m.per_rank[1];
  EXPECT_EQ(r1.comm_ns, 50);  // no execution seen: the span stands in, and says so
  EXPECT_EQ(r1.comm_in_flight_ns, 50);
  EXPECT_EQ(r1.overlap_ns, 40);
  EXPECT_EQ(*r1.comm_basis, "in_flight");
  EXPECT_EQ(*m.comm_basis, "mixed");
  EXPECT_DOUBLE_EQ(m.comm_in_flight_ns_mean, 75.0);
  const auto j = m.to_json();
  EXPECT_EQ(j["comm_basis"], "mixed");
  EXPECT_DOUBLE_EQ(j["comm_in_flight_ms"].get<double>(), 75e-6);
  EXPECT_EQ(j["per_rank"][0]["comm_basis"], "execution");
  // A cpu timeline records execution only: in flight equals comm time; without comm, no basis.
  Timeline cpu{{iv(0, M, "kv_recv", 1, 10, 30), iv(0, C, "attention", 0, 0, 40)}, 0, 40};
  const auto mc = compute_metrics(cpu);
  EXPECT_EQ(mc.per_rank[0].comm_in_flight_ns, 20);
  EXPECT_EQ(*mc.comm_basis, "execution");
  const auto none = compute_metrics(Timeline{{iv(0, C, "attention", 0, 0, 40)}, 0, 40});
  EXPECT_FALSE(none.comm_basis);
  EXPECT_TRUE(none.to_json()["comm_basis"].is_null());
}

// A copy shorter than one tick of the GPU's timer can leave an execution window with begin == end.
// Its rank saw execution all the same and keeps that basis: the pass must not turn "mixed", with
// one rank's comm time in flight (8000 ns here) beside another's executing (1000 ns).
TEST(Metrics, AnEmptyExecutionWindowKeepsItsRanksBasis) {
  constexpr auto F = IntervalKind::comm_in_flight;
  Timeline t{{iv(0, F, "kv_recv", 1, 0, 8000, 512), iv(0, M, "kv_recv", 1, 7000, 7000, 512),
              iv(0, C, "attention", 0, 0, 9000), iv(1, F, "kv_recv", 1, 0, 8000, 512),
              iv(1, M, "kv_recv", 1, 6000, 7000, 512), iv(1, C, "attention", 0, 0, 9000)},
             0,
             10000};
  const auto m = compute_metrics(t);
  ASSERT_EQ(m.per_rank.size(), 2u);
  EXPECT_EQ(*m.per_rank[0].comm_basis, "execution");
  EXPECT_EQ(m.per_rank[0].comm_ns, 0);
  EXPECT_EQ(m.per_rank[0].comm_in_flight_ns, 8000);
  EXPECT_EQ(*m.per_rank[1].comm_basis, "execution");
  EXPECT_EQ(m.per_rank[1].comm_ns, 1000);
  EXPECT_EQ(*m.comm_basis, "execution");
  // An empty execution window outside the window of the pass is not seen at all.
  Timeline outside{{iv(0, F, "kv_recv", 1, 0, 8000), iv(0, M, "kv_recv", 1, 20000, 20000)}, 0, 10000};
  EXPECT_EQ(*compute_metrics(outside).comm_basis, "in_flight");
}

TEST(Metrics, NestedCommUnderComputeIsFullyOverlapped) {
  Timeline t{{iv(0, C, "attention", 0, 0, 100), iv(0, M, "kv_recv", 1, 10, 20), iv(0, M, "kv_recv", 1, 15, 40),
              iv(0, C, "attention", 1, 50, 60)},
             0,
             100};
  const auto m = compute_metrics(t);
  EXPECT_EQ(m.per_rank[0].comm_ns, 30);
  EXPECT_EQ(m.per_rank[0].compute_ns, 100);  // the nested compute adds nothing
  EXPECT_DOUBLE_EQ(*m.per_rank[0].overlap_fraction, 1.0);
  EXPECT_EQ(m.per_rank[0].exposed_comm_ns, 0);
}

TEST(Metrics, EmptyCommGivesNullOverlapNotOne) {
  Timeline t{{iv(0, C, "attention", 0, 0, 10), iv(1, C, "attention", 0, 0, 12)}, 0, 12};
  const auto m = compute_metrics(t);
  EXPECT_FALSE(m.per_rank[0].overlap_fraction.has_value());
  EXPECT_FALSE(m.overlap_fraction.has_value());
  const auto j = m.to_json();
  EXPECT_TRUE(j["overlap_fraction"].is_null());
  EXPECT_TRUE(j["per_rank"][1]["overlap_fraction"].is_null());
  EXPECT_DOUBLE_EQ(j["exposed_comm_ms"].get<double>(), 0.0);
  EXPECT_TRUE(j["comm_bandwidth_gbyte_per_s"].is_null());
}

TEST(Metrics, IntervalsAreClippedToTheWindow) {
  Timeline t{{iv(0, C, "attention", 0, 0, 20), iv(0, M, "kv_recv", 1, 40, 60), iv(0, C, "merge", 0, 70, 80)}, 10, 50};
  const auto m = compute_metrics(t);
  EXPECT_EQ(m.per_rank[0].compute_ns, 10);
  EXPECT_EQ(m.per_rank[0].comm_ns, 10);
  EXPECT_EQ(m.per_rank[0].interval_count, 2u);
  EXPECT_EQ(m.pass_time_ns, 40);
}

// Two ranks, two ring steps; step j on a rank runs from the end of its step j-1 to the end of step
// j's last compute, so rank 0's step 1 includes its wait for K/V until 15.
Timeline two_step_ring() {
  return Timeline{{
                      iv(0, C, "attention", 0, 0, 10),
                      iv(0, C, "merge", 0, 10, 12),
                      iv(0, M, "kv_recv", 1, 0, 15, 1000),
                      iv(0, C, "attention", 1, 15, 25),
                      iv(0, C, "merge", 1, 25, 27),
                      iv(1, C, "attention", 0, 0, 20),
                      iv(1, C, "merge", 0, 20, 22),
                      iv(1, M, "kv_recv", 1, 0, 5, 1000),
                      iv(1, C, "attention", 1, 22, 30),
                      iv(1, C, "merge", 1, 30, 31),
                  },
                  0,
                  31};
}

TEST(Metrics, StepTimesAndCriticalPath) {
  const auto m = compute_metrics(two_step_ring());
  EXPECT_EQ(m.per_rank[0].step_ns, (std::vector<std::int64_t>{12, 15}));
  EXPECT_EQ(m.per_rank[1].step_ns, (std::vector<std::int64_t>{22, 9}));
  EXPECT_EQ(m.steps, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.step_time_ns, (std::vector<std::int64_t>{22, 15}));
  ASSERT_TRUE(m.critical_path_ns.has_value());
  EXPECT_EQ(*m.critical_path_ns, 37);
  // A final merge after the last step is the tail.
  auto t = two_step_ring();
  t.intervals.push_back(iv(1, C, "final_merge", -1, 31, 35));
  t.window_end_ns = 35;
  EXPECT_EQ(*compute_metrics(t).critical_path_ns, 41);
}

TEST(Metrics, ImbalanceUsesAttentionTimeAndWorkImbalanceTheFlops) {
  MetricsInputs in;
  in.flops_per_rank = {1e6, 3e6};
  const auto m = compute_metrics(two_step_ring(), in);
  EXPECT_TRUE(m.imbalance_from_attention);
  EXPECT_EQ(m.per_rank[0].attention_ns, 20);
  EXPECT_EQ(m.per_rank[1].attention_ns, 28);
  EXPECT_DOUBLE_EQ(*m.imbalance, 28.0 / 24.0);
  EXPECT_DOUBLE_EQ(*m.work_imbalance, 1.5);
  EXPECT_DOUBLE_EQ(*m.per_rank[1].attention_tflops, 3e6 / 28.0 / 1e3);
  // The slowest rank is the lowest rate, not the longest attention time: rank 0 does a third of
  // the work in 20 ns against rank 1's 28.
  EXPECT_DOUBLE_EQ(*m.attention_tflops_slowest_rank, 1e6 / 20.0 / 1e3);
  EXPECT_EQ(*m.slowest_rank, 0);
  EXPECT_EQ(m.to_json()["slowest_rank"], 0);
  // Without "attention" intervals the basis is all compute.
  Timeline t{{iv(0, C, "gemm", -1, 0, 10), iv(1, C, "gemm", -1, 0, 30)}, 0, 30};
  const auto m2 = compute_metrics(t);
  EXPECT_FALSE(m2.imbalance_from_attention);
  EXPECT_DOUBLE_EQ(*m2.imbalance, 1.5);
  EXPECT_EQ(m2.to_json()["imbalance_basis"], "compute");
}

// The first H200 run printed 1457.6 TFLOP/s for c = 8 on a 989 TFLOP/s device: the sum over the
// simulated GPUs. The headline divides by c, taken from the per-rank FLOPs.
TEST(Metrics, HeadlineIsPerRankAndNeverTheSum) {
  MetricsInputs in;
  in.flops = 8e12;
  in.flops_per_rank.assign(8, 1e12);
  in.pass_time_ns = 10;
  Timeline t;
  for (int r = 0; r < 8; ++r) t.intervals.push_back(iv(r, IntervalKind::compute, "attention", 0, 0, r == 3 ? 10 : 8));
  t.window_end_ns = 10;
  const auto m = compute_metrics(t, in);
  EXPECT_DOUBLE_EQ(*m.attention_tflops_aggregate, 8e12 / 10 / 1e3);
  EXPECT_DOUBLE_EQ(*m.attention_tflops, 1e12 / 10 / 1e3);
  EXPECT_DOUBLE_EQ(*m.attention_tflops_slowest_rank, 1e12 / 10 / 1e3);
  EXPECT_EQ(*m.slowest_rank, 3);
  const auto j = m.to_json();
  EXPECT_DOUBLE_EQ(j["attention_tflops"].get<double>(), 1e12 / 10 / 1e3);
  EXPECT_DOUBLE_EQ(j["attention_tflops_aggregate"].get<double>(), 8e12 / 10 / 1e3);
}

// Eight virtual ranks that ran at once on one GPU (cuda --rank-mode concurrent): that GPU sustained
// the whole pass's FLOPs, so the per-GPU headline divides by the GPUs at work, not by c. Divided by
// c it read 8x too low and every check against the peak passed trivially.
TEST(Metrics, HeadlineDividesByTheGpusThatDidTheWork) {
  Timeline t;
  for (int r = 0; r < 8; ++r) t.intervals.push_back(iv(r, IntervalKind::compute, "attention", 0, 0, 10));
  t.window_end_ns = 10;
  MetricsInputs in;
  in.flops = 8e12;
  in.flops_per_rank.assign(8, 1e12);
  in.pass_time_ns = 10;
  const struct {
    int gpus;  // as the executor reports it
    double per_gpu;
    int divisor;
  } rows[] = {{0, 1e12, 8}, {8, 1e12, 8}, {1, 8e12, 1}, {2, 4e12, 2}, {3, 8e12 / 3, 3}};
  for (const auto& row : rows) {
    in.gpus = row.gpus;
    const auto m = compute_metrics(t, in);
    EXPECT_DOUBLE_EQ(*m.attention_tflops, row.per_gpu / 10 / 1e3) << "gpus " << row.gpus;
    EXPECT_DOUBLE_EQ(*m.attention_tflops_aggregate, 8e12 / 10 / 1e3);
    EXPECT_EQ(m.attention_tflops_gpus, row.divisor);
    EXPECT_EQ(m.to_json()["attention_tflops_gpus"], row.divisor);
  }
}

TEST(Metrics, RatesAndLaunchOverhead) {
  MetricsInputs in;
  in.flops = 2e12;
  in.pass_time_ns = 40;  // the measured replay, longer than the busy 31 ns
  in.eager_time_ns = 55;
  const auto m = compute_metrics(two_step_ring(), in);
  // Two ranks in the timeline and no per-rank FLOPs: the headline is per rank, the sum named so.
  EXPECT_DOUBLE_EQ(*m.attention_tflops_aggregate, 2e12 / 40.0 / 1e3);  // FLOP/ns = GFLOP/s
  EXPECT_DOUBLE_EQ(*m.attention_tflops, 2e12 / 2 / 40.0 / 1e3);
  EXPECT_FALSE(m.attention_tflops_slowest_rank);  // no per-rank FLOPs, no per-rank rate
  EXPECT_EQ(m.comm_bytes, 2000);
  EXPECT_DOUBLE_EQ(*m.per_rank[0].comm_bandwidth_gbyte_per_s, 1000.0 / 15.0);  // bytes/ns = GB/s
  EXPECT_DOUBLE_EQ(*m.comm_bandwidth_gbyte_per_s, 2000.0 / 20.0);
  EXPECT_EQ(m.busy_ns, 31);
  EXPECT_EQ(*m.launch_overhead_ns, 9);
  EXPECT_EQ(*m.eager_minus_graph_ns, 15);
  EXPECT_FALSE(compute_metrics(two_step_ring()).launch_overhead_ns.has_value());
}

TEST(Metrics, JsonFieldsAreInMilliseconds) {
  auto t = two_step_ring();
  for (auto& x : t.intervals) {
    x.begin_ns *= 1'000'000;
    x.end_ns *= 1'000'000;
  }
  t.window_end_ns *= 1'000'000;
  const auto j = compute_metrics(t).to_json();
  EXPECT_DOUBLE_EQ(j["per_rank"][0]["comm_time_ms"].get<double>(), 15.0);
  // kv_recv [0,15) has compute under it only until 12: 3 ms exposed while rank 0 waits.
  EXPECT_DOUBLE_EQ(j["per_rank"][0]["exposed_comm_ms"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["critical_path_ms"].get<double>(), 37.0);
  EXPECT_EQ(j["rank_count"], 2);
  EXPECT_EQ(j["step_times"][1]["step"], 1);
}

TEST(Metrics, WithoutAWindowTheHullOfTheIntervalsIsUsed) {
  Timeline t{{iv(0, C, "attention", 0, 100, 130), iv(0, M, "kv_recv", 1, 120, 150)}, 0, 0};
  const auto m = compute_metrics(t);
  EXPECT_EQ(m.window_begin_ns, 100);
  EXPECT_EQ(m.window_end_ns, 150);
  EXPECT_EQ(m.pass_time_ns, 50);
  EXPECT_EQ(m.per_rank[0].comm_ns, 30);
  EXPECT_DOUBLE_EQ(*m.per_rank[0].overlap_fraction, 10.0 / 30.0);
}

TEST(Metrics, RejectsIntervalEndingBeforeItBegins) {
  Timeline t{{iv(0, C, "attention", 0, 10, 5)}, 0, 20};
  EXPECT_THROW(compute_metrics(t), Error);
}

// Random timelines (empty intervals among them): per-rank comm (execution, or in flight for a rank
// with no execution in the window), comm in flight, compute, overlap and exposed comm, by counting cells.
TEST(Metrics, MatchesBruteForceOnRandomTimelines) {
  std::mt19937_64 rng(12345);
  constexpr int kGrid = 300;
  std::uniform_int_distribution<int> pos(0, kGrid), len(0, 40), rank_d(0, 3), kind_d(0, 4), n_d(0, 60);
  for (int trial = 0; trial < 500; ++trial) {
    Timeline t;
    int lo = pos(rng), hi = pos(rng);
    if (lo > hi) std::swap(lo, hi);
    if (lo == hi) ++hi;  // an empty window means "no window" (tested below)
    t.window_begin_ns = lo;
    t.window_end_ns = hi;
    const int n = n_d(rng);
    for (int i = 0; i < n; ++i) {
      const int b = pos(rng);
      t.intervals.push_back(Interval{rank_d(rng), static_cast<IntervalKind>(kind_d(rng)), "x", "n", -1, 0, b,
                                     b + len(rng)});
    }
    const auto m = compute_metrics(t);
    for (const auto& r : m.per_rank) {
      // Executed: a comm interval reaches the window, even an empty one (a copy inside one tick).
      bool executed = false;
      for (const auto& x : t.intervals)
        executed |= x.rank == r.rank && x.kind == IntervalKind::comm &&
                    std::min<std::int64_t>(x.end_ns, hi) >= std::max<std::int64_t>(x.begin_ns, lo);
      const IntervalKind basis = executed ? IntervalKind::comm : IntervalKind::comm_in_flight;
      std::int64_t comm = 0, comp = 0, both = 0, flight = 0;
      for (int cell = lo; cell < hi; ++cell) {
        bool in_comm = false, in_comp = false, in_flight = false;
        for (const auto& x : t.intervals) {
          if (x.rank != r.rank || cell < x.begin_ns || cell >= x.end_ns) continue;
          in_comm |= x.kind == basis;
          in_comp |= x.kind == IntervalKind::compute;
          in_flight |= x.kind == IntervalKind::comm || x.kind == IntervalKind::comm_in_flight;
        }
        comm += in_comm;
        comp += in_comp;
        both += in_comm && in_comp;
        flight += in_flight;
      }
      ASSERT_EQ(r.comm_ns, comm) << "trial " << trial << " rank " << r.rank;
      ASSERT_EQ(r.comm_in_flight_ns, flight) << "trial " << trial << " rank " << r.rank;
      if (comm > 0) {
        ASSERT_EQ(*r.comm_basis, executed ? "execution" : "in_flight") << "trial " << trial;
      }
      ASSERT_EQ(r.compute_ns, comp) << "trial " << trial << " rank " << r.rank;
      ASSERT_EQ(r.overlap_ns, both) << "trial " << trial << " rank " << r.rank;
      ASSERT_EQ(r.exposed_comm_ns, comm - both) << "trial " << trial;
      ASSERT_EQ(r.overlap_fraction.has_value(), comm > 0) << "trial " << trial;
      if (comm > 0) {
        ASSERT_DOUBLE_EQ(*r.overlap_fraction, static_cast<double>(both) / static_cast<double>(comm));
      }
    }
  }
}

}  // namespace
}  // namespace rb::bench
