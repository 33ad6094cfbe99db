// Google Benchmark of the readers' commands at the scale a fleet and a long nightly history reach
// (issue 42): `trend --baseline` over 4,000 configurations, the fleet page of 2,000 nodes, and the
// compare of an A/B pair of 24,000 rounds with its peak memory. Each was quadratic in something
// (134 s, 17.6 s, 2.3 GB); the goals are under 2 s, under 2 s and under 200 MB (docs/performance.md).
// The inputs are made here, in memory or in a temporary folder, outside the timed loop.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "bench/micro/peak_memory.hpp"
#include "reports/compare/compare.hpp"
#include "reports/compare/trend.hpp"
#include "reports/fleet/fleet.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using rb::reports::ResultsFile;

// A configuration as the sweep writes one, distinct by its S and heads.
json config(int i) {
  const int seq = 256 * (1 + i % 64), heads = 1 + i / 64;
  return {{"id", fmt::format("s{}-c1-zigzag-ring-h{}x1-d64-causal-float32-cpu-local", seq, heads)},
          {"seq", seq},
          {"cp", 1},
          {"split", "zigzag"},
          {"variant", "ring"},
          {"heads", heads},
          {"kv_heads", 1},
          {"head_dim", 64},
          {"causal", true},
          {"dtype", "float32"},
          {"backend", "cpu"},
          {"transport", "local"},
          {"link_gbps", 0.0}};
}

// An ok run of `samples` (their median the median), the TFLOP/s derived from it.
json ok_run(const json& cfg, const std::vector<double>& samples, const std::vector<std::int64_t>& round_counts = {}) {
  std::vector<double> s(samples);
  std::sort(s.begin(), s.end());
  const double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  json timing = {{"count", s.size()},  {"min_ms", s.front()},  {"median_ms", median}, {"p90_ms", s[s.size() * 9 / 10]},
                 {"max_ms", s.back()}, {"samples_ms", samples}};
  if (!round_counts.empty()) {
    timing["round_counts"] = round_counts;
    timing["rounds"] = round_counts.size();
  }
  return {{"config", cfg},
          {"status", "ok"},
          {"reason", nullptr},
          {"correctness", {{"checked", true}, {"passed", true}, {"max_abs_err", 1e-7}}},
          {"timing", timing},
          {"plan", {{"flops", 1e9}, {"work_imbalance", 1.0}}},
          {"metrics",
           {{"attention_tflops", 1e9 / median / 1e9},
            {"attention_tflops_aggregate", 1e9 / median / 1e9},
            {"attention_tflops_gpus", 1},
            {"work_imbalance", 1.0}}}};
}

json results_doc(json runs, const std::string& git_sha, json extra = json::object()) {
  json doc{{"schema", rb::reports::kResultsSchema},
           {"schema_version", rb::reports::kResultsSchemaVersion},
           {"tool", {{"version", "0.1.0"}, {"git_sha", git_sha}, {"build_type", "Release"}}},
           {"host", {{"hostname", "node1"}, {"cpu_model", "Xeon"}, {"gpus", json::array()}}},
           {"runs", std::move(runs)}};
  doc.update(extra);
  return doc;
}

void write(const fs::path& file, const json& doc) { std::ofstream(file) << doc.dump(); }

// A history of `nights` nights of `configs` configurations each (the last two nights 10% slower in
// every tenth configuration), and a baseline beside it.
fs::path make_history(int configs, int nights) {
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench_trend_bench_{}_{}", ::getpid(), configs);
  fs::remove_all(dir);
  fs::create_directories(dir / "history");
  for (int night = 0; night <= nights; ++night) {
    json runs = json::array();
    for (int i = 0; i < configs; ++i) {
      const double ms = 1.0 + 0.001 * i;
      const double f = night >= nights - 2 && i % 10 == 0 ? 1.1 : 1.0;
      runs.push_back(ok_run(config(i), {ms * f, ms * f * 1.01, ms * f * 0.99, ms * f * 1.02, ms * f * 0.98}));
    }
    const json doc = results_doc(std::move(runs), fmt::format("{:012x}", 0x111111 * (night + 1)));
    write(night == nights ? dir / "baseline.json" : dir / "history" / fmt::format("2026-11-{:02}.json", night + 1),
          doc);
  }
  return dir;
}

// `ringbench trend HISTORY --baseline FILE --json -o page.html`, less the writing of the page.
void BM_TrendWithBaseline(benchmark::State& state) {
  const int configs = static_cast<int>(state.range(0)), nights = 7;
  const fs::path dir = make_history(configs, nights);
  for (auto _ : state) {
    auto history = rb::reports::load_history(dir / "history", 0.05);
    rb::reports::set_baseline(history, rb::reports::read_results(dir / "baseline.json"));
    const std::string page = rb::reports::trend_page(history, "bench");
    const std::string js = rb::reports::to_json(history).dump();
    if (history.configs.size() != static_cast<std::size_t>(configs)) state.SkipWithError("lost configurations");
    benchmark::DoNotOptimize(page.size() + js.size());
  }
  state.counters["configurations"] = configs;
  state.counters["nights"] = nights;
  fs::remove_all(dir);
}
BENCHMARK(BM_TrendWithBaseline)->Arg(1000)->Arg(4000)->Unit(benchmark::kMillisecond)->Iterations(1);

