// The trend page: tonight's commit and the baseline's, what changed first (one sentence per
// change, the machine probe's series, tonight's verdicts, the steps found), then every
// configuration's charts grouped by shape, each drawn relative to its own median.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "reports/compare/trend.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::string trend_number(double v) { return fmt::format("{:.4g}", v); }

// Tick labels: three significant digits and the unit, e.g. "6.65 ms", "0.0135 TFLOP/s".
std::string tick(double v, const std::string& unit) {
  const std::string s = fmt::format("{:.3g}", v);
  return unit.empty() ? s : fmt::format("{} {}", s, unit.starts_with("TFLOP/s") ? std::string("TFLOP/s") : unit);
}

std::string pct(double f) { return fmt::format("{:+.1f}%", 100 * f); }

std::string anchor(const TrendConfig& c) { return "trend-" + c.id; }

// A series that is 0 (or the same non-number) every night says nothing a chart could show.
bool all_zero(const TrendSeries& s) {
  return std::all_of(s.points.begin(), s.points.end(), [](const TrendPoint& p) {
    return p.value == 0 && p.lo.value_or(0) == 0 && p.hi.value_or(0) == 0;
  });
}

// One chart, drawn by the report's SVG stack. Where the series has a positive median, y is the
// change relative to it: a band of ±threshold, widened only as far as the points, their bars and the
// baseline need, so a 0.8% wiggle stays a wiggle. Otherwise (a median of 0) y spans the values.
// Every chart of a page spans the whole history, so charts stacked on the page line up by night.
std::string chart(const TrendSeries& s, const History& h, const std::string& title = "") {
  const std::vector<std::string>& dates = h.dates;
  const double threshold = h.threshold;
  std::vector<double> vals;
  for (const auto& p : s.points) vals.push_back(p.value);
  std::sort(vals.begin(), vals.end());
  const double median = vals[vals.size() / 2];
  const bool relative = median > 0 && std::isfinite(median);
  auto to_y = [&](double v) { return relative ? v / median - 1.0 : v; };
  double lo = relative ? -threshold : 1e300, hi = relative ? threshold : -1e300;
  auto widen = [&](double v) {
    lo = std::min(lo, to_y(v));
    hi = std::max(hi, to_y(v));
  };
  for (const auto& p : s.points) {
    widen(p.value);
    if (p.lo) widen(*p.lo);
    if (p.hi) widen(*p.hi);
  }
  if (s.baseline) widen(*s.baseline);
  const double pad = std::max(hi - lo, relative ? 0.0 : 1e-9 * std::max(1.0, std::fabs(hi))) * 0.08;
  lo -= pad;
  hi += pad;
  const long first_day = parse_date(dates.front()).value_or(0);
  auto day = [&](const std::string& d) { return static_cast<double>(parse_date(d).value_or(first_day) - first_day); };
  auto from_y = [&](double y) { return relative ? median * (1 + y) : y; };

  LineChart c;
  c.title = title.empty() ? fmt::format("{}{}{}", s.metric, s.unit.empty() ? "" : " (" + s.unit + ")",
                                        s.lower_is_better ? " ↓ better" : " ↑ better")
                          : title;
  c.svg_class = "rbt-chart";
  c.width = 400;
  c.height = 120;
  c.margins = {122, 30, 8, 22};  // room for "6.65 ms +5.8%" at the left, half a date at the right
  c.legend = false;
  c.x.min = 0.0;
  c.x.max = day(dates.back());
  c.x.ticks.push_back({0.0, dates.front()});
  if (*c.x.max > 0) c.x.ticks.push_back({*c.x.max, dates.back()});
  c.y.min = lo;
  c.y.max = hi;
  // Ticks at the top and bottom of the axis, and at the median when relative.
  std::vector<double> ticks{hi, lo};
  if (relative) ticks.push_back(0.0);
  for (double t : ticks) {
    std::string label = tick(from_y(t), s.unit);
    if (relative && t != 0.0) label = fmt::format("{} {}", label, pct(t));
    c.y.ticks.push_back({t, label});
  }
  if (relative) c.bands.push_back({-threshold, threshold, "rbt-band"});  // within it a change is SAME
  if (s.baseline)
    c.rules.push_back({Rule::Along::horizontal, to_y(*s.baseline), "rbt-base",
                       fmt::format("baseline: {}", trend_number(*s.baseline))});
  for (const auto& t : s.steps)
    c.rules.push_back({Rule::Along::vertical, (day(t.previous_date) + day(t.date)) / 2,
                       t.regression ? "rbt-step rbt-reg" : "rbt-step",
                       fmt::format("step {} on {} ({}..{})", pct(t.change), t.date, short_commit(h, t.previous_commit),
                                   short_commit(h, t.commit))});
  Series line;
  line.name = s.metric;
  line.color = 0;
  for (const auto& p : s.points) {
    Point pt(day(p.date), to_y(p.value), fmt::format("{}: {}", p.date, trend_number(p.value)));
    if (p.lo && p.hi) {
      pt.note += fmt::format(" (min {}, p90 {})", trend_number(*p.lo), trend_number(*p.hi));
      pt.lo = to_y(*p.lo);
      pt.hi = to_y(*p.hi);
    }
    line.points.push_back(std::move(pt));
  }
  c.series.push_back(std::move(line));
  return render_line_chart(c);
}

