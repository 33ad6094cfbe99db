// ring::WorkMatrix equals make_plan step for step, gives the plate's imbalance figures, and stays
// fast at c = 1024, S = 10M.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/work_matrix.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

Config config(std::int64_t seq, int cp, Split split, Variant variant, bool causal = true) {
  Config cfg;
  cfg.seq = seq;
  cfg.cp = cp;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = 6;
  cfg.kv_heads = 2;
  cfg.head_dim = 16;
  cfg.causal = causal;
  cfg.dtype = DType::bfloat16;
  return cfg;
}

TEST(WorkMatrix, EqualsMakePlan) {
  struct Shape {
    std::int64_t seq;
    int cp;
  };
  int checked = 0;
  for (Shape sh : {Shape{48, 1}, Shape{48, 2}, Shape{48, 3}, Shape{60, 5}, Shape{64, 8}, Shape{96, 6}, Shape{40, 4}})
    for (Split split : {Split::contiguous, Split::zigzag, Split::striped})
      for (Variant variant : every_variant())
        for (bool causal : {true, false}) {
          if (sh.seq % (split == Split::zigzag ? 2 * sh.cp : sh.cp) != 0) continue;
          for (const Config& cfg : testing::exchange_cases(config(sh.seq, sh.cp, split, variant, causal))) {
            SCOPED_TRACE(cfg.label());
            const Plan plan = make_plan(cfg);
            const WorkMatrix wm = make_work_matrix(cfg);
            ASSERT_EQ(wm.ranks, sh.cp);
            EXPECT_EQ(wm.kv_bytes_per_token, plan.kv_bytes_per_token);
            for (int r = 0; r < sh.cp; ++r) {
              const auto& rp = plan.ranks[r];
              ASSERT_EQ(static_cast<int>(rp.steps.size()), wm.steps);
              for (int j = 0; j < wm.steps; ++j) {
                EXPECT_EQ(wm.unmasked_at(r, j), rp.steps[j].unmasked) << "rank " << r << " step " << j;
                EXPECT_EQ(wm.recv_bytes_at(r, j), rp.steps[j].recv_bytes) << "rank " << r << " step " << j;
              }
              EXPECT_EQ(wm.work(r), plan.work(r));
            }
            EXPECT_DOUBLE_EQ(wm.work_imbalance(), plan.work_imbalance());
            if (variant == Variant::ring) {
              Config gathered = cfg;
              gathered.variant = Variant::allgather;
              const WorkMatrix direct = make_work_matrix(gathered), derived = allgather_from_ring(wm);
              EXPECT_EQ(derived.steps, 1);
              EXPECT_EQ(derived.config.variant, Variant::allgather);
              EXPECT_EQ(derived.unmasked, direct.unmasked);
              EXPECT_EQ(derived.recv_bytes, direct.recv_bytes);
            }
            ++checked;
          }
        }
  EXPECT_GT(checked, 90);
}

// Plate, c = 16, S = 131072 (any head count: the ratio is per pair). Contiguous: rank 15 holds the
// last n = 8192 tokens and sees 15 full blocks plus its own triangle, 15 n^2 + n(n+1)/2 pairs,
// against a mean of S(S+1)/2/16: 1.9375 -> "1.94". Zig-zag: every rank equal -> "1.00".
TEST(WorkMatrix, PlateImbalance) {
  Config cfg = config(131072, 16, Split::contiguous, Variant::ring);
  const WorkMatrix contiguous = make_work_matrix(cfg);
  const double n = 8192, S = 131072;
  EXPECT_DOUBLE_EQ(static_cast<double>(contiguous.rank_unmasked(15)), 15 * n * n + n * (n + 1) / 2);
  EXPECT_NEAR(contiguous.work_imbalance(), (15 * n * n + n * (n + 1) / 2) / (S * (S + 1) / 2 / 16), 1e-12);
  EXPECT_EQ(fmt::format("{:.2f}", contiguous.work_imbalance()), "1.94");
  cfg.split = Split::zigzag;
  const WorkMatrix zigzag = make_work_matrix(cfg);
  EXPECT_EQ(fmt::format("{:.2f}", zigzag.work_imbalance()), "1.00");
  for (int r = 1; r < 16; ++r) EXPECT_EQ(zigzag.rank_unmasked(r), zigzag.rank_unmasked(0));
}

TEST(WorkMatrix, BadInputIsInputError) {
  EXPECT_THROW(make_work_matrix(config(100, 16, Split::zigzag, Variant::ring)), InputError);  // 100 % 32
  EXPECT_THROW(make_work_matrix(config(0, 1, Split::contiguous, Variant::ring)), InputError);
  EXPECT_THROW(make_work_matrix(config(8, 16, Split::contiguous, Variant::ring)), InputError);  // c > S
}

// The largest scale the model promises (c = 1024, S = 10M) is exact; its speed is measured by
// bench/micro/model_bench.cpp, not asserted here.
TEST(WorkMatrix, ExactAtLargeScale) {
  for (Split split : {Split::contiguous, Split::zigzag, Split::striped}) {
    const WorkMatrix wm = make_work_matrix(config(10 * 1024 * 1024, 1024, split, Variant::ring));
    std::int64_t total = 0;
    for (int r = 0; r < wm.ranks; ++r) total += wm.rank_unmasked(r);
    const std::int64_t S = 10 * 1024 * 1024;
    EXPECT_EQ(total, S * (S + 1) / 2) << to_string(split);
  }
}

}  // namespace
}  // namespace rb::ring
