// Sample statistics.
#include "bench/measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace rb::bench {

double percentile_sorted(std::span<const double> s, double q) {
  if (s.empty()) return 0.0;
  const double pos = q / 100.0 * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

SampleStats summarize(std::span<const double> samples) {
  SampleStats st;
  st.count = static_cast<int>(samples.size());
  if (samples.empty()) return st;
  std::vector<double> s(samples.begin(), samples.end());
  std::sort(s.begin(), s.end());
  st.min = s.front();
  st.max = s.back();
  st.median = percentile_sorted(s, 50);
  st.p90 = percentile_sorted(s, 90);
  st.p99 = percentile_sorted(s, 99);
  st.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  if (s.size() > 1) {
    double ss = 0;
    for (double x : s) ss += (x - st.mean) * (x - st.mean);
    st.stdev = std::sqrt(ss / static_cast<double>(s.size() - 1));
  }
  st.noise_pct = st.mean > 0 ? 100.0 * st.stdev / st.mean : 0.0;
  return st;
}

}  // namespace rb::bench
