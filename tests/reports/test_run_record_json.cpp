// The record's one writer and one reader agree: every shape of record a sweep writes (ok; failed
// in its first round, with nothing measured; failed in a later round, its timing kept; skipped;
// every sample throttled, with the clock but no timing; stopped adaptively or still sampling; a
// cuda run with its GPU state, CUPTI pass, kernel choice and trace error) reads into a RunRecord
// and writes back to the same JSON, number types and nulls included.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/results/results_writer.hpp"
#include "reports/results/run_record.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

// Runs of a stored sweep (tests/data/golden/inputs/base.json: cpu, 2 rounds).
const json& stored_runs() {
  static const json runs = [] {
    std::ifstream in(std::filesystem::path(RINGBENCH_SOURCE_DIR) / "tests/data/golden/inputs/base.json");
    std::stringstream text;
    text << in.rdbuf();
    json out = json::parse(text.str()).at("runs");
    // Stored in an earlier MINOR version whose runs have today's fields; 2.10.0 names every
    // configuration's phase.
    for (auto& run : out) {
      run["schema_version"] = kResultsSchemaVersion;
      run["config"]["phase"] = "fwd";
    }
    return out;
  }();
  return runs;
}

// A stored run with c > 1 (comm, per-rank steps) and one with c = 1 (no comm: null overlap and basis).
json ring_run() {
  for (const auto& r : stored_runs())
    if (r["config"]["cp"] == 4) return r;
  ADD_FAILURE() << "no c = 4 run in base.json";
  return {};
}
json single_rank_run() {
  for (const auto& r : stored_runs())
    if (r["config"]["cp"] == 1) return r;
  ADD_FAILURE() << "no c = 1 run in base.json";
  return {};
}

json nothing_measured(json r, const char* status, const char* reason) {
  for (const char* part : {"correctness", "timing", "plan", "metrics", "timeline", "model", "cupti"}) r[part] = nullptr;
  r["status"] = status;
  r["reason"] = reason;
  return r;
}

json throttled_all() {
  json r = ring_run();
  for (const char* part : {"timing", "metrics", "timeline", "model"}) r[part] = nullptr;
  r["status"] = "failed";
  r["reason"] = "throttled: 2 of 2 samples ran under 750 MHz, 75% of the nominal 1000 MHz";
  r["sm_clock"] = json::parse(R"({"method": "injected", "nominal_mhz": 1000.0, "threshold_pct": 75.0,
      "threshold_mhz": 750.0, "recovery_ms": 0.0, "samples_ms": [1.25, 1.5], "samples_mhz": [500.0, 500.0],
      "dropped": [0, 1], "dropped_count": 2, "taken": 2})");
  return r;
}

json adaptive(bool stopped) {
  json r = ring_run();
  r["timing"]["stopping"] = {{"max_noise_pct", 1000.0}, {"min_samples", 3}, {"max_time_s", 60.0}};
  r["timing"]["rounds_planned"] = stopped ? json(2) : json(nullptr);
  r["timing"]["stopped_by"] = stopped ? json("noise 0.55% <= 1000.00%") : json(nullptr);
  return r;
}

json cuda_run(bool cupti_failed) {
  json r = ring_run();
  json& cfg = r["config"];
  cfg["backend"] = "cuda";
  cfg["kernel"] = "cudnn";
  cfg["id"] = cfg["id"].get<std::string>() + "-cudnn";
  json& t = r["timing"];
  for (const char* k : {"machine_probe_ms", "machine_probe_core_spread", "machine_probe_version"}) t.erase(k);
  t["clock"] = "CUDA events around the pass";
  t["rank_mode"] = "isolated";
  t["launch"] = "graph";
  t["l2"] = "warm";
  t["devices"] = 2;
  r["kernel_choice"] = json::parse(R"({"requested": "auto", "chosen": "cudnn", "why": "cuDNN runs this configuration",
      "cudnn_plans": {"s256 d16 causal": "eng0"},
      "cudnn_graphs": {"s256 d16 causal": {"implementation": "composite", "build_ms": 412.5}},
      "cudnn_plan_builds": 0, "cudnn_plan_build_ms": 0.0})");
  r["trace_error"] = "--trace-dir: traces/x.json: cannot write: No space left on device";
  r["gpu_state"] = json::parse(R"j({"start": [
      {"temperature_c": 41, "power_w": 123.456, "power_limit_w": 700.0, "sm_clock_mhz": 1980,
       "clock_event_reasons": ["gpu_idle", "sw_power_cap"], "thermal_or_power_limited": true, "mig_mode": "disabled",
       "pci_bus_id": "0000:19:00.0"},
      {"temperature_c": null, "power_w": null, "power_limit_w": null, "sm_clock_mhz": null,
       "clock_event_reasons": null, "thermal_or_power_limited": null, "mig_mode": null, "pci_bus_id": "0000:1a:00.0"},
      {"unavailable": "no NVML device at 0000:1b:00.0: Not Found (6)", "pci_bus_id": "0000:1b:00.0"}],
    "end": null})j");
  r["sm_clock"] = json::parse(R"({"method": "cudaDeviceGetAttribute", "nominal_mhz": 1980.0, "threshold_pct": 75.0,
      "threshold_mhz": 1485.0, "recovery_ms": 50.0, "samples_ms": [1.0, 2.0], "samples_mhz": [1980.0, null],
      "dropped": [], "dropped_count": 0, "taken": 2})");
  if (cupti_failed) {
    r["cupti"] = {{"error", "CUPTI_ERROR_NOT_INITIALIZED"}};
  } else {
    json metrics = r["metrics"];
    metrics.erase("timeline_pass_ms");
    r["cupti"] = {{"traced_pass_ms", 2.75},   {"clean_median_ms", 2.5},    {"overhead_pct", 10.0},
                  {"window_ms", 3.5},         {"activity_ms", nullptr},    {"dropped_records", 0},
                  {"ignored_records", 3},     {"unattributed_records", 1}, {"intervals", 120},
                  {"intervals_by_node", 118}, {"metrics", metrics}};
  }
  return r;
}

