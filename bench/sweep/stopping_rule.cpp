// The noise-based stopping rule.
#include "bench/sweep/stopping_rule.hpp"

#include <fmt/format.h>

#include "bench/measure/stats.hpp"

namespace rb::bench {

std::string stop_reason(const StoppingRule& rule, std::span<const double> samples_ms, int rounds_done,
                        double elapsed_s) {
  const double noise = samples_ms.empty() ? 0.0 : summarize(samples_ms).noise_pct;
  const bool enough = static_cast<int>(samples_ms.size()) >= rule.min_samples && rounds_done >= rule.min_rounds;
  if (enough && noise <= rule.max_noise_pct) return fmt::format("noise {:.2f}% <= {:.2f}%", noise, rule.max_noise_pct);
  if (rule.max_time_s > 0 && elapsed_s >= rule.max_time_s)
    return fmt::format("max-time {:g} s (noise {:.2f}%)", rule.max_time_s, noise);
  if (rounds_done >= StoppingRule::kMaxRounds)
    return fmt::format("max rounds {} (noise {:.2f}%)", StoppingRule::kMaxRounds, noise);
  return "";
}

}  // namespace rb::bench
