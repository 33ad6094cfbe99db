// Planning packed documents at the scale issue 45 names: a thousand documents of a lognormal mix
// (median 700 tokens, sigma 1, scaled to fill S) over S = 1M tokens and c = 64 ranks, for each split
// (doc-zigzag padding each document to 128). The plan keeps every within-document piece of every
// step (what the executors need); the work matrix only counts them (what the model needs). Pairs are
// counted per (segment, document) run, never per token (docs/performance.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>
#include <numeric>

#include "bench/micro/peak_memory.hpp"
#include "common/documents.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/work_matrix.hpp"

namespace {

using namespace rb;

constexpr int kDocuments = 1000;

// A thousand lognormal lengths (deterministic: a fixed Box–Muller grid), scaled to sum to S.
std::vector<std::int64_t> mix(std::int64_t S) {
  std::vector<double> raw(kDocuments);
  for (int i = 0; i < kDocuments; ++i) {
    const double u = (i + 0.5) / kDocuments, v = std::fmod(i * 0.618033988749895, 1.0);
    raw[static_cast<std::size_t>(i)] = 700 * std::exp(std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v));
  }
  const double total = std::accumulate(raw.begin(), raw.end(), 0.0);
  std::vector<std::int64_t> out;
  std::int64_t sum = 0;
  for (int i = 0; i + 1 < kDocuments; ++i) {
    out.push_back(std::max<std::int64_t>(1, std::llround(raw[static_cast<std::size_t>(i)] / total *
                                                         static_cast<double>(S))));
    sum += out.back();
  }
  out.push_back(S - sum);
  return out;
}

Config packed(Split split) {
  Config c;
  c.seq = std::int64_t{1} << 20;
  c.cp = 64;
  c.split = split;
  c.heads = 16;
  c.kv_heads = 1;
  c.head_dim = 128;
  c.dtype = DType::bfloat16;
  c.documents.spec = "lognormal 1000";
  c.documents.lengths = mix(c.seq);
  c.documents.pad = true;
  c.seq = 0;
  for (const std::int64_t e : document_extents(c)) c.seq += e;  // doc-zigzag's padded S
  return c;
}

void BM_PlanDocuments(benchmark::State& state) {
  const Config c = packed(static_cast<Split>(state.range(0)));
  double pieces = 0;
  for (auto _ : state) {
    const ring::Plan plan = ring::make_plan(c);
    pieces = 0;
    for (const auto& r : plan.ranks)
      for (const auto& s : r.steps) pieces += static_cast<double>(s.pairs.size());
    benchmark::DoNotOptimize(plan);
  }
  state.counters["pieces"] = pieces;
  state.counters["peak_MB"] = micro::peak_mb_of([&] { benchmark::DoNotOptimize(ring::make_plan(c)); });
  state.SetLabel(std::string(to_string(c.split)) + " 1000 documents S=1M c=64");
}

void BM_WorkMatrixDocuments(benchmark::State& state) {
  const Config c = packed(static_cast<Split>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(ring::make_work_matrix(c));
  state.counters["peak_MB"] = micro::peak_mb_of([&] { benchmark::DoNotOptimize(ring::make_work_matrix(c)); });
  state.SetLabel(std::string(to_string(c.split)) + " 1000 documents S=1M c=64");
}

BENCHMARK(BM_PlanDocuments)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_WorkMatrixDocuments)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
