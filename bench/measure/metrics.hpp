// The metrics of docs/design.md §6 as pure functions over a Timeline: comm and compute time, overlap
// (HTA's get_comm_comp_overlap definition), exposed comm, per-step critical path, imbalance,
// attention TFLOP/s, comm bandwidth and launch overhead, per rank and for the whole pass.
// Comm time has one definition, HTA's: transfers executing (comm intervals). A rank whose recorder
// could only bracket its transfers (comm_in_flight intervals: CUDA events around NCCL calls) takes
// them instead, and says so in comm_basis; comm in flight is reported beside it.
// docs/metrics.md defines every field; record() is what a results record and `ringbench analyze`
// write of them (reports/results/record_metrics.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/timeline.hpp"
#include "reports/results/record_metrics.hpp"

namespace rb::bench {

// What the Timeline cannot know. Zero / empty means "not known" and the dependent metric is null.
struct MetricsInputs {
  double flops = 0.0;                  // forward FLOPs of the whole pass, all ranks (docs/design.md §3)
  std::vector<double> flops_per_rank;  // indexed by rank; gives per-rank TFLOP/s and work_imbalance;
                                       // its size is c, which the per-rank headline divides by
  std::int64_t pass_time_ns = 0;       // measured pass (graph replay) time; 0: the window's length
  std::int64_t eager_time_ns = 0;      // the same pass run eagerly, for eager_minus_graph
  // The devices the ranks ran on at once (ring::Executor::gpus_at_work), which the per-GPU headline
  // divides by; 0: one per rank.
  int gpus = 0;
};

struct RankMetrics {
  int rank = 0;
  std::size_t interval_count = 0;         // after clipping, empty ones dropped
  std::int64_t comm_ns = 0;               // |U(comm)|: executing, or in flight where comm_basis says so
  std::int64_t comm_in_flight_ns = 0;     // |U(comm ∪ comm_in_flight)|: issued until done
  std::optional<std::string> comm_basis;  // "execution" or "in_flight"; nullopt without comm
  std::int64_t compute_ns = 0;            // |U(compute)|
  std::int64_t memory_ns = 0;             // |U(memory)|
  std::int64_t overlap_ns = 0;            // |U(comm) ∩ U(compute)|
  std::int64_t exposed_comm_ns = 0;       // comm_ns - overlap_ns
  std::int64_t attention_ns = 0;  // A_r: |U(compute named "attention" or "attention_bwd")|, or compute_ns if none
  std::int64_t busy_ns = 0;       // |U(compute ∪ comm ∪ memory)|
  std::int64_t comm_bytes = 0;    // bytes of comm intervals (each interval counted once)
  std::optional<double> overlap_fraction;  // overlap / comm; nullopt without comm
  std::optional<double> comm_bandwidth_gbyte_per_s;
  std::optional<double> attention_tflops;  // flops_per_rank[r] / attention time
  std::vector<int> steps;                  // step numbers seen on this rank, ascending
  std::vector<std::int64_t> step_ns;       // time of each of `steps` on this rank
  std::int64_t tail_ns = 0;                // compute after the last step ends (final merges)
};

struct Metrics {
  std::int64_t window_begin_ns = 0, window_end_ns = 0;
  std::vector<RankMetrics> per_rank;  // ascending rank
  // Means over ranks; overlap_fraction pooled (Σ overlap / Σ comm), so exposed = comm·(1 − overlap).
  double comm_ns_mean = 0, compute_ns_mean = 0, memory_ns_mean = 0, overlap_ns_mean = 0;
  double comm_in_flight_ns_mean = 0;
  std::optional<std::string> comm_basis;  // the ranks' basis; "mixed" when they differ
  double exposed_comm_ns_mean = 0;
  std::int64_t exposed_comm_ns_max = 0;
  std::optional<double> overlap_fraction;
  std::optional<double> imbalance;               // max_r A_r / mean_r A_r
  bool imbalance_from_attention = false;         // A_r from "attention" intervals (else all compute)
  std::optional<double> work_imbalance;          // the same over flops_per_rank
  std::vector<int> steps;                        // union of the ranks' steps, ascending
  std::vector<std::int64_t> step_time_ns;        // max over ranks, per entry of `steps`
  std::optional<std::int64_t> critical_path_ns;  // Σ step_time + max_r tail; nullopt without steps
  std::int64_t pass_time_ns = 0;                 // inputs.pass_time_ns, or the window's length
  // The headline: what one GPU sustains, flops / gpus / pass time, to hold against one device's
  // peak; gpus = inputs.gpus, else one per rank: flops_per_rank.size(), else the ranks the
  // timeline shows.
  std::optional<double> attention_tflops;
  int attention_tflops_gpus = 0;                        // the divisor the headline used
  std::optional<double> attention_tflops_aggregate;     // flops / pass time: the sum over ranks
  std::optional<double> attention_tflops_slowest_rank;  // min_r flops_r / A_r
  std::optional<int> slowest_rank;                      // the rank that gives it
  std::int64_t comm_bytes = 0;
  std::optional<double> comm_bandwidth_gbyte_per_s;  // Σ bytes / Σ comm time
  std::int64_t busy_ns = 0;                          // |U(all work of all ranks)|
  std::optional<std::int64_t> launch_overhead_ns;    // pass time − busy; only with a measured pass time
  std::optional<std::int64_t> eager_minus_graph_ns;

  reports::RecordMetrics record() const;
  nlohmann::json to_json() const;  // record()'s JSON
};

// O(n log n) in the number of intervals. Intervals are clipped to the timeline's window; a window
// with end <= begin means "no window": the span of the intervals is used. Throws rb::Error for an
// interval that ends before it begins (a recorder bug, not input).
Metrics compute_metrics(const Timeline& timeline, const MetricsInputs& inputs = {});

// Several timelines (e.g. one per trace file) as one: intervals concatenated, window = the hull of
// their windows. They must share a clock for cross-rank metrics to mean anything.
Timeline merge_timelines(const std::vector<Timeline>& timelines);

}  // namespace rb::bench
