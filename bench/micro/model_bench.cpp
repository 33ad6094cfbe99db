// The analytic model at the largest scale it promises: the per-step work table of c = 1024 ranks
// over S = 10M tokens (closed-form pair counts) and the ring simulation over it; and what a run's
// record costs for its model: every rank's step program as the program simulator's ops, and their
// schedule, for a fwd+bwd ring at the c a sweep runs.
#include <benchmark/benchmark.h>

#include "bench/sweep/program_costs.hpp"
#include "model/op_simulator.hpp"
#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/work_matrix.hpp"

namespace {

using namespace rb;

Config large(Split split) {
  Config c;
  c.seq = 10 * 1024 * 1024;
  c.cp = 1024;
  c.split = split;
  c.heads = 16;
  c.kv_heads = 1;
  c.head_dim = 128;
  c.dtype = DType::bfloat16;
  return c;
}

void BM_WorkMatrix(benchmark::State& state) {
  const Config c = large(static_cast<Split>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ring::make_work_matrix(c));
  state.SetLabel(std::string(to_string(c.split)) + " c=1024 S=10M");
}

void BM_RingSimulation(benchmark::State& state) {
  const Config c = large(Split::zigzag);
  const auto wm = ring::make_work_matrix(c);
  const model::Link link{"ib-ndr", 50e9, 0, ""};
  const auto table = model::make_step_table(wm.ranks, wm.steps, c.variant, wm.schedule, wm.unmasked, wm.recv_bytes,
                                            c.head_dim, c.heads, 0.45 * 989e12, link);
  for (auto _ : state) benchmark::DoNotOptimize(model::simulate(table));
  state.SetLabel("zigzag c=1024 S=10M");
}

// A zig-zag ring, fwd+bwd under reverse, S = 64·c: the schedule of its ops with unit times, alone
// (second argument 0) and with the ops made from the plan (1: every rank's program compiled), the
// two parts of the record's model check.
void BM_ProgramSimulation(benchmark::State& state) {
  Config c;
  c.cp = static_cast<int>(state.range(0));
  c.seq = 64LL * c.cp;
  c.heads = 8;
  c.kv_heads = 2;
  c.head_dim = 64;
  c.phase = Phase::fwd_bwd;
  const ring::Plan plan = ring::make_plan(c);
  const bool compile = state.range(1) != 0;
  std::vector<model::RankOps> ranks = bench::program_sim_ops(plan);
  std::size_t ops = 0;
  for (auto& r : ranks) {
    ops += r.ops.size();
    for (auto& op : r.ops) op.seconds = 1e-3;
  }
  for (auto _ : state) {
    if (compile) benchmark::DoNotOptimize(bench::program_sim_ops(plan));
    benchmark::DoNotOptimize(model::simulate_ops(ranks));
  }
  state.counters["ops"] = static_cast<double>(ops);
  state.SetLabel(std::string(compile ? "compile + schedule" : "schedule") +
                 ", zigzag ring fwd+bwd reverse c=" + std::to_string(c.cp));
}

BENCHMARK(BM_WorkMatrix)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ProgramSimulation)->ArgsProduct({{8, 64, 256}, {0, 1}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RingSimulation)->Unit(benchmark::kMillisecond);

}  // namespace
