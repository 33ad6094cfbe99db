// JUnit XML writer.
#include "reports/compare/junit.hpp"

#include <fmt/format.h>

#include "reports/html/html_text.hpp"

namespace rb::reports {

std::string junit_xml(const AcceptReport& rep) {
  int tests = 0, failures = 0, skipped = 0;
  for (const auto& c : rep.checks) {
    tests += static_cast<int>(c.outcomes.size());
    failures += c.failures();
    skipped += c.skipped();
  }
  // A profile that fails with no failing check (its correctness check N/A, or every check N/A)
  // gets one failing case of its own, so a CI view that counts failures sees it.
  const std::string why = rep.verdict_reason();
  if (!why.empty()) {
    ++tests;
    ++failures;
  }
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                   xml_escape("ringbench accept " + rep.profile), tests, failures, skipped);
  for (const auto& c : rep.checks) {
    double seconds = 0;
    for (const auto& o : c.outcomes) seconds += o.seconds.value_or(0.0);
    x += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.6f}\">\n",
        xml_escape(c.spec.name), c.outcomes.size(), c.failures(), c.skipped(), seconds);
    x += "    <properties>\n";
    x += fmt::format("      <property name=\"metric\" value=\"{}\"/>\n", xml_escape(c.spec.metric));
    x += fmt::format("      <property name=\"required\" value=\"{}\"/>\n", xml_escape(c.spec.required_text()));
    x += fmt::format("      <property name=\"where\" value=\"{}\"/>\n", xml_escape(c.spec.where.dump()));
    x += fmt::format("      <property name=\"results\" value=\"{}\"/>\n", xml_escape(rep.results_path));
    x += "    </properties>\n";
    // classname groups the cases under the check in CI views that ignore the suite.
    const std::string classname = xml_escape("ringbench.accept." + c.spec.name);
    for (const auto& o : c.outcomes) {
      const std::string name = o.run_id.empty() ? "no matching run" : o.run_label + " [" + o.run_id + "]";
      const std::string line = fmt::format("{}: measured {}, required {}", c.spec.name, o.measured,
                                           c.spec.required_text());
      x += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.6f}\">\n", classname, xml_escape(name),
                       o.seconds.value_or(0.0));
      if (o.na)
        x += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(line));
      else if (!o.pass)
        x += fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                         o.run_id.empty() ? "no-match" : "threshold", xml_escape(line), xml_escape(line));
      x += fmt::format("      <system-out>{}</system-out>\n", xml_escape(line));
      x += "    </testcase>\n";
    }
    x += "  </testsuite>\n";
  }
  if (!why.empty()) {
    x += "  <testsuite name=\"profile\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0\">\n";
    x += fmt::format("    <testcase classname=\"ringbench.accept.profile\" name=\"{}\" time=\"0\">\n",
                     xml_escape(rep.profile));
    x += fmt::format("      <failure type=\"not-measured\" message=\"{}\">{}</failure>\n", xml_escape(why),
                     xml_escape(why));
    x += "    </testcase>\n  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

}  // namespace rb::reports
