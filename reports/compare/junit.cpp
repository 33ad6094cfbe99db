// JUnit XML writer.
#include "reports/compare/junit.hpp"

#include <fmt/format.h>

#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

std::string property(const std::string& name, const std::string& value) {
  return fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name), xml_escape(value));
}

// Every suite carries the node, so a CI job that merges the files of many nodes can still say which
// node, which build and which run each case came from. A field the results file lacks is left out.
std::string node_properties(const NodeIdentity& n) {
  std::string x = property("node.hostname", n.label());
  const auto known = [&](const std::string& name, const std::string& value) {
    if (!value.empty()) x += property(name, value);
  };
  known("node.started_utc", n.started_utc);
  known("node.finished_utc", n.finished_utc);
  known("node.build_type", n.build_type);
  known("node.git_sha", n.git_sha);
  known("node.tool_version", n.tool_version);
  for (const auto& [library, version] : n.versions) known("node.version." + library, version);
  for (std::size_t i = 0; i < n.gpus.size(); ++i) {
    const GpuIdentity& g = n.gpus[i];
    const std::string p = fmt::format("node.gpu.{}.", i);
    known(p + "uuid", g.uuid);
    known(p + "serial", g.serial);
    known(p + "pci_bus_id", g.pci_bus_id);
    known(p + "board", g.board);
    known(p + "name", g.name);
  }
  return x;
}

// JUnit's schema (Ant's, which Jenkins validates against) takes hostname on every suite and a
// timestamp without a time zone: the run's start in UTC, its "Z" dropped (node.started_utc keeps it).
std::string node_attributes(const NodeIdentity& n) {
  std::string x = fmt::format(" hostname=\"{}\"", xml_escape(n.label()));
  if (!n.started_utc.empty()) {
    std::string t = n.started_utc;
    if (t.ends_with('Z')) t.pop_back();
    x += fmt::format(" timestamp=\"{}\"", xml_escape(t));
  }
  return x;
}

std::string testcase(const CheckResult& c, const CheckOutcome& o) {
  // classname groups the cases under the check in CI views that ignore the suite.
  const std::string classname = xml_escape("ringbench.accept." + c.spec.name);
  const std::string name = o.run_id.empty() ? "no matching run" : o.run_label + " [" + o.run_id + "]";
  const std::string line = xml_escape(c.spec.name + ": " + outcome_text(c.spec, o));
  std::string x = fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">\n", classname,
                              xml_escape(name), o.seconds.value_or(0.0));
  if (o.na)
    x += fmt::format("      <skipped message=\"{}\"/>\n", line);
  else if (o.error)
    x += fmt::format("      <error type=\"{}\" message=\"{}\">{}</error>\n", xml_escape(o.cause), line, line);
  else if (!o.pass)
    x += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n", xml_escape(o.cause), line, line);
  x += fmt::format("      <system-out>{}</system-out>\n", line);
  return x + "    </testcase>\n";
}

std::string testsuite(const AcceptReport& rep, const CheckResult& c) {
  double seconds = 0;
  for (const auto& o : c.outcomes) seconds += o.seconds.value_or(0.0);
  std::string x = fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.6f}\"{}>\n",
      xml_escape(rep.node.label() + ": " + c.spec.name), c.outcomes.size(), c.failures(), c.errors(), c.skipped(),
      seconds, node_attributes(rep.node));
  x += "    <properties>\n";
  x += property("metric", c.spec.metric);
  x += property("required", c.spec.required_text());
  x += property("where", c.spec.where.dump());
  x += property("results", rep.results_path);
  x += node_properties(rep.node);
  x += "    </properties>\n";
  for (const auto& o : c.outcomes) x += testcase(c, o);
  return x + "  </testsuite>\n";
}

// A profile that fails beyond its checks (a sweep that did not run whole, its correctness check
// N/A, or every check N/A) gets one failing case of its own, so a CI view that counts failures sees
// it, with the cause as its type: "incomplete" or "not-measured".
std::string profile_suite(const AcceptReport& rep, const std::string& why) {
  std::string x =
      fmt::format("  <testsuite name=\"{}\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0\"{}>\n",
                  xml_escape(rep.node.label() + ": profile"), node_attributes(rep.node));
  x += "    <properties>\n" + property("results", rep.results_path) + node_properties(rep.node) + "    </properties>\n";
  x += fmt::format("    <testcase classname=\"ringbench.accept.profile\" name=\"{}\" time=\"0\">\n",
                   xml_escape(rep.profile));
  std::string all = why;  // the message says the first few; the body lists every one
  if (!rep.incomplete.empty()) {
    all.clear();
    for (const auto& line : rep.incomplete) all += line + "\n";
  }
  x += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                   rep.incomplete.empty() ? "not-measured" : "incomplete", xml_escape(why), xml_escape(all));
  return x + "    </testcase>\n  </testsuite>\n";
}

}  // namespace

std::string junit_xml(const AcceptReport& rep) {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  for (const auto& c : rep.checks) {
    tests += static_cast<int>(c.outcomes.size());
    failures += c.failures();
    errors += c.errors();
    skipped += c.skipped();
  }
  const std::string why = rep.verdict_reason();
  if (!why.empty()) {
    ++tests;
    ++failures;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                   xml_escape(rep.node.label() + ": ringbench accept " + rep.profile), tests, failures, errors,
                   skipped);
  for (const auto& c : rep.checks) x += testsuite(rep, c);
  if (!why.empty()) x += profile_suite(rep, why);
  return x + "</testsuites>\n";
}

}  // namespace rb::reports
