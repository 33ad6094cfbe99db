// Small results documents built in memory for the compare, accept and trend unit tests, checked by
// the real reader (validate_results) so they cannot drift from what ringbench writes.
#pragma once

#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports::testing {

using nlohmann::json;

inline json config(int seq, int cp, const std::string& split) {
  const std::string id = "s" + std::to_string(seq) + "-c" + std::to_string(cp) + "-" + split +
                         "-ring-h8x2-d64-causal-float32-cpu-local";
  return {{"id", id},         {"seq", seq},           {"cp", cp},        {"split", split}, {"variant", "ring"},
          {"heads", 8},       {"kv_heads", 2},        {"head_dim", 64},  {"causal", true}, {"dtype", "float32"},
          {"backend", "cpu"}, {"transport", "local"}, {"link_gbps", 0.0}};
}

// An ok run whose samples are `samples`; metrics derived from them as the runner does (the
// headline TFLOP/s per GPU: plan FLOPs / c / median, a CPU rank standing in for a GPU).
inline json ok_run(const json& cfg, const std::vector<double>& samples, double flops = 1e9) {
  std::vector<double> s(samples);
  std::sort(s.begin(), s.end());
  const double median = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  return {{"config", cfg},
          {"status", "ok"},
          {"reason", nullptr},
          {"correctness", {{"checked", true}, {"passed", true}, {"max_abs_err", 1e-7}}},
          {"timing",
           {{"count", s.size()},
            {"min_ms", s.front()},
            {"median_ms", median},
            {"p90_ms", s.back()},
            {"max_ms", s.back()},
            {"samples_ms", samples}}},
          {"plan", {{"flops", flops}, {"work_imbalance", 1.0}}},
          {"metrics",
           {{"attention_tflops", flops / cfg.at("cp").get<double>() / median / 1e9},
            {"attention_tflops_aggregate", flops / median / 1e9},
            {"attention_tflops_gpus", cfg.at("cp")},
            {"work_imbalance", 1.0}}}};
}

inline json failed_run(const json& cfg, const std::string& reason) {
  return {{"config", cfg}, {"status", "failed"}, {"reason", reason}, {"timing", nullptr}, {"metrics", nullptr}};
}

// `n` samples around `center` with relative spread `rel` (uniform), from a fixed seed.
inline std::vector<double> samples(double center, double rel, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-rel, rel);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) out.push_back(center * (1.0 + u(rng)));
  return out;
}

inline std::vector<double> scaled(std::vector<double> v, double f) {
  for (auto& x : v) x *= f;
  return v;
}

// `runs` is a vector, not a json: `results("b", {run})` is then one run under every compiler (GCC
// reads a json built from `{run}` as an array of it, clang as a copy of it; nlohmann/json's FAQ).
inline ResultsFile results(const std::string& name, const std::vector<json>& runs,
                           json host = {{"hostname", "node1"}, {"cpu_model", "Xeon"}, {"gpus", json::array()}},
                           const std::string& version = kResultsSchemaVersion) {
  json doc{{"schema", kResultsSchema}, {"schema_version", version}, {"host", host}, {"runs", json(runs)}};
  ResultsFile f;
  validate_results(doc, name, &f);
  f.path = name;
  f.doc = doc;
  return f;
}

}  // namespace rb::reports::testing
