// The memory stage's estimate of what grows with the ranks (the plan's and launches' per-step
// entries, the timelines, the threads) and the skips it decides before a plan is built.
#include <string>

#include <gtest/gtest.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/memory_budget.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

// The shape of issue 28: heads and head dimension 1, so Q/K/V are kilobytes and only the rank
// state can be large.
Config tiny_heads(std::int64_t seq, int cp, Variant variant = Variant::ring) {
  Config c;
  c.seq = seq;
  c.cp = cp;
  c.split = Split::contiguous;
  c.variant = variant;
  c.heads = 1;
  c.kv_heads = 1;
  c.head_dim = 1;
  c.repeats = 5;
  return c;
}

TEST(MemoryBudget, RankStateGrowsAsTheSquareOfTheRanks) {
  const RunOptions opts;
  const RankScale small = rank_scale(tiny_heads(1024, 256), opts);
  const RankScale big = rank_scale(tiny_heads(4096, 1024), opts);
  EXPECT_EQ(small.cells, 256 * 256);
  EXPECT_EQ(big.cells, 1024 * 1024);
  EXPECT_EQ(big.threads, 2048);  // a compute and a comm thread per rank
  EXPECT_GT(big.bytes, kGiB);    // what 648 MB under --memory-limit 0.5 was made of
  EXPECT_GT(static_cast<double>(big.bytes) / static_cast<double>(small.bytes), 12.0);
  // Threads alone: at least kThreadBytes each.
  EXPECT_GE(big.bytes, big.threads * kThreadBytes);
}

TEST(MemoryBudget, TheVariantDecidesStepsAndThreads) {
  const RunOptions opts;
  const RankScale gathered = rank_scale(tiny_heads(4096, 1024, Variant::allgather), opts);
  EXPECT_EQ(gathered.cells, 1024);  // one step per rank
  EXPECT_EQ(gathered.threads, 2048);
  const RankScale both = rank_scale(tiny_heads(4096, 1024, Variant::ring_bidirectional), opts);
  EXPECT_EQ(both.threads, 3072);  // two lanes: two comm threads per rank
  Config cuda = tiny_heads(4096, 1024);
  cuda.backend = Backend::cuda;
  EXPECT_EQ(rank_scale(cuda, opts).threads, 0);
  // More timed passes keep more timelines.
  RunOptions more;
  Config many = tiny_heads(4096, 1024);
  many.repeats = 50;
  EXPECT_GT(rank_scale(many, more).bytes, rank_scale(tiny_heads(4096, 1024), opts).bytes);
}

TEST(MemoryBudget, ManyRanksAreSkippedBeforeTheirPlan) {
  const RunOptions opts;
  const MemoryBudget half{kGiB / 2, 1};
  const std::string why = scale_skip_reason(tiny_heads(4096, 1024), opts, half);
  EXPECT_NE(why.find("for the state of its 1024 ranks alone (1048576 rank steps, 2048 threads)"), std::string::npos)
      << why;
  EXPECT_NE(why.find("0.50 GiB may be used"), std::string::npos) << why;
  Config usual = tiny_heads(1024, 8);
  usual.heads = 8;
  usual.kv_heads = 2;
  usual.head_dim = 64;
  EXPECT_EQ(scale_skip_reason(usual, opts, half), "");
}

TEST(MemoryBudget, ABuildPacedBySampleSharesTheHostWithItsPartnerAndSaysSo) {
  const RunOptions alone;
  RunOptions paced;
  paced.pace_fd = 3;
  paced.pace_unit = PaceUnit::sample;
  const MemoryBudget a = memory_budget(alone), p = memory_budget(paced);
  EXPECT_EQ(a.holders, 1);
  EXPECT_EQ(p.holders, 2);
  if (a.host_bytes > 0) {  // MemAvailable moves between the two reads on a busy machine: not exactly half
    EXPECT_NEAR(static_cast<double>(p.host_bytes) / static_cast<double>(a.host_bytes), 0.5, 0.15);
  }
  paced.pace_unit = PaceUnit::configuration;  // one build's buffers at a time
  EXPECT_EQ(memory_budget(paced).holders, 1);
  paced.pace_unit = PaceUnit::sample;
  paced.memory_limit_bytes = kGiB;  // a limit given is this process's own
  EXPECT_EQ(memory_budget(paced).host_bytes, kGiB);
  const std::string why = scale_skip_reason(tiny_heads(4096, 1024), paced, MemoryBudget{kGiB / 2, 1, 2});
  EXPECT_NE(why.find("0.50 GiB may be used (this build's share: the other build of an A/B run by sample"),
            std::string::npos)
      << why;
}

TEST(MemoryBudget, MoreThreadsThanTheCapAreSkippedWhateverTheMemory) {
  const RunOptions opts;
  const MemoryBudget unknown{0, 1};  // MemAvailable unreadable: no memory check, the cap still holds
  const std::string why = scale_skip_reason(tiny_heads(4096, 4096), opts, unknown);
  EXPECT_NE(why.find("would start 8192 threads for 4096 ranks"), std::string::npos) << why;
  EXPECT_NE(why.find("at most 2048 per process"), std::string::npos) << why;
  EXPECT_EQ(scale_skip_reason(tiny_heads(4096, 1024), opts, unknown), "");  // 2048 threads: at the cap
  Config distributed = tiny_heads(4096, 4096);
  distributed.transport = Transport::mpi;  // one rank per process: 2 threads each
  EXPECT_EQ(scale_skip_reason(distributed, opts, unknown), "");
}

TEST(MemoryBudget, ThePlanCheckAddsTheRankStateToTheBuffers) {
  const RunOptions opts;
  const ring::Plan plan = ring::make_plan(tiny_heads(256, 64));
  const std::int64_t buffers = estimated_host_bytes(plan, opts);
  const std::int64_t scale = rank_scale(plan.config, opts).bytes;
  ASSERT_GT(scale, buffers);  // the case of issue 28: the buffers alone would pass
  const std::string why = memory_skip_reason(plan, opts, MemoryBudget{buffers + scale - 1, 1});
  EXPECT_NE(why.find("for the state of its 64 ranks"), std::string::npos) << why;
  EXPECT_EQ(memory_skip_reason(plan, opts, MemoryBudget{buffers + scale, 1}), "");
}

}  // namespace
}  // namespace rb::bench
