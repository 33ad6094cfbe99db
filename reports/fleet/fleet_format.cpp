// The fleet's verdict as JSON, as a console table and as JUnit XML (fleet.hpp).
#include <cmath>

#include <fmt/format.h>

#include "reports/fleet/fleet.hpp"
#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json to_json(const FleetPoint& p) {
  return {{"node", p.node},
          {"gpu", p.gpu.empty() ? json(nullptr) : json(p.gpu)},
          {"ranks", p.ranks},
          {"relative", number_or_null(p.relative)},
          {"shortfall", number_or_null(p.shortfall)},
          {"spreads", number_or_null(p.spreads)},
          {"configurations", p.configurations},
          {"outlier", p.outlier},
          {"why", p.why.empty() ? json(nullptr) : json(p.why)}};
}

// "+8.1%" of a node's figure against the fleet median, in the metric's own direction.
std::string against_median(const FleetPoint& p, double median) {
  if (!std::isfinite(p.relative) || !(median > 0)) return "—";
  return fmt::format("{:+.1f}%", 100 * (p.relative / median - 1));
}

}  // namespace

json to_json(const FleetReport& r) {
  json nodes = json::array();
  for (const auto& n : r.nodes)
    nodes.push_back({{"node", to_json(n.identity)},
                     {"file", n.file},
                     {"outlier", n.outlier},
                     {"worst_shortfall", n.worst_shortfall},
                     {"worst_metric", n.worst_metric},
                     {"findings", n.findings}});
  json metrics = json::array();
  for (const auto& m : r.metrics) {
    json ns = json::array(), gs = json::array();
    for (const auto& p : m.nodes) ns.push_back(to_json(p));
    for (const auto& p : m.gpus) gs.push_back(to_json(p));
    metrics.push_back({{"name", m.metric.name},
                       {"title", m.metric.title},
                       {"unit", m.metric.unit},
                       {"higher_is_better", m.metric.higher_is_better},
                       {"median", m.median},
                       {"spread", m.spread},
                       {"node_limit", m.node_limit},
                       {"gpu_median", m.gpu_median},
                       {"gpu_spread", m.gpu_spread},
                       {"gpu_limit", m.gpu_limit},
                       {"nodes", ns},
                       {"gpus", gs}});
  }
  json drift = json::array();
  for (const auto& d : r.drift)
    drift.push_back({{"node", d.node},
                     {"metric", d.metric},
                     {"from_file", d.from_file},
                     {"to_file", d.to_file},
                     {"from_utc", d.from_utc},
                     {"to_utc", d.to_utc},
                     {"change", d.change},
                     {"beyond", d.beyond}});
  return {{"schema", "ringbench.fleet"},
          {"schema_version", "1.0.0"},
          {"profile", r.profile},
          {"gpu_model", r.gpu_model},
          {"tool_major", r.tool_major},
          {"options",
           {{"max_shortfall", r.options.max_shortfall},
            {"spreads", r.options.spreads},
            {"min_shortfall", r.options.min_shortfall},
            {"min_nodes", r.options.min_nodes}}},
          {"judged", r.judged},
          {"na_reason", r.judged ? json(nullptr) : json(r.na_reason)},
          {"outliers", r.outlier_count()},
          {"nodes", nodes},
          {"metrics", metrics},
          {"drift", drift},
          {"notes", r.notes}};
}

