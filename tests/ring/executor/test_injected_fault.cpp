// Which passes an injected fault can act on (ring/executor/injected_fault.hpp), held to what the CPU
// executor does: over every split, variant, dK/dV design, c and mask (packed documents included),
// the wrong-block fault changes the gradients exactly where the rule says it can act, so a sweep that
// refuses it elsewhere (bench/sweep/fault_reach.hpp) never lets an unfaulted pass stand for a
// faulted one.
#include <gtest/gtest.h>

#include <cmath>

#include "common/documents.hpp"
#include "common/scheme_table.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/injected_fault.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

Config config(int c, Split split, Variant variant, Dkv dkv, bool causal, Phase phase) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = 8LL * c;
  cfg.split = split;
  cfg.variant = variant;
  cfg.dkv = dkv;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 4;
  cfg.causal = causal;
  cfg.dtype = DType::float64;
  cfg.phase = phase;
  return cfg;
}

// The largest difference between the gradients of a pass with `fault` and one without.
double gradient_change(const Config& cfg, InjectedFault fault) {
  std::vector<std::int64_t> pos(static_cast<std::size_t>(cfg.seq));
  for (std::int64_t i = 0; i < cfg.seq; ++i) pos[static_cast<std::size_t>(i)] = i;
  double change = 0;
  std::vector<std::vector<double>> clean;
  for (const InjectedFault f : {InjectedFault::none, fault}) {
    CpuOptions opts;
    opts.fault = f;
    auto exec = make_cpu_executor(make_plan(cfg), opts);
    (void)exec->run_pass(false);
    int t = 0;
    for (const GradTensor g : {GradTensor::dq, GradTensor::dk, GradTensor::dv}) {
      const auto rows = exec->gradient_rows(g, pos);
      if (f == InjectedFault::none) {
        clean.push_back(rows);
      } else {
        for (std::size_t i = 0; i < rows.size(); ++i) change = std::max(change, std::abs(rows[i] - clean[t][i]));
      }
      ++t;
    }
  }
  return change;
}

TEST(InjectedFault, TheWrongBlockFaultChangesTheGradientsExactlyWhereItCanAct) {
  int acts = 0, cannot = 0;
  for (const int c : {1, 2, 4})
    for (const Split split : every_split())
      for (const Variant variant : every_variant())
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
          for (const bool causal : {true, false})
            for (Config cfg : testing::exchange_cases(config(c, split, variant, dkv, causal, Phase::fwd_bwd))) {
              if (split == Split::doc_zigzag) {
                if (c != 4) continue;  // its documents fill S = 32, padded
                set_documents(cfg, parse_document_spec("3+5+24", "test"), true);
              }
              SCOPED_TRACE(cfg.label() + " " + std::string(to_string(dkv)));
              const std::string why = injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(cfg));
              const double change = gradient_change(cfg, InjectedFault::wrong_kv_block);
              if (why.empty()) {
                EXPECT_GT(change, 1e-6);
                ++acts;
              } else {
                EXPECT_EQ(change, 0.0) << why;
                ++cannot;
              }
            }
  // Both sides of the rule are exercised: the rotating variants at c > 1 and the rest.
  EXPECT_GT(acts, 10);
  EXPECT_GT(cannot, 10);
}

// Documents that each stay on one rank mask every block but the own one. Under follow the own block
// is step 0's, so no later step attends to keys and the fault has nothing to act on; under reverse
// the ring turns round and the own block comes last, where the fault breaks it.
TEST(InjectedFault, TheWrongBlockFaultNeedsALaterStepThatAttendsToKeys) {
  Config cfg = config(2, Split::contiguous, Variant::ring, Dkv::follow, true, Phase::fwd_bwd);
  set_documents(cfg, parse_document_spec("8+8", "test"), false);
  EXPECT_NE(injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(cfg)), "");
  EXPECT_EQ(gradient_change(cfg, InjectedFault::wrong_kv_block), 0.0);
  cfg.dkv = Dkv::reverse;
  EXPECT_EQ(injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(cfg)), "");
  EXPECT_GT(gradient_change(cfg, InjectedFault::wrong_kv_block), 1e-6);
  cfg.dkv = Dkv::follow;
  set_documents(cfg, parse_document_spec("4+12", "test"), false);  // the second spans both ranks
  EXPECT_EQ(injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(cfg)), "");
  EXPECT_GT(gradient_change(cfg, InjectedFault::wrong_kv_block), 1e-6);
}

// A forward-only plan has no backward step for wrong-block to act on; throw and hang act on any
// plan (which executors take them is the backend table's, tests/bench/sweep/test_fault_reach.cpp).
TEST(InjectedFault, AForwardOnlyPlanGivesTheWrongBlockFaultNothingToActOn) {
  const Config fwd = config(4, Split::zigzag, Variant::ring, Dkv::reverse, true, Phase::fwd);
  EXPECT_NE(injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(fwd)), "");
  for (const InjectedFault f : {InjectedFault::none, InjectedFault::throw_in_pass, InjectedFault::hang})
    EXPECT_EQ(injected_fault_cannot_act(f, make_plan(fwd)), "");
  const Config bwd = config(4, Split::zigzag, Variant::ring, Dkv::reverse, true, Phase::bwd);
  EXPECT_EQ(injected_fault_cannot_act(InjectedFault::wrong_kv_block, make_plan(bwd)), "");
}

}  // namespace
}  // namespace rb::ring
