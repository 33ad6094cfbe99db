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
constexpr std::array<FaultName, 7> kFaultNames{{{FaultKind::throw_in_pass, "throw"},
                                                {FaultKind::hang, "hang"},
                                                {FaultKind::corrupt, "corrupt"},
                                                {FaultKind::fatal, "fatal"},
                                                {FaultKind::throttle, "throttle"},
                                                {FaultKind::slow, "slow"},
                                                {FaultKind::wrong_block, "wrong-block"}}};
constexpr double kMaxSlowPct = 1000;

}  // namespace

std::string_view to_string(FaultKind k) {
  for (const auto& f : kFaultNames)
    if (f.kind == k) return f.name;
  return "";
}

bool FaultSpec::aims_at(int config) const { return std::find(configs.begin(), configs.end(), config) != configs.end(); }

FaultSpec parse_fault(const std::string& s) {
  if (s.empty()) return {};
  const auto at = s.find('@');
  const std::string head = s.substr(0, at);
  const auto colon = head.find(':');
  const std::string name = head.substr(0, colon);
  const auto* known = std::find_if(kFaultNames.begin(), kFaultNames.end(),
                                   [&](const auto& f) { return f.name == name; });
  if (at == std::string::npos || known == kFaultNames.end()) {
    std::string kinds;
    for (const auto& f : kFaultNames) kinds += fmt::format("{}{}", kinds.empty() ? "" : ", ", f.name);
    throw InputError("--inject-fault", s,
                     fmt::format("must be KIND@N[,N...][/R] with KIND one of {} (slow as slow:PCT)", kinds));
  }
  // The strict reader, as every number of the command line; std::stoi took " 3" and "+3".
  auto number = [&](const std::string& text, int least, const char* rule) {
    try {
      return static_cast<int>(parse_integer(text, "--inject-fault", least, INT_MAX));
    } catch (const InputError&) {
      throw InputError("--inject-fault", s, rule);
    }
  };
  FaultSpec f;
  f.kind = known->kind;
  f.text = s;
  if (f.kind == FaultKind::slow) {
    std::string pct = colon == std::string::npos ? "" : head.substr(colon + 1);
    if (!pct.empty() && pct.back() == '%') pct.pop_back();
    const std::string rule = fmt::format("slow needs slow:PCT with PCT a percentage in (0, {:g}]", kMaxSlowPct);
    try {
      f.slow_pct = parse_number(pct, "--inject-fault", NumberRange{.lo = 0, .hi = kMaxSlowPct, .lo_open = true});
    } catch (const InputError&) {
      throw InputError("--inject-fault", s, rule);
    }
  } else if (colon != std::string::npos) {
    throw InputError("--inject-fault", s, fmt::format("only slow takes a value after ':', not {}", name));
  }
  const std::string rest = s.substr(at + 1);
  const auto slash = rest.find('/');
  const std::string list = rest.substr(0, slash);
  for (std::size_t begin = 0;;) {
    const auto comma = list.find(',', begin);
    f.configs.push_back(number(list.substr(begin, comma - begin), 0, "N must be a configuration index >= 0"));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (slash != std::string::npos) f.round = number(rest.substr(slash + 1), 1, "R must be a round >= 1") - 1;
  return f;
}

}  // namespace rb::bench
