// JUnit XML for acceptance results, in the dialect CI systems read (Jenkins, GitLab, GitHub
// reporters): one <testsuite> per check, named "<hostname>: <check>" so the suites of many nodes stay
// apart in one CI view, with the node's hostname, run start (timestamp) and identity as properties;
// one <testcase> per run it covers. A value outside the bounds is a <failure type="threshold">, a
// check that matched no run one failing case of type "no-match", and a check that needs what a
// failed run never measured an <error type="run-failed">: the run's failure is counted once, by
// the correctness check.
#pragma once

#include <string>

#include "reports/compare/accept.hpp"

namespace rb::reports {

std::string junit_xml(const AcceptReport& report);

}  // namespace rb::reports
