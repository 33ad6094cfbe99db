// Text table and HTML diff of a Comparison.
#include "reports/compare/compare_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

std::string value_text(const std::optional<double>& v) { return v ? fmt::format("{:.4g}", *v) : "-"; }

std::string change_text(const RunComparison& r) {
  if (r.change) return fmt::format("{:+.1f}%", *r.change * 100.0);
  if (r.base.value && r.neu.value) return "from 0";
  return "-";
}

std::string p_text(const RunComparison& r) { return r.p_value ? fmt::format("{:.3g}", *r.p_value) : "-"; }

std::string n_text(const RunComparison& r) {
  if (r.base.samples.empty() && r.neu.samples.empty()) return "-";
  return fmt::format("{}/{}", r.base.samples.size(), r.neu.samples.size());
}

std::string summary_line(const Comparison& cmp) {
  std::string s;
  for (Verdict v : kVerdicts) {
    if (const int c = cmp.count(v)) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", c, to_string(v));
  }
  return s.empty() ? "no runs" : s;
}

const char* verdict_colour(Verdict v) {
  switch (v) {
    case Verdict::faster: return "#1a7f37";
    case Verdict::slower:
    case Verdict::underpowered:
    case Verdict::failed: return "#cf222e";
    case Verdict::noisy: return "#9a6700";
    case Verdict::missing:
    case Verdict::added: return "#0969da";
    case Verdict::same: return "#57606a";
  }
  return "#000";
}

}  // namespace

std::string rule_text(const Comparison& cmp) {
  const FamilyLevel& f = cmp.family;
  if (f.tests == 0)
    return fmt::format("SAME within ±{:.3g}%; beyond it FASTER/SLOWER by the threshold alone (no samples to test)",
                       cmp.options.threshold * 100.0);
  return fmt::format(
      "SAME within ±{:.3g}%; beyond it FASTER/SLOWER when {} gives p <= {:.3g}, the Benjamini-Hochberg level at "
      "false-discovery rate {:.3g} over {} tests ({} significant), else NOISY; UNDERPOWERED when the samples could "
      "never reach p <= {:.3g}, half of {:.3g}, the level of a change alone",
      cmp.options.threshold * 100.0,
      cmp.paired ? "the rank test paired by round (the files are an A/B pair)" : "the Mann-Whitney U test", f.level,
      cmp.options.alpha, f.tests, f.discoveries, f.first_level / 2, f.first_level);
}

std::string format_compare_text(const Comparison& cmp) {
  const Metric& mi = *cmp.options.metric;
  std::string unit = mi.unit.empty() ? "" : fmt::format(" ({})", mi.unit);
  std::vector<std::array<std::string, 8>> rows;
  rows.push_back({"verdict", "change", "base" + unit, "new" + unit, "p", "n", "configuration", "note"});
  for (const auto& r : cmp.runs)
    rows.push_back({std::string(to_string(r.verdict)), change_text(r), value_text(r.base.value),
                    value_text(r.neu.value), p_text(r), n_text(r), r.label, r.note});
  std::array<std::size_t, 8> width{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::string out = fmt::format("compare {}: {} → {}\n", mi.compare_name, cmp.base_path, cmp.new_path);
  out += fmt::format("rule: {}\n", rule_text(cmp));
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool right = i >= 1 && i <= 5;  // numbers right-aligned
      line += right ? fmt::format("{:>{}}  ", row[i], width[i]) : fmt::format("{:<{}}  ", row[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!cmp.aliases.empty())
    out += fmt::format(
        "note: {} configuration{} at c = 1 repeat{} another's measurement (alias_of) and {} not "
        "compared again\n",
        cmp.aliases.size(), cmp.aliases.size() == 1 ? "" : "s", cmp.aliases.size() == 1 ? "s" : "",
        cmp.aliases.size() == 1 ? "is" : "are");
  out += fmt::format("summary: {}{}\n", summary_line(cmp), cmp.regression() ? "  → REGRESSION" : "");
  return out;
}

std::string format_compare_html(const Comparison& cmp) {
  const Metric& mi = *cmp.options.metric;
  // The bar's scale: the largest |change| shown, at least twice the threshold so small changes stay small.
  double scale = 2.0 * std::max(cmp.options.threshold, 0.01);
  for (const auto& r : cmp.runs)
    if (r.change) scale = std::max(scale, std::min(std::fabs(*r.change), 2.0));

  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += fmt::format("<title>ringbench compare: {}</title>\n", html_escape(mi.compare_name));
  h += "<style>body{font:14px system-ui,sans-serif;margin:1.5em;color:#24292f}"
       "table{border-collapse:collapse}td,th{padding:3px 8px;border-bottom:1px solid #d0d7de;text-align:left}"
       "td.num{text-align:right;font-variant-numeric:tabular-nums}.v{font-weight:600}"
       "code{font-size:12px}</style></head><body>\n";
  h += fmt::format("<h1>ringbench compare — {}</h1>\n", html_escape(mi.compare_name));
  h += fmt::format("<p>BASE <code>{}</code><br>NEW <code>{}</code></p>\n", html_escape(cmp.base_path),
                   html_escape(cmp.new_path));
  h += fmt::format("<p>Metric <code>{}</code> ({} is better). Rule: {}.</p>\n", html_escape(metric_source(mi)),
                   mi.lower_is_better ? "lower" : "higher", html_escape(rule_text(cmp)));
  h += fmt::format("<p><b>{}</b>{}</p>\n", html_escape(summary_line(cmp)),
                   cmp.regression() ? " — <b style=\"color:#cf222e\">regression</b>" : "");
  h += "<table><tr><th>verdict</th><th>change</th><th></th><th>base</th><th>new</th><th>p</th><th>n</th>"
       "<th>configuration</th><th>note</th></tr>\n";
  for (const auto& r : cmp.runs) {
    // A centred bar: right of the middle when the value went up, coloured by the verdict.
    std::string bar =
        "<svg width=\"120\" height=\"12\" role=\"img\"><line x1=\"60\" y1=\"0\" x2=\"60\" y2=\"12\" "
        "stroke=\"#8c959f\"/>";
    if (r.change) {
      const double w = std::min(std::fabs(*r.change) / scale, 1.0) * 58.0;
      const double x = *r.change >= 0 ? 60.0 : 60.0 - w;
      bar += fmt::format("<rect x=\"{:.1f}\" y=\"2\" width=\"{:.1f}\" height=\"8\" fill=\"{}\"/>", x, w,
                         verdict_colour(r.verdict));
    }
    bar += "</svg>";
    h += fmt::format(
        "<tr><td class=\"v\" style=\"color:{}\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
        "title=\"{}\">{}</td><td>{}</td></tr>\n",
        verdict_colour(r.verdict), to_string(r.verdict), html_escape(change_text(r)), bar, value_text(r.base.value),
        value_text(r.neu.value), p_text(r), n_text(r), html_escape(r.id), html_escape(r.label), html_escape(r.note));
  }
  h += "</table>\n</body></html>\n";
  return h;
}

}  // namespace rb::reports
