// The acceptance report as text and as JSON (reports/compare/accept.schema.json).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "reports/compare/accept.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

constexpr std::string_view kNaPrefix = "N/A: ";

// Only the run's times and the build type arrived in results 2.5.0; a field older than that which a
// file lacks was not written for another reason, and saying "older than 2.5.0" would mislead.
std::string not_recorded(const AcceptReport& rep, std::string_view path) {
  int major = 0, minor = 0, patch = 0;
  const bool older = parse_semver(rep.results_version, major, minor, patch) && (major < 2 || (major == 2 && minor < 5));
  const bool new_in_2_5 = path.starts_with("/run_time") || path == "/tool/build_type";
  return older && new_in_2_5 ? "not recorded (results older than 2.5.0)" : "not recorded";
}

std::string field(const AcceptReport& rep, const std::string& value, std::string_view path) {
  return value.empty() ? not_recorded(rep, path) : value;
}

// Leads the text, so a log of many nodes' acceptance says which node and which run each verdict is.
std::string node_lines(const AcceptReport& rep) {
  const NodeIdentity& n = rep.node;
  std::string out = fmt::format("node   {}\n", field(rep, n.hostname, "/host/hostname"));
  if (n.gpus.empty()) {
    // An empty GPU list says "no GPU" only of a cpu run; an older cuda file simply did not list them.
    const bool cpu = !rep.backends.empty() && std::all_of(rep.backends.begin(), rep.backends.end(),
                                                          [](const std::string& b) { return b == "cpu"; });
    out += fmt::format("GPUs   {}\n", cpu ? "no GPU (cpu backend)" : "not recorded");
  }
  for (std::size_t i = 0; i < n.gpus.size(); ++i) {
    const GpuIdentity& g = n.gpus[i];
    std::string about = g.name;
    if (!g.pci_bus_id.empty()) about += (about.empty() ? "" : ", ") + g.pci_bus_id;
    out += fmt::format("GPU {}  {}{}\n", i, g.uuid.empty() ? "uuid not recorded" : g.uuid,
                       about.empty() ? "" : " (" + about + ")");
  }
  if (n.started_utc.empty() && n.finished_utc.empty())
    out += fmt::format("run    {}\n", not_recorded(rep, "/run_time"));
  else
    out += fmt::format("run    {} to {}\n", field(rep, n.started_utc, "/run_time/started_utc"),
                       field(rep, n.finished_utc, "/run_time/finished_utc"));
  out += fmt::format("build  type {}, commit {}, ringbench {}\n", field(rep, n.build_type, "/tool/build_type"),
                     field(rep, n.git_sha, "/tool/git_sha"), field(rep, n.tool_version, "/tool/version"));
  return out;
}

std::set<std::string> na_reasons(const CheckResult& c) {
  std::set<std::string> out;
  for (const auto& o : c.outcomes)
    if (o.na) out.insert(outcome_text(c.spec, o));
  return out;
}

// What the check's line says it measured: the worst run, or why there is nothing to show.
std::string headline(const CheckResult& c) {
  const CheckOutcome& w = c.worst();
  if (w.run_id.empty()) return w.measured;  // no run matches where {...}
  if (c.na()) {
    const auto reasons = na_reasons(c);
    return reasons.size() == 1 ? fmt::format("measured {} (every run)", w.measured)
                               : fmt::format("N/A for {} reasons (each run below)", reasons.size());
  }
  if (w.error) return "nothing measured: the runs failed (below)";
  return fmt::format("measured {} (worst: {})", w.measured, w.run_label);
}

std::string runs_text(const CheckResult& c) {
  const CheckOutcome& w = c.worst();
  const int measured = static_cast<int>(c.outcomes.size()) - c.skipped() - c.errors();
  std::string runs = fmt::format("{}/{} runs", measured - c.failures(), w.run_id.empty() ? 0 : measured);
  if (c.skipped() > 0) runs += fmt::format(", {} N/A", c.skipped());
  if (c.errors() > 0) runs += fmt::format(", {} run error{}", c.errors(), c.errors() == 1 ? "" : "s");
  return runs;
}

