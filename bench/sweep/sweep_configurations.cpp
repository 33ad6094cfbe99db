// Expanding and validating a sweep's configurations.
#include "bench/sweep/sweep_configurations.hpp"

#include <set>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/kernel_choice.hpp"
#include "common/error.hpp"
#include "reports/results/config_json.hpp"
#include "ring/plan.hpp"

namespace rb::bench {

std::vector<Config> expand_configurations(const SweepSpec& spec) {
  std::vector<Config> out;
  std::set<std::string> seen;
  for (auto c : expand(spec)) {
    c.kernel = choose_kernel(c);  // before the ids: the kernel is part of one
    if (seen.insert(reports::config_id(c)).second) out.push_back(c);
  }
  return out;
}

std::vector<std::string> validate_configurations(const std::vector<Config>& configs, const RunOptions& opts) {
  std::vector<std::string> invalid(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    try {
      check_backend(configs[i], world());
      (void)ring::make_plan(configs[i]);
    } catch (const InputError& e) {
      if (!opts.skip_invalid)
        throw AgreedInputError(e.where(), e.value(),
                               fmt::format("{} (configuration {})", e.rule(), configs[i].label()));
      invalid[i] = e.what();
    }
  }
  return invalid;
}

}  // namespace rb::bench
