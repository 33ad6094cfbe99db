// Every executor's memory estimate (ring/executor/executor_bytes.hpp), which the sweep skips by: hand-worked
// values; the CUDA formulas from before the estimates moved to one home, kept as they were; and the
// CPU estimate, now the step program's declared buffers, held to what the CPU executor allocates.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "common/scheme_table.hpp"
#include "common/size_estimate.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/executor_bytes.hpp"

namespace rb::ring {
namespace {

std::int64_t cpu_before(const Plan& plan) {
  const Config& c = plan.config;
  const double rows = plan.ranks.empty() ? 0.0 : static_cast<double>(plan.ranks[0].tokens);
  const double q = rows * c.heads * c.head_dim, kv = 2 * rows * c.kv_heads * c.head_dim;
  const double lse = rows * c.heads;
  // The step buffers a rotating schedule uses: one with two members, two from three.
  const double steps = c.cp > 2 ? 2 : c.cp > 1 ? 1 : 0;
  const double elems = 3 * q + kv + 2 * lse + (plan.schedule.gathered ? kv * c.cp : steps * kv);
  return saturated_bytes(elems * c.cp * dtype_bytes(c.dtype));
}

double cuda_rank_before(const Plan& plan) {
  const Config& cfg = plan.config;
  const double c = cfg.cp, rows = plan.ranks.empty() ? 0.0 : static_cast<double>(plan.ranks[0].tokens);
  const double q = rows * cfg.heads * cfg.head_dim, kv = 2 * rows * cfg.kv_heads * cfg.head_dim;
  const double blocks = plan.schedule.gathered ? 1 + c : 3;
  return 2 * (q + blocks * kv) + 4 * (2 * q + 2 * rows * cfg.heads);
}

std::int64_t cuda_before(const Plan& plan, int devices) {
  const Config& cfg = plan.config;
  const std::int64_t n = std::max(1, std::min(devices, cfg.cp));
  return saturated_bytes(cuda_rank_before(plan) * static_cast<double>((cfg.cp + n - 1) / n));
}

TEST(ExecutorBytes, HandWorkedValues) {
  Config cfg;
  cfg.cp = 2;
  cfg.seq = 8;  // 4 rows a rank
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 4;
  cfg.dtype = DType::float64;
  const Plan ring = make_plan(cfg);
  // A rank: Q and two O of 32 elements, a K/V block of 32, two LSE of 8, one step buffer of 32 (the
  // peer's block; with two ranks nothing else arrives).
  EXPECT_EQ(cpu_executor_bytes(ring), 2 * (3 * 32 + 32 + 2 * 8 + 32) * 8);
  // bf16 Q and three blocks; float O, O, LSE, LSE.
  EXPECT_EQ(nccl_executor_bytes(ring), 2 * (32 + 3 * 32) + 4 * (2 * 32 + 2 * 8));
  EXPECT_EQ(cuda_executor_bytes(ring), 2 * nccl_executor_bytes(ring));
  EXPECT_EQ(cuda_executor_bytes(ring, 2), nccl_executor_bytes(ring));  // a rank per device
  cfg.variant = Variant::allgather;
  const Plan gathered = make_plan(cfg);
  // The own block and the c gathered ones in place of the two step buffers.
  EXPECT_EQ(cpu_executor_bytes(gathered), 2 * (3 * 32 + 32 + 2 * 8 + 2 * 32) * 8);
  cfg.cp = 4;
  cfg.seq = 16;
  EXPECT_EQ(cpu_executor_bytes(make_plan(cfg)), 4 * (3 * 32 + 32 + 2 * 8 + 4 * 32) * 8);
}

TEST(ExecutorBytes, EqualTheFormulasByHand) {
  for (const int c : {1, 2, 3, 4, 8})
    for (const Variant v : every_variant())
      if (v != Variant::ulysses && v != Variant::hybrid)  // no formula before them: HeadExchange below
        for (const Split s : every_split())
          for (const DType d : {DType::float64, DType::float32, DType::bfloat16})
            for (const int heads : {1, 8}) {
              Config cfg;
              cfg.cp = c;
              cfg.seq = 2LL * c * 24;
              cfg.variant = v;
              cfg.split = s;
              cfg.dtype = d;
              cfg.heads = heads;
              cfg.kv_heads = 1;
              cfg.head_dim = 64;
              const Plan plan = make_plan(cfg);
              SCOPED_TRACE(cfg.label());
              EXPECT_EQ(cpu_executor_bytes(plan), cpu_before(plan));
              EXPECT_EQ(nccl_executor_bytes(plan), saturated_bytes(cuda_rank_before(plan)));
              for (const int devices : {0, 1, 2, 3, 8, 16})
                EXPECT_EQ(cuda_executor_bytes(plan, devices), cuda_before(plan, devices)) << devices << " devices";
            }
}

// A head exchange's rank (docs/design.md §3b): the attention layout's buffers (the group's rows, the
// rank's heads), plus the shard's Q, K, V and O and two messages' staging.
TEST(ExecutorBytes, HeadExchangeCountsBothLayouts) {
  Config cfg;
  cfg.cp = 4;
  cfg.seq = 16;  // 4 shard rows a rank
  cfg.heads = 8;
  cfg.kv_heads = 2;
  cfg.head_dim = 4;
  cfg.dtype = DType::float64;
  cfg.variant = Variant::hybrid;
  cfg.ulysses_degree = 2;  // groups of 2: 8 attention rows, 4 query heads, 1 K/V head; 2 groups
  // Q and two O of 8·4·4 = 128, a K/V block of 2·8·1·4 = 64, two LSE of 32, one step buffer of 64
  // (two groups); shard Q and O of 4·8·4 = 128, K and V of 4·2·4 = 32, two stages of 4·(4 + 2)·4 = 96.
  const std::int64_t rank = 3 * 128 + 64 + 2 * 32 + 64 + 2 * 128 + 2 * 32 + 2 * 96;
  EXPECT_EQ(cpu_executor_bytes(make_plan(cfg)), 4 * rank * 8);
  cfg.phase = Phase::fwd_bwd;
  // The backward's: dO, dQ (128 each), Δ (32), d_own (64), the scratch (reverse: a fused buffer of
  // 4·8·1·4 = 128), two fused buffers, and the shard's dO, dQ (128 each), dK, dV (32 each).
  const std::int64_t backward = 2 * 128 + 32 + 64 + 128 + 2 * 128 + 2 * 128 + 2 * 32;
  EXPECT_EQ(cpu_executor_bytes(make_plan(cfg)), 4 * (rank + backward) * 8);
}

// The CPU estimate is what the executor allocates (the step program's declared buffers), for every
// variant, phase, design, split and head exchange at small c.
TEST(ExecutorBytes, CpuEstimateIsWhatTheExecutorAllocates) {
  int checked = 0;
  for (const int c : {1, 2, 3, 4})
    for (const Variant v : every_variant())
      for (const Phase ph : {Phase::fwd, Phase::bwd, Phase::fwd_bwd})
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
          Config cfg;
          cfg.cp = c;
          cfg.seq = 8LL * c;
          cfg.heads = 4;
          cfg.kv_heads = 2;
          cfg.head_dim = 4;
          cfg.variant = v;
          cfg.phase = ph;
          cfg.dkv = dkv;
          cfg.dtype = DType::float32;
          if (v == Variant::ulysses) cfg.ulysses_degree = c;
          if (v == Variant::hybrid) {
            if (c != 4) continue;
            cfg.ulysses_degree = 2;
          }
          if ((v == Variant::ulysses && c == 3)) continue;  // 4 heads do not split 3 ways
          SCOPED_TRACE(cfg.label());
          const Plan plan = make_plan(cfg);
          const auto ex = make_cpu_executor(plan, CpuOptions{InjectedFault::none, CpuBinding::none});
          EXPECT_EQ(ex->buffer_bytes(), cpu_executor_bytes(plan));
          ++checked;
        }
  EXPECT_GT(checked, 60);
}

// Sizes the user may choose at will: the estimates saturate as before rather than wrap.
TEST(ExecutorBytes, HugeAndEmptyPlansEstimateAsBefore) {
  Plan huge;
  huge.config.cp = 1 << 20;
  huge.config.heads = 1 << 30;
  huge.config.kv_heads = 1 << 30;
  huge.config.head_dim = 1 << 20;
  huge.config.dtype = DType::float64;
  huge.ranks.resize(1);
  huge.ranks[0].tokens = std::int64_t{1} << 40;
  for (const bool gathered : {false, true}) {
    huge.schedule.gathered = gathered;
    EXPECT_EQ(cpu_executor_bytes(huge), std::numeric_limits<std::int64_t>::max());
    EXPECT_EQ(cpu_executor_bytes(huge), cpu_before(huge));
    EXPECT_EQ(cuda_executor_bytes(huge, 8), cuda_before(huge, 8));
    EXPECT_EQ(nccl_executor_bytes(huge), saturated_bytes(cuda_rank_before(huge)));
  }
  Plan empty;
  empty.config.cp = 2;
  EXPECT_EQ(cpu_executor_bytes(empty), 0);
  EXPECT_EQ(cuda_executor_bytes(empty), 0);
  EXPECT_EQ(nccl_executor_bytes(empty), 0);
}

}  // namespace
}  // namespace rb::ring
