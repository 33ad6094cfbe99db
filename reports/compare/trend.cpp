// Loading a history directory into per-configuration series, with the steps found in each.
#include "reports/compare/trend.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/output_file.hpp"
#include "reports/compare/compare.hpp"
#include "reports/compare/step_detect.hpp"
#include "reports/results/metric_registry.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

// A series' point of one metric in one run: its value (or its stand-in's) and that day's spread.
std::optional<TrendPoint> point_of(const RunRecord& run, const std::string& date, const Metric& m) {
  const auto v = value_or_stand_in(m, run);
  if (!v) return std::nullopt;
  TrendPoint p;
  p.date = date;
  p.value = *v;
  if (m.spread)
    if (const auto range = m.spread(run)) std::tie(p.lo, p.hi) = *range;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A run's machine probe: the mean of its probe times (one before each round and one after the last),
// with the probe's version; nullopt when the run carries none.
struct ProbeReading {
  int version = 1;
  double ms = 0;
};
std::optional<ProbeReading> probe_of(const RunRecord& run) {
  double sum = 0;
  int n = 0;
  for (const double x : run.timing.machine_probe_ms)
    if (x > 0) {
      sum += x;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return ProbeReading{run.timing.machine_probe_version.value_or(1), sum / n};
}

// The probe of a results file's ok runs of `version`: the median of the runs' means.
std::optional<double> night_probe(const std::vector<ProbeReading>& readings, int version) {
  std::vector<double> ms;
  for (const auto& r : readings)
    if (r.version == version) ms.push_back(r.ms);
  return ms.empty() ? std::nullopt : std::optional(median(ms));
}

// The fewest leading characters, at least 7, that keep every commit named apart.
std::size_t commit_digits(const History& h) {
  std::vector<std::string> shas;
  for (const auto& c : h.commits)
    if (c != "unknown") shas.push_back(c);
  if (h.baseline_commit && *h.baseline_commit != "unknown") shas.push_back(*h.baseline_commit);
  std::sort(shas.begin(), shas.end());
  shas.erase(std::unique(shas.begin(), shas.end()), shas.end());
  std::size_t digits = 7;
  for (std::size_t i = 1; i < shas.size(); ++i) {
    const auto [a, b] = std::mismatch(shas[i - 1].begin(), shas[i - 1].end(), shas[i].begin(), shas[i].end());
    digits = std::max(digits, static_cast<std::size_t>(a - shas[i - 1].begin()) + 1);
  }
  return digits;
}

std::string commit_of_file(const ResultsFile& f) {
  const json& tool = f.doc.contains("tool") ? f.doc.at("tool") : json();
  return tool.is_object() && tool.contains("git_sha") && tool.at("git_sha").is_string()
             ? tool.at("git_sha").get<std::string>()
             : std::string("unknown");
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

namespace {

// The steps of one series: every level change the fit finds, marked against the threshold. The fit covers the last
// kMaxStepNights nights at most (its cost grows as n^2).
std::vector<TrendStep> series_steps(const TrendSeries& s, const History& h) {
  constexpr std::size_t kMaxStepNights = 1000;
  const std::size_t skip = s.points.size() > kMaxStepNights ? s.points.size() - kMaxStepNights : 0;
  std::vector<double> y;
  for (std::size_t i = skip; i < s.points.size(); ++i) y.push_back(s.points[i].value);
  auto commit_of = [&](const std::string& date) {
    const auto it = std::find(h.dates.begin(), h.dates.end(), date);
    return it == h.dates.end() ? std::string("unknown") : h.commits[static_cast<std::size_t>(it - h.dates.begin())];
  };
  std::vector<TrendStep> out;
  for (const LevelStep& ls : detect_relative_steps(y).steps) {
    TrendStep t;
    t.date = s.points[skip + ls.at].date;
    t.previous_date = s.points[skip + ls.at - 1].date;
    t.commit = commit_of(t.date);
    t.previous_commit = commit_of(t.previous_date);
    t.before = ls.before;
    t.after = ls.after;
    t.change = ls.change();
    t.beyond_threshold = std::fabs(t.change) > h.threshold;
    t.regression = t.beyond_threshold && (t.change > 0) == s.lower_is_better;
    out.push_back(t);
  }
  return out;
}

}  // namespace

History build_history(std::vector<DatedResults> files, double threshold) {
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.date < b.date; });
  History h;
  h.threshold = threshold;
  std::map<std::string, std::size_t> index;                  // config id -> position in h.configs
  std::vector<std::vector<std::vector<TrendPoint>>> points;  // [config][metric] -> points
  const std::vector<const Metric*> metrics = compare_metrics();
  std::vector<std::vector<ProbeReading>> probes(files.size());  // per night
  for (const auto& f : files) {
    h.dates.push_back(f.date);
    h.files.push_back(f.results.path.string());
    h.commits.push_back(commit_of_file(f.results));
    for (const auto& run : f.results.runs()) {
      const RunRecord record = read_run_record(run);
      // A c = 1 alias repeats another configuration's measurement: one series, one count.
      if (!record.alias_of.empty()) continue;
      const std::string& id = record.config.id;
      auto [it, fresh] = index.emplace(id, h.configs.size());
      if (fresh) {
        h.configs.push_back({id, label(record.config), record.config, {}});
        points.emplace_back(metrics.size());
      }
      if (record.status != RunStatus::ok) continue;  // a failed night has no value to draw
      if (const auto p = probe_of(record)) probes[h.dates.size() - 1].push_back(*p);
      for (std::size_t m = 0; m < metrics.size(); ++m) {
        auto& series = points[it->second][m];
        if (auto p = point_of(record, f.date, *metrics[m])) {
          if (!series.empty() && series.back().date == f.date)
            series.back() = *p;  // last run of the day wins
          else
            series.push_back(*p);
        }
      }
    }
  }
  for (std::size_t c = 0; c < h.configs.size(); ++c)
    for (std::size_t m = 0; m < metrics.size(); ++m)
      if (!points[c][m].empty()) {
        TrendSeries s{std::string(metrics[m]->name),
                      std::string(metrics[m]->unit),
                      metrics[m]->lower_is_better,
                      std::move(points[c][m]),
                      {},
                      std::nullopt};
        s.steps = series_steps(s, h);
        h.configs[c].series.push_back(std::move(s));
      }
  const auto last_probed = std::find_if(probes.rbegin(), probes.rend(), [](const auto& p) { return !p.empty(); });
  if (last_probed != probes.rend()) {
    const int version = std::max_element(last_probed->begin(), last_probed->end(), [](const auto& a, const auto& b) {
                          return a.version < b.version;
                        })->version;
    TrendSeries probe{"machine_probe_ms", "ms", true, {}, {}, std::nullopt};
    for (std::size_t i = 0; i < probes.size(); ++i)
      if (const auto ms = night_probe(probes[i], version)) probe.points.push_back({h.dates[i], *ms, {}, {}});
    probe.steps = series_steps(probe, h);
    h.probe = std::move(probe);
    h.probe_version = version;
  }
  h.commit_digits = commit_digits(h);
  return h;
}

History load_history(const std::filesystem::path& dir, double threshold) {
  // Every filesystem call takes an error_code: a symlink loop or a vanished entry is the user's
  // input, an InputError naming the entry, never a filesystem_error (exit 1).
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError("history", dir.string(),
                     ec ? fmt::format("must be a directory of results files named YYYY-MM-DD*.json: {}",
                                      path_error_text(ec.value()))
                        : std::string("must be a directory of results files named YYYY-MM-DD*.json"));
  std::vector<DatedResults> files;
  std::map<std::string, std::string> seen;
  std::filesystem::directory_iterator entries(dir, ec);
  for (; !ec && entries != std::filesystem::directory_iterator(); entries.increment(ec)) {
    const std::filesystem::directory_entry& e = *entries;
    if (e.path().extension() != ".json") continue;
    std::error_code kind;
    if (!e.is_regular_file(kind)) {
      if (!kind) continue;  // a folder or a pipe named *.json holds no results
      throw InputError(e.path().string(), "a history entry",
                       fmt::format("cannot be read: {}", path_error_text(kind.value())));
    }
    const std::string stem = e.path().stem().string();
    if (!parse_date(stem))
      throw InputError(e.path().string(), stem, "a history file's name must start with a date YYYY-MM-DD");
    const std::string date = stem.substr(0, 10);
    if (auto [it, fresh] = seen.emplace(date, e.path().string()); !fresh)
      throw InputError(e.path().string(), date, "one results file per date; this date is also " + it->second);
    files.push_back({date, read_results(e.path())});
  }
  if (ec) throw InputError("history", dir.string(), fmt::format("cannot be listed: {}", path_error_text(ec.value())));
  if (files.empty()) throw InputError("history", dir.string(), "holds no YYYY-MM-DD*.json results file");
  return build_history(std::move(files), threshold);
}

void set_baseline(History& h, const ResultsFile& baseline) {
  h.baseline_commit = commit_of_file(baseline);
  h.commit_digits = commit_digits(h);
  if (h.probe) {
    std::vector<ProbeReading> readings;
    for (const auto& run : baseline.runs()) {
      const RunRecord record = read_run_record(run);
      if (record.status != RunStatus::ok || !record.alias_of.empty()) continue;
      if (const auto p = probe_of(record)) readings.push_back(*p);
    }
    h.probe->baseline = night_probe(readings, h.probe_version);
  }
  // Each baseline run is read once and found by id: reading every run again for every
  // configuration took 134 s at 4,000 configurations.
  std::map<std::string, RunRecord> ok_by_id;
  for (const auto& run : baseline.runs()) {
    RunRecord record = read_run_record(run);
    if (record.status != RunStatus::ok) continue;
    const std::string id = record.config.id;
    ok_by_id.insert_or_assign(id, std::move(record));
  }
  for (auto& c : h.configs) {
    const auto it = ok_by_id.find(c.id);
    if (it == ok_by_id.end()) continue;
    for (auto& series : c.series)
      if (const Metric* m = find_metric(series.metric))
        if (const auto p = point_of(it->second, "", *m)) series.baseline = p->value;
  }
}

void set_tonight(History& h, const json& compare, const std::string& source) {
  const json schema = compare.is_object() && compare.contains("schema") ? compare.at("schema") : json("(no schema)");
  if (!compare.is_object() || schema != "ringbench.compare" || !compare.contains("runs") ||
      !compare.at("runs").is_array())
    throw InputError(source, compare.is_object() ? json_text(schema) : compare.type_name(),
                     "must be the JSON of `ringbench compare --json-out` (schema ringbench.compare)");
  for (std::size_t i = 0; i < compare.at("runs").size(); ++i) {
    const json& r = compare.at("runs").at(i);
    if (!r.is_object() || !r.contains("verdict") || !r.at("verdict").is_string() || !r.contains("id") ||
        !r.at("id").is_string())
      throw InputError(fmt::format("{}: /runs/{}", source, i), json_text(r),
                       "a compared run needs an id and a verdict");
    // The page reads `regression` as a flag; any other type was not written by compare.
    if (r.contains("regression") && !r.at("regression").is_boolean())
      throw InputError(fmt::format("{}: /runs/{}/regression", source, i), json_text(r.at("regression")),
                       "must be true or false");
  }
  h.tonight = compare;
}

std::vector<StepRef> steps_by_severity(const History& h) {
  std::vector<StepRef> out;
  for (const auto& c : h.configs)
    for (const auto& s : c.series)
      for (const auto& t : s.steps)
        if (t.beyond_threshold) out.push_back({&c, &s, &t});
  std::stable_sort(out.begin(), out.end(), [](const StepRef& a, const StepRef& b) {
    if (a.step->regression != b.step->regression) return a.step->regression;
    return std::fabs(a.step->change) > std::fabs(b.step->change);
  });
  return out;
}

double TrendChange::size() const { return static_cast<double>(stepped) * std::fabs(change); }

std::string short_commit(const History& h, const std::string& sha) {
  return sha == "unknown" ? sha : sha.substr(0, h.commit_digits);
}

namespace {

bool has_point(const TrendSeries& s, const std::string& date) {
  const auto it = std::lower_bound(s.points.begin(), s.points.end(), date,
                                   [](const TrendPoint& p, const std::string& d) { return p.date < d; });
  return it != s.points.end() && it->date == date;
}

const TrendSeries* series_of(const TrendConfig& c, const std::string& metric) {
  for (const auto& s : c.series)
    if (s.metric == metric) return &s;
  return nullptr;
}

// A change as the lead sentences give it: whole percents from 10% up, one decimal below.
std::string lead_pct(double f) {
  if (!std::isfinite(f)) return "from 0";
  return std::fabs(100 * f) >= 9.95 ? fmt::format("{:+.0f}%", 100 * f) : fmt::format("{:+.1f}%", 100 * f);
}

std::size_t configs_with(const History& h, const std::string& metric) {
  return static_cast<std::size_t>(std::count_if(h.configs.begin(), h.configs.end(),
                                                [&](const TrendConfig& c) { return series_of(c, metric); }));
}

}  // namespace

std::vector<TrendChange> trend_changes(const History& h) {
  using Key = std::tuple<std::string, std::string, std::string, std::string, bool>;
  std::map<Key, TrendChange> groups;
  std::map<Key, std::vector<double>> changes;
  for (const auto& c : h.configs)
    if (const TrendSeries* s = series_of(c, h.metric))
      for (const auto& t : s->steps) {
        if (!t.beyond_threshold) continue;
        const Key key{t.date, t.previous_date, t.previous_commit, t.commit, t.regression};
        TrendChange& g = groups[key];
        g.date = t.date;
        g.previous_date = t.previous_date;
        g.commit = t.commit;
        g.previous_commit = t.previous_commit;
        g.regression = t.regression;
        g.ids.push_back(c.id);
        changes[key].push_back(t.change);
      }
  std::vector<TrendChange> out;
  for (auto& [key, g] : groups) {
    g.stepped = g.ids.size();
    g.change = median(changes[key]);
    for (const auto& c : h.configs)
      if (const TrendSeries* s = series_of(c, h.metric))
        g.of += has_point(*s, g.previous_date) && has_point(*s, g.date);
    if (h.probe)
      for (const auto& t : h.probe->steps)
        if (t.beyond_threshold && t.date == g.date) g.probe_change = t.change;
    out.push_back(std::move(g));
  }
  std::stable_sort(out.begin(), out.end(), [](const TrendChange& a, const TrendChange& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    if (a.regression != b.regression) return a.regression;
    return a.date > b.date;
  });
  return out;
}

std::string change_sentence(const History& h, const TrendChange& c) {
  const std::string how = h.metric == "median_ms"
                              ? fmt::format("{} {}", lead_pct(c.change), c.regression ? "slower" : "faster")
                              : fmt::format("{}, {} {},", c.regression ? "worse" : "better", h.metric,
                                            lead_pct(c.change));
  const std::string probe =
      c.probe_change ? fmt::format("; the machine probe stepped {} the same night", lead_pct(*c.probe_change)) : "";
  return fmt::format("{} of {} configurations became {} between {} and {} (night {}{})", c.stepped, c.of, how,
                     short_commit(h, c.previous_commit), short_commit(h, c.commit), c.date, probe);
}

std::string commits_sentence(const History& h) {
  if (h.dates.empty()) return "The history holds no night.";
  const std::string tonight = fmt::format("Tonight's commit {} (night {})", short_commit(h, h.commits.back()),
                                          h.dates.back());
  if (h.baseline_commit) return fmt::format("{}; the baseline's {}.", tonight, short_commit(h, *h.baseline_commit));
  return fmt::format("{}; no baseline given: the history starts at {} (night {}).", tonight,
                     short_commit(h, h.commits.front()), h.dates.front());
}

std::string no_change_sentence(const History& h) {
  const std::string what = h.metric == "median_ms" ? std::string("became slower or faster")
                                                   : fmt::format("changed {}", h.metric);
  return fmt::format("None of {} configurations {} by more than ±{:g}% over {} nights.", configs_with(h, h.metric),
                     what, 100 * h.threshold, h.dates.size());
}

std::vector<std::string> lead_sentences(const History& h) {
  std::vector<std::string> out{commits_sentence(h)};
  for (const auto& c : trend_changes(h)) out.push_back(change_sentence(h, c) + ".");
  if (out.size() == 1) out.push_back(no_change_sentence(h));
  return out;
}

std::string probe_sentence(const History& h, const TrendStep& t) {
  return fmt::format("The machine probe stepped {} between {} and {} (night {}).", lead_pct(t.change),
                     short_commit(h, t.previous_commit), short_commit(h, t.commit), t.date);
}

namespace {

json step_json(const TrendStep& t) {
  return {{"date", t.date},
          {"previous_date", t.previous_date},
          {"commits", fmt::format("{}..{}", t.previous_commit, t.commit)},
          {"before", t.before},
          {"after", t.after},
          {"change", std::isfinite(t.change) ? json(t.change) : json(nullptr)},
          {"beyond_threshold", t.beyond_threshold},
          {"regression", t.regression}};
}

}  // namespace

json to_json(const History& h) {
  json cs = json::array();
  for (const auto& c : h.configs) {
    json ss = json::object(), steps = json::object();
    for (const auto& s : c.series) {
      json pts = json::array();
      for (const auto& p : s.points) pts.push_back({{"date", p.date}, {"value", p.value}});
      ss[s.metric] = pts;
      json st = json::array();
      for (const auto& t : s.steps) st.push_back(step_json(t));
      steps[s.metric] = st;
    }
    cs.push_back({{"id", c.id}, {"label", c.label}, {"series", ss}, {"steps", steps}});
  }
  json found = json::array();
  for (const auto& ref : steps_by_severity(h)) {
    json j = step_json(*ref.step);
    j["id"] = ref.config->id;
    j["label"] = ref.config->label;
    j["metric"] = ref.series->metric;
    found.push_back(j);
  }
  json changes = json::array();
  for (const auto& c : trend_changes(h))
    changes.push_back({{"sentence", change_sentence(h, c)},
                       {"metric", h.metric},
                       {"date", c.date},
                       {"previous_date", c.previous_date},
                       {"commits", fmt::format("{}..{}", c.previous_commit, c.commit)},
                       {"regression", c.regression},
                       {"stepped", c.stepped},
                       {"of", c.of},
                       {"change", std::isfinite(c.change) ? json(c.change) : json(nullptr)},
                       {"probe_change", c.probe_change ? json(*c.probe_change) : json(nullptr)},
                       {"ids", c.ids}});
  json probe = nullptr;
  if (h.probe) {
    json pts = json::array(), st = json::array();
    for (const auto& p : h.probe->points) pts.push_back({{"date", p.date}, {"value", p.value}});
    for (const auto& t : h.probe->steps) st.push_back(step_json(t));
    probe = {{"version", h.probe_version}, {"points", pts}, {"steps", st}};
  }
  return {{"schema", "ringbench.trend"},
          {"schema_version", "1.1.0"},
          {"lead", lead_sentences(h)},
          {"tonight_commit", h.commits.empty() ? json(nullptr) : json(h.commits.back())},
          {"baseline_commit", h.baseline_commit ? json(*h.baseline_commit) : json(nullptr)},
          {"changes", changes},
          {"machine_probe", probe},
          {"dates", h.dates},
          {"commits", h.commits},
          {"files", h.files},
          {"threshold", h.threshold},
          {"steps", found},
          {"configs", cs}};
}

}  // namespace rb::reports
