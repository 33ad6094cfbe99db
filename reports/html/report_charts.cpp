// The measured charts: time against S for each (c, split); per-rank attention time and planned work,
// contiguous against zig-zag (the plate's right-hand chart); overlap, exposed comm and imbalance
// against c. Runs are grouped by "shape" (everything but S, c and the split) so a chart never joins
// points that differ in something it does not show.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/documents.hpp"

#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

struct Shape {
  std::string label;
  std::vector<const RunView*> runs;
};

// Shapes ordered by how many runs they hold (the sweep's main axis first), then by label.
std::vector<Shape> shapes_of(const std::vector<RunView>& runs) {
  std::map<std::string, Shape> by;
  for (const auto& r : runs) {
    auto& s = by[r.shape_key];
    s.label = r.shape_label;
    s.runs.push_back(&r);
  }
  std::vector<Shape> out;
  for (auto& [k, s] : by) out.push_back(std::move(s));
  std::stable_sort(out.begin(), out.end(),
                   [](const Shape& a, const Shape& b) { return a.runs.size() > b.runs.size(); });
  return out;
}

// Split schemes keep one look across charts, the one the table of schemes gives them
// (common/scheme_table.cpp): contiguous solid circles, zigzag dashed squares, striped diamonds.
// Colour stays the caller's (charts colour by c where the split is the marker).
void style_split(Series& s, const std::string& split) {
  const int color = s.color;
  apply_style(s, split_style(split));
  s.color = color;
}
int split_color(const std::string& split) { return split_style(split).color; }

// One c at a shape's largest S: a line against c would be one lonely point per split, so the chart
// draws bars over the splits instead, one series per metric (measured, planned).
std::string split_bars(const std::string& id, const std::string& title, const Axis& y,
                       const std::vector<std::pair<std::string, const std::map<std::string, Series>*>>& metrics,
                       std::optional<double> reference = std::nullopt, const std::string& reference_label = "") {
  BarChart b;
  b.id = id;
  b.title = title;
  b.x_label = "split";
  b.y = y;
  std::set<std::string> splits;
  for (const auto& [name, m] : metrics)
    for (const auto& [split, ser] : *m) splits.insert(split);
  b.categories.assign(splits.begin(), splits.end());
  for (const auto& [name, m] : metrics) {
    if (m->empty()) continue;
    BarSeries bs{name, {}, -1};
    for (const auto& split : b.categories) {
      const auto it = m->find(split);
      bs.values.push_back(it != m->end() && !it->second.points.empty() ? std::optional<double>(it->second.points[0].y)
                                                                       : std::nullopt);
    }
    b.series.push_back(std::move(bs));
  }
  b.reference = reference;
  b.reference_label = reference_label;
  b.note = "One c at this S: bars per split instead of a line against c.";
  return render_bar_chart(b);
}

std::string omitted(std::size_t n, const char* what) {
  return n ? fmt::format("<p class=\"note\">{} more {} not drawn (cap); the summary table lists every run.</p>", n,
                         what)
           : std::string();
}

// Median pass time at the one S of a shape: groups by c, a bar per split in the split's colour.
std::string time_bars(const std::string& id, const std::string& shape, std::int64_t seq,
                      const std::map<std::pair<int, std::string>, Series>& series) {
  BarChart b;
  b.id = id;
  b.title = shape + " \u2014 S=" + format_tokens(static_cast<double>(seq));
  b.x_label = "CP degree c";
  b.y = {"median pass time (ms)"};
  std::set<int> cps;
  std::set<std::string> splits;
  for (const auto& [key, ser] : series) cps.insert(key.first), splits.insert(key.second);
  for (int c : cps) b.categories.push_back(fmt::format("c={}", c));
  for (const auto& split : splits) {
    BarSeries bs{split, {}, split_color(split)};
    for (int c : cps) {
      const auto it = series.find({c, split});
      bs.values.push_back(it != series.end() ? std::optional<double>(it->second.points[0].y) : std::nullopt);
    }
    b.series.push_back(std::move(bs));
  }
  b.note = "One S in this sweep: bars per c and split instead of lines against S.";
  return render_bar_chart(b);
}

}  // namespace

