// The metrics of a pass's timeline as a record holds them (docs/metrics.md defines each): the
// run's, from its median timed pass, and the CUPTI-traced pass's. bench/measure/metrics.hpp
// computes them and converts its Metrics into this type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rb::reports {

// One value of a per_rank[] entry, at the rank its "rank" field names (else its position).
struct RankValue {
  std::int64_t rank = 0;
  std::optional<double> value;
};

struct RecordStepTime {
  std::int64_t step = 0;
  std::optional<double> time_ms;
};

struct RecordRankMetrics {
  std::int64_t rank = 0;  // its position in per_rank when the file names none
  std::optional<std::int64_t> interval_count, comm_bytes;
  std::optional<double> comm_time_ms, comm_in_flight_ms, compute_time_ms, memory_time_ms, overlap_time_ms;
  std::optional<double> overlap_fraction, exposed_comm_ms, busy_time_ms, comm_bandwidth_gbyte_per_s;
  std::optional<double> attention_time_ms;  // attention_ms before 1.0.0
  std::optional<double> attention_tflops, tail_ms;
  std::string comm_basis;  // "execution", "in_flight", or empty (null: no comm)
  std::vector<RecordStepTime> steps;
};

struct RecordMetrics {
  bool present = false;  // false: the run has no metrics (null in the file)
  std::optional<double> window_ms;
  std::optional<std::int64_t> rank_count;
  std::optional<double> attention_tflops, attention_tflops_slowest_rank, attention_tflops_aggregate;
  std::optional<int> attention_tflops_gpus;  // the divisor of the per-GPU headline
  std::optional<std::int64_t> slowest_rank;
  std::optional<double> overlap_fraction, exposed_comm_ms, imbalance, work_imbalance;
  std::string imbalance_basis;  // "attention" or "compute"
  std::optional<double> comm_bandwidth_gbyte_per_s;
  std::string comm_basis;  // "execution", "in_flight", "mixed", or empty (null: no comm)
  std::optional<double> comm_time_ms, comm_in_flight_ms, compute_time_ms, memory_time_ms, overlap_time_ms;
  std::optional<double> exposed_comm_ms_max, critical_path_ms, pass_time_ms, busy_time_ms;
  std::optional<double> launch_overhead_ms, eager_minus_graph_ms;
  std::optional<std::int64_t> comm_bytes;
  std::vector<RecordStepTime> step_times;
  std::optional<double> timeline_pass_ms;  // the run's metrics only: the median pass's own time
  // Before 1.0.0 the mean over ranks was exposed_comm_ms_mean; exposed_comm_ms above keeps the name's
  // own field, so a reader that shows either says which. The writer never sets it.
  std::optional<double> exposed_comm_ms_mean;
  std::optional<std::vector<RecordRankMetrics>> per_rank;  // nullopt: the file has none

  // per_rank[].attention_time_ms by rank; nullopt when the file has no per_rank.
  std::optional<std::vector<RankValue>> rank_attention_ms() const;
};

}  // namespace rb::reports
