// The report's summary table: one row per configuration, sortable by script, readable without it.
// It is built to be read at 1400 px: the configuration column is pinned (position: sticky) while
// the rest scrolls inside the table's box, the columns a reader looks at first come first, and the
// columns whose value is the same in every row (the shape of a one-shape sweep) leave the table for
// one line above it.
#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "common/flops_unit.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"

namespace rb::reports {
namespace {

std::string cell(const std::string& text, const std::string& cls = "") {
  return cls.empty() ? "<td>" + text + "</td>" : fmt::format("<td class=\"{}\">{}</td>", cls, text);
}

// A configuration column that may be the same in every row: its heading, how the "all rows" line
// writes its value, and the cell (escaped text, numeric sort key when it has one).
struct ConfigColumn {
  const char* heading;
  std::function<std::string(const RunView&)> common;  // "H=4/2"; also the value compared across rows
  std::function<std::string(const RunView&)> text;
  std::function<std::optional<double>(const RunView&)> key;
};

std::vector<ConfigColumn> config_columns() {
  auto none = [](const RunView&) { return std::optional<double>(); };
  return {
      {"S", [](const RunView& r) { return "S=" + format_tokens(static_cast<double>(r.seq)); },
       [](const RunView& r) { return format_tokens(static_cast<double>(r.seq)); },
       [](const RunView& r) { return std::optional<double>(static_cast<double>(r.seq)); }},
      {"c", [](const RunView& r) { return fmt::format("c={}", r.cp); },
       [](const RunView& r) { return fmt::format("{}", r.cp); },
       [](const RunView& r) { return std::optional<double>(r.cp); }},
      {"split", [](const RunView& r) { return r.split; }, [](const RunView& r) { return r.split; }, none},
      {"variant", [](const RunView& r) { return r.variant; }, [](const RunView& r) { return r.variant; }, none},
      {"H", [](const RunView& r) { return fmt::format("H={}/{}", r.heads, r.kv_heads); },
       [](const RunView& r) { return fmt::format("{}/{}", r.heads, r.kv_heads); }, none},
      {"D", [](const RunView& r) { return fmt::format("D={}", r.head_dim); },
       [](const RunView& r) { return fmt::format("{}", r.head_dim); },
       [](const RunView& r) { return std::optional<double>(r.head_dim); }},
      {"mask", [](const RunView& r) { return std::string(r.causal ? "causal" : "full"); },
       [](const RunView& r) { return std::string(r.causal ? "causal" : "full"); }, none},
      {"dtype", [](const RunView& r) { return r.dtype; }, [](const RunView& r) { return r.dtype; }, none},
      {"backend", [](const RunView& r) { return r.backend; }, [](const RunView& r) { return r.backend; }, none},
      {"transport", [](const RunView& r) { return r.transport; }, [](const RunView& r) { return r.transport; }, none},
  };
}

bool same_in_every_row(const std::vector<RunView>& runs, const ConfigColumn& col) {
  return !runs.empty() && std::all_of(runs.begin(), runs.end(),
                                      [&](const RunView& r) { return col.common(r) == col.common(runs.front()); });
}

std::vector<std::string> split_id(const std::string& id) {
  std::vector<std::string> out(1);
  for (char ch : id)
    if (ch == '-')
      out.emplace_back();
    else
      out.back().push_back(ch);
  return out;
}

// What the configuration column shows: the parts of the ids that differ between rows
// ("s1024-c4-zigzag-ring" of "s1024-c4-zigzag-ring-h8x2-d64-causal-float32-cpu-local"), the ids
// split at '-' and the parts every id has at the same place dropped. Ids that do not split alike
// (a foreign file) are shown whole, and so is every id of a one-row table.
std::vector<std::string> shown_ids(const std::vector<RunView>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.id);
  if (runs.size() < 2) return out;
  std::vector<std::vector<std::string>> parts;
  for (const auto& r : runs) parts.push_back(split_id(r.id));
  if (std::any_of(parts.begin(), parts.end(), [&](const auto& p) { return p.size() != parts[0].size(); })) return out;
  std::vector<bool> keep(parts[0].size());
  for (std::size_t i = 0; i < keep.size(); ++i)
    keep[i] = std::any_of(parts.begin(), parts.end(), [&](const auto& p) { return p[i] != parts[0][i]; });
  if (std::none_of(keep.begin(), keep.end(), [](bool k) { return k; })) return out;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    std::string shown;
    for (std::size_t i = 0; i < keep.size(); ++i)
      if (keep[i]) shown += (shown.empty() ? "" : "-") + parts[r][i];
    out[r] = shown;
  }
  return out;
}

}  // namespace

