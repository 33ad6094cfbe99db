// The order of a sweep's rounds.
#include "bench/sweep/round_schedule.hpp"

#include <algorithm>

namespace rb::bench {

RoundSchedule::RoundSchedule(const std::vector<Config>& configs, const RunOptions& opts)
    : adaptive_(opts.stopping.adaptive()), interleave_(opts.interleave) {
  int max_repeats = 1;
  for (const auto& c : configs) max_repeats = std::max(max_repeats, c.repeats);
  const int rounds = adaptive_ ? 1 : std::clamp(opts.rounds, 1, max_repeats);
  if (interleave_) {
    for (int r = 0; r < rounds; ++r)
      for (std::size_t i = 0; i < configs.size(); ++i) order_.push_back({i, r});
  } else {
    for (std::size_t i = 0; i < configs.size(); ++i)
      for (int r = 0; r < rounds; ++r) order_.push_back({i, r});
  }
}

std::optional<ScheduledRound> RoundSchedule::next() {
  if (next_ >= order_.size()) return std::nullopt;
  return order_[next_++];
}

void RoundSchedule::ran(const ScheduledRound& done, bool wants_another) {
  if (!adaptive_ || !wants_another) return;
  const ScheduledRound following{done.config, done.round + 1};
  if (interleave_)
    order_.push_back(following);
  else
    order_.insert(order_.begin() + static_cast<std::ptrdiff_t>(next_), following);
}

}  // namespace rb::bench
