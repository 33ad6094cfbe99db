// Ulysses and the hybrid on the CPU backend (docs/design.md §3b): float64 outputs and gradients equal
// full attention's for ulysses at c = 2, 4 and the hybrid at (c, U) = (4, 2), (6, 3), (8, 2), (8, 4),
// causal and not, every split, both backward designs, with the K/V heads split over U and replicated;
// the hybrid with U = 1 is the ring and with U = c ulysses, bit for bit; the plan lays the group's
// rows out in member order and names each rank's heads; the all-to-alls move the plan's bytes
// (the formula beside the variants), before the first step and after the last merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "common/scheme_table.hpp"
#include "ring/check/reference.hpp"
#include "ring/check/reference_backward.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/head_exchange.hpp"
#include "ring/plan/work_matrix.hpp"
#include "tests/ring/executor/executor_compare.hpp"

namespace rb::ring {
namespace {

Config config(int c, int u, Variant variant, Split split, bool causal, int hq, int hkv) {
  Config cfg;
  cfg.cp = c;
  cfg.ulysses_degree = u;
  cfg.seq = 2LL * c * 3;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = hq;
  cfg.kv_heads = hkv;
  cfg.head_dim = 8;
  cfg.causal = causal;
  cfg.dtype = DType::float64;
  cfg.phase = Phase::fwd_bwd;
  cfg.seed = 11;
  return cfg;
}

struct Outputs {
  std::vector<double> o, dq, dk, dv;
};
Outputs run(const Config& cfg) {
  auto exec = make_cpu_executor(make_plan(cfg));
  (void)exec->run_pass(false);
  const auto pos = all_positions(cfg.seq);
  return {exec->output_rows(pos), exec->gradient_rows(GradTensor::dq, pos), exec->gradient_rows(GradTensor::dk, pos),
          exec->gradient_rows(GradTensor::dv, pos)};
}

struct Case {
  Variant variant;
  int c, u;
};
const Case kCases[] = {{Variant::ulysses, 2, 2}, {Variant::ulysses, 4, 4}, {Variant::hybrid, 4, 2},
                       {Variant::hybrid, 6, 3},  {Variant::hybrid, 8, 2},  {Variant::hybrid, 8, 4}};

TEST(HeadExchange, Float64OutputsAndGradientsEqualFullAttention) {
  // (Hq, Hkv): GQA with the K/V heads split over every U here (12 % 2, 3, 4), and MQA's one K/V
  // head, replicated on every member; (8, 2) replicates two heads over U = 4.
  const int heads[][2] = {{24, 12}, {12, 1}, {8, 2}};
  std::map<std::tuple<std::int64_t, bool, int, int>, std::pair<std::vector<double>, ReferenceGradients>> refs;
  int ran = 0, replicated = 0;
  for (const Case& k : kCases)
    for (const auto& h : heads)
      for (const Split split : every_split())
        for (const bool causal : {true, false})
          for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
            if (dkv == Dkv::follow && k.variant == Variant::ulysses) continue;  // nothing moves between its steps
            Config cfg = config(k.c, k.u, k.variant, split, causal, h[0], h[1]);
            cfg.dkv = dkv;
            if (cfg.heads % k.u != 0) continue;  // (8, 2) at U = 3
            SCOPED_TRACE(cfg.label());
            const Plan plan = make_plan(cfg);
            ASSERT_EQ(plan.exchange.degree, k.u);
            replicated += plan.exchange.kv_replicas > 1;
            const auto pos = all_positions(cfg.seq);
            auto& ref = refs[{cfg.seq, causal, h[0], h[1]}];
            if (ref.first.empty()) {
              ref.first = reference_rows(cfg, pos, 2);
              ref.second = reference_gradients(cfg, pos, pos, 2);
            }
            const Outputs out = run(cfg);
            ASSERT_LT(max_err(out.o, ref.first), 1e-10);
            ASSERT_LT(max_err(out.dq, ref.second.dq), 1e-9);
            ASSERT_LT(max_err(out.dk, ref.second.dk), 1e-9);
            ASSERT_LT(max_err(out.dv, ref.second.dv), 1e-9);
            ++ran;
          }
  EXPECT_GT(ran, 150);
  EXPECT_GT(replicated, 50);
}

TEST(HeadExchange, TheHybridOfDegreeOneIsTheRingAndOfDegreeCIsUlyssesBitForBit) {
  for (const int c : {2, 4})
    for (const Split split : every_split())
      for (const bool causal : {true, false})
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
          Config ring = config(c, 1, Variant::ring, split, causal, 8, 2);
          ring.dkv = dkv;
          Config hybrid = ring;
          hybrid.variant = Variant::hybrid;
          SCOPED_TRACE(hybrid.label());
          const Outputs a = run(ring), b = run(hybrid);
          EXPECT_EQ(a.o, b.o);
          EXPECT_EQ(a.dq, b.dq);
          EXPECT_EQ(a.dk, b.dk);
          EXPECT_EQ(a.dv, b.dv);
          hybrid.ulysses_degree = c;
          Config ulysses = hybrid;
          ulysses.variant = Variant::ulysses;
          const Outputs x = run(hybrid), y = run(ulysses);
          EXPECT_EQ(x.o, y.o);
          EXPECT_EQ(x.dq, y.dq);
          EXPECT_EQ(x.dk, y.dk);
          EXPECT_EQ(x.dv, y.dv);
          // And they are the exchange's, not the ring's: the heads moved.
          EXPECT_EQ(make_plan(hybrid).exchange.degree, c);
          EXPECT_EQ(make_plan(ring).exchange.degree, 1);
        }
}