// A plan of c > 64 lists no steps per rank.
json without_plan_steps() {
  json r = ring_run();
  for (auto& rank : r["plan"]["per_rank"]) rank.erase("steps");
  return r;
}

// A run with a backward (2.10.0): its gradients' check, each part's samples and metrics, the
// backward's plan, and the backward's timeline intervals; `fwd` false for phase bwd, which has no
// forward part.
json backward_run(bool fwd) {
  json r = ring_run();
  json& cfg = r["config"];
  cfg["phase"] = fwd ? "fwd+bwd" : "bwd";
  cfg["dkv"] = "follow";
  cfg["id"] = cfg["id"].get<std::string>() + (fwd ? "-fwd+bwd" : "-bwd") + "-follow";
  const json check{{"rows_checked", 256}, {"all_rows", true},    {"max_abs_err", 3e-16},
                   {"rel_l2_err", 1e-16}, {"over_tolerance", 0}, {"passed", true}};
  r["correctness"]["gradients"] = {{"tolerance", 1e-9},
                                   {"tolerance_basis", "float64"},
                                   {"dq", check},
                                   {"dk", fwd ? check : json(nullptr)},
                                   {"dv", fwd ? check : json(nullptr)},
                                   {"dkv_unchecked", fwd ? json(nullptr) : json("too large")},
                                   {"passed", true}};
  const json samples = r["timing"]["samples_ms"];
  json phases{{"bwd", {{"median_ms", 1.5}, {"samples_ms", samples}}}};
  if (fwd) phases["fwd"] = {{"median_ms", 0.5}, {"samples_ms", samples}};
  r["timing"]["phase_ms"] = phases;
  json metrics{{"bwd", r["metrics"]}};
  if (fwd) metrics["fwd"] = r["metrics"];
  r["phase_metrics"] = metrics;
  r["plan"]["forward_flops"] = r["plan"]["flops"];
  json ranks = json::array();
  for (int rank = 0; rank < 4; ++rank)
    ranks.push_back({{"rank", rank},
                     {"recv_bytes", 1000},
                     {"tail_recv_bytes", 100},
                     {"steps", r["plan"]["per_rank"][rank]["steps"]}});
  r["plan"]["backward"] = {{"grads", "trailing"},
                           {"flops", 2.5 * r["plan"]["flops"].get<double>()},
                           {"bytes_moved", 4000},
                           {"grad_bytes_per_token", 512},
                           {"per_rank", ranks}};
  json& first = r["timeline"]["intervals"][0];
  first["phase"] = 1;
  first["name"] = "attention_bwd";
  return r;
}

// A hybrid run (2.11.0): its variant, its all-to-all group in the config and the id, and the
// all-to-alls' comm intervals (step -1) in its timeline.
json hybrid_run() {
  json r = ring_run();
  json& cfg = r["config"];
  cfg["variant"] = "hybrid";
  cfg["ulysses_degree"] = 2;
  cfg["id"] = "s256-c4-contiguous-hybrid-h4x2-d16-causal-float64-cpu-local-u2";
  json a2a = r["timeline"]["intervals"][0];
  a2a["kind"] = "comm";
  a2a["lane"] = "comm";
  a2a["name"] = "qkv_alltoall";
  a2a["step"] = -1;
  a2a["bytes"] = 4096;
  r["timeline"]["intervals"].push_back(a2a);
  return r;
}

