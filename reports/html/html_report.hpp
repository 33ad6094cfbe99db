// report.html (docs/design.md §8): one self-contained HTML file that shows a whole sweep at a glance. No
// network, inline CSS, inline SVG charts; it reads without JavaScript, and a few lines of script add
// conveniences (sorting the summary table, picking the configuration whose timeline is shown).
// docs/report.md says what each section shows and how to read it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "reports/results/results_reader.hpp"

namespace rb::reports {

struct ReportOptions {
  std::string title;  // default: "ringbench: <profile name>"
  // Per-rank timelines are the bulk of a report; these keep a 500-configuration sweep well under
  // 5 MB. Configurations beyond them are listed with the flag that draws them.
  std::size_t max_timelines = 24;                 // configurations that get a timeline
  std::size_t timeline_budget_bytes = 1'500'000;  // total SVG markup of the timelines
  std::size_t open_timelines = 2;                 // shown expanded without JavaScript
  std::vector<std::string> timeline_ids;          // drawn first, whatever the caps say
  std::size_t max_shape_charts = 12;              // "time against S" charts (one per shape)
  std::size_t max_rank_panels = 6;                // per-rank bar panels
  // A trend view over a nightly history (reports/compare/trend.hpp's trend_fragment), embedded as is after
  // the model section; empty: no trend section.
  std::string trend_html;
};

// The whole page. Deterministic: the same file and options give the same bytes.
std::string render_report(const ResultsFile& results, const ReportOptions& options = {});

// Renders and writes `out` (via a temporary file and a rename, so a reader never sees half a page).
void write_report(const ResultsFile& results, const std::filesystem::path& out, const ReportOptions& options = {});

// For the sweep (bench/sweep/sweep_recorder.cpp): reads results.json (or results.jsonl) and writes
// report.html beside it. Returns the path written. Throws rb::InputError when the results cannot be read.
std::filesystem::path write_report_next_to(const std::filesystem::path& results_json,
                                           const ReportOptions& options = {});

}  // namespace rb::reports
