// When a configuration has been measured enough. By default a fixed number of timed passes
// (--repeats, spread over --rounds fresh executors). With --max-noise, as NVBench does: sampling
// goes on, one round at a time, until the relative standard deviation of the samples so far falls
// under the target, once there are at least --min-samples of them and the --rounds executors have
// each run; or until --max-time seconds have been spent on the configuration. The rule is one pure
// function, so the CPU and CUDA backends, and every MPI rank, stop alike.
#pragma once

#include <span>
#include <string>

namespace rb::bench {

struct StoppingRule {
  double max_noise_pct = 0;  // 0: fixed repeats; else the target relative standard deviation, %
  int min_samples = 5;
  double max_time_s = 60;  // per configuration, over its rounds
  int min_rounds = 3;      // --rounds: the fresh executors every configuration gets
  static constexpr int kMaxRounds = 1000;
  bool adaptive() const { return max_noise_pct > 0; }
};

// Why sampling stops after a round that brought the samples to `samples_ms` over `rounds_done`
// rounds in `elapsed_s`, or "" to take another round: "noise 0.41% <= 0.50%", "max-time 60 s
// (noise 2.13%)", "max rounds 1000 (noise 0.9%)". Only for an adaptive rule.
std::string stop_reason(const StoppingRule& rule, std::span<const double> samples_ms, int rounds_done,
                        double elapsed_s);

}  // namespace rb::bench
