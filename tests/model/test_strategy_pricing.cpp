// model/strategy_pricing: a strategy priced from its plan's tables gives the closed forms' bytes and
// compute (docs/model.md, "Traffic against compute", "The backward", "Strategies"), and the
// simulator's pass in the two regimes where it has a closed form (free transfers: the sum over steps
// of the slowest rank's step; free compute: the transfers one after the other). Every expected figure
// is worked out here from the formulas and a contiguous ring's tables built by hand.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "model/strategy_pricing.hpp"

namespace rb::model {
namespace {

// S = 16 over c = 4 ranks, n = 4 tokens each, Hq = 4, Hkv = 2, D = 8, causal.
constexpr int kC = 4, kN = 4, kS = kC * kN, kHq = 4, kHkv = 2, kD = 8;

ModelInputs inputs(DType dtype, double flops_per_s, double link_bytes_per_s) {
  ModelInputs in;
  in.shape =
      {.name = "t", .layers = 1, .hidden = kHq * kD, .heads = kHq, .kv_heads = kHkv, .head_dim = kD, .source = ""};
  in.kv_dtype = dtype;
  in.device = {.name = "d", .peak_flops = flops_per_s, .source = ""};
  in.efficiency = 1.0;
  in.link = {.name = "l", .bytes_per_s = link_bytes_per_s, .latency_s = 0, .source = ""};
  in.inner_link = in.link;
  return in;
}

// One contiguous ring's tables, causal: at step j rank r holds rank (r - j) mod c's block, all of
// whose pairs are unmasked when it comes before r's, half (the diagonal) when it is r's own, none
// after. Every step but the first receives one block, n tokens of K and V.
struct RingTables {
  std::vector<std::int64_t> unmasked, recv;
  StrategyWork work;
  explicit RingTables(int element_bytes) {
    const std::int64_t block = static_cast<std::int64_t>(kN) * 2 * kHkv * kD * element_bytes;
    for (int r = 0; r < kC; ++r)
      for (int j = 0; j < kC; ++j) {
        const int origin = ((r - j) % kC + kC) % kC;
        unmasked.push_back(origin < r ? kN * kN : origin == r ? kN * (kN + 1) / 2 : 0);
        recv.push_back(j == 0 ? 0 : block);
      }
    work.ranks = kC;
    work.steps = kC;
    work.variant = Variant::ring;
    work.schedule.lanes = {KvLane{0, kN, +1}};
    work.schedule.lane_rows = kN;
    work.schedule.steps = kC;
    work.exchange.groups = kC;
    work.exchange.q_heads = kHq;
    work.exchange.kv_heads = kHkv;
    work.unmasked = unmasked;
    work.recv_bytes = recv;
  }
};

// Pairs of the slowest rank at each step, summed: the diagonal (n(n+1)/2) at step 0, a whole block
// (n²) at every later step, where rank c-1 always holds an earlier block.
constexpr double kCriticalPairs = kN * (kN + 1) / 2.0 + (kC - 1) * double{kN * kN};
constexpr double kFlopsPerPair = 4.0 * kD * kHq;

TEST(StrategyPricing, TheRingsForwardIsTheClosedForms) {
  const RingTables t(4);
  const double block = kN * 2.0 * kHkv * kD * 4;  // float32 K/V of one shard
  const ModelInputs in = inputs(DType::float32, 1e9, 2e9);
  const StrategyPrice p = price_strategy(in, kS, kC, t.work, 1.0, true);
  EXPECT_DOUBLE_EQ(p.kv_bytes, (kC - 1) * block);  // (c-1)/c * S * 2*Hkv*D*e
  EXPECT_EQ(p.kv_transfers, kC - 1);
  EXPECT_DOUBLE_EQ(p.kv_transfer_s, (kC - 1) * block / 2e9);
  EXPECT_DOUBLE_EQ(p.alltoall_bytes, 0);
  EXPECT_EQ(p.alltoall_transfers, 0);
  EXPECT_TRUE(p.alltoall_link.empty());
  // 4 * D * Hq * S(S+1)/2 / c, at 1 GFLOP/s.
  EXPECT_DOUBLE_EQ(p.flops, kFlopsPerPair * (kS * (kS + 1) / 2.0) / kC);
  EXPECT_DOUBLE_EQ(p.compute_s, p.flops / 1e9);
  // Documents: the compute scales by the share of pairs, the bytes do not.
  const StrategyPrice half = price_strategy(in, kS, kC, t.work, 0.5, false);
  EXPECT_DOUBLE_EQ(half.flops, p.flops / 2);
  EXPECT_DOUBLE_EQ(half.kv_bytes, p.kv_bytes);
  EXPECT_FALSE(half.simulation.has_value());
  ASSERT_TRUE(p.simulation.has_value());
  // Each step's block (512 bytes at 2 GB/s: 0.26 µs) hides under the step before (2.0 µs).
  EXPECT_NEAR(p.simulation->pass_s, kCriticalPairs * kFlopsPerPair / 1e9, 1e-15);
}

TEST(StrategyPricing, WithFreeComputeThePassIsTheTransfersInARow) {
  const RingTables t(4);
  const double block = kN * 2.0 * kHkv * kD * 4;
  const StrategyPrice p = price_strategy(inputs(DType::float32, 1e30, 1e6), kS, kC, t.work, 1.0, true);
  EXPECT_NEAR(p.simulation->pass_s, (kC - 1) * block / 1e6, 1e-12);
}

TEST(StrategyPricing, TheBackwardsBytesAreTheDesignsClosedForms) {
  for (const DType dtype : {DType::float32, DType::bfloat16}) {
    const double e = dtype_bytes(dtype), block = kN * 2.0 * kHkv * kD * e;
    const RingTables t(static_cast<int>(e));
    const ModelInputs in = inputs(dtype, 1e9, 1e30);
    const StrategyPrice fwd = price_strategy(in, kS, kC, t.work, 1.0, false);
    const StrategyPrice rev = price_backward(in, kS, kC, t.work, Dkv::reverse, 1.0);
    const StrategyPrice fol = price_backward(in, kS, kC, t.work, Dkv::follow, 1.0);
    EXPECT_DOUBLE_EQ(rev.bytes(), 2.0 * (kC - 1) * block) << e;                                // 2(c-1)B
    EXPECT_DOUBLE_EQ(fol.bytes(), (kC - 1) * block + kC * block * std::max(4.0, e) / e) << e;  // fp32 dK/dV
    EXPECT_EQ(rev.kv_transfers, kC);
    EXPECT_EQ(fol.kv_transfers, 2 * kC - 1);
    // 2.5 times the forward's FLOPs, step by step: with free transfers the pass is 2.5 times the
    // forward's critical path.
    EXPECT_DOUBLE_EQ(rev.flops, 2.5 * fwd.flops);
    EXPECT_NEAR(rev.simulation->pass_s, 2.5 * kCriticalPairs * kFlopsPerPair / 1e9, 1e-15);
    EXPECT_NEAR(fol.simulation->pass_s, 2.5 * kCriticalPairs * kFlopsPerPair / 1e9, 1e-15);
  }
}

TEST(StrategyPricing, TheAllGathersBackwardGathersAgainAndReduceScattersAfterTheStep) {
  const double block = kN * 2.0 * kHkv * kD * 4;
  std::vector<std::int64_t> unmasked, recv;
  for (int r = 0; r < kC; ++r) {
    unmasked.push_back(static_cast<std::int64_t>(r) * kN * kN + kN * (kN + 1) / 2);  // every earlier block and its own
    recv.push_back(static_cast<std::int64_t>((kC - 1) * block));
  }
  StrategyWork w;
  w.ranks = kC;
  w.steps = 1;
  w.variant = Variant::allgather;
  w.schedule.gathered = true;
  w.schedule.lanes = {KvLane{0, kN, +1}};
  w.schedule.steps = 1;
  w.exchange.groups = kC;
  w.unmasked = unmasked;
  w.recv_bytes = recv;
  // Free compute: the gather, then the reduce-scatter, nothing under either.
  const ModelInputs in = inputs(DType::float32, 1e30, 1e6);
  const StrategyPrice fwd = price_strategy(in, kS, kC, w, 1.0, true);
  const StrategyPrice bwd = price_backward(in, kS, kC, w, Dkv::reverse, 1.0);
  EXPECT_DOUBLE_EQ(fwd.kv_bytes, (kC - 1) * block);
  EXPECT_DOUBLE_EQ(bwd.bytes(), 2.0 * (kC - 1) * block);
  EXPECT_NEAR(fwd.simulation->pass_s, (kC - 1) * block / 1e6, 1e-12);
  EXPECT_NEAR(bwd.simulation->pass_s, 2 * (kC - 1) * block / 1e6, 1e-12);
}

TEST(StrategyPricing, UlyssesPaysItsAllToAllsBeforeAndAfterTheStep) {
  // c = 2 = U: one group, one step over the whole sequence for Hq/2 heads; Q, K, V in and O out.
  constexpr int c = 2;
  const std::vector<std::int64_t> unmasked{kS * (kS + 1) / 2, kS * (kS + 1) / 2}, recv{0, 0};
  StrategyWork w;
  w.ranks = c;
  w.steps = 1;
  w.variant = Variant::ulysses;
  w.schedule.lanes = {KvLane{0, kS, +1}};
  w.schedule.steps = 1;
  w.exchange = {.degree = 2,
                .groups = 1,
                .q_heads = kHq / 2,
                .kv_heads = kHkv / 2,
                .kv_replicas = 1,
                .qkv_bytes = 3000,
                .o_bytes = 1000,
                .do_bytes = 1000,
                .dqkv_bytes = 3000};
  w.unmasked = unmasked;
  w.recv_bytes = recv;
  ModelInputs in = inputs(DType::float32, 1e9, 1e3);  // the outer link: never used inside a node
  in.inner_link = {.name = "inner", .bytes_per_s = 1e6, .latency_s = 1e-6, .source = ""};
  const StrategyPrice p = price_strategy(in, kS, c, w, 1.0, true);
  EXPECT_DOUBLE_EQ(p.alltoall_bytes, 4000);
  EXPECT_EQ(p.alltoall_transfers, 2);
  EXPECT_EQ(p.alltoall_link, "inner");
  EXPECT_DOUBLE_EQ(p.alltoall_transfer_s, 3000 / 1e6 + 1e-6 + 1000 / 1e6 + 1e-6);
  EXPECT_DOUBLE_EQ(p.kv_bytes, 0);
  const double step_s = kFlopsPerPair / 2 * (kS * (kS + 1) / 2.0) / 1e9;  // Hq/2 heads over all S
  EXPECT_NEAR(p.simulation->pass_s, p.alltoall_transfer_s + step_s, 1e-15);
  // The backward: dO in, dQ, dK, dV out, and 2.5 times the step.
  const StrategyPrice b = price_backward(in, kS, c, w, Dkv::reverse, 1.0);
  EXPECT_DOUBLE_EQ(b.alltoall_bytes, 4000);
  EXPECT_NEAR(b.simulation->pass_s, p.alltoall_transfer_s + 2.5 * step_s, 1e-15);
  // fwd+bwd is one after the other.
  const PhasePrice both = price_phase(in, kS, c, w, Phase::fwd_bwd, Dkv::reverse, 1.0);
  EXPECT_NEAR(both.pass_s, p.simulation->pass_s + b.simulation->pass_s, 1e-15);
  EXPECT_DOUBLE_EQ(both.bytes, 8000);
  EXPECT_DOUBLE_EQ(both.flops, 3.5 * p.flops);
}

TEST(StrategyPricing, TablesThatDoNotMatchTheirSizeAreRefused) {
  RingTables t(4);
  t.work.steps = 3;
  EXPECT_THROW((void)price_strategy(inputs(DType::float32, 1e9, 1e9), kS, kC, t.work, 1.0, true), Error);
}

}  // namespace
}  // namespace rb::model
