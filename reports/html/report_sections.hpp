// The sections of report.html, each a function from the runs to an HTML fragment. Internal to
// reports/: html_report.cpp assembles them into the page.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/html/report_runs.hpp"

namespace rb::reports {

// report_strategies.cpp: the page's first section. For each (S, c) and shape, every strategy that ran
// there (variant, split, dK/dV design, phase) with its measured median, the fastest of each phase
// marked, the analytic model's price of the same configuration beside it (report_pricing.hpp), its
// disagreement beyond the noise in words, and the run's own simulator replay.
std::string section_strategies(const std::vector<RunView>& runs);

// report_summary.cpp
std::string section_summary(const std::vector<RunView>& runs, const std::vector<std::string>& timeline_anchor);

// report_best.cpp: for each shape and S, which split and variant was fastest at each c, and by how much.
std::string section_best_at_c(const std::vector<RunView>& runs);

// report_tables.cpp
std::string section_failures(const std::vector<RunView>& runs);
std::string section_environment(const nlohmann::json& doc, const std::string& source);
std::string section_cupti(const std::vector<RunView>& runs);

// report_charts.cpp
std::string section_time_vs_seq(const std::vector<RunView>& runs, const ReportOptions& opt);
std::string section_rank_bars(const std::vector<RunView>& runs, const ReportOptions& opt);
std::string section_overlap(const std::vector<RunView>& runs);

// report_samples.cpp: each clocked configuration's samples and the SM clock they ran at.
std::string section_samples(const std::vector<RunView>& runs, const ReportOptions& opt);

// report_model_section.cpp
std::string section_model(const std::vector<RunView>& runs);

// report_backward.cpp: passes with a backward, their forward and backward side by side and per rank;
// empty when no run has one.
std::string section_backward(const std::vector<RunView>& runs);

// report_timelines.cpp: fills `anchor` (by run index) with the element id of each drawn timeline.
std::string section_timelines(const std::vector<RunView>& runs, const ReportOptions& opt,
                              std::vector<std::string>& anchor);

// A paragraph saying what is missing and why, shown instead of a chart.
std::string not_measured(const std::string& what);

// A numeric table cell: the sort key in data-v (empty when not measured, so those sort last).
std::string num_cell(const std::optional<double>& v, const std::string& text);

// The warning placed beside a figure that per-rank times mislead when a cpu run had more ranks than
// CPUs (RunView::shared_cpus): "ranks shared CPUs: c = 8 ranks on 2 CPUs; per-rank times include
// waiting for a core." and then `consequence`, what it means for that figure. Empty when no run of
// `runs` shared CPUs.
std::string shared_cpus_warning(const std::vector<const RunView*>& runs, const std::string& consequence = "");

}  // namespace rb::reports
