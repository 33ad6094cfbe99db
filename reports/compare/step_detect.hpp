// Where a nightly series changed level, as asv's step_detect finds it: the piecewise-constant fit
// of the series that minimises the sum of absolute deviations from each piece's median plus a
// penalty per piece (a penalised L1 fit; Potts model). Absolute deviations keep one noisy night
// from pulling a level; the penalty, a multiple of the series' own noise, keeps noise from being
// cut into pieces. Exact, by dynamic programming over every split: O(n^2 log n) for n nights.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace rb::reports {

struct LevelStep {
  std::size_t at = 0;            // index of the first point of the new level
  double before = 0, after = 0;  // the medians of the pieces on either side
  // (after - before) / |before|; 0 when before is 0 and after too
  double change() const;
};

struct StepFit {
  std::vector<std::size_t> starts;  // first index of every piece; starts[0] == 0
  std::vector<double> levels;       // each piece's median
  std::vector<LevelStep> steps;     // between consecutive pieces
  double sigma = 0;                 // the noise estimate the penalty was scaled by
  double penalty = 0;               // per piece
};

// `penalty` < 0: chosen from the series, kPenaltyScale * sigma * ln(n + 1), where sigma is a
// robust estimate of the night-to-night noise (1.4826 * median |y[i+1] - y[i]| / sqrt 2), floored
// at 0.1% of the median level so that a perfectly flat series still has a scale. Fewer than 3
// points have no step.
inline constexpr double kPenaltyScale = 3.0;
StepFit detect_steps(std::span<const double> y, double penalty = -1);

// detect_steps on log(y) where every value is positive (times, TFLOP/s), else on y. A timing's noise
// scales with its level: a night's load that adds 25% to a 13 ms pass adds 25% to the 52 ms pass
// a regression made of it, and on the raw values the noisier upper level sets the penalty high
// enough to hide the very step that made it (six nights beside a compile: 12.9, 14.8, 18.4 ms,
// then 57.7, 78.9, 52.1 ms, one level). In logs the noise is one size at both levels. Where the
// pieces fall is decided in logs; `levels` and `steps` are the raw values' medians, and `sigma`
// and `penalty` are on the scale the fit used.
StepFit detect_relative_steps(std::span<const double> y);

}  // namespace rb::reports
