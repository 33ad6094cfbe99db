// The program simulator on hand-built programs whose times are worked out here: the lane and
// dependency rules, an exchange's rendezvous, a collective, the copies' overlap, the compute
// critical path, and the schedules it refuses. Its agreement with the ring simulator over real
// programs is tests/bench/sweep/test_program_costs.cpp's.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "model/op_simulator.hpp"

namespace rb::model {
namespace {

SimOp compute(double s, std::vector<int> deps = {}, int step = 0) {
  SimOp o;
  o.seconds = s;
  o.deps = std::move(deps);
  o.name = "attention";
  o.step = step;
  return o;
}

SimOp exchange(double s, int from, int to, std::vector<int> deps = {}, int lane = 1) {
  SimOp o;
  o.lane = lane;
  o.seconds = s;
  o.from = from;
  o.to = to;
  o.deps = std::move(deps);
  o.kind = IntervalKind::comm;
  o.name = "kv_recv";
  return o;
}

// Rank r of a two-rank ring: step 0's attention, the exchange of the other block (after nothing:
// the block sent is the own one), step 1's attention after the exchange.
RankOps ring_rank(int r, double a0, double x, double a1) {
  RankOps ro;
  ro.lanes = 2;
  ro.ops = {compute(a0), exchange(x, 1 - r, 1 - r), compute(a1, {1}, 1)};
  return ro;
}

TEST(OpSimulator, TwoRankRingOverlapsTheCopyWithStepZero) {
  const std::vector<RankOps> ranks = {ring_rank(0, 3, 2, 1), ring_rank(1, 1, 2, 1)};
  const OpSimulation sim = simulate_ops(ranks, {.keep_timeline = true});
  // Both copies run 0..2; rank 0's step 1 starts at max(3, 2) = 3, rank 1's at 2.
  EXPECT_DOUBLE_EQ(sim.pass_s, 4.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[0].finish_s, 4.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[1].finish_s, 3.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[0].overlap_s, 2.0);  // under step 0 (0..3)
  EXPECT_DOUBLE_EQ(sim.per_rank[1].overlap_s, 1.0);  // step 0 is 0..1
  EXPECT_DOUBLE_EQ(sim.per_rank[1].exposed_comm_s, 1.0);
  EXPECT_DOUBLE_EQ(sim.exposed_comm_max_s, 1.0);
  EXPECT_DOUBLE_EQ(*sim.overlap_fraction, 3.0 / 4.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[1].idle_s, 4.0 - 2.0);
  EXPECT_DOUBLE_EQ(sim.pass_without_comm_s, 4.0);  // rank 0's 3 + 1
  ASSERT_EQ(sim.timeline.intervals.size(), 6u);
  EXPECT_EQ(sim.timeline.intervals[1].lane, "comm");
  EXPECT_EQ(sim.timeline.intervals[2].begin_ns, 3'000'000'000);
}

TEST(OpSimulator, AnExchangeWaitsForItsSenderAndHoldsForItsReceiver) {
  // Three ranks, one hop each: r receives from r-1 and sends to r+1. Rank 1's exchange waits on a
  // step 0 of 5 s; rank 2 receives from it, so its copy starts at 5; rank 0 sends to rank 1, whose
  // copy starts at 5 too, so rank 0's exchange ends at 5 + 1 though its own copy ended at 1.
  std::vector<RankOps> ranks(3);
  const double work[] = {0, 5, 0};
  for (int r = 0; r < 3; ++r) {
    ranks[r].lanes = 2;
    ranks[r].ops = {compute(work[r]), exchange(1, (r + 2) % 3, (r + 1) % 3, {0})};
  }
  const OpSimulation sim = simulate_ops(ranks, {.keep_timeline = true});
  auto copy = [&](int r) {
    for (const Interval& iv : sim.timeline.intervals)
      if (iv.rank == r && iv.kind == IntervalKind::comm)
        return std::pair(static_cast<double>(iv.begin_ns) / 1e9, static_cast<double>(iv.end_ns) / 1e9);
    return std::pair(-1.0, -1.0);
  };
  EXPECT_EQ(copy(0), std::pair(0.0, 1.0));  // rank 2 (its sender) is ready at 0
  EXPECT_EQ(copy(1), std::pair(5.0, 6.0));
  EXPECT_EQ(copy(2), std::pair(5.0, 6.0));          // its sender, rank 1, was ready at 5
  EXPECT_DOUBLE_EQ(sim.per_rank[0].finish_s, 6.0);  // held until rank 1 copied from it
  EXPECT_DOUBLE_EQ(sim.per_rank[2].finish_s, 6.0);
  EXPECT_DOUBLE_EQ(sim.pass_s, 6.0);
}

TEST(OpSimulator, ALaneRunsItsOpsInOrderAndOtherLanesAlongside) {
  // One rank: two kernels on lane 0, a copy on lane 1 that waits for the first, a third kernel that
  // waits for the copy. Lane 1 starts at 2, ends at 6; the third kernel at max(2 + 3, 6) = 6.
  RankOps ro;
  ro.lanes = 2;
  SimOp x;
  x.lane = 1;
  x.seconds = 4;
  x.deps = {0};
  x.kind = IntervalKind::comm;
  x.name = "o_alltoall";
  ro.ops = {compute(2), compute(3), x, compute(1, {2})};
  const std::vector<RankOps> ranks = {ro};
  const OpSimulation sim = simulate_ops(ranks);
  EXPECT_DOUBLE_EQ(sim.pass_s, 7.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[0].compute_s, 6.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[0].comm_s, 4.0);
  EXPECT_DOUBLE_EQ(sim.per_rank[0].overlap_s, 3.0);
  EXPECT_DOUBLE_EQ(sim.pass_without_comm_s, 6.0);  // a kind-comm op with no peer is still comm
}

TEST(OpSimulator, ACollectiveStartsWhenEveryMemberIsReady) {
  std::vector<RankOps> ranks(3);
  for (int r = 0; r < 3; ++r) {
    SimOp g;
    g.lane = 1;
    g.seconds = 2;
    g.group = {0, 1, 2};
    g.deps = {0};
    g.kind = IntervalKind::comm;
    g.name = "kv_allgather";
    ranks[r].lanes = 2;
    ranks[r].ops = {compute(r), g, compute(1, {1})};
  }
  const OpSimulation sim = simulate_ops(ranks);
  for (int r = 0; r < 3; ++r) EXPECT_DOUBLE_EQ(sim.per_rank[r].finish_s, 2.0 + 2.0 + 1.0);
  EXPECT_DOUBLE_EQ(sim.pass_without_comm_s, 3.0);
}

TEST(OpSimulator, RefusesWhatTheProgramRulesExclude) {
  {  // a dependency on a later op
    std::vector<RankOps> ranks(1);
    ranks[0].ops = {compute(1, {1}), compute(1)};
    EXPECT_THROW(simulate_ops(ranks), Error);
  }
  {  // a lane it does not have
    std::vector<RankOps> ranks = {ring_rank(0, 1, 1, 1), ring_rank(1, 1, 1, 1)};
    ranks[1].lanes = 1;
    EXPECT_THROW(simulate_ops(ranks), Error);
  }
  {  // transfers that do not pair up: rank 1's first transfer names rank 2, not rank 0
    std::vector<RankOps> ranks(3);
    for (int r = 0; r < 3; ++r) {
      ranks[r].lanes = 2;
      ranks[r].ops = {exchange(1, (r + 2) % 3, (r + 1) % 3)};
    }
    ranks[1].ops[0].from = 2;
    try {
      simulate_ops(ranks);
      FAIL() << "an unpaired transfer was simulated";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("does not name rank"), std::string::npos) << e.what();
    }
  }
  {  // every rank waits on another: rank 0 lists lane 1 then lane 2, rank 1 lane 2 then lane 1
    std::vector<RankOps> ranks(2);
    for (int r = 0; r < 2; ++r) {
      ranks[r].lanes = 3;
      ranks[r].ops = {exchange(1, 1 - r, 1 - r, {}, 1), exchange(1, 1 - r, 1 - r, {0}, 2)};
    }
    ranks[1].ops = {exchange(1, 0, 0, {}, 2), exchange(1, 0, 0, {0}, 1)};
    try {
      simulate_ops(ranks);
      FAIL() << "a stuck schedule was simulated";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("every rank waits on another"), std::string::npos) << e.what();
    }
  }
  {  // a transfer on a lane its peer does not have
    std::vector<RankOps> ranks = {ring_rank(0, 1, 1, 1), ring_rank(1, 1, 1, 1)};
    ranks[0].lanes = 3;
    ranks[0].ops[1].lane = 2;
    EXPECT_THROW(simulate_ops(ranks), Error);
  }
  {  // a negative time
    std::vector<RankOps> ranks(1);
    ranks[0].ops = {compute(-1)};
    EXPECT_THROW(simulate_ops(ranks), Error);
  }
}

}  // namespace
}  // namespace rb::model
