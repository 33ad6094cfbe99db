// Split schemes and plans: coverage, divisibility errors, mask classes, bytes, and the work
// imbalance against exact integer formulas.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/split_scheme.hpp"

namespace rb::ring {
namespace {

Config cfg(std::int64_t S, int c, Split split, Variant variant = Variant::ring) {
  Config x;
  x.seq = S;
  x.cp = c;
  x.split = split;
  x.variant = variant;
  x.heads = 4;
  x.kv_heads = 2;
  x.head_dim = 16;
  return x;
}

TEST(SplitScheme, EveryPositionHeldExactlyOnce) {
  for (auto split : {Split::contiguous, Split::zigzag, Split::striped})
    for (int c : {1, 2, 3, 4, 8}) {
      const std::int64_t S = 2 * c * 7;
      auto scheme = make_split_scheme(split);
      std::multiset<std::int64_t> seen;
      for (int r = 0; r < c; ++r)
        for (const auto& s : scheme->segments(S, c, r))
          for (std::int64_t i = 0; i < s.count; ++i) seen.insert(s.pos(i));
      ASSERT_EQ(static_cast<std::int64_t>(seen.size()), S);
      for (std::int64_t p = 0; p < S; ++p) ASSERT_EQ(seen.count(p), 1u) << to_string(split) << " c=" << c;
    }
}

TEST(SplitScheme, ZigzagPairsChunksKAnd2cMinus1MinusK) {
  auto z = make_split_scheme(Split::zigzag);
  const auto segs = z->segments(64, 4, 1);  // chunks of 8: chunk 1 and chunk 6
  ASSERT_EQ(segs.size(), 2u);
  EXPECT_EQ(segs[0], (Segment{8, 1, 8}));
  EXPECT_EQ(segs[1], (Segment{48, 1, 8}));
  EXPECT_EQ(make_split_scheme(Split::striped)->segments(12, 4, 3)[0], (Segment{3, 4, 3}));
}

TEST(SplitScheme, DivisibilityErrorNamesRuleValuesAndNearestS) {
  try {
    (void)make_plan(cfg(1000, 3, Split::zigzag));
    FAIL() << "accepted S=1000 for zigzag c=3";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "seq");
    EXPECT_EQ(e.value(), "1000");
    const std::string rule = e.rule();
    EXPECT_NE(rule.find("S % (2c) == 0"), std::string::npos) << rule;
    EXPECT_NE(rule.find("c = 3"), std::string::npos) << rule;
    EXPECT_NE(rule.find("nearest valid S is 1002"), std::string::npos) << rule;
  }
  EXPECT_THROW((void)make_plan(cfg(10, 4, Split::contiguous)), InputError);
  EXPECT_NO_THROW((void)make_plan(cfg(12, 4, Split::striped)));
}

TEST(Plan, ContiguousImbalanceMatchesTheExactFormula) {
  // Rank r of c holds n = S/c positions rn..rn+n-1, query p sees p+1 keys: its pairs are
  // n*r*n + n(n+1)/2. The last rank has the most; the mean is S(S+1)/(2c). Their ratio simplifies to
  // (2S - n + 1) / (S + 1), which tends to (2c-1)/c: 1.9375 at c = 16.
  for (int c : {1, 2, 3, 4, 8, 16})
    for (std::int64_t n : {1, 5, 64, 1000}) {
      const std::int64_t S = c * n;
      const double expect = static_cast<double>(2 * S - n + 1) / static_cast<double>(S + 1);
      EXPECT_NEAR(make_plan(cfg(S, c, Split::contiguous)).work_imbalance(), expect, 1e-12) << "S=" << S << " c=" << c;
    }
  EXPECT_NEAR(make_plan(cfg(1 << 20, 16, Split::contiguous)).work_imbalance(), 1.9375, 1e-4);
}

TEST(Plan, ZigzagIsExactlyBalancedAndStripedNearly) {
  // zigzag: rank r's chunks r and 2c-1-r (m = S/2c each) hold m^2(2c-1) + m(m+1) pairs, for every r.
  // striped: rank r's pairs are n(r+1) + c*n(n-1)/2, so max/mean = (S + c)/(S + 1): within (c-1)/S of 1.
  for (int c : {2, 3, 4, 8, 16})
    for (std::int64_t S : {static_cast<std::int64_t>(2 * c * 3), static_cast<std::int64_t>(2 * c * 500)}) {
      EXPECT_NEAR(make_plan(cfg(S, c, Split::zigzag)).work_imbalance(), 1.0, 1e-12);
      const double striped = make_plan(cfg(S, c, Split::striped)).work_imbalance();
      EXPECT_NEAR(striped, static_cast<double>(S + c) / static_cast<double>(S + 1), 1e-12);
    }
}

TEST(Plan, RingStepsVisitEveryBlockOnceWithTheRightBytes) {
  const auto plan = make_plan(cfg(96, 4, Split::zigzag));
  const std::int64_t kvb = 2 * 2 * 16 * 4;  // K and V, Hkv = 2, D = 16, float32
  EXPECT_EQ(plan.kv_bytes_per_token, kvb);
  std::int64_t total = 0;
  for (const auto& rp : plan.ranks) {
    std::set<int> sources;
    for (const auto& st : rp.steps) {
      ASSERT_EQ(st.sources.size(), 1u);
      EXPECT_EQ(st.sources[0], ((rp.rank - st.step) % 4 + 4) % 4);
      sources.insert(st.sources[0]);
      EXPECT_EQ(st.recv_bytes, st.step == 0 ? 0 : 24 * kvb);
      EXPECT_EQ(st.pairs.size(), 4u);  // 2 query segments x 2 key segments
    }
    EXPECT_EQ(sources.size(), 4u);
    EXPECT_EQ(rp.recv_bytes, 3 * 24 * kvb);  // (c-1)/c of the K/V
    total += rp.unmasked;
  }
  EXPECT_EQ(total, 96 * 97 / 2);
  EXPECT_EQ(plan.flops(), 4.0 * 16 * 4 * (96.0 * 97 / 2));
}

TEST(Plan, AllgatherHasOneStepOverEveryBlock) {
  const auto plan = make_plan(cfg(64, 4, Split::contiguous, Variant::allgather));
  for (const auto& rp : plan.ranks) {
    ASSERT_EQ(rp.steps.size(), 1u);
    EXPECT_EQ(rp.steps[0].sources.size(), 4u);
    EXPECT_EQ(rp.recv_bytes, 48 * plan.kv_bytes_per_token);
    // Contiguous rank r: blocks before it are full, its own partial, later ones skipped.
    for (const auto& p : rp.steps[0].pairs) {
      const MaskClass want = p.k_rank < rp.rank    ? MaskClass::full
                             : p.k_rank == rp.rank ? MaskClass::partial
                                                   : MaskClass::skip;
      EXPECT_EQ(p.mask, want);
    }
  }
  EXPECT_EQ(plan.bytes_moved(), make_plan(cfg(64, 4, Split::contiguous)).bytes_moved());
}

// ring-bidirectional: at step j rank r attends to the first half of rank (r-j)'s block and the
// second half of rank (r+j)'s; over the c steps it sees every half once, so its work and its bytes
// are the ring's, while each step moves half a block each way.
TEST(Plan, BidirectionalHalvesTravelBothWaysAndCoverEveryBlock) {
  for (int c : {1, 2, 3, 4, 7})
    for (auto split : {Split::contiguous, Split::zigzag, Split::striped}) {
      const std::int64_t S = 4LL * c * 6;
      const Plan bi = make_plan(cfg(S, c, split, Variant::ring_bidirectional));
      const Plan ring = make_plan(cfg(S, c, split, Variant::ring));
      SCOPED_TRACE(bi.config.label());
      const std::int64_t rows = S / c, half = rows / 2;
      ASSERT_EQ(bi.schedule.lanes.size(), 2u);
      EXPECT_EQ(bi.schedule.lanes[0].row_end, half);
      EXPECT_EQ(bi.schedule.lanes[1].direction, -1);
      EXPECT_EQ(bi.schedule.key_rows(), 3 * half);  // lane 1's K starts after lane 0's K and V
      for (int r = 0; r < c; ++r) {
        const auto& rp = bi.ranks[r];
        ASSERT_EQ(static_cast<int>(rp.steps.size()), c);
        std::vector<int> first(c, 0), second(c, 0);
        for (int j = 0; j < c; ++j) {
          const auto& st = rp.steps[j];
          ASSERT_EQ(st.sources, (std::vector<int>{((r - j) % c + c) % c, (r + j) % c}));
          ++first[st.sources[0]];
          ++second[st.sources[1]];
          EXPECT_EQ(st.recv_bytes, j == 0 ? 0 : rows * bi.kv_bytes_per_token) << "step " << j;
          EXPECT_EQ(st.send_bytes, j + 1 < c ? rows * bi.kv_bytes_per_token : 0) << "step " << j;
          for (const auto& p : st.pairs) EXPECT_EQ(p.k_rank, st.sources[p.lane]);
        }
        EXPECT_EQ(first, std::vector<int>(c, 1));
        EXPECT_EQ(second, std::vector<int>(c, 1));
        EXPECT_EQ(rp.unmasked, ring.ranks[r].unmasked);
        EXPECT_EQ(rp.recv_bytes, ring.ranks[r].recv_bytes);
        // The two halves of the rank's own block, as the executors fill it.
        const auto pieces = bi.block_pieces(r);
        ASSERT_EQ(pieces.size(), 2u);
        EXPECT_EQ(total_count(pieces[0].segments) + total_count(pieces[1].segments), rows);
        EXPECT_EQ(pieces[1].k_row, 2 * half);
        EXPECT_EQ(pieces[1].v_row, 3 * half);
      }
    }
}

TEST(Plan, BidirectionalNeedsEvenRowsPerRank) {
  try {
    (void)make_plan(cfg(15, 3, Split::contiguous, Variant::ring_bidirectional));
    FAIL() << "5 rows per rank cannot be halved";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "seq");
    EXPECT_NE(std::string(e.what()).find("S / c must be even"), std::string::npos) << e.what();
  }
}

TEST(Plan, NonCausalWorkIsSquareAndBalanced) {
  auto c = cfg(48, 3, Split::contiguous);
  c.causal = false;
  const auto plan = make_plan(c);
  EXPECT_EQ(plan.total_work(), 48 * 48 * 4);
  EXPECT_DOUBLE_EQ(plan.work_imbalance(), 1.0);
}

TEST(Plan, ScalesToLargeRings) {
  // c = 256 at S = 1M: 65536 steps, each counted in closed form.
  const auto plan = make_plan(cfg(1 << 20, 256, Split::zigzag));
  EXPECT_EQ(plan.total_work(), (std::int64_t{1} << 20) * ((std::int64_t{1} << 20) + 1) / 2 * 4);
  EXPECT_NEAR(plan.work_imbalance(), 1.0, 1e-12);
}

}  // namespace
}  // namespace rb::ring
