// Planning packed documents at the scale issue 45 names: a thousand documents of a lognormal mix
// (median 700 tokens, sigma 1, scaled to fill S) over S = 1M tokens and c = 64 ranks, for each split
// (doc-zigzag padding each document to 128). The plan keeps every within-document piece of every
// step (what the executors need); the work matrix only counts them (what the model needs). Pairs are
// counted per (segment, document) run, never per token (docs/performance.md).
//
// Issue 51's grid beside it: 10^3 to 10^6 documents of uniform:512:1536 (a mean of 1024 tokens, S =
// 1024 x documents), c = 64, 256 and 1024, every split: the plan, the work matrix, and `model`
// (llama3-8b) at the sizes the issue quoted. A configuration over the plan's bound
// (ring/plan/split_scheme.hpp, kMaxPlanBytes) is refused before anything is built; its time is the
// refusal's, and its counter `refused` is 1.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <cmath>
#include <numbers>
#include <numeric>

#include "bench/cli/model_report.hpp"
#include "bench/micro/peak_memory.hpp"
#include "common/documents.hpp"
#include "common/error.hpp"
#include "model/presets.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/split_scheme.hpp"
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

// 10^e documents of uniform:512:1536 drawn with seed 1 (S = 1024 x 10^e), c ranks, the split given,
// doc-zigzag padding each document to 2c.
Config grid(const benchmark::State& state) {
  Config c;
  c.split = static_cast<Split>(state.range(0));
  c.seq = 1024;
  for (int i = 0; i < state.range(1); ++i) c.seq *= 10;
  c.cp = static_cast<int>(state.range(2));
  c.heads = 1;  // one head: S^2 x Hq stays within the shape's bound at S = 10^9 (the plan has no heads)
  c.kv_heads = 1;
  c.head_dim = 128;
  c.dtype = DType::bfloat16;
  set_documents(c, parse_document_spec("uniform:512:1536", "documents"), true);
  return c;
}

std::string grid_label(const Config& c) {
  return fmt::format("{} {} documents c={} plan estimate {:.3g} GiB", to_string(c.split), c.documents.lengths.size(),
                     c.cp, ring::plan_size_estimate(c).bytes / 1073741824.0);
}

// Builds what `build` makes from c once per iteration; a refused configuration counts as such.
template <typename Build>
void time_or_refusal(benchmark::State& state, const Config& c, Build build) {
  std::string refused;
  double pieces = 0;
  for (auto _ : state) try {
      pieces = build(c);
    } catch (const InputError& e) {
      refused = e.rule();
    }
  state.counters["refused"] = refused.empty() ? 0 : 1;
  state.counters["pieces"] = pieces;
  state.SetLabel(grid_label(c) + (refused.empty() ? "" : " refused: " + refused.substr(0, 60)));
}

void BM_PlanManyDocuments(benchmark::State& state) {
  time_or_refusal(state, grid(state), [](const Config& c) {
    const ring::Plan plan = ring::make_plan(c);
    double pieces = 0;
    for (const auto& r : plan.ranks)
      for (const auto& s : r.steps) pieces += static_cast<double>(s.pairs.size());
    return pieces;
  });
}

void BM_WorkMatrixManyDocuments(benchmark::State& state) {
  time_or_refusal(state, grid(state), [](const Config& c) {
    benchmark::DoNotOptimize(ring::make_work_matrix(c));
    return 0.0;
  });
}

void many_documents_args(benchmark::internal::Benchmark* b) {
  for (int split = 0; split < 4; ++split)
    for (int e = 3; e <= 6; ++e)
      for (const int c : {64, 256, 1024}) b->Args({split, e, c});
}

BENCHMARK(BM_PlanManyDocuments)->Apply(many_documents_args)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_WorkMatrixManyDocuments)->Apply(many_documents_args)->Unit(benchmark::kMillisecond)->Iterations(1);

// `ringbench model --preset llama3-8b --seq S --cp c --documents SPEC` without the simulation, as the
// command computes it (its default splits and doc-zigzag, which --documents adds): range(0) picks
// the case.
void BM_ModelDocuments(benchmark::State& state) {
  struct Case {
    const char* documents;
    std::int64_t seq;
    int cp;
  };
  static constexpr Case kCases[] = {
      {"fixed:1", std::int64_t{1} << 20, 16},            // the issue's: 41 s and 2.47 GB before
      {"uniform:512:1536", std::int64_t{1} << 20, 16},   // about 10^3 documents
      {"uniform:512:1536", std::int64_t{1} << 24, 64},   // about 1.6 x 10^4
      {"uniform:512:1536", std::int64_t{1} << 27, 256},  // about 1.3 x 10^5
  };
  const Case& k = kCases[state.range(0)];
  bench::ModelRequest req;
  req.inputs.shape = model::find_model("llama3-8b", "--preset");
  req.inputs.device = model::parse_device("h100-sxm", "--peak");  // the command's defaults
  req.inputs.link = model::parse_link("ib-ndr", "--link");
  req.inputs.inner_link = model::parse_link("nvlink4", "--inner-link");
  req.seqs = {k.seq};
  req.cps = {k.cp};
  req.splits = {Split::contiguous, Split::zigzag, Split::striped, Split::doc_zigzag};
  req.simulate = false;
  req.documents = parse_document_spec(k.documents, "--documents");
  std::string refused;
  for (auto _ : state) try {
      benchmark::DoNotOptimize(bench::model_report(req));
    } catch (const InputError& e) {
      refused = std::string(e.what()).substr(0, 80);
    }
  state.counters["refused"] = refused.empty() ? 0 : 1;
  state.counters["peak_MB"] = micro::peak_mb_of([&] {
    try {
      benchmark::DoNotOptimize(bench::model_report(req));
    } catch (const InputError&) {
    }
  });
  state.SetLabel(fmt::format("model llama3-8b --seq {} --cp {} --documents {}{}", k.seq, k.cp, k.documents,
                             refused.empty() ? "" : " refused: " + refused));
}

BENCHMARK(BM_ModelDocuments)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
