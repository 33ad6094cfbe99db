// The per-rank timeline of one replay as an inline SVG lane chart (a Gantt chart): one row per rank
// and lane (compute, comm, …), one bar per interval, coloured by what ran (attention, merge,
// kv_recv, kv_allgather). It draws the timeline of a run's record (RecordTimeline, read from the
// `timeline` field of results.json, docs/formats.md), and beside it the same pass as its step
// program schedules it (`model.timeline`).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "reports/results/run_record.hpp"

namespace rb::reports {

struct TimelineBar {
  int row = 0;
  double begin_ms = 0, end_ms = 0;
  int color = 0;         // palette index
  std::string title;     // tooltip
  bool planned = false;  // the program simulator's schedule (runs[].model.timeline), drawn pale
};

struct TimelineChart {
  std::string id, title, note;
  std::vector<std::string> rows;       // top to bottom
  std::vector<bool> row_starts_group;  // a separator above the row (first lane of a rank)
  std::vector<TimelineBar> bars;
  double window_ms = 0;
  std::vector<std::pair<int, std::string>> legend;  // palette index, name
  int width = 900;
  int row_height = 14;
};

std::string render_timeline_chart(const TimelineChart& chart);

// What one timeline draws at most: the record's own cap (bench/sweep/result_record.cpp), so only a
// hand-made or foreign file meets it; the note under the chart says how many were left out.
inline constexpr std::size_t kMaxTimelineBars = 4096;
// The narrowest bar drawn, in px at the chart's own width: a 20 µs transfer in a 50 ms pass would be
// a fifth of a pixel, too thin to see or hover.
inline constexpr double kMinTimelineBarPx = 2;

// Builds the chart of a run's timeline; returns false (and leaves `out` alone) when the run has no
// usable timeline. Malformed intervals were left out by the record, not fatal: the report shows what
// it can. Where the record's model scheduled the same pass (runs[].model.timeline, 2.15.0), each
// rank's measured lanes are followed by its program lanes ("r0 compute·program"), pale bars where
// the program simulator put each op with its measured length: a measured bar later than its
// program bar waited on something the program does not require.
bool timeline_from_run(const RunRecord& run, TimelineChart& out);

}  // namespace rb::reports
