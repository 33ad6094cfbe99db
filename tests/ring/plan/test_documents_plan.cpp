// Plans under packed documents (docs/design.md §3c), for every split (doc-zigzag included), variant
// and c <= 8, causal or not, with documents shorter than a chunk and boundaries inside chunks: each
// rank's planned work equals a brute-force count of its within-document (query, key) pairs, and so
// does its imbalance; the work matrix gives the plan's numbers step by step; the kernel's pairs of
// every step, forward and backward, cover exactly those pairs, each once, at the rows that hold
// their positions. doc-zigzag gives rank k chunks k and 2c-1-k of every document and refuses a
// document it cannot cut, naming the nearest valid length.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string_view>

#include "common/document_mask.hpp"
#include "common/documents.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"
#include "ring/plan/block_pairs.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/split_scheme.hpp"
#include "ring/plan/work_matrix.hpp"
#include "ring/program/backward_design.hpp"
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
// Where the backward design's buffers put the keys of a lane (ring/program/backward_*.cpp).
std::int64_t backward_base(const Plan& plan, int lane) {
  return make_backward_design(plan.backward->grads)->key_row(CompileContext(plan, 0), 0, lane);
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
            const auto design = make_backward_design(plan.backward->grads);
            const CompileContext cx(plan, r);
            const auto bwd_pairs = block_pairs_on(plan, r, plan.backward->kv, plan.ranks[r].backward.steps,
                                                  [&](int o, int lane) { return design->key_row(cx, o, lane); });
            EXPECT_EQ(kernel_pairs(plan, r, bwd_pairs, plan.backward->kv, backward_base, "backward"), want);
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

// A plan over its bound (kMaxPlanBytes, ring/plan/split_scheme.hpp) is refused in one line before it is built.
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

// --- Issue 51: the cost of plans of many documents, and their bound.

Config many_documents(std::int64_t S, int c, Split split, std::string_view spec, bool pad) {
  Config cfg;
  cfg.seq = S;
  cfg.cp = c;
  cfg.split = split;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 8;
  set_documents(cfg, parse_document_spec(spec, "documents"), pad);
  return cfg;
}

// Keeps a built value from being optimised away (the tests' -O0 would not, but say so).
template <typename T>
void benchmark_keep(const T& v) {
  asm volatile("" : : "r"(&v) : "memory");
}

// How much longer `large` takes to build than `small`: the best of five builds of each, taken in
// turns, so that the others' builds sharing the machine load both alike.
template <typename Small, typename Large>
double time_ratio(Small small, Large large) {
  auto seconds = [](auto build) {
    const auto t0 = std::chrono::steady_clock::now();
    benchmark_keep(build());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  double s = 1e9, l = 1e9;
  for (int i = 0; i < 5; ++i) {
    s = std::min(s, seconds(small));
    l = std::min(l, seconds(large));
  }
  return l / s;
}

// A contiguous rank meets a few documents; finding them walked from the first document at every
// (rank, step), O(c^2 x documents). At c = 128 sixty-four times the documents (64 to 4096 over the
// same S) must cost about as much: the plan's c^2 steps dominate both (2x measured; the walk took
// 12-30x, and 0.4 s at 4096).
TEST(DocumentsScale, AContiguousPlanCostsItsStepsNotStepsTimesDocuments) {
  const Config few = many_documents(262144, 128, Split::contiguous, "fixed:4096", false);
  const Config many = many_documents(262144, 128, Split::contiguous, "fixed:64", false);
  ASSERT_EQ(many.documents.lengths.size(), 4096u);
  const double ratio = time_ratio([&] { return make_plan(few); }, [&] { return make_plan(many); });
  EXPECT_LT(ratio, 6.0) << "64x the documents took " << ratio << "x as long";
  const double matrix = time_ratio([&] { return make_work_matrix(few); }, [&] { return make_work_matrix(many); });
  EXPECT_LT(matrix, 6.0) << "the work matrix: 64x the documents took " << matrix << "x as long";
}

// doc-zigzag over 2048 documents of 4 tokens padded to 2c: only ranks 0-3 hold real tokens, yet
// every (rank, step) walked every rank's 4096 segments, O(c^2 x documents). Four times c (16 to 64)
// must cost about four times as long (the segments the ranks hold: 2.5-3.5x measured), not sixteen
// (the walk: 14-18x, and 0.25 s at c = 64).
TEST(DocumentsScale, APaddedDocZigzagPlanCostsTheSegmentsItHolds) {
  const Config small = many_documents(8192, 16, Split::doc_zigzag, "fixed:4", true);
  const Config large = many_documents(8192, 64, Split::doc_zigzag, "fixed:4", true);
  ASSERT_EQ(large.seq, 2048 * 128);
  const double ratio = time_ratio([&] { return make_plan(small); }, [&] { return make_plan(large); });
  EXPECT_LT(ratio, 9.0) << "4x c took " << ratio << "x as long";
  const double matrix = time_ratio([&] { return make_work_matrix(small); }, [&] { return make_work_matrix(large); });
  EXPECT_LT(matrix, 9.0) << "the work matrix: 4x c took " << matrix << "x as long";
}

// The bound is a count made from the split and the lengths, before anything is built: a striped
// plan of 262144 documents of 32 tokens at c = 32 would hold 2.7e8 pieces, 8 GiB. The refusal names
// the estimate and the bound; the work matrix (the model's), which counts the pieces without keeping
// them, is held to 2^27 of them.
TEST(DocumentsScale, APlanOverTheBoundIsRefusedNamingTheEstimate) {
  const Config cfg = many_documents(std::int64_t{1} << 23, 32, Split::striped, "fixed:32", false);
  const PlanSize n = plan_size_estimate(cfg);
  EXPECT_DOUBLE_EQ(n.pieces, 262144.0 * 32 * 32);
  EXPECT_GT(n.bytes, 8 * kMaxPlanBytes);
  for (const bool matrix : {false, true}) try {
      if (matrix)
        (void)make_work_matrix(cfg);
      else
        validate_plan_inputs(cfg);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), "documents");
      EXPECT_EQ(e.value(), "fixed:32");
      EXPECT_NE(e.rule().find(matrix ? "2.68e+08 within-document pieces" : "an estimated 8."), std::string::npos)
          << e.rule();
      EXPECT_NE(e.rule().find(matrix ? "at most 1 GiB and 1.34e+08" : "at most 1 GiB"), std::string::npos) << e.rule();
    }
}