std::string section_time_vs_seq(const std::vector<RunView>& runs, const ReportOptions& opt) {
  std::string s =
      "<section id=\"time-vs-seq\"><h2>Time against sequence length</h2><p class=\"note\">Median pass "
      "time of each configuration that ran, log-log; one line per (c, split), one chart per shape. Colour "
      "is c; solid circles contiguous, dashed squares zig-zag, diamonds striped.</p><div class=\"grid\">";
  const auto shapes = shapes_of(runs);
  std::size_t drawn = 0, skipped = 0;
  for (const auto& shape : shapes) {
    std::map<std::pair<int, std::string>, Series> series;
    std::set<int> cps;
    std::set<std::int64_t> seqs;
    for (const auto* r : shape.runs) cps.insert(r->cp);
    for (const auto* r : shape.runs) {
      if (r->status != "ok" || !r->median_ms) continue;
      seqs.insert(r->seq);
      auto& ser = series[{r->cp, r->split}];
      if (ser.name.empty()) {
        ser.name = fmt::format("c={} {}", r->cp, r->split);
        ser.color = static_cast<int>(std::distance(cps.begin(), cps.find(r->cp)));
        style_split(ser, r->split);
      }
      ser.points.push_back({static_cast<double>(r->seq), *r->median_ms,
                            fmt::format("{}: {} ms", run_label(*r), format_number(*r->median_ms, 4))});
    }
    if (series.empty()) continue;
    if (drawn == opt.max_shape_charts) {
      ++skipped;
      continue;
    }
    if (seqs.size() == 1) {  // one S: bars per c and split, not one lonely point per line
      s += time_bars(fmt::format("time-chart-{}", drawn), shape.label, *seqs.begin(), series);
      ++drawn;
      continue;
    }
    LineChart c;
    c.id = fmt::format("time-chart-{}", drawn);
    c.title = shape.label;
    c.x = {"sequence length S (tokens)", Scale::log2, TickFormat::tokens};
    c.y = {"median pass time (ms)", Scale::log10};
    for (auto& [k, ser] : series) c.series.push_back(std::move(ser));
    s += render_line_chart(c);
    ++drawn;
  }
  s += "</div>";
  if (drawn == 0) s += not_measured("No configuration ran with a timing (every run failed or was skipped).");
  return s + omitted(skipped, "shapes") + "</section>";
}

