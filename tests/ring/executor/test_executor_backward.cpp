// The CPU backend's backward end to end (docs/design.md §3a): for every split, variant, dK/dV design
// and c <= 8, causal and not, the gradients of the ring equal those of full attention in float64;
// the wrong-block fault (diffusers #14265) fails the check while the forward stays right; each
// design moves exactly the plan's bytes; a backward-only phase can be timed again and again after
// its one forward.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "common/scheme_table.hpp"
#include "ring/check/reference.hpp"
#include "ring/check/reference_backward.hpp"
#include "ring/executor/executor.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

std::vector<std::int64_t> every_position(std::int64_t S) {
  std::vector<std::int64_t> p(S);
  for (std::int64_t i = 0; i < S; ++i) p[i] = i;
  return p;
}

double largest_error(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return 1e300;
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return std::isnan(m) ? 1e300 : m;
}

Config config(int c, std::int64_t S, Split split, Variant variant, Dkv dkv, bool causal, DType dtype) {
  Config cfg;
  cfg.cp = c;
  cfg.seq = S;
  cfg.split = split;
  cfg.variant = variant;
  cfg.dkv = dkv;
  cfg.heads = 4;
  cfg.kv_heads = 2;
  cfg.head_dim = 8;
  cfg.causal = causal;
  cfg.dtype = dtype;
  cfg.phase = Phase::fwd_bwd;
  return cfg;
}

struct Grads {
  std::vector<double> dq, dk, dv;
};
Grads gradients_of(const Executor& exec, const std::vector<std::int64_t>& pos) {
  return {exec.gradient_rows(GradTensor::dq, pos), exec.gradient_rows(GradTensor::dk, pos),
          exec.gradient_rows(GradTensor::dv, pos)};
}

TEST(ExecutorBackward, Float64GradientsEqualFullAttentionsForEveryDesign) {
  const auto seed = std::random_device{}();
  SCOPED_TRACE(::testing::Message() << "random seed " << seed);
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<int> chunk(2, 4);
  // The reference depends on the shape only: one per (S, causal).
  std::map<std::pair<std::int64_t, bool>, ReferenceGradients> refs;
  for (const int c : {1, 2, 3, 4, 8})
    for (const Split split : every_split())
      for (const Variant variant : every_variant())
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
          for (const bool causal : {true, false}) {
            if (!dkv_matters(Phase::fwd_bwd, variant) && dkv == Dkv::follow) continue;  // one design
            const std::int64_t S = 2LL * c * chunk(gen);
            for (const Config& cfg :
                 testing::exchange_cases(config(c, S, split, variant, dkv, causal, DType::float64))) {
              SCOPED_TRACE(cfg.label() + " dkv " + std::string(to_string(dkv)));
              const auto pos = every_position(S);
              auto& ref = refs[{S, causal}];
              if (ref.dq.empty()) ref = reference_gradients(cfg, pos, pos, 2);
              auto exec = make_cpu_executor(make_plan(cfg));
              (void)exec->run_pass(false);
              const Grads g = gradients_of(*exec, pos);
              ASSERT_LT(largest_error(g.dq, ref.dq), 1e-9);
              ASSERT_LT(largest_error(g.dk, ref.dk), 1e-9);
              ASSERT_LT(largest_error(g.dv, ref.dv), 1e-9);
              // A second pass on the same executor gives the same gradients (accumulators reset).
              (void)exec->run_pass(true);
              const Grads again = gradients_of(*exec, pos);
              ASSERT_EQ(again.dq, g.dq);
              ASSERT_EQ(again.dk, g.dk);
              ASSERT_EQ(again.dv, g.dv);
            }
          }
}

TEST(ExecutorBackward, Float32WithinTheDerivedGradientTolerance) {
  for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
    Config cfg = config(4, 512, Split::zigzag, Variant::ring, dkv, true, DType::float32);
    cfg.heads = 8;
    cfg.head_dim = 32;
    const auto pos = every_position(cfg.seq);
    auto exec = make_cpu_executor(make_plan(cfg));
    (void)exec->run_pass(false);
    const Grads g = gradients_of(*exec, pos);
    const auto ref = reference_gradients(cfg, pos, pos, 2);
    const double tol = gradient_tolerance_for(cfg).first;
    EXPECT_LT(largest_error(g.dq, ref.dq), tol);
    EXPECT_LT(largest_error(g.dk, ref.dk), tol);
    EXPECT_LT(largest_error(g.dv, ref.dv), tol);
  }
}

