// Parsing and evaluating acceptance checks.
#include "reports/compare/accept.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "common/config.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/transport.hpp"
#include "reports/compare/compare.hpp"
#include "reports/results/metric_registry.hpp"
#include "reports/results/run_record.hpp"
#include "reports/results/run_record_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& path, const json& value, const std::string& rule) {
  throw InputError(fmt::format("{}: {}", source, path), json_text(value), rule);
}

const std::set<std::string> kWhereFields{"seq",    "cp",    "split",   "variant",   "heads",     "kv_heads", "head_dim",
                                         "causal", "dtype", "backend", "transport", "link_gbps", "kernel"};

// The value of a numeric check's metric in a run; nullopt when the run does not carry it.
std::optional<double> metric_value(const CheckSpec& c, const RunRecord& run) {
  const Metric* m = find_metric(c.metric);
  return m && m->value ? m->value(run, MetricContext{c.link_gbps}) : std::nullopt;
}

// Why the transfers of a run crossed no link a bandwidth fraction can be held against: another
// process (mpi, nccl) or another GPU (the local transport over several devices) crosses a real one,
// the link model an emulated one, and transfers inside one device's or one process's memory cross
// none. Decided by the run's config, so it holds for a run that failed too, except where only the
// timing says how many GPUs there were.
std::optional<std::string> crossed_no_link(const CheckSpec& c, const RunRecord& run) {
  const RecordConfig& cfg = run.config;
  if (cfg.cp <= 1) return "c = 1: nothing was transferred";
  // Another process's rank, or a transport this build does not know: its transfers left the process.
  if (const auto t = cfg.transport_kind(); !t || is_distributed(*t)) return std::nullopt;
  const auto model = cfg.link_gbps;
  if (model && *model > 0) {
    if (c.link_gbps && *c.link_gbps != *model)
      return fmt::format("the transfers were paced to the link model's {} Gbit/s, not the check's {} Gbit/s", *model,
                         *c.link_gbps);
    return std::nullopt;
  }
  if (cfg.backend == "cuda") {
    if (run.timing.devices && *run.timing.devices > 1) return std::nullopt;
    if (!run.timing.devices && run.status != RunStatus::ok) return std::nullopt;  // a failed run may not say
    return std::string("the local transport on one GPU: every transfer stayed in that device's memory");
  }
  return std::string("the local transport on the cpu backend: every transfer stayed in one process's memory");
}

// Why a run cannot measure check c, or nullopt when it can. A correctness check needs a run that
// was checked; the GPU-state checks need NVML's state or a per-sample clock. Of a run that failed
// only its config speaks: what it would have measured is unknown, an error of the run.
std::optional<std::string> not_applicable(const CheckSpec& c, const RunRecord& run) {
  if (c.metric == "comm_bandwidth_fraction") return crossed_no_link(c, run);
  // At c = 1 no rank sends: overlap and bandwidth have no transfer to be figures of (the record says
  // null), which is N/A, not a measurement missing.
  if (run.config.cp <= 1 && (c.metric == "overlap_fraction" || c.metric == "fwd_overlap_fraction" ||
                             c.metric == "bwd_overlap_fraction" || c.metric == "comm_bandwidth_gbyte_per_s"))
    return "c = 1: nothing was transferred";
  if (run.status != RunStatus::ok) return std::nullopt;
  if (c.metric == "correctness" && !(run.correctness && run.correctness->checked))
    return "the run's output was not checked against the reference";
  if (c.metric == "gpu_throttled" && !run.throttle().measured)
    return "no GPU state from NVML (not a cuda run, or NVML absent)";
  if (c.metric == "dropped_sample_fraction") {
    if (!run.throttle().clock_measured) return "no per-sample SM clock (not a cuda run, or --throttle-threshold 0)";
    if (run.throttle().taken == 0) return "no timed sample";
  }
  return std::nullopt;
}

