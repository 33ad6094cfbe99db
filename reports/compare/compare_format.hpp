// The two human forms of a Comparison: a text table for the terminal and CI logs, and a small
// self-contained HTML diff (no network, no JavaScript) for a nightly job's artifacts.
#pragma once

#include <string>

#include "reports/compare/compare.hpp"

namespace rb::reports {

// The decision rule as applied, with the corrected level: the line both forms print under the title.
std::string rule_text(const Comparison& cmp);
std::string format_compare_text(const Comparison& cmp);
std::string format_compare_html(const Comparison& cmp);

}  // namespace rb::reports
