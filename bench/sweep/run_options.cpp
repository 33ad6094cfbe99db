// Parsing --inject-fault.
#include "bench/sweep/run_options.hpp"

#include <algorithm>
#include <array>
#include <climits>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strict_number.hpp"

namespace rb::bench {
namespace {

struct FaultName {
  FaultKind kind;
  std::string_view name;
};
constexpr std::array<FaultName, 5> kFaultNames{{{FaultKind::throw_in_pass, "throw"},
                                                {FaultKind::hang, "hang"},
                                                {FaultKind::corrupt, "corrupt"},
                                                {FaultKind::fatal, "fatal"},
                                                {FaultKind::throttle, "throttle"}}};

}  // namespace

std::string_view to_string(FaultKind k) {
  for (const auto& f : kFaultNames)
    if (f.kind == k) return f.name;
  return "";
}

FaultSpec parse_fault(const std::string& s) {
  if (s.empty()) return {};
  const auto at = s.find('@');
  const std::string name = s.substr(0, at);
  const auto* known = std::find_if(kFaultNames.begin(), kFaultNames.end(),
                                   [&](const auto& f) { return f.name == name; });
  if (at == std::string::npos || known == kFaultNames.end()) {
    std::string kinds;
    for (const auto& f : kFaultNames) kinds += fmt::format("{}{}", kinds.empty() ? "" : ", ", f.name);
    throw InputError("--inject-fault", s, fmt::format("must be KIND@N or KIND@N/R with KIND one of {}", kinds));
  }
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
  FaultSpec f{known->kind, number(rest.substr(0, slash), 0, "N must be a configuration index >= 0"), -1};
  if (slash != std::string::npos) f.round = number(rest.substr(slash + 1), 1, "R must be a round >= 1") - 1;
  return f;
}

}  // namespace rb::bench
