// The order of a sweep's rounds.
#include "bench/sweep/round_schedule.hpp"

#include <utility>

namespace rb::bench {

RoundSchedule::RoundSchedule(std::size_t configs, bool interleave, Due due)
    : configs_(configs), interleave_(interleave), due_(std::move(due)) {}

std::optional<ScheduledRound> RoundSchedule::next() {
  if (interleave_) {
    // Passes over every configuration, one round each; a pass in which none was due ends it, since
    // a round can only be due after the one before it ran.
    while (true) {
      if (config_ == configs_) {
        if (!any_due_) return std::nullopt;
        config_ = 0;
        ++round_;
        any_due_ = false;
      }
      const std::size_t i = config_++;
      if (due_(i, round_)) {
        any_due_ = true;
        return ScheduledRound{i, round_};
      }
    }
  }
  // Back to back: each configuration's rounds while they are due, then the next configuration's.
  while (config_ < configs_) {
    if (due_(config_, round_)) return ScheduledRound{config_, round_++};
    ++config_;
    round_ = 0;
  }
  return std::nullopt;
}

}  // namespace rb::bench