// A where value that no run can hold (a split named "diagonal", a seq of "64") would match nothing
// and fail the check for the wrong reason: it is refused as the profile is read. Names go through
// the parsers of common/config, the one list of valid values.
void check_where_value(const std::string& field, const json& v, const std::string& source, const std::string& path) {
  const std::string where = fmt::format("{}: {}", source, path);
  auto name = [&](auto parse) {
    if (!v.is_string()) throw InputError(where, json_text(v), "must be a name");
    parse(v.get<std::string>(), where);
  };
  if (field == "split")
    name(parse_split);
  else if (field == "variant")
    name(parse_variant);
  else if (field == "dtype")
    name(parse_dtype);
  else if (field == "backend")
    name(parse_backend);
  else if (field == "transport")
    name(parse_transport);
  else if (field == "kernel")
    name(parse_kernel);
  else if (field == "causal") {
    if (!v.is_boolean()) throw InputError(where, json_text(v), "must be true or false");
  } else if (field == "link_gbps") {
    if (!v.is_number() || !(v.get<double>() >= 0))
      throw InputError(where, json_text(v), "must be a number >= 0 (Gbit/s)");
  } else if (!v.is_number_integer() || v.get<std::int64_t>() < 1) {
    throw InputError(where, json_text(v), "must be a positive integer");
  }
}

bool matches(const json& where, const json& config) {
  for (const auto& [key, want] : where.items()) {
    if (!config.contains(key)) return false;
    const json& have = config.at(key);
    auto equal = [&](const json& w) {
      return w.is_number() && have.is_number() ? w.get<double>() == have.get<double>() : w == have;
    };
    bool any = false;
    if (want.is_array()) {
      for (const auto& w : want) any = any || equal(w);
    } else {
      any = equal(want);
    }
    if (!any) return false;
  }
  return true;
}

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

const std::vector<std::pair<std::string, std::string>>& accept_metric_names() {
  static const std::vector<std::pair<std::string, std::string>> names = [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const Metric& m : all_metrics()) out.emplace_back(m.name, m.description);
    return out;
  }();
  return names;
}

std::string CheckSpec::required_text() const {
  if (metric == "correctness") return "pass";
  // Bounds as written in the profile (shortest round-trip form), so 1.000001 does not print as 1.
  if (min && max) return fmt::format("in [{}, {}]", *min, *max);
  if (min) return fmt::format(">= {}", *min);
  return fmt::format("<= {}", *max);
}

std::vector<CheckSpec> parse_checks(const json& checks, const std::string& source) {
  if (!checks.is_array() || checks.empty()) fail(source, "/checks", checks, "must be a non-empty list of checks");
  std::vector<CheckSpec> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    const json& c = checks[i];
    CheckSpec s;
    s.json_path = fmt::format("/checks/{}", i);
    const std::string& p = s.json_path;
    if (!c.is_object()) fail(source, p, c, "a check must be an object");
    if (!c.contains("metric")) fail(source, p + "/metric", json(nullptr), "a check needs a metric");
    for (const auto& [key, val] : c.items()) {
      const std::string kp = p + "/" + key;
      if (key == "metric") {
        if (!val.is_string()) fail(source, kp, val, "must be a string");
        s.metric = val.get<std::string>();
        bool known = false;
        std::string list;
        for (const auto& [n, _] : accept_metric_names()) {
          known = known || n == s.metric;
          list += (list.empty() ? "" : ", ") + n;
        }
        if (!known) fail(source, kp, val, "unknown metric; known: " + list);
      } else if (key == "name" || key == "description") {
        if (!val.is_string() || (key == "name" && val.get<std::string>().empty()))
          fail(source, kp, val, "must be a non-empty string");
        (key == "name" ? s.name : s.description) = val.get<std::string>();
      } else if (key == "min" || key == "max" || key == "link_gbps") {
        if (!val.is_number() || !std::isfinite(val.get<double>())) fail(source, kp, val, "must be a number");
        if (key == "link_gbps" && !(val.get<double>() > 0)) fail(source, kp, val, "must be positive (Gbit/s)");
        (key == "min" ? s.min : key == "max" ? s.max : s.link_gbps) = val.get<double>();
      } else if (key == "where") {
        if (!val.is_object()) fail(source, kp, val, "must be an object of config field -> value or list of values");
        for (const auto& [wk, wv] : val.items()) {
          if (!kWhereFields.count(wk))
            fail(source, kp + "/" + wk, wv,
                 "unknown config field; known: seq, cp, split, variant, heads, kv_heads, head_dim, causal, dtype, "
                 "backend, transport, link_gbps");
          const bool ok = wv.is_array()
                              ? !wv.empty() &&
                                    std::all_of(wv.begin(), wv.end(),
                                                [](const json& x) { return x.is_primitive() && !x.is_null(); })
                              : wv.is_primitive() && !wv.is_null();
          if (!ok) fail(source, kp + "/" + wk, wv, "must be a value or a non-empty list of values");
          const json items = wv.is_array() ? wv : json::array({wv});
          for (std::size_t k = 0; k < items.size(); ++k)
            check_where_value(wk, items[k], source, wv.is_array() ? fmt::format("{}/{}/{}", kp, wk, k) : kp + "/" + wk);
        }
        s.where = val;
      } else if (key != "$comment") {
        fail(source, kp, val, "unknown field; a check has name, metric, min, max, where, link_gbps, description");
      }
    }
    if (s.metric == "correctness") {
      if (s.min || s.max)
        fail(source, p + (s.min ? "/min" : "/max"), c.at(s.min ? "min" : "max"),
             "the correctness check takes no bounds: every matching run must pass");
    } else if (!s.min && !s.max) {
      fail(source, p, c, "a numeric check needs min, max or both");
    } else if (s.min && s.max && *s.min > *s.max) {
      fail(source, p + "/min", c.at("min"), "must not exceed max");
    }
    if (s.metric == "comm_bandwidth_fraction" && s.link_gbps && s.max && !s.min)
      fail(source, p + "/max", c.at("max"), "a bandwidth fraction is a floor: use min");
    if (s.link_gbps && s.metric != "comm_bandwidth_fraction")
      fail(source, p + "/link_gbps", c.at("link_gbps"), "only comm_bandwidth_fraction takes a link");
    if (s.name.empty()) s.name = s.metric + (s.where.empty() ? "" : " " + json_text(s.where));
    if (!names.insert(s.name).second)
      fail(source, p + "/name", json(s.name), "check names must be unique (they name the JUnit test suites)");
    out.push_back(std::move(s));
  }
  return out;
}

