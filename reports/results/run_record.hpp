// One run of a results file as a type (docs/design.md §8, docs/formats.md): what the sweep writes
// and what compare, accept, trend and the report read. It has one writer, to_json
// (run_record_writer.hpp), and one reader, read_run_record here, so no code outside reports/results/
// names a field of the record's JSON. Every part is plain data: the layers below reports/ convert
// their own types into it (bench/sweep/result_record.hpp), and the layers above build their views
// from it.
//
// Reading is tolerant only of what a format may lack: the reader of the file (results_reader.hpp)
// has already checked every field's JSON type, so a field absent in an older MINOR version or in a
// failed run is nullopt or empty, never a guess. Writing always writes the current format, with
// null where a value is missing, so to_json(read_run_record(j)) is j for every record the sweep writes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/run_status.hpp"
#include "reports/results/gpu_state_reader.hpp"
#include "reports/results/record_config.hpp"
#include "reports/results/record_cupti.hpp"
#include "reports/results/record_gpu_state.hpp"
#include "reports/results/record_metrics.hpp"
#include "reports/results/record_model.hpp"
#include "reports/results/record_plan.hpp"
#include "reports/results/record_timeline.hpp"
#include "reports/results/record_timing.hpp"

namespace rb::reports {

// One gradient tensor against the float64 reference (ring/check/reference_backward.hpp).
struct RecordGradientCheck {
  std::optional<std::int64_t> rows_checked, over_tolerance;
  std::optional<bool> all_rows, passed;
  std::optional<double> max_abs_err, rel_l2_err;
};
// A backward's gradients (2.10.0): dK and dV absent (null) where they were not checked, with why.
struct RecordGradients {
  std::optional<double> tolerance;
  std::string tolerance_basis;
  std::optional<RecordGradientCheck> dq, dk, dv;
  std::string dkv_unchecked;  // empty: dK and dV were checked
  std::optional<bool> passed;
};

// The configuration's output against the float64 reference (ring/check/reference.hpp).
struct RecordCorrectness {
  bool checked = false;
  std::optional<std::int64_t> rows_checked, over_tolerance;
  std::optional<bool> all_rows, passed;
  std::optional<double> max_abs_err, rel_l2_err, tolerance;
  std::string tolerance_basis;
  std::optional<RecordGradients> gradients;  // with a backward
};

// One SDPA graph shape of the cudnn kernel (2.9.0): the implementation its graph was built with
// ("composite" or "unified") and how long the host took to build its plan, in whichever
// configuration first needed it (the process keeps every built graph).
struct RecordCudnnGraph {
  std::string implementation;
  std::optional<double> build_ms;
};

// Which attention kernel ran and why, when the sweep was asked for one (2.1.0).
struct RecordKernelChoice {
  std::string requested, chosen;
  std::optional<std::string> why;                  // for auto
  std::map<std::string, std::string> cudnn_plans;  // each SDPA graph shape's cuDNN plan
  // 2.9.0, with cudnn_plans: each shape's implementation and build time; the plans this
  // configuration's rounds built (0 where every shape came built from an earlier configuration)
  // and the time those builds took.
  std::map<std::string, RecordCudnnGraph> cudnn_graphs;
  std::optional<std::int64_t> cudnn_plan_builds;
  std::optional<double> cudnn_plan_build_ms;
};

// What ran one ring rank (2.5.0): the host, and the GPU's UUID, or on the cpu backend "cpu N" for a
// compute thread bound to CPU N ("cpu" when the OS placed it). A per-rank figure names its GPU by it.
struct RecordPlacement {
  std::int64_t rank = 0;
  std::string host, device;
};

struct RunRecord {
  RunStatus status = RunStatus::failed;
  std::string reason;  // empty: null (an ok run)
  RecordConfig config;
  std::optional<RecordKernelChoice> kernel_choice;
  std::optional<RecordCorrectness> correctness;
  RecordTiming timing;
  RecordPlan plan;
  RecordMetrics metrics;
  // With a backward (2.10.0): the metrics of each part of the median pass, its forward (none under
  // phase bwd) and its backward, each over its own intervals and window (`phase_metrics`).
  std::optional<RecordMetrics> metrics_fwd, metrics_bwd;
  std::optional<RecordTimeline> timeline;
  std::optional<RecordModel> model;
  std::optional<RecordCupti> cupti;
  std::optional<RecordGpuState> gpu_state;  // cuda
  std::optional<RecordSmClock> sm_clock;    // where samples carry a clock
  std::string trace_error;                  // why the --trace files were not written; empty when they were
  std::vector<RecordPlacement> placement;   // by rank; empty where the executor was never made
  // The configuration whose measurement this record repeats (2.6.0): at c = 1 a split or variant
  // computes what the first one did and is not run again (bench/sweep/c1_alias.hpp); empty: measured.
  std::string alias_of;

  // What the record says about GPU throttling (gpu_state_reader.hpp).
  GpuThrottle throttle() const;
};

// Reads one run of a validated results document (results_reader.hpp).
RunRecord read_run_record(const nlohmann::json& run);

}  // namespace rb::reports
