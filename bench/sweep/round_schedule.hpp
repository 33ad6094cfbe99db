// The schedule stage of a sweep: the order in which its rounds run, one (configuration, round) pair
// at a time. With fixed repeats every round is known up front: round 1 of every configuration, then
// round 2, ... (interleaved, so that a burst on a shared machine lands on a round of several
// configurations instead of every round of one), or each configuration's rounds back to back.
// Adaptive sampling (--max-noise) starts every configuration with one round, and each round that
// leaves its configuration open queues the next one: at the end when interleaved, so the rounds
// still go round-robin, or right after otherwise.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "bench/sweep/run_options.hpp"
#include "common/config.hpp"

namespace rb::bench {

struct ScheduledRound {
  std::size_t config = 0;  // index into the sweep's configurations
  int round = 0;           // 0-based
};

class RoundSchedule {
 public:
  RoundSchedule(const std::vector<Config>& configs, const RunOptions& opts);

  // The next round to run; nullopt when the sweep is done.
  std::optional<ScheduledRound> next();
  // After `done` has run: with adaptive sampling, queues its configuration's next round when the
  // configuration wants one. Fixed rounds were all queued up front.
  void ran(const ScheduledRound& done, bool wants_another);

 private:
  std::vector<ScheduledRound> order_;
  std::size_t next_ = 0;
  bool adaptive_;
  bool interleave_;
};

}  // namespace rb::bench
