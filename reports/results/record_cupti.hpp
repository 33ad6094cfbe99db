// The CUPTI-traced pass of a cuda run, as its record holds it (docs/formats.md, `cupti`): its time
// against the timed median, what CUPTI delivered, and the metrics of its intervals, as the pass
// itself (bench/sweep/cupti_pass.cpp, built only with CUPTI) fills it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "reports/results/record_metrics.hpp"

namespace rb::reports {

struct RecordCupti {
  std::string error;  // tracing failed: nothing else is there
  std::optional<double> traced_pass_ms, clean_median_ms, overhead_pct, window_ms, activity_ms;
  std::optional<std::int64_t> dropped_records, ignored_records, unattributed_records;
  std::optional<std::int64_t> intervals, intervals_by_node;
  RecordMetrics metrics;
};

}  // namespace rb::reports
