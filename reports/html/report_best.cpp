// "Best at each c": the question a sweep is run to answer, read off one table per shape and S. For
// each c, the split and strategy (the variant; the hybrid with its group U) with the lowest median
// pass time, and how much longer the runner-up and the slowest took; and a chart of each strategy's
// pass time against c (its fastest split at each c). Configurations recorded as aliases of another (c = 1,
// results 2.6.0: every split and variant is one computation there) are the same measurement and count once.
#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "common/config_label.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

constexpr std::size_t kMaxBestTables = 16;

// Everything but c, the split and the variant: the runs one table compares.
struct Group {
  std::int64_t seq = 0;
  std::string shape;  // "Hq=8 Hkv=2 D=64 causal float32 cpu/local"
  std::map<int, std::vector<const RunView*>> by_c;
  std::map<int, std::size_t> aliases;
};

std::string shape_without_variant(const RunView& r) {
  ConfigWords w = words(r.record.config);
  w.variant = {};
  w.ulysses_degree = 0;  // the strategies compared differ in it
  std::string s = shape_label(w);
  return s.substr(std::min(s.find_first_not_of(' '), s.size()));
}

std::string name(const RunView& r) { return r.split + " " + r.variant; }

// "+0.123 ms (+8.1%)": how much longer `other` took than the fastest; "within noise" when that is
// less than the noise (stdev/mean) of either, a gap a second sweep may well reverse.
std::string behind(const RunView& best, const RunView& other) {
  const double d = *other.median_ms - *best.median_ms, pct = 100 * d / *best.median_ms;
  const double noise = std::max(best.noise_pct.value_or(0), other.noise_pct.value_or(0));
  return fmt::format("+{} ms (+{}){}", format_number(d, 3), format_percent(pct / 100),
                     pct < noise ? fmt::format(" <span class=\"within\" title=\"less than the noise, \u00b1{}%\">"
                                               "within noise</span>",
                                               format_number(noise, 2))
                                 : "");
}

std::string table(const Group& g, std::size_t n) {
  std::string s = fmt::format(
      "<table class=\"best\" id=\"best-table-{}\" data-seq=\"{}\"><caption>S={} \u00b7 "
      "{}</caption><thead><tr><th>c</th>"
      "<th>fastest</th><th>median ms</th><th>runner-up</th><th>slower by</th><th>slowest</th><th>slower by</th>"
      "<th>ran</th></tr></thead><tbody>",
      n, g.seq, html_escape(format_tokens(static_cast<double>(g.seq))), html_escape(g.shape));
  for (const auto& [c, cands] : g.by_c) {
    const RunView& best = *cands.front();
    const bool shared = std::any_of(cands.begin(), cands.end(), [](const RunView* r) { return r->shared_cpus(); });
    s += fmt::format("<tr data-c=\"{}\"{}><td class=\"n\">{}{}</td>", c, shared ? " class=\"shared\"" : "", c,
                     shared ? fmt::format(" <span class=\"warn-mark\" title=\"{} ranks on {} CPUs\">\u26a0</span>", c,
                                          best.cpus)
                            : "");
    s += fmt::format("<td class=\"best\">{}</td><td class=\"n\">{}</td>", html_escape(name(best)),
                     format_number(*best.median_ms, 4));
    if (cands.size() < 2) {
      const std::size_t a = g.aliases.count(c) ? g.aliases.at(c) : 0;
      s += fmt::format("<td class=\"na\" colspan=\"4\">{}</td>",
                       a ? fmt::format("the other {} are the same computation at c = 1 (measured once)", a)
                         : std::string("only one ran"));
    } else {
      const RunView &second = *cands[1], &worst = *cands.back();
      s += fmt::format("<td>{}</td><td class=\"n\">{}</td><td>{}</td><td class=\"n\">{}</td>",
                       html_escape(name(second)), behind(best, second), html_escape(name(worst)), behind(best, worst));
    }
    s += fmt::format("<td class=\"n\">{}</td></tr>", cands.size());
  }
  return s + "</tbody></table>";
}

