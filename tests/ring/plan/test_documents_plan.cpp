// Plans under packed documents (docs/design.md §3c), for every split (doc-zigzag included), variant
// and c <= 8, causal or not, with documents shorter than a chunk and boundaries inside chunks: each
// rank's planned work equals a brute-force count of its within-document (query, key) pairs, and so
// does its imbalance; the work matrix gives the plan's numbers step by step; the kernel's pairs of
// every step, forward and backward, cover exactly those pairs, each once, at the rows that hold
// their positions. doc-zigzag gives rank k chunks k and 2c-1-k of every document and refuses a
// document it cannot cut, naming the nearest valid length.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "common/document_mask.hpp"
#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/plan/block_pairs.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/split_scheme.hpp"
#include "ring/plan/work_matrix.hpp"
#include "tests/ring/documents_fixture.hpp"

namespace rb::ring {
namespace {

Config packed_config(std::int64_t S, int c, Split split, Variant variant, bool causal) {
  Config cfg;
  cfg.seq = S;
  cfg.cp = c;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 8;
  cfg.causal = causal;
  cfg.phase = Phase::fwd_bwd;
  return test::with_corner_documents(cfg);
}

using PairSet = std::set<std::pair<std::int64_t, std::int64_t>>;

// Every (query, key) rank r's queries may attend to, by looking at every position pair.
PairSet brute_force(const Plan& plan, int r) {
  const std::int64_t S = plan.config.seq;
  const DocumentMask& m = plan.documents;
  std::vector<int> doc(static_cast<std::size_t>(S), -1);
  for (int d = 0; d < m.count(); ++d)
    for (std::int64_t p = m.begin(d); p < m.end(d); ++p) doc[static_cast<std::size_t>(p)] = d;
  PairSet out;
  for (const auto& s : plan.ranks[r].segments)
    for (std::int64_t i = 0; i < s.count; ++i) {
      const std::int64_t q = s.pos(i);
      for (std::int64_t k = 0; k < S; ++k)
        if (doc[q] >= 0 && doc[q] == doc[k] && (!plan.config.causal || k <= q)) out.emplace(q, k);
    }
  return out;
}

// Which position each key row of a step's buffer holds: gathered, every rank's block in rank order;
// rotating, each lane's piece of the block the lane holds at that step, at the lane's rows.
std::map<std::int64_t, std::int64_t> key_rows(const Plan& plan, const KvSchedule& sch, int r, int j,
                                              std::int64_t (*base)(const Plan&, int lane)) {
  std::map<std::int64_t, std::int64_t> out;
  const int c = plan.config.cp;
  if (sch.gathered) {
    for (int src = 0; src < c; ++src) {
      std::int64_t row = src * plan.ranks[0].tokens;
      for (const auto& s : plan.ranks[src].segments)
        for (std::int64_t i = 0; i < s.count; ++i) out[row++] = s.pos(i);
    }
    return out;
  }
  for (int l = 0; l < static_cast<int>(sch.lanes.size()); ++l) {
    std::int64_t row = base(plan, l);
    for (const auto& s : plan.lane_segments(sch.origin(r, l, j, c), l))
      for (std::int64_t i = 0; i < s.count; ++i) out[row++] = s.pos(i);
  }
  return out;
}

// The pairs a rank's steps hand the kernel, each checked to read the rows of its positions; a pair
// covered twice fails.
PairSet kernel_pairs(const Plan& plan, int r, const std::vector<std::vector<kernels::BlockPair>>& steps,
                     const KvSchedule& sch, std::int64_t (*base)(const Plan&, int lane), const std::string& what) {
  std::map<std::int64_t, std::int64_t> q_rows;
  std::int64_t row = 0;
  for (const auto& s : plan.ranks[r].segments)
    for (std::int64_t i = 0; i < s.count; ++i) q_rows[row++] = s.pos(i);
  PairSet out;
  for (std::size_t j = 0; j < steps.size(); ++j) {
    const auto k_rows = key_rows(plan, sch, r, static_cast<int>(j), base);
    for (const auto& p : steps[j]) {
      if (plan.config.causal && p.mask == MaskClass::skip) continue;
      for (std::int64_t i = 0; i < p.q.count; ++i) EXPECT_EQ(q_rows.at(p.q_row0 + i), p.q.pos(i)) << what;
      for (std::int64_t t = 0; t < p.k.count; ++t) EXPECT_EQ(k_rows.at(p.k_row0 + t), p.k.pos(t)) << what;
      for (std::int64_t i = 0; i < p.q.count; ++i)
        for (std::int64_t t = 0; t < p.k.count; ++t)
          if (!plan.config.causal || p.k.pos(t) <= p.q.pos(i)) {
            EXPECT_TRUE(out.emplace(p.q.pos(i), p.k.pos(t)).second) << what << ": a pair in two pieces";
          }
    }
  }
  return out;
}

std::int64_t forward_base(const Plan& plan, int lane) { return plan.schedule.k_row(lane); }
std::int64_t backward_base(const Plan& plan, int lane) {
  return plan.backward->grads == GradFlow::with_kv ? 4 * lane * plan.schedule.lane_rows : plan.schedule.k_row(lane);
}

TEST(DocumentsPlan, WorkEqualsABruteForceCountForEverySplitVariantAndC) {
  int configs = 0;
  for (const bool causal : {true, false})
    for (const Split split : every_split())
      // The ring variants: Ulysses' and the hybrid's documents run over their attention rows, checked
      // end to end in tests/ring/executor/test_executor_documents.cpp.
      for (const Variant variant : {Variant::ring, Variant::allgather, Variant::ring_bidirectional})
        for (int c = 1; c <= 8; ++c) {
          const Config cfg = packed_config(6LL * c, c, split, variant, causal);
          SCOPED_TRACE(cfg.label());
          const Plan plan = make_plan(cfg);
          const WorkMatrix wm = make_work_matrix(cfg);
          ASSERT_TRUE(plan.documents.active());
          std::int64_t mx = 0, total = 0;
          for (int r = 0; r < c; ++r) {
            const PairSet want = brute_force(plan, r);
            const auto n = static_cast<std::int64_t>(want.size());
            EXPECT_EQ(plan.ranks[r].unmasked, n) << "rank " << r;
            EXPECT_EQ(wm.rank_unmasked(r), n) << "rank " << r;
            for (int j = 0; j < wm.steps; ++j) EXPECT_EQ(wm.unmasked_at(r, j), plan.ranks[r].steps[j].unmasked);
            // The backward's steps see the same pairs, each on its own block.
            std::int64_t bwd = 0;
            for (const auto& st : plan.ranks[r].backward.steps) bwd += st.unmasked;
            EXPECT_EQ(bwd, n) << "rank " << r;
            EXPECT_EQ(kernel_pairs(plan, r, step_block_pairs(plan, r), plan.schedule, forward_base, "forward"), want);
            EXPECT_EQ(kernel_pairs(plan, r, backward_block_pairs(plan, r), plan.backward->kv, backward_base,
                                   "backward"),
                      want);
            mx = std::max(mx, n);
            total += n;
          }
          // Within documents only: FLOPs and imbalance count the documents' pairs.
          EXPECT_DOUBLE_EQ(plan.flops(), 4.0 * cfg.head_dim * cfg.heads * static_cast<double>(total));
          EXPECT_DOUBLE_EQ(plan.work_imbalance(), static_cast<double>(mx) * c / static_cast<double>(total));
          EXPECT_DOUBLE_EQ(wm.work_imbalance(), plan.work_imbalance());
          // The bound the memory estimate and the piece rule use holds the pieces the plan lists.
          double pieces = 0;
          for (const auto& rp : plan.ranks)
            for (const auto& st : rp.steps) pieces += static_cast<double>(st.pairs.size());
          EXPECT_LE(pieces, plan_piece_bound(cfg) * static_cast<double>(plan.schedule.lanes.size()));
          ++configs;
        }
  EXPECT_EQ(configs, 2 * 4 * 3 * 8);
}

// Causal pairs of one document: L(L+1)/2, Megatron's Σ over documents (docs/metrics.md).
TEST(DocumentsPlan, FlopsCountOnlyWithinDocuments) {
  Config cfg;
  cfg.seq = 4096;
  cfg.cp = 4;
  cfg.split = Split::zigzag;
  cfg.heads = 8;
  cfg.head_dim = 64;
  set_documents(cfg, parse_document_spec("2k+1k+512+512", "x"), false);
  const double pairs = 2048.0 * 2049 / 2 + 1024.0 * 1025 / 2 + 2 * 512.0 * 513 / 2;
  EXPECT_DOUBLE_EQ(make_plan(cfg).flops(), 4.0 * 64 * 8 * pairs);
}

TEST(DocumentsPlan, DocZigzagHoldsChunksKAnd2cMinus1MinusKOfEveryDocument) {
  Config cfg;
  cfg.seq = 48;
  cfg.cp = 2;
  cfg.split = Split::doc_zigzag;
  set_documents(cfg, parse_document_spec("8+16+24", "x"), false);
  const auto scheme = make_split_scheme(cfg);
  EXPECT_EQ(scheme->segments(48, 2, 0),
            (SegmentList{{0, 1, 2}, {6, 1, 2}, {8, 1, 4}, {20, 1, 4}, {24, 1, 6}, {42, 1, 6}}));
  EXPECT_EQ(scheme->segments(48, 2, 1),
            (SegmentList{{2, 1, 2}, {4, 1, 2}, {12, 1, 4}, {16, 1, 4}, {30, 1, 6}, {36, 1, 6}}));
  // Without documents the whole sequence is one: zig-zag's segments.
  EXPECT_EQ(make_split_scheme(Split::doc_zigzag)->segments(48, 4, 1),
            make_split_scheme(Split::zigzag)->segments(48, 4, 1));
  // Every rank does the same causal work within every document.
  const Plan plan = make_plan(cfg);
  EXPECT_EQ(plan.ranks[0].unmasked, plan.ranks[1].unmasked);
  EXPECT_DOUBLE_EQ(plan.work_imbalance(), 1.0);
}

TEST(DocumentsPlan, DocZigzagRefusesADocumentItCannotCutNamingTheNearestLength) {
  Config cfg;
  cfg.seq = 48;
  cfg.cp = 4;
  cfg.split = Split::doc_zigzag;
  set_documents(cfg, parse_document_spec("16+13+19", "x"), false);
  try {
    validate_plan_inputs(cfg);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "documents");
    EXPECT_EQ(e.value(), "13 (document 2 of 3)");
    EXPECT_NE(e.rule().find("multiple of 8; nearest valid length is 16, or --pad-documents"), std::string::npos)
        << e.rule();
  }
  // Padded, it runs: S is what the ranks hold, and the padding is no work.
  set_documents(cfg, parse_document_spec("16+13+19", "x"), true);
  cfg.seq = 16 + 16 + 24;
  const Plan plan = make_plan(cfg);
  EXPECT_EQ(plan.ranks[0].tokens, 14);
  std::int64_t total = 0;
  for (const auto& rp : plan.ranks) total += rp.unmasked;
  EXPECT_EQ(total, 16 * 17 / 2 + 13 * 14 / 2 + 19 * 20 / 2);
}

TEST(DocumentsPlan, ExplicitLengthsThatMissSAreRefused) {
  Config cfg;
  cfg.seq = 64;
  cfg.cp = 2;
  set_documents(cfg, parse_document_spec("32+16", "x"), false);
  EXPECT_THROW(validate_plan_inputs(cfg), InputError);
  EXPECT_THROW((void)make_work_matrix(cfg), InputError);
}

// A plan whose pieces would exceed kMaxDocumentPieces is refused in one line before it is built.
TEST(DocumentsPlan, TooManyPiecesAreRefusedBeforeThePlanIsBuilt) {
  Config cfg;
  cfg.seq = std::int64_t{1} << 24;
  cfg.cp = 1024;
  cfg.split = Split::striped;
  set_documents(cfg, parse_document_spec("fixed:1k", "x"), false);
  try {
    validate_plan_inputs(cfg);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "documents");
    EXPECT_NE(e.rule().find("within-document pieces"), std::string::npos) << e.rule();
  }
}

// Without documents a plan is what it always was: the same pairs, skip ones included.
TEST(DocumentsPlan, WithoutDocumentsEverySegmentPairIsListed) {
  Config cfg;
  cfg.seq = 64;
  cfg.cp = 4;
  cfg.split = Split::zigzag;
  const Plan plan = make_plan(cfg);
  EXPECT_FALSE(plan.documents.active());
  for (const auto& rp : plan.ranks)
    for (const auto& st : rp.steps) {
      EXPECT_EQ(st.pairs.size(), 4u);
      for (const auto& p : st.pairs) EXPECT_EQ(p.doc, -1);
    }
}

}  // namespace
}  // namespace rb::ring