// One node of a fleet: one configuration at c = 2 on two GPUs, its pass time `ms`.
ResultsFile node(int i, double ms) {
  const std::string host = fmt::format("node{:04}", i);
  json run = {{"config", {{"id", "s4096-c2-zigzag-ring-h8x2-d64-causal-bfloat16-cuda-nccl"}, {"cp", 2}}},
              {"status", "ok"},
              {"timing", {{"median_ms", ms}, {"samples_ms", {ms}}}},
              {"metrics",
               {{"attention_tflops", 100.0 / ms},
                {"comm_bandwidth_gbyte_per_s", 40.0 / ms},
                {"per_rank",
                 {{{"rank", 0}, {"comm_bandwidth_gbyte_per_s", 40.0 / ms}},
                  {{"rank", 1}, {"comm_bandwidth_gbyte_per_s", 40.0 / ms}}}}}},
              {"placement",
               {{{"rank", 0}, {"host", host}, {"device", fmt::format("GPU-{}-0", host)}},
                {{"rank", 1}, {"host", host}, {"device", fmt::format("GPU-{}-1", host)}}}}};
  ResultsFile f;
  f.path = host + "/results.json";
  f.doc = {{"schema", "ringbench.results"},
           {"schema_version", "2.5.0"},
           {"tool", {{"version", "0.1.0"}, {"git_sha", "abc"}, {"build_type", "Release"}}},
           {"host", {{"hostname", host}, {"gpus", {{{"name", "H200"}, {"uuid", fmt::format("GPU-{}-0", host)}}}}}},
           {"run_time", {{"started_utc", "2026-12-01T00:00:00Z"}, {"finished_utc", "2026-12-01T00:10:00Z"}}},
           {"profile", {{"name", "acceptance"}}},
           {"runs", {run}}};
  return f;
}

// `ringbench fleet NODES... --html page.html`, less the reading and writing of files: most nodes
// at one of a few standings (a healthy fleet; the swarm's worst case), one in fifty an outlier.
void BM_FleetPage(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::vector<ResultsFile> files;
  for (int i = 0; i < nodes; ++i)
    files.push_back(node(i, i % 50 == 7 ? 13.0 + 0.01 * (i % 13) : 10.0 + 0.01 * (i % 3)));
  for (auto _ : state) {
    const auto report = rb::reports::judge_fleet(files, {});
    const std::string page = rb::reports::fleet_html(report);
    if (report.nodes.size() != static_cast<std::size_t>(nodes)) state.SkipWithError("lost nodes");
    benchmark::DoNotOptimize(page.size());
  }
  state.counters["nodes"] = nodes;
}
BENCHMARK(BM_FleetPage)->Arg(500)->Arg(2000)->Unit(benchmark::kMillisecond)->Iterations(1);

// One side of an A/B pair of one configuration, `rounds` rounds of one timed pass each, its times
// scaled by `scale`.
json pair_side(const std::string& role, int rounds, double scale) {
  std::vector<double> samples;
  for (int r = 0; r < rounds; ++r) samples.push_back(scale * (1.0 + 0.01 * ((r * 7919) % 101) / 100.0));
  json runs = json::array({ok_run(config(0), samples, std::vector<std::int64_t>(static_cast<std::size_t>(rounds), 1))});
  return results_doc(std::move(runs), "abc",
                     {{"pairing",
                       {{"role", role},
                        {"partner_git_sha", "abc"},
                        {"partner_version", "0.1.0"},
                        {"pair_id", "0123456789abcdef"},
                        {"first_by_round", json::array()},
                        {"unit", "sample"}}}});
}

// `ringbench compare BASE NEW` of an A/B pair: both files read, and the paired test and its
// Hodges-Lehmann estimate over every round. Its peak memory (peak_MB) is that of reading the two
// files and comparing them, beyond what the process held before.
void BM_ComparePair(benchmark::State& state) {
  const int rounds = static_cast<int>(state.range(0));
  const fs::path dir = fs::temp_directory_path() / fmt::format("ringbench_compare_bench_{}_{}", ::getpid(), rounds);
  fs::create_directories(dir);
  write(dir / "base.json", pair_side("base", rounds, 1.0));
  write(dir / "new.json", pair_side("new", rounds, 1.03));
  auto compare = [&] {
    const auto cmp = rb::reports::compare_results(rb::reports::read_results(dir / "base.json"),
                                                  rb::reports::read_results(dir / "new.json"), {});
    return cmp.paired && cmp.runs.size() == 1 && cmp.runs[0].change;
  };
  for (auto _ : state)
    if (!compare()) state.SkipWithError("not compared as a pair");
  state.counters["rounds"] = rounds;
  state.counters["peak_MB"] = rb::micro::peak_mb_of([&] { benchmark::DoNotOptimize(compare()); });
  fs::remove_all(dir);
}
BENCHMARK(BM_ComparePair)->Arg(2400)->Arg(24000)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