// A backward-only phase: one untimed forward leaves Q, K, V, O and the log-sum-exp in the attention
// layout, and every later backward moves dO in and the gradients out again, right each time.
TEST(HeadExchange, ABackwardOnlyPhaseRepeatsItsAllToAlls) {
  for (const Dkv dkv : {Dkv::reverse, Dkv::follow}) {
    Config cfg = config(4, 2, Variant::hybrid, Split::zigzag, true, 8, 2);
    cfg.phase = Phase::bwd;
    cfg.dkv = dkv;
    SCOPED_TRACE(cfg.label());
    const Plan plan = make_plan(cfg);
    auto exec = make_cpu_executor(plan);
    const auto pos = all_positions(cfg.seq);
    const auto ref = reference_gradients(cfg, pos, pos, 1);
    for (int pass = 0; pass < 3; ++pass) {
      const PassRecord rec = exec->run_pass(true);
      std::int64_t moved = 0;
      for (const auto& iv : rec.timeline.intervals) {
        EXPECT_EQ(iv.phase, 1) << iv.name;
        if (iv.rank == 0 && iv.kind == IntervalKind::comm) moved += iv.bytes;
      }
      EXPECT_EQ(moved, plan.backward_recv_bytes(0)) << "pass " << pass;
      ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dq, pos), ref.dq), 1e-9) << "pass " << pass;
      ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dk, pos), ref.dk), 1e-9) << "pass " << pass;
      ASSERT_LT(max_err(exec->gradient_rows(GradTensor::dv, pos), ref.dv), 1e-9) << "pass " << pass;
    }
    EXPECT_LT(max_err(exec->output_rows(pos), reference_rows(cfg, pos, 1)), 1e-10);
  }
}

