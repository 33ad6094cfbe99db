// The ring simulator: closed forms in the limiting cases, agreement with a brute-force event replay
// of the executor's protocol on random shapes, the plate's configuration, and speed at c = 1024.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "common/error.hpp"
#include "executor_event_sim.hpp"
#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
#include "ring/plan/work_matrix.hpp"
#include "schedule_of.hpp"

namespace rb::model {
namespace {

// A step table from a real plan's work: S, c, split, with `flops_per_s` (0: no compute) and a link
// of `bytes_per_s` (0: free transfers).
StepTable plan_table(std::int64_t seq, int c, Split split, Variant v, double flops_per_s, double bytes_per_s) {
  Config cfg;
  cfg.seq = seq;
  cfg.cp = c;
  cfg.split = split;
  cfg.variant = v;
  cfg.heads = 16;
  cfg.kv_heads = 1;
  cfg.head_dim = 128;
  cfg.dtype = DType::bfloat16;
  const auto wm = ring::make_work_matrix(cfg);
  Link link{"test", bytes_per_s > 0 ? bytes_per_s : 1.0, 0, ""};
  StepTable t = make_step_table(c, wm.steps, v, wm.schedule, wm.unmasked, wm.recv_bytes, 128, 16,
                                flops_per_s > 0 ? flops_per_s : 1.0, link);
  if (flops_per_s == 0) std::fill(t.compute_s.begin(), t.compute_s.end(), 0.0);
  if (bytes_per_s == 0) std::fill(t.transfer_s.begin(), t.transfer_s.end(), 0.0);
  return t;
}

// docs/design.md §6: the critical path of compute is the sum over steps of the slowest rank's step.
double sum_of_step_maxima(const StepTable& t) {
  double total = 0;
  for (int j = 0; j < t.steps; ++j) {
    double mx = 0;
    for (int r = 0; r < t.ranks; ++r) mx = std::max(mx, t.compute(r, j));
    total += mx;
  }
  return total;
}

TEST(RingSimulator, NoCommPassIsComputeCriticalPath) {
  for (Split split : {Split::contiguous, Split::zigzag, Split::striped})
    for (int c : {1, 2, 3, 8, 16}) {
      SCOPED_TRACE(fmt::format("{} c={}", to_string(split), c));
      const StepTable t = plan_table(4096 * 3, c, split, Variant::ring, 445.05e12, 0);
      const Simulation sim = simulate(t);
      EXPECT_NEAR(sim.pass_s, sum_of_step_maxima(t), 1e-15);
      EXPECT_DOUBLE_EQ(sim.pass_s, sim.pass_without_comm_s);
      EXPECT_FALSE(sim.overlap_fraction.has_value());  // no comm: undefined, not 1
      EXPECT_DOUBLE_EQ(sim.exposed_comm_max_s, 0.0);
    }
}

TEST(RingSimulator, NoComputePassIsCMinusOneTransfers) {
  for (Split split : {Split::contiguous, Split::zigzag, Split::striped})
    for (int c : {2, 3, 8, 16}) {
      SCOPED_TRACE(fmt::format("{} c={}", to_string(split), c));
      const StepTable t = plan_table(4096 * 3, c, split, Variant::ring, 0, 50e9);
      // Equal shards: every transfer is one block, S/c tokens of K and V.
      const double block_s = 4096.0 * 3 / c * (2 * 128 * 2) / 50e9;
      const Simulation sim = simulate(t);
      EXPECT_NEAR(sim.pass_s, (c - 1) * block_s, 1e-15);
      EXPECT_DOUBLE_EQ(sim.pass_without_comm_s, 0.0);
      EXPECT_NEAR(sim.exposed_comm_max_s, (c - 1) * block_s, 1e-15);  // nothing to hide behind
      ASSERT_TRUE(sim.overlap_fraction.has_value());
      EXPECT_DOUBLE_EQ(*sim.overlap_fraction, 0.0);
    }
}

TEST(RingSimulator, UniformStepsHandCase) {
  // c = 4, every step 2 ms of compute, every transfer 3 ms: the transfer of step j+1 starts when both
  // ends are ready; from iteration 2 on it also waits for step j-1's compute (buffer release).
  //   iteration 0: copy [0, 3];  step 0 [0, 2], step 1 [3, 5]
  //   iteration 1: copy [3, 6];  step 2 [6, 8]
  //   iteration 2: ready = max(exit 6, step 1 end 5) = 6, copy [6, 9]; step 3 [9, 11]
  StepTable t(4, 4, Variant::ring, rb::testing::schedule_of(Variant::ring, 4));
  std::fill(t.compute_s.begin(), t.compute_s.end(), 2e-3);
  std::fill(t.transfer_s.begin(), t.transfer_s.end(), 3e-3);
  const Simulation sim = simulate(t);
  EXPECT_NEAR(sim.pass_s, 11e-3, 1e-15);
  // Per rank: comm [0,3] [3,6] [6,9] = 9 ms; compute [0,2] [3,5] [6,8] [9,11]; overlap 2+2+2 = 6 ms.
  for (const auto& r : sim.per_rank) {
    EXPECT_NEAR(r.comm_s, 9e-3, 1e-15);
    EXPECT_NEAR(r.overlap_s, 6e-3, 1e-15);
    EXPECT_NEAR(r.exposed_comm_s, 3e-3, 1e-15);
    EXPECT_NEAR(*r.overlap_fraction, 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(r.idle_s, 3e-3, 1e-15);
  }
}

// A head exchange's all-to-alls (docs/design.md §3b): the ring of the groups starts after the one in
// and the pass ends after the one out, both exposed, none of it under compute.
TEST(RingSimulator, TheAllToAllsComeBeforeAndAfterTheRingAndAreExposed) {
  StepTable t(4, 4, Variant::hybrid, rb::testing::schedule_of(Variant::ring, 4));
  std::fill(t.compute_s.begin(), t.compute_s.end(), 2e-3);
  std::fill(t.transfer_s.begin(), t.transfer_s.end(), 3e-3);
  const Simulation ring = simulate(t);
  t.exchange_in_s = 1e-3;
  t.exchange_out_s = 0.5e-3;
  const Simulation sim = simulate(t, {.keep_steps = true});
  EXPECT_NEAR(sim.pass_s, ring.pass_s + 1.5e-3, 1e-15);
  EXPECT_DOUBLE_EQ(sim.pass_without_comm_s, ring.pass_without_comm_s);
  for (int r = 0; r < 4; ++r) {
    EXPECT_NEAR(sim.per_rank[r].exposed_comm_s, ring.per_rank[r].exposed_comm_s + 1.5e-3, 1e-15);
    EXPECT_NEAR(sim.per_rank[r].overlap_s, ring.per_rank[r].overlap_s, 1e-15);
    EXPECT_NEAR(sim.compute_begin_s[static_cast<std::size_t>(r) * 4], 1e-3, 1e-15);  // step 0 after the in
  }
  // Its timeline carries both, before the first step and after the last.
  int exchanges = 0;
  for (const auto& iv : to_timeline(sim).intervals)
    if (iv.name == "qkv_alltoall" || iv.name == "o_alltoall") {
      ++exchanges;
      EXPECT_EQ(iv.step, -1);
      EXPECT_EQ(iv.name == "qkv_alltoall" ? iv.begin_ns : iv.end_ns, iv.name == "qkv_alltoall" ? 0 : 12500000);
    }
  EXPECT_EQ(exchanges, 8);
}

// A measured hybrid pass: its 4 ranks in 2 groups fold into 2 members, each the slowest of its group
// at each step, and the all-to-alls' times are the slowest rank's.
TEST(RingSimulator, AMeasuredExchangeFoldsItsGroupsIntoMembers) {
  HeadExchange x;
  x.degree = 2;
  x.groups = 2;
  Timeline tl;
  tl.intervals = {
      Interval{0, IntervalKind::comm, "comm", "qkv_alltoall", -1, 8, 0, 1000},
      Interval{1, IntervalKind::comm, "comm", "qkv_alltoall", -1, 8, 0, 3000},
      Interval{0, IntervalKind::compute, "compute", "attention", 0, 0, 3000, 5000},
      Interval{1, IntervalKind::compute, "compute", "attention", 0, 0, 3000, 9000},
      Interval{2, IntervalKind::compute, "compute", "attention", 1, 0, 3000, 4000},
      Interval{3, IntervalKind::comm, "comm", "kv_recv", 1, 0, 3000, 7000},
      Interval{2, IntervalKind::comm, "comm", "o_alltoall", -1, 8, 9000, 9500},
  };
  const StepTable t = step_table_from_timeline(tl, x, Variant::hybrid, rb::testing::schedule_of(Variant::ring, 2));
  EXPECT_EQ(t.ranks, 2);
  EXPECT_NEAR(t.compute(0, 0), 6e-6, 1e-15);  // rank 1's
  EXPECT_NEAR(t.compute(1, 1), 1e-6, 1e-15);
  EXPECT_NEAR(t.transfer(1, 1), 4e-6, 1e-15);  // rank 3's
  EXPECT_NEAR(t.exchange_in_s, 3e-6, 1e-15);
  EXPECT_NEAR(t.exchange_out_s, 0.5e-6, 1e-15);
}

TEST(RingSimulator, AllgatherExposesTheWholeGather) {
  const StepTable t = plan_table(8192, 8, Split::zigzag, Variant::allgather, 445.05e12, 50e9);
  const Simulation sim = simulate(t);
  EXPECT_NEAR(sim.pass_s, t.transfer(0, 0) + t.compute(0, 0), 1e-15);
  EXPECT_NEAR(sim.exposed_comm_max_s, t.transfer(0, 0), 1e-15);
  EXPECT_DOUBLE_EQ(*sim.overlap_fraction, 0.0);
  EXPECT_NEAR(sim.pass_without_comm_s, t.compute(0, 0), 1e-15);
}

// ring-bidirectional moves half a block each way per step: over links that carry both directions
// at once a step's transfer takes half the ring's, except at c = 2 where both halves come from the
// same neighbour over one link. With transfers that dominate, the pass is shorter than the ring's.
TEST(RingSimulator, BidirectionalHalvesTheTransferOfEveryStep) {
  for (int c : {2, 4, 8}) {
    const StepTable ring = plan_table(4096 * c, c, Split::zigzag, Variant::ring, 445.05e12, 1e9);
    const StepTable bi = plan_table(4096 * c, c, Split::zigzag, Variant::ring_bidirectional, 445.05e12, 1e9);
    for (int r = 0; r < c; ++r) {
      // Each step sees other halves, but every rank computes the ring's work over the pass.
      double bi_compute = 0, ring_compute = 0;
      for (int j = 0; j < c; ++j) {
        bi_compute += bi.compute(r, j);
        ring_compute += ring.compute(r, j);
        if (j == 0) continue;
        EXPECT_NEAR(bi.transfer(r, j), c == 2 ? ring.transfer(r, j) : ring.transfer(r, j) / 2, 1e-15)
            << "c=" << c << " rank " << r << " step " << j;
      }
      EXPECT_NEAR(bi_compute, ring_compute, 1e-12);
    }
    if (c > 2) {
      EXPECT_LT(simulate(bi).pass_s, simulate(ring).pass_s);
    }
  }
}

TEST(RingSimulator, PlateConfigurationHidesTheRing) {
  // Plate at c = 16, zig-zag: each transfer is ~0.084 ms against ~0.62 ms of compute per step, so
  // every copy sits under a step's compute: nothing exposed, the pass is the compute alone.
  const StepTable t = plan_table(131072, 16, Split::zigzag, Variant::ring, 0.45 * 989e12, 50e9);
  const Simulation sim = simulate(t);
  EXPECT_DOUBLE_EQ(sim.exposed_comm_max_s, 0.0);
  EXPECT_DOUBLE_EQ(*sim.overlap_fraction, 1.0);
  EXPECT_NEAR(sim.pass_s, sim.pass_without_comm_s, 1e-15);
}

TEST(RingSimulator, MatchesEventReplayOnRandomShapes) {
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<int> cdist(1, 9);
  std::uniform_real_distribution<double> time(0.0, 2.0);
  std::bernoulli_distribution zero(0.15);
  for (int trial = 0; trial < 400; ++trial) {
    const Variant v = trial % 5 == 4 ? Variant::allgather : Variant::ring;
    const int c = cdist(rng);
    StepTable t(c, v == Variant::ring ? c : 1, v, rb::testing::schedule_of(v, c));
    for (auto& x : t.compute_s) x = zero(rng) ? 0.0 : time(rng);
    for (auto& x : t.transfer_s) x = zero(rng) ? 0.0 : time(rng);
    SCOPED_TRACE(fmt::format("trial {} c={} {}", trial, c, to_string(v)));
    const Simulation sim = simulate(t, {.keep_steps = true});
    const auto ref = testing::event_simulate(t);
    ASSERT_TRUE(ref.complete);
    EXPECT_NEAR(sim.pass_s, ref.pass_s, 1e-12);
    ASSERT_EQ(sim.compute_begin_s.size(), ref.cb.size());
    for (std::size_t i = 0; i < ref.cb.size(); ++i) {
      EXPECT_NEAR(sim.compute_begin_s[i], ref.cb[i], 1e-12) << "entry " << i;
      EXPECT_NEAR(sim.compute_end_s[i], ref.ce[i], 1e-12) << "entry " << i;
      EXPECT_NEAR(sim.comm_begin_s[i], ref.xb[i], 1e-12) << "entry " << i;
      EXPECT_NEAR(sim.comm_end_s[i], ref.xe[i], 1e-12) << "entry " << i;
    }
    // The streamed per-rank totals against docs/design.md §6 applied to the replay's intervals, every copy
    // against every compute (the simulator only looks at two neighbouring steps).
    for (int r = 0; r < c; ++r) {
      double comm = 0, both = 0, busy = 0;
      for (int a = 0; a < t.steps; ++a) {
        const auto ia = static_cast<std::size_t>(r) * t.steps + a;
        comm += ref.xe[ia] - ref.xb[ia];
        busy += ref.ce[ia] - ref.cb[ia];
        for (int b = 0; b < t.steps; ++b) {
          const auto ib = static_cast<std::size_t>(r) * t.steps + b;
          both += std::max(0.0, std::min(ref.xe[ia], ref.ce[ib]) - std::max(ref.xb[ia], ref.cb[ib]));
        }
      }
      const auto& rs = sim.per_rank[r];
      EXPECT_NEAR(rs.comm_s, comm, 1e-12);
      EXPECT_NEAR(rs.overlap_s, both, 1e-12);
      EXPECT_NEAR(rs.exposed_comm_s, comm - both, 1e-12);
      EXPECT_NEAR(rs.idle_s, ref.pass_s - busy, 1e-12);
      EXPECT_EQ(rs.overlap_fraction.has_value(), comm > 0);
    }
  }
}

TEST(RingSimulator, TimelineRoundTripsThroughStepTable) {
  // A timeline drawn from a simulation gives back the table it came from (up to ns rounding): the
  // path by which a measured run is fed to the simulator.
  const StepTable t = plan_table(8192, 8, Split::contiguous, Variant::ring, 445.05e12, 50e9);
  const Simulation sim = simulate(t, {.keep_steps = true});
  const Timeline tl = to_timeline(sim);
  const StepTable back = step_table_from_timeline(tl, 8, Variant::ring, rb::testing::schedule_of(Variant::ring, 8));
  for (int r = 0; r < 8; ++r)
    for (int j = 0; j < 8; ++j) {
      EXPECT_NEAR(back.compute(r, j), t.compute(r, j), 2e-9);
      if (j > 0) {
        EXPECT_NEAR(back.transfer(r, j), t.transfer(r, j), 2e-9);
      }
    }
  EXPECT_NEAR(simulate(back).pass_s, sim.pass_s, 1e-7);
}

// A transfer's time is its execution; a step whose transfer was only bracketed (NCCL under the
// timed passes) takes the bracket, and one that has both takes the execution.
TEST(RingSimulator, StepTableTakesExecutionAndFallsBackToInFlight) {
  Timeline tl;
  tl.intervals = {
      Interval{0, IntervalKind::comm_in_flight, "comm in flight", "kv_recv", 1, 0, 0, 9000},
      Interval{0, IntervalKind::comm, "comm", "kv_recv", 1, 0, 7000, 9000},
      Interval{1, IntervalKind::comm_in_flight, "comm", "kv_recv", 1, 0, 0, 5000},
  };
  const StepTable t = step_table_from_timeline(tl, 2, Variant::ring, rb::testing::schedule_of(Variant::ring, 2));
  EXPECT_NEAR(t.transfer(0, 1), 2e-6, 1e-15);
  EXPECT_NEAR(t.transfer(1, 1), 5e-6, 1e-15);
}

TEST(RingSimulator, TimelineNeedsKeptSteps) {
  const StepTable t = plan_table(64, 4, Split::zigzag, Variant::ring, 1e12, 1e9);
  EXPECT_THROW(to_timeline(simulate(t)), Error);
  const Simulation kept = simulate(t, {.keep_steps = true});
  // 4 compute intervals per rank, 3 copies (step 0 uses the rank's own block).
  EXPECT_EQ(to_timeline(kept).intervals.size(), 4u * (4 + 3));
}

TEST(RingSimulator, RejectsMalformedTables) {
  StepTable t(4, 3, Variant::ring, rb::testing::schedule_of(Variant::ring, 4));
  EXPECT_THROW(simulate(t), Error);
  StepTable u(2, 2, Variant::ring, rb::testing::schedule_of(Variant::ring, 2));
  u.compute(1, 1) = -1;
  EXPECT_THROW(simulate(u), Error);
}

// c = 1024, S = 10M: the pass is no shorter than its compute critical path. Speed is measured by
// bench/micro/model_bench.cpp, not asserted here.
TEST(RingSimulator, HandlesTheLargestScale) {
  const StepTable t = plan_table(10 * 1024 * 1024, 1024, Split::zigzag, Variant::ring, 0.45 * 989e12, 50e9);
  const Simulation sim = simulate(t);
  EXPECT_EQ(sim.per_rank.size(), 1024u);
  EXPECT_GE(sim.pass_s, sim.pass_without_comm_s);
  EXPECT_GT(sim.pass_without_comm_s, 0.0);
}

}  // namespace
}  // namespace rb::model