std::string section_summary(const std::vector<RunView>& runs, const std::vector<std::string>& anchor) {
  // One unit for the table's rates, from the runs' backend as on the console (common/flops_unit.hpp): the
  // cpu backend's read 0.00x in TFLOP/s.
  const FlopsUnit unit = flops_unit_of(runs, [](const RunView& r) { return std::string_view(r.backend); });
  const std::string rate_heading = fmt::format("{} per GPU", unit.name);
  std::string s =
      "<section id=\"summary\"><h2>Summary</h2><p class=\"note\">One row per configuration. The configuration "
      "column shows the parts of each id that tell the rows apart (hover it for the whole id; it links to the run's "
      "timeline where one is drawn) and stays put while the other columns scroll sideways. Click a heading to sort "
      "(needs JavaScript).</p><details class=\"how\"><summary>What the columns mean</summary><p class=\"note\">"
      "Median time of the timed passes \u00b1 their noise (stdev/mean); error: the check against the float64 "
      "reference (\u2713 or \u2717, max abs error); " +
      rate_heading +
      ": the plan's causal FLOPs (docs/design.md "
      "\u00a73) / the GPUs that ran the ranks at once / pass time, what one device sustains, never the sum over "
      "ranks; slowest rank: the lowest rank's own FLOPs over its attention time. Exposed comm: comm time with no "
      "compute under it, mean over ranks, in ms and as a share of the median pass; overlap from the same measured "
      "timeline (docs/design.md \u00a76). Comm: transfers executing, mean over ranks (in flight: from issue to done, "
      "waits included; \u2020 marks comm taken from in-flight spans, where execution was not visible, "
      "docs/metrics.md); imbalance is max/mean of the per-rank attention time, work imb. the same over the plan's "
      "unmasked pairs.</p></details>";
  // Columns whose value every row shares leave the table for one line above it.
  std::vector<ConfigColumn> shown, common;
  for (auto& col : config_columns()) (same_in_every_row(runs, col) ? common : shown).push_back(std::move(col));
  if (!common.empty()) {
    std::string line;
    for (const auto& col : common) line += (line.empty() ? "" : ", ") + col.common(runs.front());
    s += "<p class=\"common\" id=\"summary-common\">all rows: " + html_escape(line) + "</p>";
  }
  if (std::any_of(runs.begin(), runs.end(), [](const RunView& r) { return r.shared_cpus(); })) {
    std::vector<const RunView*> all;
    for (const auto& r : runs) all.push_back(&r);
    s += shared_cpus_warning(all,
                             "The imbalance of those rows measures how the cores were shared as much as "
                             "how the split shares the work.");
  }
  s += "<div class=\"scroll\" id=\"summary-scroll\"><table id=\"summary-table\" class=\"sortable\"><thead><tr>"
       "<th class=\"pin\">configuration</th>";
  for (const char* h : {"status", "error", "median ms", "\u00b1 noise", rate_heading.c_str(), "exposed comm ms",
                        "exposed % of pass", "overlap", "imbalance"})
    s += fmt::format("<th>{}</th>", h);
  for (const auto& col : shown) s += fmt::format("<th>{}</th>", col.heading);
  for (const char* h : {"work imb.", "slowest rank", "comm ms", "in flight ms", "#"})
    s += fmt::format("<th>{}</th>", h);
  s += "</tr></thead><tbody>";
  const std::vector<std::string> ids = shown_ids(runs);
  std::size_t row = 0;
  for (const auto& r : runs) {
    s += fmt::format("<tr class=\"{}\">", html_escape(r.status));
    // The whole id in the tooltip; the cell shows what tells the rows apart.
    const std::string id = html_escape(r.id), shown_id = html_escape(ids[row++]);
    const std::string link = r.index < anchor.size() && !anchor[r.index].empty()
                                 ? fmt::format("<a href=\"#{}\">{}</a>", anchor[r.index], shown_id)
                                 : shown_id;
    s += fmt::format("<td class=\"id pin\" title=\"{}{}\">{}</td>", id,
                     r.index < anchor.size() && !anchor[r.index].empty() ? " (click: its timeline)" : "", link);
    // A c = 1 alias (results 2.6.0) shows its status as the measurement it repeats, and says so.
    if (!r.record.alias_of.empty())
      s += fmt::format("<td class=\"st alias\" title=\"c = 1: the same computation as {}, measured once\">{} =</td>",
                       html_escape(r.record.alias_of), html_escape(r.status));
    else
      s += cell(html_escape(r.status), "st");
    if (r.correct)
      s += fmt::format("<td class=\"{}\" data-v=\"{}\">{} {}</td>", *r.correct ? "pass" : "fail",
                       r.max_abs_err ? format_number(*r.max_abs_err, 8) : "", *r.correct ? "\u2713" : "\u2717",
                       r.max_abs_err ? format_number(*r.max_abs_err, 2) : "");
    else
      s += "<td class=\"na\" data-v=\"\">\u2014</td>";
    s += num_cell(r.median_ms, r.median_ms ? format_number(*r.median_ms, 4) : "");
    s += num_cell(r.noise_pct, r.noise_pct ? format_number(*r.noise_pct, 2) + "%" : "");
    s += num_cell(r.tflops, r.tflops ? format_number(unit.of_tflops(*r.tflops), 3) : "");
    s += num_cell(r.exposed_comm_ms, r.exposed_comm_ms ? format_number(*r.exposed_comm_ms, 3) : "");
    s += num_cell(r.exposed_share, r.exposed_share ? format_percent(*r.exposed_share) : "");
    s += num_cell(r.overlap, r.overlap ? format_percent(*r.overlap) : "");
    s += num_cell(r.imbalance, r.imbalance ? format_number(*r.imbalance, 3) + (r.imbalance_derived ? "*" : "") : "");
    for (const auto& col : shown) {
      const std::string text = html_escape(col.text(r));
      s += col.key(r) ? num_cell(col.key(r), text) : cell(text);
    }
    s += num_cell(r.work_imbalance, r.work_imbalance ? format_number(*r.work_imbalance, 3) : "");
    s += num_cell(r.tflops_slowest, r.tflops_slowest ? format_number(unit.of_tflops(*r.tflops_slowest), 3) : "");
    const char* dagger = r.comm_basis == "in_flight" || r.comm_basis == "mixed" ? "\u2020" : "";
    s += num_cell(r.comm_ms, r.comm_ms ? format_number(*r.comm_ms, 3) + dagger : "");
    s += num_cell(r.comm_in_flight_ms, r.comm_in_flight_ms ? format_number(*r.comm_in_flight_ms, 3) : "");
    s += num_cell(static_cast<double>(r.index), fmt::format("{}", r.index));
    s += "</tr>";
  }
  s += "</tbody></table></div>";
  if (std::any_of(runs.begin(), runs.end(), [](const RunView& r) { return r.imbalance_derived; }))
    s += "<p class=\"note\">* imbalance computed by the report from metrics.per_rank attention times (the record has "
         "no metrics.imbalance).</p>";
  if (std::none_of(runs.begin(), runs.end(), [](const RunView& r) { return r.overlap.has_value(); }))
    s += not_measured(
        "No run carries metrics.overlap_fraction or metrics.exposed_comm_ms: these results predate the "
        "measurement layer's metrics (docs/design.md \u00a76), so the overlap and exposed comm columns are empty.");
  return s + "</section>";
}

}  // namespace rb::reports
