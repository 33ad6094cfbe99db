// Summary statistics of timed samples (docs/design.md §7): min, median, mean, p90, p99, max, stdev and
// noise (relative standard deviation, %).
#pragma once

#include <span>

namespace rb::bench {

struct SampleStats {
  int count = 0;
  double min = 0, median = 0, mean = 0, p90 = 0, p99 = 0, max = 0, stdev = 0, noise_pct = 0;
};

// Percentiles interpolate linearly between order statistics (numpy's default). stdev is the
// sample standard deviation (n-1); with one sample it is 0.
SampleStats summarize(std::span<const double> samples);
// Percentile q in [0, 100] of sorted samples.
double percentile_sorted(std::span<const double> sorted, double q);

}  // namespace rb::bench
