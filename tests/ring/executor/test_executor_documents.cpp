// The CPU backend under packed documents end to end (docs/design.md §3c): for every split
// (doc-zigzag included), variant, dK/dV design and c <= 8, with documents shorter than a chunk and
// boundaries inside chunks, the float64 outputs and gradients equal the float64 reference's on every
// real token; padding attends to nothing, nothing attends to it, and it gets no gradient; a step with
// no unmasked pair computes nothing and the timeline marks it skipped, forward and backward.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/document_mask.hpp"
#include "common/scheme_table.hpp"
#include "ring/check/reference.hpp"
#include "ring/check/reference_backward.hpp"
#include "ring/executor/executor.hpp"
#include "tests/ring/documents_fixture.hpp"
#include "tests/ring/exchange_cases.hpp"
#include "tests/ring/executor/executor_compare.hpp"

namespace rb::ring {
namespace {

Config config(int c, Split split, Variant variant, Dkv dkv, bool causal) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = 6LL * c;  // zig-zag's chunks of 3: the corner documents end inside them
  cfg.split = split;
  cfg.variant = variant;
  cfg.dkv = dkv;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 4;
  cfg.causal = causal;
  cfg.dtype = DType::float64;
  cfg.phase = Phase::fwd_bwd;
  return test::with_corner_documents(cfg);
}

// The reference of a sequence depends on its documents and S (doc-zigzag's padding moves them).
struct Reference {
  std::vector<double> o, dq, dk, dv;
};

TEST(ExecutorDocuments, Float64OutputsAndGradientsEqualTheReferenceForEverySplitVariantAndC) {
  std::map<std::string, Reference> refs;
  int runs = 0, exchange_runs = 0;
  for (const int c : {1, 2, 3, 4, 8})
    for (const Split split : every_split())
      for (const Variant variant : every_variant())
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
          for (const bool causal : {true, false}) {
            if (!dkv_matters(Phase::fwd_bwd, variant) && dkv == Dkv::follow) continue;  // one backward design
            if (!causal && (dkv == Dkv::follow || c == 3)) continue;                    // block-diagonal: a sample
            // Ulysses and the hybrid where their all-to-all fits Hq = 2, Hkv = 1 (the K/V head replicated).
            for (const Config& cfg : testing::exchange_cases(config(c, split, variant, dkv, causal))) {
              SCOPED_TRACE(cfg.label() + " " + std::string(to_string(dkv)));
              const Plan plan = make_plan(cfg);
              const CheckRows rows = check_rows(plan);
              ASSERT_TRUE(rows.all_rows);
              const auto& pos = rows.positions;  // the real tokens only
              ASSERT_EQ(static_cast<std::int64_t>(pos.size()), 6LL * c);
              auto& ref = refs[fmt::format("{}/{}/{}", cfg.seq, causal, documents_digest(document_extents(cfg)))];
              if (ref.o.empty()) {
                ref.o = reference_rows(cfg, pos, 2);
                auto g = reference_gradients(cfg, pos, pos, 2);
                ref.dq = std::move(g.dq);
                ref.dk = std::move(g.dk);
                ref.dv = std::move(g.dv);
              }
              auto exec = make_cpu_executor(plan);
              (void)exec->run_pass(false);
              ASSERT_LT(max_err(exec->output_rows(pos), ref.o), 1e-10);
              ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dq, pos), ref.dq), 1e-9);
              ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dk, pos), ref.dk), 1e-9);
              ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dv, pos), ref.dv), 1e-9);
              // Padding (doc-zigzag's) has no output and no gradient: it attends to nothing, and no
              // real token attends to it.
              std::vector<std::int64_t> pad;
              for (std::int64_t p = 0; p < cfg.seq; ++p)
                if (!plan.documents.holds(p)) pad.push_back(p);
              EXPECT_EQ(static_cast<std::int64_t>(pad.size()), padding_tokens(cfg));
              EXPECT_EQ(pad.empty(), split != Split::doc_zigzag);
              for (const GradTensor t : {GradTensor::dq, GradTensor::dk, GradTensor::dv})
                for (const double x : exec->gradient_rows(t, pad)) ASSERT_EQ(x, 0.0);
              for (const double x : exec->output_rows(pad)) ASSERT_EQ(x, 0.0);
              ++(cfg.ulysses_degree > 1 ? exchange_runs : runs);
            }
          }
  // Per split: at c != 3 ring and ring-bidirectional 3 runs each (reverse causal and not, follow
  // causal), allgather 2; at c = 3 causal only: 2, 2, 1.
  EXPECT_EQ(runs, 4 * (4 * 8 + 5) + 4 * 2);  // + Ulysses at c = 1 (U = 1, the ring's), causal and not
  // Per split: Ulysses at c = 2 (U = 2 divides Hq = 2) causal and not; the hybrid U = 2 at c = 4 and
  // 8 (U = 4 does not divide Hq), 3 runs each as the ring.
  EXPECT_EQ(exchange_runs, 4 * (2 + 2 * 3));
}

// A contiguous ring under documents: a block from a later rank, or one whose documents the rank's
// queries do not reach, has no unmasked pair. Its compute is skipped and marked, forward and
// backward, and every other step computes.
TEST(ExecutorDocuments, AStepWithNoUnmaskedPairIsMarkedSkipped) {
  Config cfg;
  cfg.cp = 4;
  cfg.seq = 64;
  cfg.heads = 2;
  cfg.kv_heads = 1;
  cfg.head_dim = 4;
  cfg.dtype = DType::float64;
  cfg.phase = Phase::fwd_bwd;
  set_documents(cfg, parse_document_spec("20+30+14", "x"), false);
  const Plan plan = make_plan(cfg);
  auto exec = make_cpu_executor(plan);
  const PassRecord pass = exec->run_pass(true);
  int skipped = 0;
  for (int phase : {0, 1})
    for (int r = 0; r < cfg.cp; ++r) {
      const auto& steps = phase == 0 ? plan.ranks[r].steps : plan.ranks[r].backward.steps;
      for (const auto& st : steps) {
        int marked = 0, computed = 0;
        for (const auto& iv : pass.timeline.intervals)
          if (iv.rank == r && iv.step == st.step && iv.phase == phase) {
            marked += iv.name == "step_skipped" && iv.kind == IntervalKind::other;
            computed += iv.name == (phase == 0 ? "attention" : "attention_bwd");
          }
        SCOPED_TRACE(::testing::Message() << "phase " << phase << " rank " << r << " step " << st.step);
        // Step 0 of the forward writes the accumulators whatever it holds.
        const bool idle = st.unmasked == 0 && !(phase == 0 && st.step == 0);
        EXPECT_EQ(marked, idle ? 1 : 0);
        EXPECT_EQ(computed, idle ? 0 : 1);
        skipped += idle;
      }
    }
  // Documents [0, 20), [20, 50), [50, 64) over ranks of 16 tokens. Blocks with no unmasked pair:
  // rank 0's three later ones; rank 1's two later ones; rank 2's later one and rank 0's (document 0
  // only); rank 3's rank 0 (queries 48-63 are in documents 1 and 2, and rank 1's keys 20-31 are in
  // document 1). 8 blocks, each skipped once forward and once backward.
  EXPECT_EQ(skipped, 16);
}

}  // namespace
}  // namespace rb::ring
