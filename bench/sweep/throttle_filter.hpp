// Throttled samples, as NVBench treats them: each timed sample of a cuda configuration carries the
// SM clock it ran at (ring/cuda/sample_clock.hpp); a sample under --throttle-threshold percent of the
// clock the runtime reports was taken on a GPU that heat, power or idling held down, so it is kept
// in the record but left out of the statistics, and the next sample waits --throttle-recovery ms.
// When more than half of a configuration's samples were dropped, the configuration fails: what is
// left says more about the node than about the code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/record_gpu_state.hpp"

namespace rb::bench {

struct ThrottleRule {
  double threshold_pct = 75;  // of the nominal clock; 0: never drop
  double recovery_ms = 50;    // NVBench's default recovery delay
};

class ThrottleFilter {
 public:
  // `nominal_mhz`: the clock the threshold is a fraction of; nullopt where none is known, and then
  // nothing is dropped. `method` says how the per-sample clock was read.
  ThrottleFilter(ThrottleRule rule, std::optional<double> nominal_mhz, std::string method);

  // Records one timed sample; true when it counts (its clock is at or above the threshold, or
  // unknown), false when it is dropped.
  bool add(double ms, std::optional<double> mhz);

  std::optional<double> threshold_mhz() const;
  // Whether samples carry a clock at all (cuda, or an injected one): then the record has sm_clock.
  bool clocked() const { return nominal_mhz_.has_value(); }
  int taken() const { return static_cast<int>(ms_.size()); }
  int dropped() const { return static_cast<int>(dropped_.size()); }
  const ThrottleRule& rule() const { return rule_; }
  // Why the configuration fails ("throttled: 7 of 12 samples ran under 1485 MHz, 75% of the
  // nominal 1980 MHz"), or "" while at most half were dropped.
  std::string failure() const;
  // The record's `sm_clock` (results 1.2.0): every timed sample in order with its clock, and which
  // were dropped.
  reports::RecordSmClock record() const;
  nlohmann::json to_json() const;  // record()'s JSON

 private:
  ThrottleRule rule_;
  std::optional<double> nominal_mhz_;
  std::string method_;
  std::vector<double> ms_;
  std::vector<std::optional<double>> mhz_;
  std::vector<int> dropped_;  // indices into ms_
};

}  // namespace rb::bench