// Each strategy's median pass time against c, its fastest split at each c; nothing where fewer than
// two strategies or two values of c ran.
std::string strategy_chart(const Group& g, std::size_t n) {
  std::map<std::string, std::map<int, const RunView*>> best;  // strategy -> c -> its fastest run
  for (const auto& [c, cands] : g.by_c)
    for (const RunView* r : cands) best[r->variant].try_emplace(c, r);  // cands are sorted, fastest first
  std::size_t cs = 0;
  for (const auto& [name, at] : best) cs = std::max(cs, at.size());
  if (best.size() < 2 || cs < 2) return "";
  LineChart chart;
  chart.id = fmt::format("best-chart-{}", n);
  chart.title = fmt::format("S={} \u00b7 {}", format_tokens(static_cast<double>(g.seq)), g.shape);
  chart.note = "Median pass time of each strategy at each c, its fastest split there (the point's tooltip names it).";
  chart.x = {"CP degree c", Scale::log2};
  chart.y = {"median pass time (ms)", Scale::log10};
  int color = 0;
  for (const auto& [name, at] : best) {
    Series s;
    s.name = name;
    s.color = color++ % 10;
    for (const auto& [c, r] : at)
      s.points.push_back({static_cast<double>(c), *r->median_ms,
                          fmt::format("{} c={} {}: {} ms", name, c, r->split, format_number(*r->median_ms, 4))});
    chart.series.push_back(std::move(s));
  }
  return render_line_chart(chart);
}

}  // namespace

std::string section_best_at_c(const std::vector<RunView>& runs) {
  std::string s =
      "<section id=\"best\"><h2>Fastest at each c</h2><p class=\"note\">One table per shape and S: at each c, the "
      "split and strategy (variant; the hybrid with its all-to-all group U) with the lowest median pass time, then how "
      "much longer the runner-up and the slowest took "
      "(ms, and % of the fastest's time); \"within noise\" marks a gap smaller than either run's noise (stdev/mean), "
      "one a second sweep may reverse. ran: the configurations compared. At c = 1 every split and variant is one "
      "computation; a file that records them as aliases of one measurement (results 2.6.0) counts it once.</p>";
  std::map<std::tuple<std::string, std::int64_t>, Group> groups;
  for (const auto& r : runs) {
    if (r.status != "ok" || !r.median_ms || !(*r.median_ms > 0)) continue;
    const std::string shape = shape_without_variant(r);
    Group& g = groups[{shape, r.seq}];
    g.seq = r.seq;
    g.shape = shape;
    if (!r.record.alias_of.empty())
      ++g.aliases[r.cp];
    else
      g.by_c[r.cp].push_back(&r);
  }
  std::string tables, charts;
  std::vector<const RunView*> compared;
  std::size_t n = 0, left_out = 0;
  for (auto& [key, g] : groups) {
    for (auto& [c, cands] : g.by_c) {
      std::stable_sort(cands.begin(), cands.end(), [](const RunView* a, const RunView* b) {
        return std::tie(*a->median_ms, a->split, a->variant) < std::tie(*b->median_ms, b->split, b->variant);
      });
      if (n < kMaxBestTables) compared.insert(compared.end(), cands.begin(), cands.end());
    }
    if (g.by_c.empty()) continue;
    if (n == kMaxBestTables) {
      ++left_out;
      continue;
    }
    charts += strategy_chart(g, n);
    tables += table(g, n++);
  }
  if (n == 0) return s + not_measured("No configuration ran with a timing to compare.") + "</section>";
  s += shared_cpus_warning(compared,
                           "Where marked \u26a0, the fastest split is the one that waited least for a core, which "
                           "need not be the one that shares the work best.");
  s += "<div class=\"grid best-grid\">" + tables + "</div>";
  // Pass time by strategy and c, where several strategies ran at several c.
  if (!charts.empty()) s += "<div class=\"grid\" id=\"best-charts\">" + charts + "</div>";
  if (left_out)
    s += fmt::format("<p class=\"note\">{} more shapes not tabulated (cap); the summary table lists every run.</p>",
                     left_out);
  return s + "</section>";
}

}  // namespace rb::reports
