// The `--kernel cudnn` mapping of a ring step to cuDNN SDPA pieces (ring/plan/sdpa_pieces.hpp), for every
// split, variant and c <= 8, causal or not: the pieces stay inside the buffers, each mask is one
// every cuDNN 9 accepts, no piece is fully masked, and the pieces of a step cover exactly the plan's
// unmasked (query, key) pairs, each once, counted against the work matrix; step 0's folds write
// each row once before merging into it.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/plan/block_pairs.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/sdpa_pieces.hpp"
#include "ring/plan/work_matrix.hpp"
#include "tests/ring/documents_fixture.hpp"

namespace rb::ring {
namespace {

Config config(std::int64_t seq, int cp, Split split, Variant variant, bool causal) {
  Config cfg;
  cfg.seq = seq;
  cfg.cp = cp;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 64;
  cfg.causal = causal;
  cfg.dtype = DType::bfloat16;
  cfg.backend = Backend::cuda;
  return cfg;
}

// Checks one rank's steps; returns the unmasked pairs its pieces cover, step by step.
void check_rank(const Plan& plan, int r, const WorkMatrix& wm, const std::string& what) {
  const DocumentMask& docs = plan.documents;  // inactive without documents: every pair is in one
  const Config& cfg = plan.config;
  const auto launches = step_launches(plan, r);
  const auto steps = sdpa_steps(plan, r);
  ASSERT_EQ(steps.size(), launches.size()) << what;
  const std::int64_t S = cfg.seq;
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const SdpaStep& st = steps[j];
    const StepLaunch& sl = launches[j];
    const std::string at = what + " rank " + std::to_string(r) + " step " + std::to_string(j);
    EXPECT_EQ(st.action, sl.action) << at;
    if (st.action == StepAction::skip) {
      EXPECT_TRUE(st.pieces.empty()) << at;
      continue;
    }
    // Local rows to global positions, from the step's pairs.
    std::map<std::int64_t, std::int64_t> q_pos, k_pos;
    for (const auto& p : sl.pairs) {
      for (std::int64_t i = 0; i < p.q.count; ++i) q_pos[p.q_row0 + i] = p.q.pos(i);
      for (std::int64_t t = 0; t < p.k.count; ++t) k_pos[p.k_row0 + t] = p.k.pos(t);
    }
    std::vector<char> seen(static_cast<std::size_t>(S * S), 0);
    std::int64_t covered = 0, counted = 0;
    for (const SdpaPiece& pc : st.pieces) {
      ASSERT_GT(pc.rows, 0) << at;
      ASSERT_GT(pc.keys, 0) << at;
      ASSERT_GE(pc.q_row0, 0) << at;
      ASSERT_LE(pc.q_row0 + pc.rows, sl.sq) << at << ": a piece's rows outside Q";
      ASSERT_GE(pc.k_row0, 0) << at;
      ASSERT_LE(pc.k_row0 + pc.keys, sl.sk) << at << ": a piece's keys outside the K/V buffer";
      if (pc.mask == SdpaMask::causal_top_left) {
        EXPECT_EQ(pc.rows, pc.keys) << at << ": a causal piece that is not square";
      }
      EXPECT_EQ(q_offset(pc, cfg) * 2 % 16, 0) << at;
      EXPECT_EQ(kv_offset(pc, cfg) * 2 % 16, 0) << at;
      counted += piece_pairs(pc);
      for (std::int64_t u = 0; u < pc.rows; ++u) {
        bool row_sees = false;
        const std::int64_t keys = pc.mask == SdpaMask::none ? pc.keys : u + 1;
        for (std::int64_t t = 0; t < keys; ++t) {
          ASSERT_TRUE(q_pos.contains(pc.q_row0 + u) && k_pos.contains(pc.k_row0 + t)) << at;
          const std::int64_t qp = q_pos[pc.q_row0 + u], kp = k_pos[pc.k_row0 + t];
          ASSERT_TRUE(!cfg.causal || kp <= qp) << at << ": key " << kp << " is masked for query " << qp;
          ASSERT_TRUE(docs.holds(qp) && docs.holds(kp) && docs.overlapping(qp, qp) == docs.overlapping(kp, kp))
              << at << ": key " << kp << " and query " << qp << " are in different documents";
          char& cell = seen[static_cast<std::size_t>(qp * S + kp)];
          ASSERT_EQ(cell, 0) << at << ": (query " << qp << ", key " << kp << ") in two pieces";
          cell = 1;
          ++covered;
          row_sees = true;
        }
        EXPECT_TRUE(row_sees) << at;
      }
    }
    EXPECT_EQ(counted, covered) << at;
    EXPECT_EQ(covered, sl.unmasked) << at << ": the pieces miss unmasked pairs";
    EXPECT_EQ(covered, wm.unmasked_at(r, static_cast<int>(j))) << at << ": against the work matrix";
    // Step 0's folds: a piece that writes meets only rows no piece reached; one that merges only
    // rows already written (or cleared); at the end every row holds a value.
    if (st.action == StepAction::write) {
      std::vector<char> row(static_cast<std::size_t>(sl.sq), st.clear_first ? 1 : 0);
      for (const SdpaPiece& pc : st.pieces)
        for (std::int64_t u = pc.q_row0; u < pc.q_row0 + pc.rows; ++u) {
          ASSERT_EQ(row[static_cast<std::size_t>(u)], pc.writes ? 0 : 1) << at << " row " << u;
          row[static_cast<std::size_t>(u)] = 1;
        }
      for (char v : row) ASSERT_EQ(v, 1) << at << ": a row step 0 leaves unwritten";
    } else {
      EXPECT_FALSE(st.clear_first) << at;
      for (const SdpaPiece& pc : st.pieces) EXPECT_FALSE(pc.writes) << at;
    }
  }
}

TEST(SdpaPieces, EveryStepOfEverySplitAndVariantIsCoveredExactly) {
  int configs = 0;
  for (const bool causal : {true, false})
    for (const Split split : {Split::contiguous, Split::zigzag, Split::striped})
      for (const Variant variant : {Variant::ring, Variant::allgather, Variant::ring_bidirectional})
        for (int c = 1; c <= 8; ++c)
          for (const std::int64_t per_rank : {12, 20}) {
            const Config cfg = config(per_rank * c, c, split, variant, causal);
            const Plan plan = make_plan(cfg);
            const WorkMatrix wm = make_work_matrix(cfg);
            EXPECT_EQ(sdpa_refusal(plan), "");
            for (int r = 0; r < c; ++r) check_rank(plan, r, wm, cfg.label());
            ++configs;
          }
  EXPECT_EQ(configs, 2 * 3 * 3 * 8 * 2);
}

// Under packed documents (docs/design.md §3c) the pieces are cut at every boundary: they cover
// exactly the within-document pairs, each once, with the rectangles and squares of one sequence. The
// cuda backend still refuses documents (ring/executor/backend_support.cpp): every distinct piece size
// is a cuDNN graph, unbounded under a length mix.
TEST(SdpaPieces, DocumentsAreCutIntoTheSameRectanglesAndSquares) {
  for (const bool causal : {true, false})
    for (const Split split : every_split())
      // The ring variants: Ulysses' and the hybrid's documents run over their attention rows, checked
      // end to end in tests/ring/executor/test_executor_documents.cpp.
      for (const Variant variant : {Variant::ring, Variant::allgather, Variant::ring_bidirectional})
        for (int c = 1; c <= 8; ++c) {
          const Config cfg = test::with_corner_documents(config(12LL * c, c, split, variant, causal));
          const Plan plan = make_plan(cfg);
          const WorkMatrix wm = make_work_matrix(cfg);
          for (int r = 0; r < c; ++r) check_rank(plan, r, wm, cfg.label());
        }
}

// The shapes the plate's arithmetic gives, by hand: a contiguous ring's diagonal block is one
// square; a striped rank sees an earlier rank's stripe as a square (row i sees keys 0..i) and a
// later rank's shifted by a row, so its first row sees none of that stripe's keys.
TEST(SdpaPieces, DiagonalBlocksAndStripesByHand) {
  const kernels::BlockPair diag{{100, 1, 8}, 0, {100, 1, 8}, 16, MaskClass::partial};
  EXPECT_EQ(pair_pieces(diag, true), (std::vector<SdpaPiece>{{0, 8, 16, 8, SdpaMask::causal_top_left}}));
  const kernels::BlockPair full{{100, 1, 8}, 0, {0, 1, 8}, 16, MaskClass::full};
  EXPECT_EQ(pair_pieces(full, true), (std::vector<SdpaPiece>{{0, 8, 16, 8}}));
  const kernels::BlockPair none{{0, 1, 8}, 0, {100, 1, 8}, 16, MaskClass::skip};
  EXPECT_TRUE(pair_pieces(none, true).empty());
  // Striped, c = 4: rank 1's queries 1, 5, 9, ... against rank 3's keys 3, 7, 11, ...
  const kernels::BlockPair later{{1, 4, 6}, 0, {3, 4, 6}, 0, MaskClass::partial};
  EXPECT_EQ(pair_pieces(later, true), (std::vector<SdpaPiece>{{1, 5, 0, 5, SdpaMask::causal_top_left}}));
  // ... and rank 3's queries against rank 1's keys: row i sees keys 0..i, the square itself.
  const kernels::BlockPair earlier{{3, 4, 6}, 0, {1, 4, 6}, 0, MaskClass::partial};
  EXPECT_EQ(pair_pieces(earlier, true), (std::vector<SdpaPiece>{{0, 6, 0, 6, SdpaMask::causal_top_left}}));
  // Positions 12-15 against keys 4-7 would be full; two keys are visible to every row, then a square, then rows
  // that see the rest.
  const kernels::BlockPair shifted{{12, 1, 4}, 4, {10, 1, 4}, 8, MaskClass::partial};
  EXPECT_EQ(pair_pieces(shifted, true),
            (std::vector<SdpaPiece>{{4, 4, 8, 2}, {4, 2, 10, 2, SdpaMask::causal_top_left}, {6, 2, 10, 2}}));
  // Ring-bidirectional's half block: 8 query rows against the later half (4 keys) of the same
  // positions' block: rows 0-3 see none, rows 4-7 a square.
  const kernels::BlockPair half{{0, 1, 8}, 0, {4, 1, 4}, 0, MaskClass::partial};
  EXPECT_EQ(pair_pieces(half, true), (std::vector<SdpaPiece>{{4, 4, 0, 4, SdpaMask::causal_top_left}}));
  // ... and against the earlier half: a square, then rows that see all four keys.
  const kernels::BlockPair first_half{{0, 1, 8}, 0, {0, 1, 4}, 0, MaskClass::partial};
  EXPECT_EQ(pair_pieces(first_half, true),
            (std::vector<SdpaPiece>{{0, 4, 0, 4, SdpaMask::causal_top_left}, {4, 4, 0, 4}}));
}

TEST(SdpaPieces, SegmentsOfTwoStridesAreRefused) {
  const kernels::BlockPair mixed{{0, 2, 8}, 0, {1, 3, 8}, 0, MaskClass::partial};
  EXPECT_THROW(pair_pieces(mixed, true), Error);
  // A one-position segment takes the other's stride.
  const kernels::BlockPair single{{9, 1, 1}, 0, {1, 4, 3}, 0, MaskClass::full};
  EXPECT_EQ(pair_pieces(single, true).size(), 1u);
}

TEST(SdpaPieces, PiecesOfOneShapeShareAGraph) {
  const Config cfg = config(4096, 4, Split::zigzag, Variant::ring, true);
  const SdpaPiece a{0, 512, 0, 512, SdpaMask::causal_top_left}, b{512, 512, 512, 512, SdpaMask::causal_top_left};
  EXPECT_EQ(graph_key(a, cfg), graph_key(b, cfg));
  EXPECT_NE(graph_key(a, cfg), graph_key(SdpaPiece{0, 512, 0, 512}, cfg));
  EXPECT_EQ(stats_offset(b, cfg), 512 * 4);
  EXPECT_EQ(q_offset(b, cfg), 512 * 4 * 64);
  EXPECT_EQ(kv_offset(b, cfg), 512 * 2 * 64);
}

// cuDNN assumes every pointer it is given 16-byte aligned; a piece's fp32 stats start q_row0 · Hq
// floats into the rank's buffer, so with Hq of 1, 2 or odd a piece from an odd row breaks that,
// and the configuration is refused in one line naming the piece. Hq = 4 never is, nor are Hq = 1
// pieces that all start on a multiple of 4 rows.
TEST(SdpaPieces, StatsOffTheSixteenByteAlignmentAreRefused) {
  Config cfg = config(24, 4, Split::striped, Variant::ring, true);  // rank 1 against rank 3: from row 1
  cfg.kv_heads = 1;
  for (int hq : {1, 2, 3, 5}) {
    cfg.heads = hq;
    const std::string why = sdpa_refusal(make_plan(cfg));
    SCOPED_TRACE("Hq " + std::to_string(hq) + ": " + why);
    EXPECT_NE(why.find("16-byte alignment"), std::string::npos);
    EXPECT_NE(why.find("causal piece from query row 1 "), std::string::npos);
    EXPECT_NE(why.find("x Hq " + std::to_string(hq) + ")"), std::string::npos);
    EXPECT_EQ(why.find('\n'), std::string::npos);
  }
  for (int hq : {4, 8}) {
    cfg.heads = hq;
    EXPECT_EQ(sdpa_refusal(make_plan(cfg)), "") << "Hq " << hq;
  }
  Config contiguous = config(32, 4, Split::contiguous, Variant::ring, true);  // every piece from row 0
  contiguous.heads = 1;
  contiguous.kv_heads = 1;
  EXPECT_EQ(sdpa_refusal(make_plan(contiguous)), "");

  Config two = cfg;
  two.heads = 2;
  EXPECT_FALSE(stats_aligned(SdpaPiece{1, 5, 0, 5, SdpaMask::causal_top_left}, two));
  EXPECT_TRUE(stats_aligned(SdpaPiece{2, 4, 0, 4}, two));  // 4 floats: 16 bytes
  two.heads = 1;
  EXPECT_FALSE(stats_aligned(SdpaPiece{2, 4, 0, 4}, two));
  EXPECT_TRUE(stats_aligned(SdpaPiece{4, 4, 0, 4}, two));
}

}  // namespace
}  // namespace rb::ring