// The verdicts of tonight's compare that are not SAME: regressions first, then NOISY, FASTER, the rest.
std::string tonight_table(const History& h) {
  const json& runs = h.tonight.at("runs");
  auto rank = [](const json& r) {
    if (r.value("regression", false)) return 0;
    const std::string v = r.at("verdict").get<std::string>();
    return v == "NOISY" ? 1 : v == "FASTER" ? 2 : 3;
  };
  std::vector<const json*> rows;
  for (const auto& r : runs)
    if (r.at("verdict") != "SAME") rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [&](const json* a, const json* b) { return rank(*a) < rank(*b); });
  std::map<std::string, const TrendConfig*> by_id;
  for (const auto& c : h.configs) by_id[c.id] = &c;
  std::string t = "<h3>Tonight against the baseline</h3>";
  if (rows.empty()) return t + fmt::format("<p>All {} configurations SAME.</p>", runs.size());
  t += "<table class=\"rbt-top\"><tr><th>verdict</th><th>change</th><th>configuration</th><th>note</th></tr>";
  for (const json* r : rows) {
    const std::string id = r->at("id").get<std::string>();
    const std::string label = r->contains("label") && r->at("label").is_string() ? r->at("label").get<std::string>()
                                                                                 : id;
    const auto it = by_id.find(id);
    const std::string name = it == by_id.end() ? html_escape(label)
                                               : fmt::format("<a href=\"#{}\">{}</a>", html_escape(anchor(*it->second)),
                                                             html_escape(label));
    const json& change = r->contains("change") ? r->at("change") : json();
    t += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                     r->value("regression", false) ? "rbt-regression" : "",
                     html_escape(r->at("verdict").get<std::string>()),
                     change.is_number() ? pct(change.get<double>()) : "-", name,
                     html_escape(r->contains("note") && r->at("note").is_string() ? r->at("note").get<std::string>()
                                                                                  : ""));
  }
  return t + "</table>";
}

std::string steps_table(const History& h) {
  const auto steps = steps_by_severity(h);
  std::string t = "<h3>Steps in the history</h3>";
  if (steps.empty())
    return t + fmt::format("<p>No level change beyond ±{:.0f}% in {} nights.</p>", 100 * h.threshold, h.dates.size());
  t += "<table class=\"rbt-top\"><tr><th></th><th>configuration</th><th>metric</th><th>from night</th><th>change</th>"
       "<th>level</th><th>commits</th></tr>";
  for (const auto& s : steps) {
    const TrendStep& st = *s.step;
    t += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td><a href=\"#{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{} → {}</td>"
        "<td><code>{}..{}</code></td></tr>",
        st.regression ? "rbt-regression" : "", st.regression ? "regression" : "improvement",
        html_escape(anchor(*s.config)), html_escape(s.config->label), html_escape(s.series->metric),
        html_escape(st.date), std::isfinite(st.change) ? pct(st.change) : "from 0",
        html_escape(tick(st.before, s.series->unit)), html_escape(tick(st.after, s.series->unit)),
        html_escape(short_commit(h, st.previous_commit)), html_escape(short_commit(h, st.commit)));
  }
  return t + "</table>";
}

// One sentence per change, largest first: the page's lead.
std::string changes_list(const History& h) {
  const auto changes = trend_changes(h);
  if (changes.empty()) return fmt::format("<p class=\"rbt-changes\">{}</p>", html_escape(no_change_sentence(h)));
  std::string t = "<ol class=\"rbt-changes\">";
  for (const auto& c : changes)
    t += fmt::format("<li{}>{}.</li>", c.regression ? " class=\"rbt-regression\"" : "",
                     html_escape(change_sentence(h, c)));
  return t + "</ol>";
}

// The machine's own speed, night by night, drawn like a configuration's time: a step in it on the
// night configurations stepped says the machine moved, not the code.
std::string probe_block(const History& h) {
  if (!h.probe || h.probe->points.empty()) return "";
  std::string t = fmt::format(
      "<div id=\"machine-probe\"><h3>Machine probe</h3><p class=\"rbt-flat\">The time of a fixed piece of work "
      "(timing.machine_probe_ms, version {}) each night: the median over the night's runs of each run's mean. It "
      "does not depend on ringbench's code.</p>",
      h.probe_version);
  t += chart(*h.probe, h, "machine probe (ms) ↓ faster machine");
  for (const auto& st : h.probe->steps)
    if (st.beyond_threshold) t += fmt::format("<p>{}</p>", html_escape(probe_sentence(h, st)));
  return t + "</div>";
}