AcceptProfile parse_accept_profile(const json& doc, const std::string& source) {
  if (!doc.is_object()) fail(source, "/", json(doc.type_name()), "an acceptance profile must be a JSON object");
  AcceptProfile p;
  p.sweep_doc = json::object();
  for (const auto& [key, val] : doc.items()) {
    if (key == "checks") continue;
    if (key == "name" || key == "description" || key == "sweep" || key == "$comment")
      p.sweep_doc[key] = val;
    else
      fail(source, "/" + key, val, "unknown field; an acceptance profile has name, description, sweep and checks");
  }
  if (!doc.contains("checks")) fail(source, "/checks", json(nullptr), "an acceptance profile needs a checks list");
  p.checks = parse_checks(doc.at("checks"), source);
  p.name = doc.contains("name") && doc.at("name").is_string() ? doc.at("name").get<std::string>() : "acceptance";
  return p;
}

bool CheckResult::pass() const { return failures() == 0 && errors() == 0; }

bool CheckResult::na() const { return !outcomes.empty() && skipped() == static_cast<int>(outcomes.size()); }

int CheckResult::failures() const {
  int n = 0;
  for (const auto& o : outcomes) n += !o.pass && !o.na && !o.error;
  return n;
}

int CheckResult::errors() const {
  int n = 0;
  for (const auto& o : outcomes) n += o.error;
  return n;
}

int CheckResult::skipped() const {
  int n = 0;
  for (const auto& o : outcomes) n += o.na;
  return n;
}

std::string_view CheckResult::result() const {
  return failures() > 0 ? "FAIL" : errors() > 0 ? "ERROR" : na() ? "N/A" : "PASS";
}

const CheckOutcome& CheckResult::worst() const {
  const CheckOutcome* w = &outcomes.front();
  auto badness = [&](const CheckOutcome& o) {
    if (!o.value) return o.pass ? -1e300 : 1e300;  // a run with nothing measured is the worst failure
    double b = -1e300;
    if (spec.min) b = std::max(b, *spec.min - *o.value);
    if (spec.max) b = std::max(b, *o.value - *spec.max);
    return b;
  };
  // Failures first, then measured outcomes (what an ERROR check's measured runs reached), then
  // errors, then N/A ones.
  auto rank = [](const CheckOutcome& o) { return o.na ? 0 : o.error ? 1 : o.pass ? 2 : 3; };
  for (const auto& o : outcomes) {
    if (rank(o) > rank(*w) || (rank(o) == rank(*w) && badness(o) > badness(*w))) w = &o;
  }
  return *w;
}