std::string section_rank_bars(const std::vector<RunView>& runs, const ReportOptions& opt) {
  std::string s =
      "<section id=\"rank-bars\"><h2>Work per rank: contiguous against zig-zag</h2><p class=\"note\">The "
      "plate's right-hand chart, from this sweep. Left: each rank's planned causal work (unmasked pairs "
      "\u00d7 Hq, from the plan) relative to the mean; the dashed line is perfect balance. Right: each "
      "rank's measured attention time in the median pass. The busiest rank sets the pass time. Under packed "
      "documents the work is the pairs within documents, for each split under the same length mix "
      "(docs/design.md \u00a73c).</p>";
  // Panels: per shape, at its largest S, the largest c values that hold more than one rank.
  std::vector<std::vector<const RunView*>> panels;
  for (const auto& shape : shapes_of(runs)) {
    // By the real tokens: doc-zigzag's padding (docs/design.md §3c) makes its S larger, not its work.
    std::map<std::pair<std::int64_t, int>, std::vector<const RunView*>> at;
    for (const auto* r : shape.runs)
      if (r->cp > 1 && !r->rank_work.empty())
        at[{r->seq - r->record.config.padding_tokens.value_or(0), r->cp}].push_back(r);
    if (at.empty()) continue;
    const std::int64_t smax = std::prev(at.end())->first.first;
    std::vector<std::vector<const RunView*>> mine;
    for (auto it = at.rbegin(); it != at.rend(); ++it)
      if (it->first.first == smax) mine.push_back(it->second);
    // Prefer points where contiguous and zig-zag both ran.
    std::stable_sort(mine.begin(), mine.end(), [](auto& a, auto& b) { return a.size() > 1 && b.size() < 2; });
    if (mine.size() > 3) mine.resize(3);  // leave room for the other shapes
    for (auto& m : mine) {
      if (panels.size() == opt.max_rank_panels) break;
      std::sort(m.begin(), m.end(), [](auto* a, auto* b) { return split_color(a->split) < split_color(b->split); });
      panels.push_back(m);
    }
    if (panels.size() == opt.max_rank_panels) break;
  }
  if (panels.empty())
    return s + not_measured("No configuration with c > 1 has a plan with per-rank work.") + "</section>";
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const auto& group = panels[p];
    const RunView& first = *group.front();
    BarChart planned, measured;
    for (int r = 0; r < first.cp; ++r) planned.categories.push_back(fmt::format("{}", r));
    measured.categories = planned.categories;
    planned.id = fmt::format("work-bars-{}", p);
    measured.id = fmt::format("attn-bars-{}", p);
    const auto& docs = first.record.config.document_lengths;
    const std::int64_t real = first.seq - first.record.config.padding_tokens.value_or(0);
    std::string where = fmt::format("S={} c={} {}", format_tokens(static_cast<double>(real)), first.cp,
                                    first.shape_label);
    // The length mix by name and by its documents, so the bars read as work within documents.
    if (!docs.empty()) where += fmt::format(" ({} documents: {})", docs.size(), documents_summary(docs));
    planned.title = "planned work / mean \u2014 " + where;
    measured.title = "measured attention time \u2014 " + where;
    planned.x_label = measured.x_label = "rank";
    planned.y = {"work relative to the mean"};
    measured.y = {"attention time (ms)"};
    planned.reference = 1.0;
    planned.reference_label = "mean work (perfect balance)";
    bool any_measured = false;
    for (const auto* r : group) {
      BarSeries w{r->split, {}, split_color(r->split)}, a{r->split, {}, split_color(r->split)};
      double sum = 0;
      int n = 0;
      for (const auto& x : r->rank_work)
        if (x) sum += *x, ++n;
      const double mean = n ? sum / n : 0;
      for (const auto& x : r->rank_work)
        w.values.push_back(x && mean > 0 ? std::optional<double>(*x / mean) : std::nullopt);
      a.values = r->rank_attention_ms;
      any_measured |= std::any_of(a.values.begin(), a.values.end(), [](auto& v) { return v.has_value(); });
      if (r->work_imbalance) w.name += fmt::format(" (max/mean {})", format_number(*r->work_imbalance, 3));
      if (const auto pad = r->record.config.padding_tokens; pad && *pad > 0)
        w.name += fmt::format(", {} padding tokens", *pad);
      if (r->imbalance) a.name += fmt::format(" (max/mean {})", format_number(*r->imbalance, 3));
      planned.series.push_back(std::move(w));
      measured.series.push_back(std::move(a));
    }
    const std::string warn = shared_cpus_warning(
        group,
        "Each bar is a rank's time including its waits for a core, not the work it had: the planned bars "
        "say how the split shares the work.");
    s += "<div class=\"grid pair\">" + render_bar_chart(planned) +
         (any_measured ? (warn.empty() ? render_bar_chart(measured)
                                       : "<div class=\"with-warn\">" + render_bar_chart(measured) + warn + "</div>")
                       : not_measured("These runs carry no per-rank attention time (metrics.per_rank)."));
    s += "</div>";
  }
  return s + "</section>";
}