// The runs under a check that a reader must see one by one: failures, errors, and N/A runs unless
// they all share the one reason the check's line already gives.
std::string run_lines(const CheckResult& c) {
  const bool list_na = !(c.na() && na_reasons(c).size() == 1);
  std::string out;
  for (const auto& o : c.outcomes) {
    if (o.run_id.empty() || o.pass || (o.na && !list_na)) continue;
    const std::string_view state = o.na ? "N/A" : o.error ? "ERROR" : "FAIL";
    out += fmt::format("      {:<5} {}: {}\n", state, o.run_label, outcome_text(c.spec, o));
  }
  return out;
}

std::string summary_line(const AcceptReport& rep) {
  std::string out = fmt::format("{}: {} of {} checks passed", rep.pass() ? "PASS" : "FAIL", rep.passed_checks(),
                                rep.checks.size());
  if (rep.failed_checks() > 0) out += fmt::format(", {} failed", rep.failed_checks());
  if (rep.error_checks() > 0) out += fmt::format(", {} with run errors", rep.error_checks());
  if (rep.na_checks() > 0) out += fmt::format(", {} N/A", rep.na_checks());
  const std::string why = rep.verdict_reason();
  return out + (why.empty() ? "" : " (" + why + ")") + "\n";
}

json outcome_json(const CheckOutcome& o) {
  return {{"id", o.run_id},         {"label", o.run_label},
          {"pass", o.pass},         {"na", o.na},
          {"error", o.error},       {"cause", o.cause.empty() ? json(nullptr) : json(o.cause)},
          {"measured", o.measured}, {"value", o.value ? json(*o.value) : json(nullptr)}};
}

}  // namespace

std::string outcome_text(const CheckSpec& spec, const CheckOutcome& o) {
  if (o.na) return o.measured.starts_with(kNaPrefix) ? o.measured.substr(kNaPrefix.size()) : o.measured;
  // A correctness check's outcome is its own sentence: "passed", "run failed: <reason>".
  if (o.error || o.run_id.empty() || spec.metric == "correctness") return o.measured;
  return fmt::format("measured {}, required {}", o.measured, spec.required_text());
}

nlohmann::json AcceptReport::to_json() const {
  json cs = json::array();
  for (const auto& c : checks) {
    json os = json::array();
    for (const auto& o : c.outcomes) os.push_back(outcome_json(o));
    cs.push_back({{"name", c.spec.name},
                  {"metric", c.spec.metric},
                  {"required", c.spec.required_text()},
                  {"where", c.spec.where},
                  {"pass", c.pass()},
                  {"result", c.result()},
                  {"failures", c.failures()},
                  {"errors", c.errors()},
                  {"skipped", c.skipped()},
                  {"runs", os}});
  }
  const std::string why = verdict_reason();
  return {{"schema", "ringbench.accept"},
          {"schema_version", kAcceptSchemaVersion},
          {"profile", profile},
          {"results", results_path},
          {"node", reports::to_json(node)},
          {"pass", pass()},
          {"reason", why.empty() ? json(nullptr) : json(why)},
          {"summary",
           {{"checks", checks.size()},
            {"passed", passed_checks()},
            {"failed", failed_checks()},
            {"errors", error_checks()},
            {"na", na_checks()}}},
          {"checks", cs}};
}

std::string format_accept_text(const AcceptReport& rep) {
  std::size_t wname = 5;
  for (const auto& c : rep.checks) wname = std::max(wname, c.spec.name.size());
  std::string out = fmt::format("accept {}: {}\n", rep.profile, rep.results_path) + node_lines(rep);
  for (const auto& c : rep.checks) {
    out += fmt::format("{:<5} {:<{}}  {}  required {}  [{}]\n", c.result(), c.spec.name, wname, headline(c),
                       c.spec.required_text(), runs_text(c));
    out += run_lines(c);
  }
  for (const auto& line : rep.incomplete) out += fmt::format("INCOMPLETE  {}\n", line);
  return out + summary_line(rep);
}

}  // namespace rb::reports
