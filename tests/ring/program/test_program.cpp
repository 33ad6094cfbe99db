// The step program (ring/program/): its dependencies order every pair of ops that touch the same
// elements (one writing) on different lanes, whatever the variant, split, c, phase, dK/dV design,
// head exchange or documents; its exchanges pair up across ranks; its lanes are the threads the
// executor starts; an injected fault rewrites the ops it names; and one golden program per variant.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/scheme_table.hpp"
#include "ring/executor/executor.hpp"
#include "ring/program/compile.hpp"
#include "ring/program/explain.hpp"
#include "tests/ring/documents_fixture.hpp"
#include "tests/ring/exchange_cases.hpp"

namespace rb::ring {
namespace {

// Every configuration the tests below hold the program of.
std::vector<Config> every_configuration() {
  std::vector<Config> out;
  for (const int c : {1, 2, 3, 4, 8})
    for (const Variant v : every_variant())
      for (const Split s : every_split())
        for (const Phase ph : {Phase::fwd, Phase::fwd_bwd})
          for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
            for (const bool docs : {false, true}) {
              if (ph == Phase::fwd && dkv == Dkv::follow) continue;
              if (docs && (s != Split::zigzag || dkv == Dkv::follow)) continue;
              Config cfg;
              cfg.cp = c;
              cfg.seq = 8LL * c;
              cfg.heads = 8;
              cfg.kv_heads = 2;
              cfg.head_dim = 4;
              cfg.variant = v;
              cfg.split = s;
              cfg.phase = ph;
              cfg.dkv = dkv;
              cfg.dtype = DType::float64;
              if (docs) cfg = rb::test::with_corner_documents(cfg);
              for (const Config& x : testing::exchange_cases(cfg)) out.push_back(x);
              if (v != Variant::ulysses && v != Variant::hybrid) out.push_back(cfg);
            }
  return out;
}

// Whether op b is ordered after op a (a < b): the same lane, or a chain of deps and lane order.
std::vector<std::vector<bool>> ordered(const RankProgram& p) {
  const std::size_t n = p.ops.size();
  std::vector<std::vector<bool>> after(n, std::vector<bool>(n, false));  // after[b][a]
  std::vector<int> last_on_lane(static_cast<std::size_t>(p.lanes), -1);
  for (std::size_t b = 0; b < n; ++b) {
    auto take = [&](int a) {
      if (a < 0) return;
      after[b][static_cast<std::size_t>(a)] = true;
      for (std::size_t k = 0; k < n; ++k)
        if (after[static_cast<std::size_t>(a)][k]) after[b][k] = true;
    };
    take(last_on_lane.at(static_cast<std::size_t>(p.ops[b].lane)));
    for (const int d : p.ops[b].deps) take(d);
    last_on_lane[static_cast<std::size_t>(p.ops[b].lane)] = static_cast<int>(b);
  }
  return after;
}

bool conflict(const Op& a, const Op& b) {
  for (const Access& x : accesses(a))
    for (const Access& y : accesses(b))
      if ((x.write || y.write) && x.run.buf == y.run.buf && x.run.at < y.run.at + y.run.len &&
          y.run.at < x.run.at + x.run.len && x.run.len > 0 && y.run.len > 0)
        return true;
  return false;
}

TEST(StepProgram, EveryConflictIsOrdered) {
  int programs = 0;
  for (const Config& cfg : every_configuration()) {
    SCOPED_TRACE(cfg.label());
    const Plan plan = make_plan(cfg);
    for (int r = 0; r < cfg.cp; ++r) {
      const RankProgram p = compile_program(plan, r);
      const auto after = ordered(p);
      for (std::size_t b = 0; b < p.ops.size(); ++b)
        for (std::size_t a = 0; a < b; ++a)
          if (p.ops[a].lane != p.ops[b].lane && conflict(p.ops[a], p.ops[b])) {
            ASSERT_TRUE(after[b][a]) << "rank " << r << ": op " << a << " (" << to_string(p.ops[a].kind) << ") and op "
                                     << b << " (" << to_string(p.ops[b].kind) << ") race\n"
                                     << explain_program(p, 8);
          }
      ++programs;
    }
  }
  EXPECT_GT(programs, 1000);
}

// Each exchange op of rank r sending to t with tag g has its partner on t: receiving from r with
// the same tag and as many elements, on the same lane, at the same place in that lane's sequence.
TEST(StepProgram, ExchangesPairUpAcrossRanks) {
  for (const Config& cfg : every_configuration()) {
    SCOPED_TRACE(cfg.label());
    const Plan plan = make_plan(cfg);
    std::vector<RankProgram> ps;
    for (int r = 0; r < cfg.cp; ++r) ps.push_back(compile_program(plan, r));
    for (int r = 0; r < cfg.cp; ++r)
      for (const Op& op : ps[static_cast<std::size_t>(r)].ops) {
        if (op.kind != OpKind::exchange) continue;
        const RankProgram& peer = ps.at(static_cast<std::size_t>(op.to));
        int matches = 0;
        for (const Op& o : peer.ops)
          if (o.kind == OpKind::exchange && o.from == r && o.tag == op.tag) {
            ++matches;
            EXPECT_EQ(o.runs[1].len, op.runs[0].len) << "tag " << op.tag;
            EXPECT_EQ(o.lane, op.lane) << "tag " << op.tag;
          }
        EXPECT_EQ(matches, 1) << "rank " << r << " -> " << op.to << " tag " << op.tag;
      }
  }
}

// The forward's two double-buffer rules, which both executors once kept by hand (step_order.hpp),
// fall out of the buffers: the transfer issued during step j >= 2 waits for step j - 1, the last to
// read the buffer it fills (transfers 0 and 1 for nothing: step 0 reads the own block), and a step
// waits for every lane's transfer that filled its block (gathered: the gather).
TEST(StepProgram, TheForwardsDependenciesAreTheDoubleBufferRules) {
  for (const int c : {1, 2, 3, 4, 5, 8})
    for (const Variant v : {Variant::ring, Variant::ring_bidirectional, Variant::allgather})
      for (const bool causal : {true, false}) {
        Config cfg;
        cfg.cp = c;
        cfg.seq = 8LL * c;
        cfg.variant = v;
        cfg.causal = causal;
        cfg.split = Split::striped;  // every step of every rank has unmasked pairs: no skipped step
        SCOPED_TRACE(cfg.label());
        const Plan plan = make_plan(cfg);
        for (int r = 0; r < c; ++r) {
          const RankProgram p = compile_program(plan, r);
          auto op_at = [&](int d) -> const Op& { return p.ops.at(static_cast<std::size_t>(d)); };
          for (const Op& op : p.ops) {
            if (op.kind == OpKind::exchange) {
              const int j = op.step - 1;  // the transfer issued during step j
              std::vector<int> waited;
              for (const int d : op.deps) {
                ASSERT_EQ(op_at(d).kind, OpKind::attend);
                waited.push_back(op_at(d).step);
              }
              EXPECT_EQ(waited, j >= 2 ? std::vector<int>{j - 1} : std::vector<int>{}) << "transfer " << j;
            } else if (op.kind == OpKind::attend) {
              std::vector<int> lanes;
              for (const int d : op.deps) {
                const Op& t = op_at(d);
                if (plan.schedule.gathered) {
                  EXPECT_EQ(t.kind, OpKind::gather);
                } else {
                  EXPECT_EQ(t.kind, OpKind::exchange);
                  EXPECT_EQ(t.step, op.step) << "step " << op.step << " waits for the transfer that filled it";
                }
                lanes.push_back(t.lane);
              }
              const bool arrives = plan.schedule.gathered ? c > 1 && op.step == 0 : op.step > 0;
              EXPECT_EQ(lanes.size(), arrives ? (plan.schedule.gathered ? 1u : plan.schedule.lanes.size()) : 0u)
                  << "step " << op.step;
            }
          }
        }
      }
}

TEST(StepProgram, LanesAreTheThreadsTheExecutorStarts) {
  for (const Config& cfg : every_configuration()) {
    SCOPED_TRACE(cfg.label());
    const Plan plan = make_plan(cfg);
    const RankProgram p = compile_program(plan, 0);
    const int lanes = program_lanes(plan.schedule, plan.backward ? &*plan.backward : nullptr);
    EXPECT_EQ(p.lanes, lanes);
    EXPECT_EQ(cpu_executor_threads(plan.schedule, 3, plan.backward ? &*plan.backward : nullptr), 3 * lanes);
    for (const Op& op : p.ops) EXPECT_LT(op.lane, lanes);
  }
  // The follow design's trailing partials take a lane per K/V lane more than the forward's.
  Config cfg;
  cfg.cp = 4;
  cfg.seq = 32;
  cfg.phase = Phase::fwd_bwd;
  cfg.dkv = Dkv::follow;
  EXPECT_EQ(compile_program(make_plan(cfg), 0).lanes, 3);
  cfg.variant = Variant::ring_bidirectional;
  EXPECT_EQ(compile_program(make_plan(cfg), 0).lanes, 5);
}

TEST(StepProgram, FaultsRewriteTheOpsTheyName) {
  Config cfg;
  cfg.cp = 4;
  cfg.seq = 32;
  cfg.phase = Phase::fwd_bwd;
  cfg.causal = false;
  const Plan plan = make_plan(cfg);
  const RankProgram clean = compile_program(plan, 1);
  const RankProgram wrong = compile_program(plan, 1, InjectedFault::wrong_kv_block);
  ASSERT_EQ(clean.ops.size(), wrong.ops.size());
  const Op* step0 = nullptr;
  int rewritten = 0;
  for (std::size_t i = 0; i < wrong.ops.size(); ++i) {
    const Op& op = wrong.ops[i];
    if (op.kind != OpKind::attend_bwd) continue;
    if (op.step == 0) {
      step0 = &op;
      continue;
    }
    ASSERT_NE(step0, nullptr);
    // Every later step reads step 0's block, on its layout; without the fault it reads its own.
    EXPECT_EQ(op.runs[1].buf, step0->runs[1].buf);
    EXPECT_NE(clean.ops[i].runs[1].buf, step0->runs[1].buf);
    ++rewritten;
  }
  EXPECT_EQ(rewritten, 3);
  // The pass faults are one op first on the lane they stop.
  EXPECT_EQ(compile_program(plan, 0, InjectedFault::throw_in_pass).ops.front().kind, OpKind::fail);
  EXPECT_NE(compile_program(plan, 1, InjectedFault::throw_in_pass).ops.front().kind, OpKind::fail);
  const RankProgram hang = compile_program(plan, 3, InjectedFault::hang);
  EXPECT_EQ(hang.ops.front().kind, OpKind::hang);
  EXPECT_EQ(hang.ops.front().lane, 1);
}

// One golden program per variant (rank 1 of 4, fwd+bwd, reverse): what `run --list --explain` prints.
// RINGBENCH_UPDATE_GOLDEN=1 rewrites them (review the diff).
TEST(StepProgram, GoldenProgramPerVariant) {
  for (const Variant v : every_variant()) {
    Config cfg;
    cfg.cp = 4;
    cfg.seq = 16;
    cfg.heads = 4;
    cfg.kv_heads = 2;
    cfg.head_dim = 2;
    cfg.variant = v;
    cfg.split = Split::zigzag;
    cfg.phase = Phase::fwd_bwd;
    cfg.dtype = DType::float32;
    if (v == Variant::ulysses) cfg.ulysses_degree = 4;
    if (v == Variant::hybrid) cfg.ulysses_degree = 2;
    const std::string text = explain_program(compile_program(make_plan(cfg), 1), 4);
    const std::string path = std::string(RINGBENCH_SOURCE_DIR) + "/tests/data/golden/programs/" +
                             std::string(to_string(v)) + ".txt";
    const char* update = std::getenv("RINGBENCH_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
      std::ofstream(path) << text;
      continue;
    }
    std::ifstream in(path);
    ASSERT_TRUE(in) << path << " is missing: run with RINGBENCH_UPDATE_GOLDEN=1";
    std::stringstream want;
    want << in.rdbuf();
    EXPECT_EQ(text, want.str()) << path;
  }
}

}  // namespace
}  // namespace rb::ring