bool AcceptReport::pass() const { return failed_checks() == 0 && error_checks() == 0 && verdict_reason().empty(); }

std::string AcceptReport::verdict_reason() const {
  if (!incomplete.empty()) {
    std::string why = incomplete.front();
    for (std::size_t i = 1; i < incomplete.size() && i < 3; ++i) why += "; " + incomplete[i];
    if (incomplete.size() > 3) why += fmt::format("; and {} more", incomplete.size() - 3);
    return why;
  }
  for (const auto& c : checks)
    if (c.spec.metric == "correctness" && c.na()) return fmt::format("the correctness check '{}' is N/A", c.spec.name);
  if (!checks.empty() && na_checks() == static_cast<int>(checks.size()))
    return "every check is N/A: nothing was measured";
  return {};
}

int AcceptReport::passed_checks() const {
  return static_cast<int>(checks.size()) - failed_checks() - error_checks() - na_checks();
}

int AcceptReport::failed_checks() const {
  int n = 0;
  for (const auto& c : checks) n += c.failures() > 0;
  return n;
}

int AcceptReport::error_checks() const {
  int n = 0;
  for (const auto& c : checks) n += c.failures() == 0 && c.errors() > 0;
  return n;
}

int AcceptReport::na_checks() const {
  int n = 0;
  for (const auto& c : checks) n += c.pass() && c.na();
  return n;
}

namespace {

// The metrics a run's plan alone decides (the split's exact work per rank): what the execution did
// cannot change them, so a run that failed is still judged on them, from its plan.
bool decided_by_plan(const CheckSpec& c) { return c.metric == "work_imbalance"; }

std::optional<double> plan_value(const CheckSpec& c, const RunRecord& run) {
  return decided_by_plan(c) && run.plan.present ? run.plan.work_imbalance : std::nullopt;
}

void judge(const CheckSpec& spec, double value, CheckOutcome& o) {
  o.value = value;
  o.pass = (!spec.min || value >= *spec.min) && (!spec.max || value <= *spec.max);
  o.measured = fmt_num(value);
  if (!o.pass) o.cause = "threshold";
}

void judge_correctness(const RunRecord& run, CheckOutcome& o) {
  const bool ok = run.status == RunStatus::ok;
  const bool checked_and_failed = run.correctness && run.correctness->checked && run.correctness->passed == false;
  o.pass = ok && run.correctness && run.correctness->passed.value_or(false);
  if (o.pass) {
    o.measured = "passed";
    return;
  }
  o.measured = ok ? "output differs from the reference" : fmt::format("run {}: {}", to_string(run.status), run.reason);
  o.cause = checked_and_failed ? "correctness" : "run-failed";
}

// A run that did not finish measured nothing a metric check reads; its failure is counted once, by
// the correctness check, so here it is an error of the run. The plan it was given still stands.
void judge_failed_run(const CheckSpec& spec, const RunRecord& run, CheckOutcome& o) {
  if (const auto v = plan_value(spec, run)) return judge(spec, *v, o);
  o.error = true;
  o.cause = "run-failed";
  o.measured = fmt::format("run {}: {}", to_string(run.status), run.reason);
  if (decided_by_plan(spec)) o.measured += " (and its record has no plan)";
}

CheckOutcome outcome_of(const CheckSpec& spec, const RunRecord& run) {
  CheckOutcome o;
  o.run_id = run.config.id;
  o.run_label = label(run.config);
  if (run.timing.median_ms) o.seconds = *run.timing.median_ms / 1e3;
  if (const auto why = not_applicable(spec, run)) {
    o.na = true;
    o.measured = "N/A: " + *why;
  } else if (spec.metric == "correctness") {
    judge_correctness(run, o);
  } else if (run.status != RunStatus::ok) {
    judge_failed_run(spec, run, o);
  } else if (const auto v = metric_value(spec, run)) {
    judge(spec, *v, o);
  } else {
    o.cause = "not-measured";
    o.measured = spec.metric == "comm_bandwidth_fraction" && !spec.link_gbps
                     ? "not measured (no comm bandwidth, or no link_gbps in the check or the config)"
                     : "not measured (" + spec.metric + " is absent or null in this run)";
  }
  return o;
}

// {"cp": [2, 4], "split": "zigzag"}: the filter as the profile's author wrote it, spaced to be read.
std::string where_text(const json& where) {
  std::string out;
  for (const auto& [key, val] : where.items()) {
    std::string v;
    if (val.is_array())
      for (const auto& x : val) v += (v.empty() ? "" : ", ") + json_text(x);
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", json_text(json(key)),
                       val.is_array() ? "[" + v + "]" : json_text(val));
  }
  return "{" + out + "}";
}