std::string section_overlap(const std::vector<RunView>& runs) {
  std::string s =
      "<section id=\"overlap\"><h2>Overlap, exposed communication and imbalance against c</h2><p "
      "class=\"note\">At each shape's largest S. Overlap = |U(comm) \u2229 U(compute)| / |U(comm)| "
      "(HTA's definition); exposed comm = comm time with no compute under it, mean over ranks "
      "(docs/design.md \u00a76). Imbalance: measured (solid) and planned work (dashed), max/mean over ranks.</p>";
  bool any_overlap = false;
  std::string charts;
  std::size_t shapes_drawn = 0;
  for (const auto& shape : shapes_of(runs)) {
    std::int64_t smax = 0;
    for (const auto* r : shape.runs)
      if (r->status == "ok") smax = std::max(smax, r->seq);
    std::map<std::string, Series> ov, ex, im, wi;
    std::set<int> cs;
    std::vector<const RunView*> at_smax;
    for (const auto* r : shape.runs) {
      if (r->status != "ok" || r->seq != smax) continue;
      const double c = r->cp;
      cs.insert(r->cp);
      at_smax.push_back(r);
      auto add = [&](std::map<std::string, Series>& m, const std::optional<double>& v, const std::string& suffix,
                     bool planned) {
        if (!v) return;
        auto& ser = m[r->split];
        if (ser.name.empty()) {
          ser.name = r->split + suffix;
          ser.color = split_color(r->split);
          style_split(ser, r->split);
          if (&m == &im) ser.dashed = false;  // measured imbalance: solid whatever the split
          if (planned) ser.dashed = true, ser.marker = Marker::none;
        }
        ser.points.push_back({c, *v, fmt::format("{}: {}", run_label(*r), format_number(*v, 4))});
      };
      add(ov, r->overlap, "", false);
      add(ex, r->exposed_comm_ms, "", false);
      add(im, r->imbalance, " measured", false);
      add(wi, r->work_imbalance, " planned", true);
    }
    if (ov.empty() && ex.empty() && im.empty() && wi.empty()) continue;
    if (++shapes_drawn > 4) break;
    const std::string where = fmt::format("S={} {}", format_tokens(static_cast<double>(smax)), shape.label);
    const bool one_c = cs.size() == 1;
    auto chart = [&](std::map<std::string, Series>& m, const char* id, const std::string& title, Axis y) {
      if (one_c)
        return split_bars(fmt::format("{}-{}", id, shapes_drawn - 1),
                          fmt::format("{} \u2014 c={} {}", title, *cs.begin(), where), y, {{title, &m}});
      LineChart c;
      c.id = fmt::format("{}-{}", id, shapes_drawn - 1);
      c.title = title + " \u2014 " + where;
      c.x = {"CP degree c", Scale::log2};
      c.y = std::move(y);
      for (auto& [k, ser] : m) c.series.push_back(std::move(ser));
      return render_line_chart(c);
    };
    charts += "<div class=\"grid\">";
    if (!ov.empty()) {
      any_overlap = true;
      Axis y{"overlap", Scale::linear, TickFormat::percent};
      y.min = 0.0, y.max = 1.0;
      charts += chart(ov, "overlap-chart", "compute/comm overlap", y);
    }
    any_overlap |= !ex.empty();
    if (!ex.empty()) charts += chart(ex, "exposed-chart", "exposed comm", {"exposed comm (ms)"});
    // The ranks took turns on the cores: say so beside the imbalance they make look worse.
    const std::string warn = shared_cpus_warning(
        at_smax, "Measured imbalance at those c includes the turns ranks took on a core, not only the split's work.");
    if (!warn.empty()) charts += "<div class=\"with-warn\">";
    if (one_c && !(im.empty() && wi.empty())) {
      Axis y{"max / mean over ranks"};
      charts += split_bars(fmt::format("imbalance-chart-{}", shapes_drawn - 1),
                           fmt::format("imbalance \u2014 c={} {}", *cs.begin(), where), y,
                           {{"measured", &im}, {"planned", &wi}}, 1.0, "mean (perfect balance)");
    }
    for (auto& [k, ser] : wi) im[k + " planned"] = std::move(ser);
    if (!one_c && !im.empty()) {
      Axis y{"max / mean over ranks"};
      y.include_zero = false;
      charts += chart(im, "imbalance-chart", "imbalance", y);
    }
    if (!warn.empty()) charts += warn + "</div>";
    charts += "</div>";
  }
  if (!any_overlap)
    s += not_measured(
        "No run carries metrics.overlap_fraction or metrics.exposed_comm_ms (the measurement layer's "
        "metrics, docs/design.md \u00a76); only imbalance is drawn.");
  return s + charts + "</section>";
}

}  // namespace rb::reports