// A backward keeps its own steps: a plan the forward keeps in 0.6 GiB is 1.2 GiB with one, refused
// rather than built to std::bad_alloc.
TEST(DocumentsScale, TheBackwardCountsInTheBound) {
  Config cfg = many_documents(640000, 32, Split::striped, "fixed:32", false);
  const double forward = plan_size_estimate(cfg).bytes;
  EXPECT_LT(forward, kMaxPlanBytes);
  EXPECT_NO_THROW(validate_plan_inputs(cfg));
  cfg.phase = Phase::fwd_bwd;
  EXPECT_GT(plan_size_estimate(cfg).bytes, 1.9 * forward);
  EXPECT_THROW(validate_plan_inputs(cfg), InputError);
}

// doc-zigzag's padding is held to S's own bound: 2^20 one-token documents padded to 2c = 2^21 each
// would make S = 2^41.
TEST(DocumentsScale, PaddingPastTheSequenceBoundIsRefused) {
  const Config cfg = many_documents(std::int64_t{1} << 20, 1 << 20, Split::doc_zigzag, "fixed:1", true);
  try {
    check_piece_bound(cfg);
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "documents");
    EXPECT_NE(e.rule().find("2199023255552"), std::string::npos) << e.rule();
  }
}

// The model's doc-zigzag of one-token documents (a million of them took 41 s and 2.5 GB): 512k of
// them at c = 32 hold 33M segments, refused at once; 4096 of them are counted in milliseconds.
TEST(DocumentsScale, TheModelsWorkMatrixIsBoundedAndCheap) {
  const Config refused = many_documents(std::int64_t{1} << 19, 32, Split::doc_zigzag, "fixed:1", true);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW((void)make_work_matrix(refused), InputError);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  const Config counted = many_documents(4096, 32, Split::doc_zigzag, "fixed:1", true);
  const WorkMatrix m = make_work_matrix(counted);
  EXPECT_EQ(m.rank_unmasked(0), 4096);  // every document's one token, on rank 0's early chunk
  EXPECT_EQ(m.rank_unmasked(1), 0);
}

}  // namespace
}  // namespace rb::ring
