// The sections of report.html, each a function from the runs to an HTML fragment. Internal to
// reports/: html_report.cpp assembles them into the page.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/html/report_runs.hpp"

namespace rb::reports {

// report_tables.cpp
std::string section_summary(const std::vector<RunView>& runs, const std::vector<std::string>& timeline_anchor);
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

// report_timelines.cpp: fills `anchor` (by run index) with the element id of each drawn timeline.
std::string section_timelines(const std::vector<RunView>& runs, const ReportOptions& opt,
                              std::vector<std::string>& anchor);

// A paragraph saying what is missing and why, shown instead of a chart.
std::string not_measured(const std::string& what);

}  // namespace rb::reports
