// The buffer set both executors hold (ring/executor/rank_buffers.hpp): its sizes against the schedule's
// layout, the buffers allocated for each ring size and in which order, which buffer each step
// reads, and Q and the own block filled where the reference finds each input.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/scheme_table.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

namespace kref = kernels::ref;

Config config(int c, Split split, Variant variant, std::int64_t seq) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = seq;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 8;
  cfg.split = split;
  cfg.variant = variant;
  cfg.dtype = DType::float64;
  cfg.seed = 7;
  return cfg;
}

// Every variant and split at several ring sizes, and an odd number of rows per rank where the
// variant allows one (not ring-bidirectional, whose lanes halve each rank's rows).
std::vector<Config> configs() {
  std::vector<Config> out;
  for (int c : {1, 2, 3, 4, 5})
    for (const Variant v : every_variant()) {
      for (const Split s : every_split())
        for (const Config& x : testing::exchange_cases(config(c, s, v, 2LL * c * 6))) out.push_back(x);
      if (v != Variant::ring_bidirectional)
        for (const Config& x : testing::exchange_cases(config(c, Split::contiguous, v, 7LL * c))) out.push_back(x);
    }
  return out;
}

TEST(RankBuffers, TheShapeFollowsTheSchedulesLayout) {
  for (const Config& cfg : configs()) {
    SCOPED_TRACE(cfg.label());
    const Plan plan = make_plan(cfg);
    const KvSchedule& sch = plan.schedule;
    const HeadExchange& x = plan.exchange;
    for (int r = 0; r < cfg.cp; ++r) {
      const RankBufferShape n = rank_buffer_shape(plan, r);
      // The attention layout: the group's rows (the rank's own without an exchange), the rank's heads.
      const std::int64_t tokens = plan.ranks[static_cast<std::size_t>(r)].tokens;
      const std::int64_t rows = tokens * x.degree, row = x.kv_heads * 8;
      EXPECT_EQ(plan.ranks[static_cast<std::size_t>(r)].attention_tokens, rows);
      EXPECT_EQ(x.q_heads * x.degree, 4);
      EXPECT_EQ(n.row, row);
      EXPECT_EQ(n.q, rows * x.q_heads * 8);
      EXPECT_EQ(n.lse, rows * x.q_heads);
      EXPECT_EQ(n.exchange, x.degree > 1);
      EXPECT_EQ(n.shard_q, n.exchange ? tokens * 4 * 8 : 0);
      EXPECT_EQ(n.shard_kv, n.exchange ? tokens * 2 * 8 : 0);
      EXPECT_EQ(n.stage, n.exchange ? tokens * (x.q_heads + 2 * x.kv_heads) * 8 : 0);
      EXPECT_EQ(n.block, sch.buffer_rows() * row);
      EXPECT_EQ(n.half, rows * row);
      EXPECT_EQ(n.v_offset, sch.lane_rows * row);
      EXPECT_EQ(n.piece, 2 * sch.lane_rows * row);
      for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
        EXPECT_EQ(n.piece_offset(l), sch.k_row(l) * row) << "lane " << l;
        EXPECT_EQ(n.piece_offset(l) + n.v_offset, sch.v_row(l) * row) << "lane " << l;
        EXPECT_LE(n.piece_offset(l) + n.piece, n.block) << "lane " << l;
      }
      EXPECT_EQ(n.gathered, sch.gathered);
      if (sch.gathered) {
        EXPECT_EQ(n.all_kv, n.half * cfg.cp);
        EXPECT_EQ(n.step_buffers, 0);
        EXPECT_EQ(n.block, 2 * n.half);  // [K | V] of the rank's rows: the gather sends each half
      } else {
        EXPECT_EQ(n.all_kv, 0);
        EXPECT_EQ(n.step_buffers, x.groups == 1 ? 0 : x.groups == 2 ? 1 : 2);
      }
    }
  }
}

// A buffer that records its allocations, tagged with the kind of element it holds.
std::vector<std::pair<char, std::size_t>>& allocations() {
  static std::vector<std::pair<char, std::size_t>> log;
  return log;
}
template <char Kind>
struct Logged {
  std::size_t n = 0;
  Logged() = default;
  explicit Logged(std::size_t size) : n(size) { allocations().emplace_back(Kind, size); }
};

