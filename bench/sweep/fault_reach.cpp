// Whether --inject-fault can act where it is aimed (see fault_reach.hpp).
#include "bench/sweep/fault_reach.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "bench/sweep/backend_table.hpp"
#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/round_stages.hpp"
#include "common/error.hpp"
#include "ring/executor/injected_fault.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {

namespace {

// The faults the correctness check must catch: it runs on the first round's first pass only.
bool judged_by_the_check(FaultKind k) { return k == FaultKind::corrupt || k == FaultKind::wrong_block; }

}  // namespace

void check_fault_reach(const FaultSpec& fault, const std::vector<Config>& configs,
                       const std::vector<std::string>& invalid, const RunOptions& opts) {
  if (fault.kind == FaultKind::none) return;
  auto refuse = [&](const std::string& rule) { throw AgreedInputError("--inject-fault", fault.text, rule); };
  if (fault.round > 0 && judged_by_the_check(fault.kind))
    refuse(fmt::format("{} acts only where the correctness check runs, round 1 (R = {})", to_string(fault.kind),
                       fault.round + 1));
  for (const int n : fault.configs) {
    const auto i = static_cast<std::size_t>(n);
    if (n < 0 || i >= configs.size())
      refuse(configs.empty() ? fmt::format("N = {}: this sweep has no configurations", n)
                             : fmt::format("N = {} is not a configuration of this sweep, which has {} (0 to {})", n,
                                           configs.size(), configs.size() - 1));
    const Config& cfg = configs[i];
    if (i < invalid.size() && !invalid[i].empty())
      refuse(fmt::format("configuration {} ({}) does not run: {}", n, cfg.label(), invalid[i]));
    if (const int rounds = planned_rounds(cfg, opts); fault.round >= rounds)
      refuse(fmt::format("R = {} is past configuration {}'s {} round{} ({})", fault.round + 1, n, rounds,
                         rounds == 1 ? "" : "s", cfg.label()));
    const ring::InjectedFault pass = round_faults(fault, n, std::max(0, fault.round)).pass;
    if (pass == ring::InjectedFault::none) continue;
    if (!pair_of(cfg).pass_faults)
      refuse(fmt::format("{} cannot act on configuration {} ({}): its {} executor takes no injected pass fault",
                         to_string(fault.kind), n, cfg.label(), to_string(cfg.backend)));
    if (const std::string why = ring::injected_fault_cannot_act(pass, ring::make_plan(cfg)); !why.empty())
      refuse(fmt::format("{} cannot act on configuration {} ({}): {}", to_string(fault.kind), n, cfg.label(), why));
  }
}

}  // namespace rb::bench
