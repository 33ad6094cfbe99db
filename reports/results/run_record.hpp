// One run of a results file as a type: what compare, accept and trend read, taken from the JSON in
// one place (read_run_record) instead of by field name in each reader. The reader of the file
// (results_reader.hpp) has already checked every field's JSON type, so reading here is tolerant only
// of what a format may lack: a field absent in an older MINOR version or in a failed run is nullopt
// or empty, never a guess. Everything is plain data, so the layers below reports/ never see it and
// the layers above build their own types from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/config_label.hpp"
#include "reports/results/gpu_state_reader.hpp"

namespace rb::reports {

enum class RunStatus { ok, failed, skipped };

// The configuration as the file names it. Names stay strings: a file of a later MINOR version may
// name a split or a kernel this build does not know, and a reader still shows it.
struct RecordConfig {
  std::string id;
  std::int64_t seq = 0;
  int cp = 0, heads = 0, kv_heads = 0, head_dim = 0;
  std::string split, variant, dtype, backend, transport, kernel;
  bool causal = true;
  std::optional<double> link_gbps;  // absent: unpaced

  // The transport, when this build knows its name.
  std::optional<Transport> transport_kind() const;
};

struct RecordCorrectness {
  bool checked = false;
  std::optional<bool> passed;
  std::optional<double> max_abs_err;
};

// The timed samples and how they were taken: samples_ms holds the rounds in order, round k having
// round_counts[k] samples (1.2.0), or before that count / rounds plus one for k < count % rounds.
struct RecordTiming {
  std::vector<double> samples_ms;
  std::vector<std::int64_t> round_counts;
  std::optional<std::int64_t> rounds, devices;
  std::optional<double> median_ms, min_ms, p90_ms, noise_pct;
  std::vector<double> machine_probe_ms, machine_probe_core_spread;
  std::optional<int> machine_probe_version;

  // The samples of each round, in order; one group (all samples) when the rounds cannot be told apart.
  std::vector<std::vector<double>> rounds_of_samples() const;
};

struct RecordMetrics {
  std::optional<double> attention_tflops, attention_tflops_gpus, attention_tflops_slowest_rank,
      attention_tflops_aggregate;
  std::optional<double> overlap_fraction, exposed_comm_ms, imbalance, work_imbalance;
  std::optional<double> comm_bandwidth_gbyte_per_s;
  std::string comm_basis;  // "execution", "in_flight", "mixed", or empty
};

struct RecordPlan {
  std::optional<double> flops, work_imbalance;
};

struct RunRecord {
  RunStatus status = RunStatus::failed;
  std::string reason;
  RecordConfig config;
  std::optional<RecordCorrectness> correctness;
  RecordTiming timing;
  RecordMetrics metrics;
  RecordPlan plan;
  GpuThrottle throttle;
};

// Reads one run of a validated results document (results_reader.hpp).
RunRecord read_run_record(const nlohmann::json& run);

// The configuration in the words every reader shows it by (common/config_label.hpp).
ConfigWords words(const RecordConfig& c);
// "S=1024 c=4 zigzag ring Hq=8 Hkv=2 D=64 causal float32 cpu/local": the run's configuration for people.
std::string label(const RecordConfig& c);

std::string_view to_string(RunStatus s);

}  // namespace rb::reports
