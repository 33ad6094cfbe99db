// The backward's plan (docs/design.md §3a): every design visits every block once per lane, in the
// order its schedule says, with the forward's pairs of each block; and each design's bytes are the
// formula beside its variant: reverse twice the forward, follow (c-1)·B + c·B·4/e, the gather and
// reduce-scatter twice the forward.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/scheme_table.hpp"
#include "ring/plan/plan.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

Config cfg(std::int64_t S, int c, Split split, Variant variant, Dkv dkv, DType dtype = DType::float32) {
  Config x;
  x.seq = S;
  x.cp = c;
  x.split = split;
  x.variant = variant;
  x.heads = 4;
  x.kv_heads = 2;
  x.head_dim = 16;
  x.dtype = dtype;
  x.phase = Phase::fwd_bwd;
  x.dkv = dkv;
  return x;
}

// (origin, lane) -> the pairs of that block as (q_seg, k_seg, mask, unmasked).
using Pairs = std::map<std::pair<int, int>, std::multiset<std::tuple<int, int, int, std::int64_t>>>;
Pairs by_block(const std::vector<StepPlan>& steps) {
  Pairs out;
  for (const auto& st : steps)
    for (const auto& p : st.pairs)
      out[{p.k_rank, p.lane}].insert({p.q_seg, p.k_seg, static_cast<int>(p.mask), p.unmasked});
  return out;
}

TEST(BackwardPlan, EveryDesignAttendsToEveryBlockWithTheForwardsPairs) {
  for (const Split split : every_split())
    for (const Variant variant : every_variant())
      for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
        for (const int c : {1, 2, 3, 4, 8})
          for (const Config& x : testing::exchange_cases(cfg(2 * c * 6, c, split, variant, dkv))) {
            const auto plan = make_plan(x);
            ASSERT_TRUE(plan.backward.has_value());
            for (const auto& rp : plan.ranks) {
              SCOPED_TRACE(fmt::format("{} rank {}", x.label(), rp.rank));
              ASSERT_EQ(rp.backward.steps.size(), rp.steps.size());
              EXPECT_EQ(by_block(rp.backward.steps), by_block(rp.steps));
              std::int64_t unmasked = 0;
              for (const auto& st : rp.backward.steps) unmasked += st.unmasked;
              EXPECT_EQ(unmasked, rp.unmasked);
            }
          }
}

TEST(BackwardPlan, ReverseStartsOnTheForwardsLastBlockAndEndsOnTheOwn) {
  const auto plan = make_plan(cfg(40, 5, Split::contiguous, Variant::ring, Dkv::reverse));
  for (const auto& rp : plan.ranks) {
    const int r = rp.rank;
    EXPECT_EQ(rp.steps.back().sources, std::vector<int>{(r + 1) % 5});
    for (int j = 0; j < 5; ++j) EXPECT_EQ(rp.backward.steps[j].sources, std::vector<int>{(r + 1 + j) % 5}) << j;
    EXPECT_EQ(plan.backward->kv.sender(r, 0, 5), (r + 1) % 5);  // the ring turned round
    EXPECT_EQ(plan.backward->kv.receiver(r, 0, 5), (r + 4) % 5);
  }
  const auto follow = make_plan(cfg(40, 5, Split::contiguous, Variant::ring, Dkv::follow));
  for (const auto& rp : follow.ranks)
    for (int j = 0; j < 5; ++j) EXPECT_EQ(rp.backward.steps[j].sources, rp.steps[j].sources) << j;
}

TEST(BackwardPlan, BytesFollowEachDesignsFormula) {
  for (const Split split : every_split())
    for (const int c : {2, 3, 4, 8}) {
      const std::int64_t S = 2 * c * 8;
      // B: one rank's block of K and V, in the run's dtype.
      auto block = [&](DType dt) { return S / c * 2 * 2 * 16 * dtype_bytes(dt); };
      for (const DType dt : {DType::float32, DType::bfloat16, DType::float64})
        for (const Variant v : {Variant::ring, Variant::ring_bidirectional}) {
          const std::int64_t B = block(dt), e = dtype_bytes(dt);
          const auto rev = make_plan(cfg(S, c, split, v, Dkv::reverse, dt));
          const auto fol = make_plan(cfg(S, c, split, v, Dkv::follow, dt));
          for (int r = 0; r < c; ++r) {
            SCOPED_TRACE(fmt::format("{} {} {} c={} r={}", to_string(split), to_string(v), to_string(dt), c, r));
            EXPECT_EQ(rev.ranks[r].recv_bytes, (c - 1) * B);
            EXPECT_EQ(rev.ranks[r].backward.recv_bytes, 2 * (c - 1) * B);
            EXPECT_EQ(rev.ranks[r].backward.send_bytes, 2 * (c - 1) * B);
            EXPECT_EQ(rev.ranks[r].backward.tail_recv_bytes, 0);
            const std::int64_t grad = B * std::max<std::int64_t>(4, e) / e;
            EXPECT_EQ(fol.ranks[r].backward.recv_bytes, (c - 1) * B + c * grad);
            EXPECT_EQ(fol.ranks[r].backward.tail_recv_bytes, grad);
          }
        }
      const auto ag = make_plan(cfg(S, c, split, Variant::allgather, Dkv::follow));
      for (const auto& rp : ag.ranks) {
        EXPECT_EQ(rp.backward.recv_bytes, 2 * rp.recv_bytes);
        EXPECT_EQ(rp.backward.tail_recv_bytes, rp.recv_bytes);
      }
    }
}

// The plate's ring at c = 16 in bf16 (issue 43's figure): follow receives 47 blocks' worth against
// the forward's 15, reverse 30.
TEST(BackwardPlan, FollowInBf16IsFortySevenBlocksAgainstFifteen) {
  const std::int64_t S = 16 * 64;
  const auto fol = make_plan(cfg(S, 16, Split::zigzag, Variant::ring, Dkv::follow, DType::bfloat16));
  const auto rev = make_plan(cfg(S, 16, Split::zigzag, Variant::ring, Dkv::reverse, DType::bfloat16));
  const std::int64_t B = fol.ranks[0].tokens * fol.kv_bytes_per_token;
  EXPECT_EQ(fol.ranks[0].recv_bytes, 15 * B);
  EXPECT_EQ(fol.ranks[0].backward.recv_bytes, 47 * B);
  EXPECT_EQ(rev.ranks[0].backward.recv_bytes, 30 * B);
  EXPECT_EQ(fol.backward_bytes_moved(), 16 * 47 * B);
}

TEST(BackwardPlan, AForwardOnlyPhasePlansNoBackward) {
  auto c = cfg(64, 4, Split::zigzag, Variant::ring, Dkv::reverse);
  c.phase = Phase::fwd;
  const auto plan = make_plan(c);
  EXPECT_FALSE(plan.backward.has_value());
  EXPECT_TRUE(plan.ranks[0].backward.steps.empty());
  EXPECT_EQ(plan.backward_bytes_moved(), 0);
  EXPECT_DOUBLE_EQ(plan.backward_flops(), 2.5 * plan.flops());
}

}  // namespace
}  // namespace rb::ring
