// The schedule stage of a sweep: the order in which its rounds run, one (configuration, round) pair
// at a time. Interleaved (the default): round 1 of every configuration, then round 2, ..., so that a
// burst on a shared machine lands on a round of several configurations instead of every round of
// one; or each configuration's rounds back to back (--no-interleave). The schedule holds no round
// counts of its own: it asks each configuration whether a round is due (ConfigurationRun::due),
// so a configuration that stops early (--max-noise), fails or is skipped simply stops being due,
// and one that samples on is asked again in the next pass.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

namespace rb::bench {

struct ScheduledRound {
  std::size_t config = 0;  // index into the sweep's configurations
  int round = 0;           // 0-based
};

class RoundSchedule {
 public:
  // due(i, r): whether configuration i's round r is to run now.
  using Due = std::function<bool(std::size_t config, int round)>;
  RoundSchedule(std::size_t configs, bool interleave, Due due);

  // The next round to run; nullopt when no configuration has a round due. A round is asked about
  // when its turn comes, after every round before it in the order has run.
  std::optional<ScheduledRound> next();

 private:
  std::size_t configs_;
  bool interleave_;
  Due due_;
  std::size_t config_ = 0;
  int round_ = 0;
  bool any_due_ = false;  // interleaved: some configuration had a round in this pass
};

}  // namespace rb::bench