TEST(RunRecordJson, EveryShapeTheSweepWritesReadsBackAsWritten) {
  const std::vector<std::pair<std::string, json>> shapes = {
      {"ok, c = 4", ring_run()},
      {"ok, c = 1", single_rank_run()},
      {"failed in round 1", nothing_measured(ring_run(), "failed", "rank 1: injected")},
      {"failed in a later round",
       [] {
         json r = ring_run();
         r["status"] = "failed";
         r["reason"] = "round 2 of 2: rank 1: injected";
         return r;
       }()},
      {"skipped", nothing_measured(ring_run(), "skipped", "seq: 100: the zigzag split needs S % (2c) == 0")},
      {"every sample throttled", throttled_all()},
      {"adaptive, stopped", adaptive(true)},
      {"adaptive, still sampling", adaptive(false)},
      {"cuda", cuda_run(false)},
      {"cuda, CUPTI failed", cuda_run(true)},
      {"plan without steps", without_plan_steps()},
      {"fwd+bwd", backward_run(true)},
      {"bwd", backward_run(false)},
      {"hybrid", hybrid_run()},
  };
  for (const auto& [name, run] : shapes) {
    const RunRecord record = read_run_record(run);
    // dump(): 1 and 1.0 are equal JSON values but not the same text, and the files are text.
    EXPECT_EQ(to_json(record).dump(), run.dump()) << name;
  }
}

TEST(RunRecordJson, TheTypedPartsSayWhatTheJsonSays) {
  const RunRecord ok = read_run_record(ring_run());
  EXPECT_TRUE(ok.timing.present && ok.plan.present && ok.metrics.present);
  EXPECT_FALSE(ok.config.ulysses_degree);
  const RunRecord hybrid = read_run_record(hybrid_run());
  EXPECT_EQ(hybrid.config.ulysses_degree, 2);
  EXPECT_EQ(label(hybrid.config), "S=256 c=4 contiguous hybrid U=2 Hq=4 Hkv=2 D=16 causal float64 cpu/local");
  EXPECT_EQ(ok.timing.round_counts, (std::vector<std::int64_t>{3, 3}));
  EXPECT_EQ(ok.metrics.attention_tflops_gpus, 4);
  ASSERT_TRUE(ok.plan.per_rank);
  EXPECT_EQ(ok.plan.per_rank->size(), 4u);
  ASSERT_TRUE(ok.timeline);
  EXPECT_FALSE(ok.timeline->intervals.empty());

  const RunRecord failed = read_run_record(nothing_measured(ring_run(), "failed", "boom"));
  EXPECT_EQ(failed.status, RunStatus::failed);
  EXPECT_EQ(failed.reason, "boom");
  EXPECT_FALSE(failed.timing.present || failed.plan.present || failed.metrics.present);
  EXPECT_FALSE(failed.correctness || failed.timeline || failed.model || failed.cupti);

  const RunRecord cuda = read_run_record(cuda_run(false));
  ASSERT_TRUE(cuda.gpu_state && cuda.gpu_state->start);
  EXPECT_FALSE(cuda.gpu_state->end);
  EXPECT_EQ(cuda.gpu_state->start->at(2).unavailable, "no NVML device at 0000:1b:00.0: Not Found (6)");
  EXPECT_EQ(cuda.throttle().held_down, "GPU 0000:19:00.0 at the start: gpu_idle, sw_power_cap");
  ASSERT_TRUE(cuda.cupti);
  EXPECT_EQ(cuda.cupti->intervals_by_node, 118);
  EXPECT_FALSE(cuda.cupti->metrics.timeline_pass_ms);
  ASSERT_TRUE(cuda.kernel_choice);
  EXPECT_EQ(cuda.kernel_choice->cudnn_plans.at("s256 d16 causal"), "eng0");
  EXPECT_EQ(cuda.kernel_choice->cudnn_graphs.at("s256 d16 causal").implementation, "composite");
  EXPECT_EQ(cuda.kernel_choice->cudnn_graphs.at("s256 d16 causal").build_ms, 412.5);
  EXPECT_EQ(cuda.kernel_choice->cudnn_plan_builds, 0);  // every shape came built from an earlier configuration
}

// A record made in code, as the sweep makes one, writes the nulls and leaves out what does not apply.
TEST(RunRecordJson, AMadeRecordWritesTheCurrentFormat) {
  RunRecord r;
  r.status = RunStatus::skipped;
  r.reason = "not run";
  r.config.id = "x";
  r.config.transport = "local";
  r.config.kernel = "ringbench";
  const json j = to_json(r);
  EXPECT_EQ(j["schema_version"], kResultsSchemaVersion);
  EXPECT_EQ(j["status"], "skipped");
  for (const char* part : {"correctness", "timing", "plan", "metrics", "timeline", "model", "cupti"})
    EXPECT_TRUE(j.at(part).is_null()) << part;
  for (const char* part : {"kernel_choice", "trace_error", "gpu_state", "sm_clock"})
    EXPECT_FALSE(j.contains(part)) << part;
  r.status = RunStatus::ok;
  r.reason.clear();
  EXPECT_TRUE(to_json(r).at("reason").is_null());
}

}  // namespace
}  // namespace rb::reports
