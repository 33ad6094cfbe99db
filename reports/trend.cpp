// Loading a history directory and drawing each configuration's metrics against the date.
#include "reports/trend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/error.hpp"
#include "reports/compare.hpp"
#include "reports/xml_escape.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::optional<double> num(const json& run, const char* obj, const char* key) {
  if (!run.contains(obj) || !run.at(obj).is_object() || !run.at(obj).contains(key)) return std::nullopt;
  const json& v = run.at(obj).at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) return std::nullopt;
  return v.get<double>();
}

struct TrendMetric {
  const char* name;
  const char* unit;
  bool lower_is_better;
};
// The metrics compare can select, under the names the results file uses.
constexpr TrendMetric kTrendMetrics[] = {{"median_ms", "ms", true},
                                         {"attention_tflops", "TFLOP/s per rank", false},
                                         {"overlap_fraction", "", false},
                                         {"exposed_comm_ms", "ms", true},
                                         {"imbalance", "", true}};

std::optional<TrendPoint> point_of(const json& run, const std::string& date, std::size_t metric) {
  TrendPoint p;
  p.date = date;
  std::optional<double> v;
  switch (metric) {
    case 0:
      v = num(run, "timing", "median_ms");
      p.lo = num(run, "timing", "min_ms");
      p.hi = num(run, "timing", "p90_ms");
      break;
    case 1: v = num(run, "metrics", "attention_tflops"); break;
    case 2: v = num(run, "metrics", "overlap_fraction"); break;
    case 3: v = num(run, "metrics", "exposed_comm_ms"); break;
    case 4:
      v = num(run, "metrics", "imbalance");
      if (!v) v = num(run, "metrics", "work_imbalance");
      break;
  }
  if (!v) return std::nullopt;
  p.value = *v;
  return p;
}

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

// One chart: x is the calendar date (gaps show), y spans the values and their bars.
std::string chart(const TrendSeries& s, long first_day, long last_day) {
  constexpr double W = 300, H = 118, L = 44, R = 8, T = 18, B = 20;
  double lo = 1e300, hi = -1e300;
  for (const auto& p : s.points) {
    lo = std::min({lo, p.value, p.lo.value_or(p.value)});
    hi = std::max({hi, p.value, p.hi.value_or(p.value)});
  }
  if (hi - lo < 1e-12 * std::max(1.0, std::fabs(hi))) {  // a flat line: give it room
    const double pad = std::max(std::fabs(hi) * 0.05, 1e-9);
    lo -= pad;
    hi += pad;
  }
  const double span_days = static_cast<double>(std::max<long>(1, last_day - first_day));
  auto X = [&](const std::string& d) {
    const double day = static_cast<double>(parse_date(d).value_or(first_day) - first_day);
    return last_day == first_day ? L + (W - L - R) / 2 : L + day / span_days * (W - L - R);
  };
  auto Y = [&](double v) { return T + (hi - v) / (hi - lo) * (H - T - B); };

  std::string g = fmt::format("<svg class=\"rbt-chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">", W, H);
  g += fmt::format("<text x=\"{}\" y=\"11\" class=\"rbt-title\">{}{}{}</text>", L, xml_escape(s.metric),
                   s.unit.empty() ? "" : " (" + xml_escape(s.unit) + ")", s.lower_is_better ? " ↓ better" : " ↑ better");
  g += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" class=\"rbt-axis\"/>", L, T, H - B);
  g += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"rbt-axis\"/>", L, H - B, W - R);
  g += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rbt-tick\" text-anchor=\"end\">{}</text>", L - 3, T + 8, fmt_num(hi));
  g += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rbt-tick\" text-anchor=\"end\">{}</text>", L - 3, H - B, fmt_num(lo));
  g += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rbt-tick\">{}</text>", L, H - 5, xml_escape(s.points.front().date));
  if (s.points.size() > 1)
    g += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rbt-tick\" text-anchor=\"end\">{}</text>", W - R, H - 5,
                     xml_escape(s.points.back().date));
  std::string path;
  for (const auto& p : s.points) path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", X(p.date), Y(p.value));
  g += fmt::format("<path d=\"{}\" class=\"rbt-line\"/>", path);
  for (const auto& p : s.points) {
    const double x = X(p.date);
    if (p.lo && p.hi)
      g += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" class=\"rbt-bar\"/>", x, Y(*p.hi),
                       Y(*p.lo));
    std::string tip = fmt::format("{}: {}", p.date, fmt_num(p.value));
    if (p.lo && p.hi) tip += fmt::format(" (min {}, p90 {})", fmt_num(*p.lo), fmt_num(*p.hi));
    g += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" class=\"rbt-pt\"><title>{}</title></circle>", x,
                     Y(p.value), xml_escape(tip));
  }
  return g + "</svg>";
}

}  // namespace

std::optional<long> parse_date(const std::string& s) {
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year{std::stoi(s.substr(0, 4))},
                                        std::chrono::month{static_cast<unsigned>(std::stoi(s.substr(5, 2)))},
                                        std::chrono::day{static_cast<unsigned>(std::stoi(s.substr(8, 2)))}};
  if (!ymd.ok()) return std::nullopt;
  return std::chrono::sys_days{ymd}.time_since_epoch().count();
}

