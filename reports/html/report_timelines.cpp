// Per-rank timelines of one replay per configuration. They are the heaviest part of a report, so
// only some configurations get one: those asked for by id first, then a round robin over
// (c, split, variant) from the largest S down, until a count or a byte budget is reached. Each is a
// <details> element, so the page reads without JavaScript; a picker (script) shows one at a time.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"
#include "reports/html/svg_timeline.hpp"

namespace rb::reports {
namespace {

// The order in which configurations are offered a timeline.
std::vector<const RunView*> timeline_order(const std::vector<RunView>& runs, const ReportOptions& opt) {
  std::vector<const RunView*> out;
  std::set<std::size_t> taken;
  for (const auto& id : opt.timeline_ids)
    for (const auto& r : runs)
      if (r.id == id && r.has_timeline && taken.insert(r.index).second) out.push_back(&r);
  // Largest c first (the most ranks, the most to see), ring before all-gather, contiguous beside
  // zig-zag, so the timelines open by default are a contiguous/zig-zag pair.
  std::map<std::tuple<int, int, std::string, std::string>, std::vector<const RunView*>> groups;
  for (const auto& r : runs)
    if (r.has_timeline && !taken.count(r.index))
      groups[{-r.cp, r.variant == "ring" ? 0 : 1, r.shape_key, r.split}].push_back(&r);
  for (auto& [k, g] : groups) std::stable_sort(g.begin(), g.end(), [](auto* a, auto* b) { return a->seq > b->seq; });
  for (std::size_t round = 0;; ++round) {
    bool any = false;
    for (auto& [k, g] : groups)
      if (round < g.size()) out.push_back(g[round]), any = true;
    if (!any) break;
  }
  return out;
}

}  // namespace

std::string section_timelines(const std::vector<RunView>& runs, const ReportOptions& opt,
                              std::vector<std::string>& anchor) {
  anchor.assign(runs.size(), std::string());
  std::string s =
      "<section id=\"timelines\"><h2>Per-rank timelines</h2><p class=\"note\">The median timed pass of "
      "each configuration: one row per rank and lane (compute, comm), one bar per interval, times from "
      "the pass start. Gaps on the compute lane are waits; comm bars with no compute above them are "
      "exposed communication. Where the record's model scheduled the pass (results 2.15.0), each rank's "
      "pale \u00b7program rows show the same ops where its step program puts them with their measured "
      "lengths: a measured bar that starts later than its pale one waited on more than the program "
      "requires. Hover a bar for its step and duration.</p>";
  const auto order = timeline_order(runs, opt);
  if (order.empty())
    return s + not_measured("No run carries a per-pass timeline (runs[].timeline with intervals).") + "</section>";
  std::string body, options;
  std::size_t bytes = 0, drawn = 0, drawn_by_choice = 0;  // the caps count only the report's own choices
  std::vector<const RunView*> left_out;
  const std::size_t forced = std::min(opt.timeline_ids.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const RunView& r = *order[i];
    const bool must = i < forced;
    if (!must && (drawn_by_choice >= opt.max_timelines || bytes >= opt.timeline_budget_bytes)) {
      left_out.push_back(&r);
      continue;
    }
    TimelineChart chart;
    if (!timeline_from_run(r.record, chart)) continue;
    const std::string id = fmt::format("tl-{}", r.index);
    chart.title.clear();  // the <summary> names the configuration
    std::string svg = render_timeline_chart(chart);
    if (!must && bytes + svg.size() > opt.timeline_budget_bytes && drawn > 0) {
      left_out.push_back(&r);
      continue;
    }
    bytes += svg.size();
    const std::string median = r.median_ms ? fmt::format(" \u2014 median {} ms", format_number(*r.median_ms, 4)) : "";
    body += fmt::format("<details class=\"tl\" id=\"{}\" data-run=\"{}\"{}><summary>{}{}</summary>{}</details>", id,
                        html_escape(r.id), drawn < opt.open_timelines ? " open" : "", html_escape(run_label(r, true)),
                        html_escape(median), shared_cpus_warning({&r}) + svg);
    options += fmt::format("<option value=\"{}\">{}</option>", id, html_escape(run_label(r, true)));
    anchor[r.index] = id;
    ++drawn;
    if (!must) ++drawn_by_choice;
  }
  s +=
      "<div class=\"js-only picker\"><label>Show the timeline of <select id=\"timeline-pick\"><option value=\"\">every "
      "configuration drawn below</option>" +
      options + "</select></label></div>" + body;
  if (!left_out.empty()) {
    s += fmt::format(
        "<details id=\"timelines-left-out\"><summary>{} more configurations have a timeline in the results "
        "that is not drawn here (size cap)</summary><p class=\"note\">Draw them with <code>ringbench report "
        "RESULTS.json --timeline ID</code> (repeatable) or raise <code>--max-timelines</code>.</p><ul "
        "class=\"ids\">",
        left_out.size());
    for (const auto* r : left_out) s += "<li>" + html_escape(r->id) + "</li>";
    s += "</ul></details>";
  }
  return s + "</section>";
}

}  // namespace rb::reports
