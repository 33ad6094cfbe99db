// The per-step launch decision on the CPU: for every split, variant and c <= 8, every step of every
// rank is either a launch the device launcher accepts (tiling::launch_refusal, the check that threw
// "null buffer" for the causal contiguous ring on the first H200) or a skip that drops no work.
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>

#include "ring/plan.hpp"
#include "ring/step_launch.hpp"

namespace rb::ring {
namespace {

namespace tiling = kernels::tiling;

Config cfg(std::int64_t S, int c, Split split, Variant variant, bool causal) {
  Config x;
  x.seq = S;
  x.cp = c;
  x.split = split;
  x.variant = variant;
  x.causal = causal;
  x.heads = 4;
  x.kv_heads = 2;
  x.head_dim = 64;
  return x;
}

// The binding DeviceAttentionWork::bind and the executors produce: every tensor allocated, and an
// array of no elements is a null pointer (DeviceBuffer).
tiling::LaunchBinding binding_of(const StepLaunch& sl) {
  tiling::LaunchBinding b;
  b.q = b.k = b.v = b.o = b.lse = true;
  b.num_tiles = static_cast<std::int64_t>(sl.work.tiles.size());
  b.tiles = b.num_tiles > 0;
  b.pairs = !sl.pairs.empty();
  b.pair_refs = static_cast<std::int64_t>(sl.work.pair_index.size());
  b.pair_index = b.pair_refs > 0;
  return b;
}

TEST(StepLaunch, EveryStepLaunchesValidlyOrIsSkippedWithoutLosingWork) {
  int launches = 0, skips = 0;
  for (bool causal : {true, false})
    for (auto split : {Split::contiguous, Split::zigzag, Split::striped})
      for (auto variant : {Variant::ring, Variant::allgather})
        for (int c = 1; c <= 8; ++c)
          // Short blocks (several segments per tile), tiles that do not divide a block, and the
          // S=2040, c=5 shape of the H200 report (zig-zag needs S % 2c == 0, so it takes 2040 at c=5
          // and the nearest multiple elsewhere).
          for (std::int64_t base : {std::int64_t{2} * c, std::int64_t{2} * c * 100, std::int64_t{2040}}) {
            const std::int64_t S = base % (2 * c) == 0 ? base : base + (2 * c - base % (2 * c));
            const Plan plan = make_plan(cfg(S, c, split, variant, causal));
            for (int r = 0; r < c; ++r) {
              const auto steps = step_launches(plan, r);
              const std::string where = fmt::format("{} {} c={} S={} causal={} rank {}", to_string(split),
                                                    to_string(variant), c, S, causal, r);
              ASSERT_EQ(steps.size(), plan.ranks[r].steps.size()) << where;
              std::int64_t launched_pairs = 0;
              for (const auto& sl : steps) {
                const std::string at = where + fmt::format(" step {}", sl.step);
                EXPECT_EQ(sl.unmasked, plan.ranks[r].steps[sl.step].unmasked) << at;
                if (sl.step == 0) {
                  EXPECT_EQ(sl.action, StepAction::write) << at;
                }
                if (sl.action == StepAction::skip) {
                  ++skips;
                  EXPECT_GT(sl.step, 0) << at;
                  EXPECT_FALSE(tiling::has_active_pair(sl.pairs, causal)) << at;
                  EXPECT_EQ(sl.unmasked, 0) << at << ": a skipped step must carry no work";
                  EXPECT_TRUE(sl.work.tiles.empty()) << at;
                  continue;
                }
                ++launches;
                EXPECT_EQ(sl.action == StepAction::merge, sl.step > 0) << at;
                EXPECT_EQ(tiling::check_attention_work(sl.work, sl.pairs, sl.sq, causal), "") << at;
                const auto b = binding_of(sl);
                EXPECT_GT(b.num_tiles, 0) << at << ": a launched step writes every row";
                const char* refusal = tiling::launch_refusal(b);
                EXPECT_EQ(refusal, nullptr) << at << ": " << (refusal ? refusal : "");
                launched_pairs += sl.unmasked;
              }
              EXPECT_EQ(launched_pairs, plan.ranks[r].unmasked) << where;
            }
          }
  EXPECT_GT(launches, 0);
  EXPECT_GT(skips, 0);
}

// The shape of the bug: in a causal contiguous ring, rank r's blocks from ranks r+1..c-1 arrive at
// steps c-1-r+1.. and see no key; those steps are skipped, and the rest launch.
TEST(StepLaunch, ContiguousCausalRingSkipsTheBlocksOfLaterRanks) {
  for (int c = 2; c <= 8; ++c) {
    const Plan plan = make_plan(cfg(1024 * c, c, Split::contiguous, Variant::ring, true));
    for (int r = 0; r < c; ++r) {
      const auto steps = step_launches(plan, r);
      for (const auto& sl : steps) {
        const int source = ((r - sl.step) % c + c) % c;
        const StepAction want = sl.step == 0 ? StepAction::write : source > r ? StepAction::skip : StepAction::merge;
        EXPECT_EQ(sl.action, want) << "c=" << c << " rank " << r << " step " << sl.step << " block of rank " << source;
      }
    }
  }
}

// Step 0 of a rank no key reaches at all still launches: its tiles have no pairs and write O = 0,
// L = -inf into the accumulators, and the launcher must accept null pair arrays for them.
TEST(StepLaunch, AWriteStepWithoutPairsIsAValidLaunch) {
  kernels::BlockPair masked{Segment{0, 1, 128}, 0, Segment{512, 1, 128}, 0, MaskClass::skip};
  const auto w = tiling::plan_attention_work(std::span(&masked, 1), 128, 128, true);
  ASSERT_FALSE(w.tiles.empty());
  EXPECT_TRUE(w.pair_index.empty());
  EXPECT_EQ(tiling::check_attention_work(w, std::span(&masked, 1), 128, true), "");
  tiling::LaunchBinding b;
  b.q = b.k = b.v = b.o = b.lse = b.tiles = true;
  b.num_tiles = static_cast<std::int64_t>(w.tiles.size());
  EXPECT_EQ(tiling::launch_refusal(b), nullptr);
  b.pair_refs = 1;  // a tile that refers to a pair needs the arrays
  EXPECT_NE(tiling::launch_refusal(b), nullptr);
  b.pairs = b.pair_index = true;
  EXPECT_EQ(tiling::launch_refusal(b), nullptr);
  b.o = false;
  EXPECT_NE(tiling::launch_refusal(b), nullptr);
}

TEST(StepLaunch, CheckAttentionWorkCatchesABrokenTiling) {
  kernels::BlockPair p{Segment{0, 1, 300}, 0, Segment{0, 1, 300}, 0, MaskClass::partial};
  auto w = tiling::plan_attention_work(std::span(&p, 1), 300, 300, true);
  ASSERT_EQ(tiling::check_attention_work(w, std::span(&p, 1), 300, true), "");
  auto gap = w;
  gap.tiles.pop_back();
  EXPECT_NE(tiling::check_attention_work(gap, std::span(&p, 1), 300, true), "");
  auto lost = w;
  lost.tiles.front().pair_count = 0;
  EXPECT_NE(tiling::check_attention_work(lost, std::span(&p, 1), 300, true), "");
  auto miscounted = w;
  miscounted.key_tiles += 1;
  EXPECT_NE(tiling::check_attention_work(miscounted, std::span(&p, 1), 300, true), "");
}

}  // namespace
}  // namespace rb::ring