TEST(HeadExchange, ThePlanLaysTheGroupsRowsOutInMemberOrderAndNamesEachRanksHeads) {
  Config cfg = config(8, 4, Variant::hybrid, Split::zigzag, true, 8, 2);
  const Plan plan = make_plan(cfg);
  const HeadExchange& x = plan.exchange;
  EXPECT_EQ(x.groups, 2);
  EXPECT_EQ(x.q_heads, 2);
  EXPECT_EQ(x.kv_heads, 1);  // 2 K/V heads over 4 members: each replicated twice
  EXPECT_EQ(x.kv_replicas, 2);
  for (int u = 0; u < 4; ++u) {
    EXPECT_EQ(x.q_head_begin(u), 2 * u);
    EXPECT_EQ(x.kv_head_begin(u), u / 2);  // query heads 2u, 2u+1 read K/V head (2u)/4
  }
  for (int r = 0; r < 8; ++r) {
    const RankPlan& rp = plan.ranks[r];
    EXPECT_EQ(x.group_of(r), r / 4);
    SegmentList rows;
    for (int u = 0; u < 4; ++u) {
      const auto& s = plan.ranks[x.rank_of(r / 4, u)].segments;
      rows.insert(rows.end(), s.begin(), s.end());
    }
    EXPECT_EQ(rp.attention, rows) << "rank " << r;
    EXPECT_EQ(rp.attention_tokens, 4 * rp.tokens);
    // The ring over the 2 groups: step 1 attends to the other group's block.
    ASSERT_EQ(rp.steps.size(), 2u);
    EXPECT_EQ(rp.steps[1].sources, std::vector<int>{1 - r / 4});
  }
  // Work: every rank's pairs over its group's rows times its 2 query heads; the whole is the
  // sequence's causal pairs times Hq, as for the ring.
  const std::int64_t S = cfg.seq;
  EXPECT_EQ(plan.total_work(), S * (S + 1) / 2 * cfg.heads);
  Config ring = cfg;
  ring.variant = Variant::ring;
  EXPECT_EQ(plan.total_work(), make_plan(ring).total_work());
  // Ulysses sees every token on every rank: balanced whatever the split.
  Config ulysses = config(4, 4, Variant::ulysses, Split::contiguous, true, 8, 2);
  EXPECT_DOUBLE_EQ(make_plan(ulysses).work_imbalance(), 1.0);
  ulysses.variant = Variant::ring;
  EXPECT_GT(make_plan(ulysses).work_imbalance(), 1.5);
  // The work matrix reads the same exchange.
  const WorkMatrix wm = make_work_matrix(cfg);
  for (int r = 0; r < 8; ++r) EXPECT_EQ(wm.work(r), plan.work(r));
}

