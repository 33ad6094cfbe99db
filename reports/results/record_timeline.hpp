// The per-rank timeline of a run's median pass, as its record holds it (docs/formats.md,
// `timeline`), capped in number by the writer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rb::reports {

// One interval. lane and name fall back to kind, kind to "other".
struct RecordInterval {
  int rank = 0;
  std::optional<int> step;  // -1: tied to no step
  std::string kind, lane, name;
  std::int64_t bytes = 0;
  double begin_ms = 0, end_ms = 0;
  int phase = 0;  // 1: the backward (2.10.0); absent in the file: the forward
};

// Present when the file lists intervals at all; `intervals` holds those that can be drawn (a rank, a
// finite begin and an end not before it), so a timeline can be present with none.
struct RecordTimeline {
  std::string clock;
  std::optional<double> window_ms;
  bool truncated = false;  // the writer kept the first intervals only
  std::vector<RecordInterval> intervals;
};

}  // namespace rb::reports