History build_history(std::vector<DatedResults> files) {
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.date < b.date; });
  History h;
  std::map<std::string, std::size_t> index;  // config id -> position in h.configs
  std::vector<std::vector<std::vector<TrendPoint>>> points;  // [config][metric] -> points
  for (const auto& f : files) {
    h.dates.push_back(f.date);
    h.files.push_back(f.results.path.string());
    for (const auto& run : f.results.runs()) {
      const auto id = run.at("config").at("id").get<std::string>();
      auto [it, fresh] = index.emplace(id, h.configs.size());
      if (fresh) {
        h.configs.push_back({id, config_label(run.at("config")), {}});
        points.emplace_back(std::size(kTrendMetrics));
      }
      if (run.at("status") != "ok") continue;  // a failed night has no value to draw
      for (std::size_t m = 0; m < std::size(kTrendMetrics); ++m) {
        auto& series = points[it->second][m];
        if (auto p = point_of(run, f.date, m)) {
          if (!series.empty() && series.back().date == f.date) series.back() = *p;  // last run of the day wins
          else series.push_back(*p);
        }
      }
    }
  }
  for (std::size_t c = 0; c < h.configs.size(); ++c)
    for (std::size_t m = 0; m < std::size(kTrendMetrics); ++m)
      if (!points[c][m].empty())
        h.configs[c].series.push_back(
            {kTrendMetrics[m].name, kTrendMetrics[m].unit, kTrendMetrics[m].lower_is_better, std::move(points[c][m])});
  return h;
}

History load_history(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError("history", dir.string(), "must be a directory of results files named YYYY-MM-DD*.json");
  std::vector<DatedResults> files;
  std::map<std::string, std::string> seen;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".json") continue;
    const std::string stem = e.path().stem().string();
    if (!parse_date(stem))
      throw InputError(e.path().string(), stem, "a history file's name must start with a date YYYY-MM-DD");
    const std::string date = stem.substr(0, 10);
    if (auto [it, fresh] = seen.emplace(date, e.path().string()); !fresh)
      throw InputError(e.path().string(), date, "one results file per date; this date is also " + it->second);
    files.push_back({date, read_results(e.path())});
  }
  if (files.empty()) throw InputError("history", dir.string(), "holds no YYYY-MM-DD*.json results file");
  return build_history(std::move(files));
}

std::string trend_fragment(const History& h) {
  long first = 0, last = 0;
  if (!h.dates.empty()) {
    first = parse_date(h.dates.front()).value_or(0);
    last = parse_date(h.dates.back()).value_or(first);
  }
  std::string f = "<section class=\"rb-trend\">\n<style>"
                  ".rb-trend .rbt-cfg{margin:0 0 1em}.rb-trend h3{font-size:14px;margin:.6em 0 .2em}"
                  ".rb-trend .rbt-charts{display:flex;flex-wrap:wrap;gap:6px}"
                  ".rb-trend .rbt-axis{stroke:#8c959f}.rb-trend .rbt-line{fill:none;stroke:#0969da;stroke-width:1.5}"
                  ".rb-trend .rbt-bar{stroke:#54aeff;stroke-width:3;opacity:.6}.rb-trend .rbt-pt{fill:#0969da}"
                  ".rb-trend .rbt-title{font:11px sans-serif;fill:#24292f}.rb-trend .rbt-tick{font:9px sans-serif;fill:#57606a}"
                  "</style>\n";
  f += fmt::format("<h2>Trend</h2>\n<p>{} nights, {} to {}; {} configurations. Each chart is one metric against the "
                   "date; the median time carries a bar from the fastest sample to the 90th percentile.</p>\n",
                   h.dates.size(), h.dates.empty() ? "-" : h.dates.front(), h.dates.empty() ? "-" : h.dates.back(),
                   h.configs.size());
  for (const auto& c : h.configs) {
    f += fmt::format("<div class=\"rbt-cfg\" id=\"trend-{}\"><h3 title=\"{}\">{}</h3><div class=\"rbt-charts\">", xml_escape(c.id),
                     xml_escape(c.id), xml_escape(c.label));
    if (c.series.empty()) f += "<p>no successful run in this history</p>";
    for (const auto& s : c.series) f += chart(s, first, last);
    f += "</div></div>\n";
  }
  return f + "</section>\n";
}

std::string trend_page(const History& h, const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>"
      "<style>body{{font:14px system-ui,sans-serif;margin:1.5em;color:#24292f}}</style></head><body>\n"
      "<h1>{0}</h1>\n{1}</body></html>\n",
      xml_escape(title), trend_fragment(h));
}

json to_json(const History& h) {
  json cs = json::array();
  for (const auto& c : h.configs) {
    json ss = json::object();
    for (const auto& s : c.series) {
      json pts = json::array();
      for (const auto& p : s.points) pts.push_back({{"date", p.date}, {"value", p.value}});
      ss[s.metric] = pts;
    }
    cs.push_back({{"id", c.id}, {"label", c.label}, {"series", ss}});
  }
  return {{"dates", h.dates}, {"files", h.files}, {"configs", cs}};
}

}  // namespace rb::reports