// diffusers #14265: a backward that reads the wrong K/V block gives wrong gradients while the forward
// is right; the check must see it.
TEST(ExecutorBackward, TheWrongBlockFaultLeavesTheForwardRightAndBreaksTheGradients) {
  for (const Variant variant : {Variant::ring, Variant::ring_bidirectional})
    for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
      const Config cfg = config(4, 48, Split::zigzag, variant, dkv, true, DType::float64);
      SCOPED_TRACE(cfg.label() + " " + std::string(to_string(dkv)));
      const auto pos = every_position(cfg.seq);
      CpuOptions opts;
      opts.fault = InjectedFault::wrong_kv_block;
      auto exec = make_cpu_executor(make_plan(cfg), opts);
      (void)exec->run_pass(false);
      EXPECT_LT(largest_error(exec->output_rows(pos), reference_rows(cfg, pos, 1)), 1e-10);
      const auto ref = reference_gradients(cfg, pos, pos, 1);
      const Grads g = gradients_of(*exec, pos);
      EXPECT_GT(largest_error(g.dq, ref.dq), 1e-3);
      EXPECT_GT(largest_error(g.dk, ref.dk), 1e-3);
    }
}

// What each rank's comm threads moved in the backward equals the plan's, design by design.
TEST(ExecutorBackward, EachRankMovesThePlansBytes) {
  for (const Variant variant : every_variant())
    for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
      for (const int c : {2, 3, 4, 5})
        for (const Config& cfg :
             testing::exchange_cases(config(c, 2LL * c * 4, Split::zigzag, variant, dkv, true, DType::float32))) {
          SCOPED_TRACE(cfg.label() + " " + std::string(to_string(dkv)));
          const auto plan = make_plan(cfg);
          auto exec = make_cpu_executor(plan);
          const PassRecord rec = exec->run_pass(true);
          std::vector<std::int64_t> fwd(c, 0), bwd(c, 0);
          for (const auto& iv : rec.timeline.intervals)
            if (iv.kind == IntervalKind::comm) (iv.phase == 0 ? fwd : bwd)[iv.rank] += iv.bytes;
          for (int r = 0; r < c; ++r) {
            // The steps' and the head exchange's all-to-alls'.
            EXPECT_EQ(fwd[r], plan.forward_recv_bytes(r)) << "rank " << r;
            EXPECT_EQ(bwd[r], plan.backward_recv_bytes(r)) << "rank " << r;
          }
          EXPECT_GT(rec.fwd_ns, 0);
          EXPECT_GT(rec.bwd_ns, 0);
          EXPECT_EQ(rec.fwd_ns + rec.bwd_ns, rec.wall_ns);
        }
}

TEST(ExecutorBackward, ABackwardOnlyPhaseRunsItsForwardOnceAndRepeats) {
  for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
    Config cfg = config(3, 36, Split::contiguous, Variant::ring, dkv, true, DType::float64);
    cfg.phase = Phase::bwd;
    const auto pos = every_position(cfg.seq);
    auto exec = make_cpu_executor(make_plan(cfg));
    const PassRecord first = exec->run_pass(true);
    EXPECT_EQ(first.fwd_ns, 0);
    EXPECT_EQ(first.bwd_ns, first.wall_ns);
    for (const auto& iv : first.timeline.intervals) EXPECT_EQ(iv.phase, 1) << iv.name;
    const auto ref = reference_gradients(cfg, pos, pos, 1);
    for (int pass = 0; pass < 3; ++pass) {
      (void)exec->run_pass(false);
      const Grads g = gradients_of(*exec, pos);
      ASSERT_LT(largest_error(g.dq, ref.dq), 1e-9) << "pass " << pass;
      ASSERT_LT(largest_error(g.dk, ref.dk), 1e-9) << "pass " << pass;
      ASSERT_LT(largest_error(g.dv, ref.dv), 1e-9) << "pass " << pass;
    }
    // The forward's output is there too, from the one untimed forward.
    EXPECT_LT(largest_error(exec->output_rows(pos), reference_rows(cfg, pos, 1)), 1e-10);
  }
}

TEST(ExecutorBackward, AForwardOnlyExecutorHasNoGradients) {
  Config cfg = config(2, 16, Split::zigzag, Variant::ring, Dkv::reverse, true, DType::float64);
  cfg.phase = Phase::fwd;
  auto exec = make_cpu_executor(make_plan(cfg));
  (void)exec->run_pass(false);
  EXPECT_THROW((void)exec->gradient_rows(GradTensor::dq, every_position(16)), Error);
}

}  // namespace
}  // namespace rb::ring