std::string format_fleet_text(const FleetReport& r) {
  std::string out = fmt::format("fleet: {} nodes, profile {}, GPU {}, ringbench {}.x\n", r.nodes.size(), r.profile,
                                r.gpu_model, r.tool_major);
  out += fmt::format(
      "an outlier is worse than the fleet median by more than {:.1f}%, or by more than {:g} robust spreads and "
      "{:.1f}%\n",
      100 * r.options.max_shortfall, r.options.spreads, 100 * r.options.min_shortfall);
  for (const auto& n : r.nodes)
    for (const auto& f : n.findings) out += fmt::format("OUTLIER  {}  {}\n", n.identity.hostname, f);

  std::size_t wname = 4;
  for (const auto& n : r.nodes) wname = std::max(wname, n.identity.hostname.size());
  out += fmt::format("{:<{}}  {:<7}", "node", wname, "status");
  for (const auto& m : r.metrics)
    out += fmt::format("  {:>{}}", m.metric.title, std::max<std::size_t>(8, m.metric.title.size()));
  out += "  worst\n";
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    const FleetNode& n = r.nodes[i];
    out += fmt::format("{:<{}}  {:<7}", n.identity.hostname, wname, n.outlier ? "OUTLIER" : !r.judged ? "N/A" : "ok");
    for (const auto& m : r.metrics)
      out += fmt::format("  {:>{}}", i < m.nodes.size() ? against_median(m.nodes[i], m.median) : "—",
                         std::max<std::size_t>(8, m.metric.title.size()));
    out += n.worst_metric.empty() ? "  —\n" : fmt::format("  {:.1f}% {}\n", 100 * n.worst_shortfall, n.worst_metric);
  }
  for (const auto& d : r.drift)
    out += fmt::format("drift    {}  {} {:+.1f}% from {} to {}{}\n", d.node, d.metric, 100 * d.change, d.from_utc,
                       d.to_utc, d.beyond ? "  (beyond the limit)" : "");
  for (const auto& note : r.notes) out += fmt::format("note: {}\n", note);
  if (!r.judged && r.outlier_count() > 0)
    out += fmt::format("FAIL: {} outlier{} by what {} failed to measure; the rest not judged: {}\n", r.outlier_count(),
                       r.outlier_count() == 1 ? "" : "s", r.outlier_count() == 1 ? "it" : "they", r.na_reason);
  else if (!r.judged)
    out += fmt::format("N/A: {}\n", r.na_reason);
  else
    out += fmt::format("{}: {} outlier{} among {} nodes\n", r.outlier_count() ? "FAIL" : "PASS", r.outlier_count(),
                       r.outlier_count() == 1 ? "" : "s", r.nodes.size());
  return out;
}

std::string fleet_junit_xml(const FleetReport& r) {
  const int cases = static_cast<int>(r.nodes.size());
  // A node named by what it failed to measure fails even where the rest is too few to judge.
  const int failures = r.outlier_count();
  const int skipped = r.judged ? 0 : cases - failures;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  const std::string suite = xml_escape("ringbench fleet " + r.profile);
  x += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n", suite, cases,
                   failures, skipped);
  x += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n", suite, cases,
                   failures, skipped);
  x += "    <properties>\n";
  const auto prop = [&](const std::string& name, const std::string& value) {
    x += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name), xml_escape(value));
  };
  prop("profile", r.profile);
  prop("gpu_model", r.gpu_model);
  prop("max_shortfall", fmt::format("{:g}", r.options.max_shortfall));
  prop("spreads", fmt::format("{:g}", r.options.spreads));
  prop("min_shortfall", fmt::format("{:g}", r.options.min_shortfall));
  x += "    </properties>\n";
  for (const auto& n : r.nodes) {
    x += fmt::format("    <testcase classname=\"ringbench.fleet\" name=\"{}\" time=\"0\">\n",
                     xml_escape(n.identity.hostname));
    x += "      <properties>\n";
    x += fmt::format("        <property name=\"file\" value=\"{}\"/>\n", xml_escape(n.file));
    x += fmt::format("        <property name=\"started_utc\" value=\"{}\"/>\n", xml_escape(n.identity.started_utc));
    x += fmt::format("        <property name=\"git_sha\" value=\"{}\"/>\n", xml_escape(n.identity.git_sha));
    for (std::size_t g = 0; g < n.identity.gpus.size(); ++g)
      x += fmt::format("        <property name=\"gpu.{}.uuid\" value=\"{}\"/>\n", g,
                       xml_escape(n.identity.gpus[g].uuid));
    x += "      </properties>\n";
    if (!r.judged && !n.outlier) {
      x += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(r.na_reason));
    } else if (n.outlier) {
      std::string all;
      for (const auto& f : n.findings) all += (all.empty() ? "" : "; ") + f;
      x += fmt::format("      <failure type=\"outlier\" message=\"{}\">{}</failure>\n", xml_escape(all),
                       xml_escape(all));
    }
    x += "    </testcase>\n";
  }
  x += "  </testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace rb::reports
