// One run of a results file as a type: what compare, accept and trend read, taken from the JSON in
// one place (read_run_record) instead of by field name in each reader. The reader of the file
// (results_reader.hpp) has already checked every field's JSON type, so reading here is tolerant only
// of what a format may lack: a field absent in an older MINOR version or in a failed run is nullopt
// or empty, never a guess. Everything is plain data, so the layers below reports/ never see it and
// the layers above (compare, accept, trend, the HTML report) build their own types from it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/config_label.hpp"
#include "common/run_status.hpp"
#include "reports/results/gpu_state_reader.hpp"

namespace rb::reports {

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

// One value of a per_rank[] entry, at the rank its "rank" field names (else its position).
struct RankValue {
  std::int64_t rank = 0;
  std::optional<double> value;
};

struct RecordMetrics {
  std::optional<double> attention_tflops, attention_tflops_gpus, attention_tflops_slowest_rank,
      attention_tflops_aggregate;
  std::optional<double> overlap_fraction, exposed_comm_ms, imbalance, work_imbalance;
  std::optional<double> comm_bandwidth_gbyte_per_s;
  std::string comm_basis;  // "execution", "in_flight", "mixed", or empty
  std::optional<double> comm_time_ms, comm_in_flight_ms;
  // Before 1.0.0 the mean over ranks was exposed_comm_ms_mean; exposed_comm_ms above keeps the name's
  // own field, so a reader that shows either says which.
  std::optional<double> exposed_comm_ms_mean, exposed_comm_ms_max;
  // per_rank[].attention_time_ms (attention_ms before 1.0.0); nullopt when the file has no per_rank.
  std::optional<std::vector<RankValue>> rank_attention_ms;
};

struct RecordPlan {
  std::optional<double> flops, work_imbalance;
  std::optional<std::vector<RankValue>> rank_work;  // per_rank[].work: unmasked pairs × Hq
};

// The CUPTI-traced pass (cuda): its time against the timed median, and its comm figures.
struct RecordCupti {
  std::string error;  // tracing failed: the figures are absent
  std::optional<double> traced_pass_ms, clean_median_ms, overhead_pct;
  std::optional<double> comm_time_ms, overlap_fraction, exposed_comm_ms;  // cupti.metrics
};

// The SM clock read beside each timed sample (cuda, 1.2.0). samples_mhz and dropped are as the file
// has them: a reader pairs them with samples_ms by index and ignores what has no sample.
struct RecordSmClock {
  std::vector<double> samples_ms;
  std::vector<std::optional<double>> samples_mhz;  // nullopt: that sample's clock could not be read
  std::vector<std::int64_t> dropped;               // indices into samples_ms
  std::optional<double> threshold_mhz, nominal_mhz;
  std::string method;
};

// One interval of the median pass's timeline. lane and name fall back to kind, kind to "other".
struct RecordInterval {
  int rank = 0;
  std::optional<int> step;
  std::string kind, lane, name;
  double begin_ms = 0, end_ms = 0;
};

// The per-rank timeline of the median pass. Present when the file lists intervals at all; `intervals`
// holds those that can be drawn (a rank, a finite begin and an end not before it), so a timeline can
// be present with none.
struct RecordTimeline {
  std::optional<double> window_ms;
  bool truncated = false;  // the writer kept the first intervals only
  std::vector<RecordInterval> intervals;
};

// The analytic model's estimate for this run. Its fields grow with the model, so besides the two a
// reader uses by meaning, every numeric field is kept by its dotted path ("memory.gb_per_device").
struct RecordModel {
  std::map<std::string, double> numbers;
  std::optional<double> pass_ms;
  std::optional<double> memory_gb_per_device;  // memory.gb_per_device, memory.bytes_per_device, or the 0.x name
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
  std::optional<RecordCupti> cupti;
  std::optional<RecordSmClock> sm_clock;
  std::optional<RecordTimeline> timeline;
  std::optional<RecordModel> model;
};

// Reads one run of a validated results document (results_reader.hpp).
RunRecord read_run_record(const nlohmann::json& run);

// The configuration in the words every reader shows it by (common/config_label.hpp).
ConfigWords words(const RecordConfig& c);
// "S=1024 c=4 zigzag ring Hq=8 Hkv=2 D=64 causal float32 cpu/local": the run's configuration for people.
std::string label(const RecordConfig& c);

}  // namespace rb::reports
