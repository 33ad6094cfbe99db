// The analytic model at the largest scale it promises: the per-step work table of c = 1024 ranks
// over S = 10M tokens (closed-form pair counts) and the ring simulation over it.
#include <benchmark/benchmark.h>

#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
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

BENCHMARK(BM_WorkMatrix)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RingSimulation)->Unit(benchmark::kMillisecond);

}  // namespace