// Configurations of one shape (everything but how it is split and spread) share a heading.
std::string shape_of(const RecordConfig& c) {
  return fmt::format("S={} Hq={} Hkv={} D={} {} {} {}", c.seq, c.heads, c.kv_heads, c.head_dim, c.dtype,
                     c.causal ? "causal" : "full", c.backend);
}

}  // namespace

std::string trend_fragment(const History& h) {
  std::string f =
      "<section class=\"rb-trend\">\n<style>"
      ".rb-trend .rbt-cfg{margin:0 0 1em}.rb-trend h4{font-size:13px;margin:.6em 0 .2em}"
      ".rb-trend .rbt-charts{display:flex;flex-wrap:wrap;gap:6px}"
      ".rb-trend .chart{margin:0}.rb-trend .chart svg{display:block;max-width:100%;height:auto}"
      ".rb-trend figcaption{font:600 11px sans-serif;color:#24292f;margin:2px 0 0}"
      ".rb-trend .axis text{font:9px sans-serif;fill:#57606a}.rb-trend .axis .gl{stroke:#eef1f4}"
      ".rb-trend .axis .frame,.rb-trend .axis .tick{stroke:#8c959f}.rb-trend .c0{--k:#0969da}"
      ".rb-trend .ln{fill:none;stroke:var(--k);stroke-width:1.5}.rb-trend .mk{fill:var(--k)}"
      ".rb-trend .whisker{stroke:#54aeff;stroke-width:3;opacity:.6}"
      ".rb-trend .rbt-band{fill:#eaeef2}.rb-trend .rbt-base{stroke:#8250df;stroke-dasharray:4 3}"
      ".rb-trend .rbt-step{stroke:#9a6700;stroke-dasharray:2 2}.rb-trend .rbt-reg{stroke:#cf222e}"
      ".rb-trend table.rbt-top{border-collapse:collapse;font-size:13px}"
      ".rb-trend .rbt-top td,.rb-trend .rbt-top th{border-bottom:1px solid #d0d7de;padding:2px 8px;text-align:left}"
      ".rb-trend tr.rbt-regression td{color:#cf222e}.rb-trend .rbt-flat{color:#57606a;font-size:12px}"
      ".rb-trend .rbt-commits{font-weight:600}.rb-trend .rbt-changes{font-size:15px}"
      ".rb-trend li.rbt-regression{color:#cf222e}"
      "</style>\n";
  f += fmt::format("<h2>Trend</h2>\n<p class=\"rbt-commits\">{}</p>\n", html_escape(commits_sentence(h)));
  f += fmt::format("<p>{} nights, {} to {}; {} configurations.</p>\n", h.dates.size(),
                   h.dates.empty() ? "-" : h.dates.front(), h.dates.empty() ? "-" : h.dates.back(), h.configs.size());
  f += "<div id=\"what-changed\"><h2>What changed</h2>" + changes_list(h) + probe_block(h);
  if (!h.tonight.is_null()) f += tonight_table(h);
  f += steps_table(h) + "</div>\n";
  f += fmt::format(
      "<h2>Charts</h2>\n<p>Each chart is one metric against the date, relative to the configuration's "
      "median: the grey band is ±{0:.0f}% (a change within it is SAME), widened only as far as the nights "
      "need. The median time carries a bar from the fastest sample to the 90th percentile; a dashed purple "
      "line is the baseline, a dashed vertical line a step (red: a regression).</p>\n",
      100 * h.threshold);
  std::vector<std::string> shapes;
  std::map<std::string, std::vector<const TrendConfig*>> by_shape;
  for (const auto& c : h.configs) {
    const std::string key = shape_of(c.config);
    if (!by_shape.count(key)) shapes.push_back(key);
    by_shape[key].push_back(&c);
  }
  for (const auto& shape : shapes) {
    f += fmt::format("<h3 class=\"rbt-shape\">{}</h3>\n", html_escape(shape));
    for (const TrendConfig* c : by_shape[shape]) {
      f += fmt::format("<div class=\"rbt-cfg\" id=\"{}\"><h4 title=\"{}\">{}</h4><div class=\"rbt-charts\">",
                       html_escape(anchor(*c)), html_escape(c->id), html_escape(c->label));
      if (c->series.empty()) f += "<p>no successful run in this history</p>";
      std::string flat;
      for (const auto& s : c->series) {
        if (all_zero(s))
          flat += fmt::format("<p class=\"rbt-flat\">{}: 0 on every night</p>", html_escape(s.metric));
        else
          f += chart(s, h);
      }
      f += "</div>" + flat + "</div>\n";
    }
  }
  return f + "</section>\n";
}

std::string trend_page(const History& h, const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>"
      "<style>body{{font:14px system-ui,sans-serif;margin:1.5em;color:#24292f}}</style></head><body>\n"
      "<h1>{0}</h1>\n{1}</body></html>\n",
      html_escape(title), trend_fragment(h));
}

}  // namespace rb::reports
