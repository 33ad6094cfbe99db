// JUnit XML for acceptance results, in the dialect CI systems read (Jenkins, GitLab, GitHub
// reporters): one <testsuite> per check, named by the check, one <testcase> per run it covers, a
// <failure> carrying measured against required. A check that matched no run is one failing testcase.
#pragma once

#include <string>

#include "reports/compare/accept.hpp"

namespace rb::reports {

std::string junit_xml(const AcceptReport& report);

}  // namespace rb::reports