TEST(HeadExchange, EachAllToAllMovesTheFormulasBytes) {
  // c = 4, U = 2, n = S/c = 6 rows, Hq = 8, Hkv = 2, D = 8, float64: each rank sends its one peer
  // 6 rows of 4 query heads and 1 K/V head of K and of V: 6·(4 + 2)·8·8 bytes; O: 6·4·8·8.
  Config cfg = config(4, 2, Variant::hybrid, Split::striped, true, 8, 2);
  const HeadExchange x = make_plan(cfg).exchange;
  EXPECT_EQ(x.qkv_bytes, 6 * (4 + 2) * 8 * 8);
  EXPECT_EQ(x.o_bytes, 6 * 4 * 8 * 8);
  EXPECT_EQ(x.do_bytes, x.o_bytes);
  EXPECT_EQ(x.dqkv_bytes, x.qkv_bytes);
  // Ulysses with the heads split: (c − 1)/c² · S · (2·Hq + 2·Hkv) · D · e per rank, DeepSpeed's 4Nh/P
  // in MHA.
  Config u = config(4, 4, Variant::ulysses, Split::zigzag, true, 8, 4);
  const HeadExchange y = make_plan(u).exchange;
  EXPECT_EQ((y.qkv_bytes + y.o_bytes) * 16, 3 * u.seq * (2 * 8 + 2 * 4) * 8 * 8);
  // The executor's comm intervals carry exactly those bytes, forward and backward, before the first
  // step and after the last merge.
  for (const Config& c : {cfg, u}) {
    SCOPED_TRACE(c.label());
    const Plan plan = make_plan(c);
    auto exec = make_cpu_executor(plan);
    const PassRecord rec = exec->run_pass(true);
    for (int r = 0; r < c.cp; ++r) {
      std::map<std::string, std::int64_t> bytes;
      std::int64_t qkv_end = -1, o_begin = -1, first_compute = -1, last_forward_compute = -1, dqkv_begin = -1,
                   last_backward_compute = -1;
      for (const auto& iv : rec.timeline.intervals) {
        if (iv.rank != r) continue;
        if (iv.kind == IntervalKind::comm) bytes[iv.name] += iv.bytes;
        const std::string name = iv.name;
        if (name == "qkv_alltoall") qkv_end = iv.end_ns;
        if (name == "o_alltoall") o_begin = iv.begin_ns;
        if (name == "dqkv_alltoall") dqkv_begin = iv.begin_ns;
        if (iv.kind == IntervalKind::compute && iv.phase == 0) {
          if (first_compute < 0 || iv.begin_ns < first_compute) first_compute = iv.begin_ns;
          last_forward_compute = std::max(last_forward_compute, iv.end_ns);
        }
        if (iv.kind == IntervalKind::compute && iv.phase == 1)
          last_backward_compute = std::max(last_backward_compute, iv.end_ns);
        if (name.find("alltoall") != std::string::npos) {
          EXPECT_EQ(iv.step, -1) << name;
          EXPECT_EQ(iv.phase, name == "qkv_alltoall" || name == "o_alltoall" ? 0 : 1) << name;
        }
      }
      EXPECT_EQ(bytes["qkv_alltoall"], plan.exchange.qkv_bytes) << "rank " << r;
      EXPECT_EQ(bytes["o_alltoall"], plan.exchange.o_bytes) << "rank " << r;
      EXPECT_EQ(bytes["do_alltoall"], plan.exchange.do_bytes) << "rank " << r;
      EXPECT_EQ(bytes["dqkv_alltoall"], plan.exchange.dqkv_bytes) << "rank " << r;
      EXPECT_LE(qkv_end, first_compute) << "rank " << r << ": a step ran before its heads arrived";
      EXPECT_GE(o_begin, last_forward_compute) << "rank " << r << ": O left before the last merge";
      EXPECT_GE(dqkv_begin, last_backward_compute) << "rank " << r << ": gradients left before the last step";
    }
    EXPECT_EQ(rec.fwd_ns + rec.bwd_ns, rec.wall_ns);
  }
}

TEST(HeadExchange, EachRuleIsRefusedNamingIt) {
  struct Bad {
    Variant variant;
    int c, u, hq, hkv;
    std::string where, rule;
  };
  const Bad cases[] = {
      {Variant::hybrid, 6, 4, 8, 4, "ulysses-degree", "U divides c"},
      {Variant::ulysses, 4, 4, 6, 2, "heads", "Hq % U == 0"},
      {Variant::hybrid, 6, 3, 6, 2, "kv-heads", "replicated (U % Hkv == 0)"},
      {Variant::ulysses, 6, 6, 12, 4, "kv-heads", "split (Hkv % U == 0)"},
  };
  for (const Bad& b : cases) {
    const Config cfg = config(b.c, b.u, b.variant, Split::contiguous, true, b.hq, b.hkv);
    SCOPED_TRACE(cfg.label());
    try {
      (void)make_plan(cfg);
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where(), b.where);
      EXPECT_NE(std::string(e.what()).find(b.rule), std::string::npos) << e.what();
    }
  }
  // The refused shapes run when the heads fit: U = 2 splits them, Hkv = 1 is replicated everywhere.
  (void)make_plan(config(6, 2, Variant::hybrid, Split::contiguous, true, 6, 2));
  (void)make_plan(config(6, 6, Variant::ulysses, Split::contiguous, true, 12, 1));
}

}  // namespace
}  // namespace rb::ring