CheckOutcome no_match(const CheckSpec& spec) {
  CheckOutcome o;
  o.cause = "no-match";
  o.measured = spec.where.empty() ? "no run in the results file" : "no run matches where " + where_text(spec.where);
  return o;
}

// What keeps the sweep from being whole (AcceptReport::incomplete). A run that failed is not listed:
// its failure is already the correctness check's (one failure, one cause).
std::vector<std::string> incompleteness(const ResultsFile& results, const std::vector<RunRecord>& runs) {
  std::vector<std::string> out;
  const json& d = results.doc;
  if (d.contains("stopped") && d.at("stopped").is_string() && !d.at("stopped").get_ref<const std::string&>().empty())
    out.push_back(fmt::format("the sweep did not finish: {}", d.at("stopped").get<std::string>()));
  else if (results.path.extension() == ".jsonl")
    out.push_back("the sweep did not finish: a results.jsonl without its results.json (the sweep was killed)");
  for (const RunRecord& r : runs) {
    if (r.status != RunStatus::ok || !r.alias_of.empty()) continue;
    const RecordTiming& t = r.timing;
    if (t.rounds && t.rounds_planned && *t.rounds < *t.rounds_planned)
      out.push_back(fmt::format("{}: ran {} of {} rounds", label(r.config), *t.rounds, *t.rounds_planned));
    else if (t.present && t.stopping && !t.rounds_planned)
      out.push_back(fmt::format("{}: still sampling to its noise target when the sweep ended", label(r.config)));
  }
  return out;
}

// The file's own version: a converted file says what it was converted from.
std::string version_as_written(const ResultsFile& results) {
  const json& d = results.doc;
  for (const char* k : {"converted_from", "schema_version"})
    if (d.contains(k) && d.at(k).is_string()) return d.at(k).get<std::string>();
  return {};
}

}  // namespace

AcceptReport evaluate_checks(const std::string& profile, const std::vector<CheckSpec>& checks,
                             const ResultsFile& results) {
  AcceptReport rep;
  rep.profile = profile;
  rep.results_path = results.path.string();
  rep.node = node_identity(results.doc);
  rep.results_version = version_as_written(results);
  std::vector<RunRecord> runs;
  std::vector<json> configs;  // a check's `where` names config fields as the one writer serialises them
  for (const auto& run_json : results.runs()) {
    runs.push_back(read_run_record(run_json));
    configs.push_back(to_json(runs.back().config));
    const std::string& b = runs.back().config.backend;
    if (std::find(rep.backends.begin(), rep.backends.end(), b) == rep.backends.end()) rep.backends.push_back(b);
  }
  rep.incomplete = incompleteness(results, runs);
  for (const auto& spec : checks) {
    CheckResult cr;
    cr.spec = spec;
    std::set<std::string> matched;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (matches(spec.where, configs[i])) matched.insert(runs[i].config.id);
    // A c = 1 alias repeats the measurement of the configuration it names: where the check covers
    // that one too, the alias is the same outcome and counts once (one failure, one cause).
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (matches(spec.where, configs[i]) && !(runs[i].alias_of.size() && matched.count(runs[i].alias_of)))
        cr.outcomes.push_back(outcome_of(spec, runs[i]));
    if (cr.outcomes.empty()) cr.outcomes.push_back(no_match(spec));
    rep.checks.push_back(std::move(cr));
  }
  return rep;
}

}  // namespace rb::reports
