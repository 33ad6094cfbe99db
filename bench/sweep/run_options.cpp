// Parsing --inject-fault.
#include "bench/sweep/run_options.hpp"

#include <climits>

#include "common/error.hpp"
#include "common/strict_number.hpp"

namespace rb::bench {

FaultSpec parse_fault(const std::string& s) {
  if (s.empty()) return {};
  const auto at = s.find('@');
  const std::string kind = s.substr(0, at);
  if (at == std::string::npos ||
      (kind != "throw" && kind != "hang" && kind != "corrupt" && kind != "fatal" && kind != "throttle"))
    throw InputError("--inject-fault", s,
                     "must be KIND@N or KIND@N/R with KIND one of throw, hang, corrupt, fatal, throttle");
  // The strict reader, as every number of the command line; std::stoi took " 3" and "+3".
  auto number = [&](const std::string& text, int least, const char* rule) {
    try {
      return static_cast<int>(parse_integer(text, "--inject-fault", least, INT_MAX));
    } catch (const InputError&) {
      throw InputError("--inject-fault", s, rule);
    }
  };
  const std::string rest = s.substr(at + 1);
  const auto slash = rest.find('/');
  FaultSpec f{kind, number(rest.substr(0, slash), 0, "N must be a configuration index >= 0"), -1};
  if (slash != std::string::npos) f.round = number(rest.substr(slash + 1), 1, "R must be a round >= 1") - 1;
  return f;
}

}  // namespace rb::bench
