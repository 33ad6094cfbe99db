// The CPU backend end to end: ring attention over c threads equals full attention of the whole
// sequence, for every split scheme and variant, GQA group, causal and not, with random seeds.
#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/executor.hpp"
#include "ring/reference.hpp"

namespace rb::ring {
namespace {

std::vector<std::int64_t> all_positions(std::int64_t S) {
  std::vector<std::int64_t> p(S);
  for (std::int64_t i = 0; i < S; ++i) p[i] = i;
  return p;
}

double max_err(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return std::isnan(m) ? 1e300 : m;
}

TEST(ExecutorCpu, Float64RingEqualsFullAttention) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "random seed " << seed);
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> chunk(3, 9);
  const int groups[][2] = {{1, 1}, {2, 1}, {4, 2}, {8, 1}};
  for (int c : {1, 2, 3, 4, 8})
    for (auto split : {Split::contiguous, Split::zigzag, Split::striped})
      for (const Variant variant : every_variant())
        for (const auto& g : groups)
          for (bool causal : {true, false}) {
            Config cfg;
            cfg.cp = c;
            cfg.seq = 2LL * c * chunk(gen);  // divisible by every scheme; mostly not a power of two
            cfg.split = split;
            cfg.variant = variant;
            cfg.heads = g[0];
            cfg.kv_heads = g[1];
            cfg.head_dim = 8;
            cfg.causal = causal;
            cfg.dtype = DType::float64;
            cfg.seed = gen();
            SCOPED_TRACE(cfg.label() + " seed " + std::to_string(cfg.seed));
            const auto plan = make_plan(cfg);
            auto exec = make_cpu_executor(plan);
            (void)exec->run_pass(false);
            const auto pos = all_positions(cfg.seq);
            const auto out = exec->output_rows(pos);
            const auto ref = reference_rows(cfg, pos, 1);
            ASSERT_LT(max_err(out, ref), 1e-10);
            // A second pass on the same executor gives the same answer (buffers are reset).
            (void)exec->run_pass(true);
            ASSERT_EQ(exec->output_rows(pos), out);
          }
}

TEST(ExecutorCpu, Float32WithinItsDerivedTolerance) {
  Config cfg;
  cfg.seq = 768;
  cfg.cp = 4;
  cfg.split = Split::zigzag;
  cfg.heads = 8;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.dtype = DType::float32;
  const auto plan = make_plan(cfg);
  auto exec = make_cpu_executor(plan);
  (void)exec->run_pass(false);
  const auto rows = check_rows(plan);
  const auto corr = compare_to_reference(exec->output_rows(rows.positions), reference_rows(cfg, rows.positions, 2), cfg,
                                         rows);
  EXPECT_TRUE(corr.all_rows);
  EXPECT_TRUE(corr.passed()) << corr.max_abs_err << " > " << corr.tolerance;
  EXPECT_GT(corr.max_abs_err, 0.0);  // float32 arithmetic really ran
  EXPECT_LT(corr.rel_l2_err, 1e-5);
}

TEST(ExecutorCpu, TimelineHasEveryStepAndTransfer) {
  Config cfg;
  cfg.seq = 256;
  cfg.cp = 4;
  cfg.split = Split::contiguous;
  cfg.head_dim = 16;
  const auto plan = make_plan(cfg);
  auto exec = make_cpu_executor(plan);
  const auto rec = exec->run_pass(true);
  int attention = 0, merges = 0, recvs = 0;
  for (const auto& iv : rec.timeline.intervals) {
    ASSERT_LE(iv.begin_ns, iv.end_ns);
    ASSERT_GE(iv.begin_ns, 0);
    ASSERT_LE(iv.end_ns, rec.wall_ns);
    if (iv.name == "attention") ++attention;
    if (iv.name == "merge") ++merges;
    if (iv.name == "kv_recv") {
      ++recvs;
      EXPECT_EQ(iv.kind, IntervalKind::comm);
      EXPECT_EQ(iv.bytes, 64 * plan.kv_bytes_per_token);
      EXPECT_GE(iv.step, 1);
    }
  }
  // 4 ranks x 4 steps, less the 3 + 2 + 1 steps whose block comes from a later rank (wholly masked,
  // skipped); step 0 writes the accumulators, so only later steps merge.
  EXPECT_EQ(attention, 10);
  EXPECT_EQ(merges, 6);
  EXPECT_EQ(recvs, 12);
  EXPECT_TRUE(exec->run_pass(false).timeline.intervals.empty());
}

TEST(ExecutorCpu, LinkPacingSlowsEachTransferToTheStatedBandwidth) {
  Config cfg;
  cfg.seq = 512;
  cfg.cp = 2;
  cfg.heads = 2;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.link_gbps = 1.0;  // 1 Gbit/s: 256 tokens * 1 KiB = 256 KiB take 2.1 ms on the wire
  const auto plan = make_plan(cfg);
  auto exec = make_cpu_executor(plan);
  const auto rec = exec->run_pass(true);
  const double wire_ns = 256.0 * static_cast<double>(plan.kv_bytes_per_token) * 8.0 / 1.0;
  int seen = 0;
  for (const auto& iv : rec.timeline.intervals)
    if (iv.kind == IntervalKind::comm) {
      ++seen;
      EXPECT_GE(static_cast<double>(iv.end_ns - iv.begin_ns), wire_ns * 0.999);
    }
  EXPECT_EQ(seen, 2);
}

TEST(ExecutorCpu, Bfloat16IsRefusedOnTheCpu) {
  Config cfg;
  cfg.dtype = DType::bfloat16;
  EXPECT_THROW((void)make_cpu_executor(make_plan(cfg)), InputError);
}

}  // namespace
}  // namespace rb::ring