TEST(RankBuffers, AllocatesQAndTheOwnBlockThenTheWorkingSetInOneOrder) {
  struct Case {
    Variant variant;
    int c;
    std::vector<char> kinds;  // after Q and own: O, O, LSE, LSE, then the K/V buffers
    int step_buffers;
  };
  const std::vector<Case> cases = {
      {Variant::ring, 1, {'a', 'a', 'a', 'a'}, 0},
      {Variant::ring, 2, {'a', 'a', 'a', 'a', 'k'}, 1},
      {Variant::ring, 4, {'a', 'a', 'a', 'a', 'k', 'k'}, 2},
      {Variant::allgather, 4, {'a', 'a', 'a', 'a', 'k', 'k'}, 0},
  };
  for (const Case& tc : cases) {
    const Plan plan = make_plan(config(tc.c, Split::contiguous, tc.variant, 8LL * tc.c));
    SCOPED_TRACE(plan.config.label());
    const RankBufferShape n = rank_buffer_shape(plan, 0);
    RankBuffers<Logged<'k'>, Logged<'a'>> b;
    allocations().clear();
    b.allocate_inputs(n);
    ASSERT_EQ(allocations().size(), 2u);
    EXPECT_EQ(allocations()[0], std::make_pair('k', static_cast<std::size_t>(n.q)));
    EXPECT_EQ(allocations()[1], std::make_pair('k', static_cast<std::size_t>(n.block)));
    allocations().clear();
    b.allocate_working(n);
    std::vector<char> kinds;
    for (const auto& [kind, size] : allocations()) kinds.push_back(kind);
    EXPECT_EQ(kinds, tc.kinds);
    EXPECT_EQ(b.o_part.n, static_cast<std::size_t>(n.q));
    EXPECT_EQ(b.o_acc.n, static_cast<std::size_t>(n.q));
    EXPECT_EQ(b.lse_part.n, static_cast<std::size_t>(n.lse));
    EXPECT_EQ(b.lse_acc.n, static_cast<std::size_t>(n.lse));
    // Step 1 reads buffer 1 from c = 2, step 2 buffer 0 from c = 3.
    EXPECT_EQ(b.buf[1].n, tc.step_buffers >= 1 ? static_cast<std::size_t>(n.block) : 0u);
    EXPECT_EQ(b.buf[0].n, tc.step_buffers >= 2 ? static_cast<std::size_t>(n.block) : 0u);
    const std::size_t all = plan.schedule.gathered ? static_cast<std::size_t>(n.half * tc.c) : 0u;
    EXPECT_EQ(b.all_k.n, all);
    EXPECT_EQ(b.all_v.n, all);
  }
}

TEST(RankBuffers, StepZeroReadsTheOwnBlockThenTheTwoStepBuffersInTurn) {
  using Buffers = RankBuffers<std::vector<int>, std::vector<int>>;
  Buffers b;
  const Buffers& cb = b;
  const std::vector<const std::vector<int>*> expected = {&b.own, &b.buf[1], &b.buf[0], &b.buf[1], &b.buf[0], &b.buf[1]};
  for (int j = 0; j < static_cast<int>(expected.size()); ++j) {
    EXPECT_EQ(&b.step_buffer(j), expected[static_cast<std::size_t>(j)]) << "step " << j;
    EXPECT_EQ(&cb.step_buffer(j), expected[static_cast<std::size_t>(j)]) << "step " << j;
  }
}

// Element (row i, head h, dim d) of a (rows, H, D) tensor whose rows hold `segs`' positions is the
// seeded input value of that position (docs/design.md §3); rows past the segments stay 0.
void expect_filled(const std::vector<double>& buf, std::int64_t at, const SegmentList& segs, kref::Tensor t, int heads,
                   const Config& cfg, const std::string& what) {
  std::int64_t row = 0;
  for (const Segment& s : segs)
    for (std::int64_t i = 0; i < s.count; ++i, ++row)
      for (int h = 0; h < heads; ++h)
        for (int d = 0; d < cfg.head_dim; ++d) {
          const auto e = static_cast<std::size_t>(at + (row * heads + h) * cfg.head_dim + d);
          ASSERT_EQ(buf.at(e), kref::input_value(cfg.seed, t, heads, cfg.head_dim, s.pos(i), h, d))
              << what << " row " << row << " head " << h << " dim " << d;
        }
}

TEST(RankBuffers, FillsQAndTheOwnBlockWhereTheReferenceFindsEachInput) {
  for (const Variant v : every_variant())
    for (const int c : {1, 3, 4})
      for (const Config& cfg : testing::exchange_cases(config(c, Split::zigzag, v, 2LL * c * 5))) {
        SCOPED_TRACE(cfg.label());
        const Plan plan = make_plan(cfg);
        for (int r = 0; r < c; ++r) {
          const RankBufferShape n = rank_buffer_shape(plan, r);
          RankBuffers<std::vector<double>, std::vector<double>> b;
          b.allocate_inputs(n);
          int calls = 0;
          b.fill_inputs(plan, r, DType::float64, n,
                        [&](std::vector<double>& buf, std::int64_t at, const SegmentList& segs,
                            const kref::FillParams& fp) {
                          ++calls;
                          kref::fill_inputs(buf.data() + at, segs, fp);
                        });
          const SegmentList& shard = plan.ranks[static_cast<std::size_t>(r)].segments;
          if (n.exchange) {
            // The shard's Q, K and V, every head: what each pass's all-to-all moves (docs/design.md §3b).
            EXPECT_EQ(calls, 3);
            expect_filled(b.q_shard, 0, shard, kref::Tensor::q, cfg.heads, cfg, "Q shard");
            expect_filled(b.k_shard, 0, shard, kref::Tensor::k, cfg.kv_heads, cfg, "K shard");
            expect_filled(b.v_shard, 0, shard, kref::Tensor::v, cfg.kv_heads, cfg, "V shard");
            continue;
          }
          const auto pieces = plan.block_pieces(r);
          EXPECT_EQ(calls, 1 + 2 * static_cast<int>(pieces.size()));
          expect_filled(b.q, 0, plan.ranks[static_cast<std::size_t>(r)].segments, kref::Tensor::q, cfg.heads, cfg, "Q");
          for (const BlockPiece& p : pieces) {
            expect_filled(b.own, p.k_row * n.row, p.segments, kref::Tensor::k, cfg.kv_heads, cfg, "K");
            expect_filled(b.own, p.v_row * n.row, p.segments, kref::Tensor::v, cfg.kv_heads, cfg, "V");
          }
        }
      }
}

}  // namespace
}  // namespace rb::ring
