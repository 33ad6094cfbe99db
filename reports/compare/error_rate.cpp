// Benjamini–Hochberg's step-up level.
#include "reports/compare/error_rate.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "common/round_layout.hpp"
#include "reports/compare/mann_whitney.hpp"
#include "reports/compare/stratified_u.hpp"

namespace rb::reports {

FamilyLevel benjamini_hochberg(std::span<const double> p_values, double alpha) {
  FamilyLevel f;
  f.tests = static_cast<int>(p_values.size());
  if (f.tests == 0) {
    f.level = f.first_level = alpha;
    return f;
  }
  std::vector<double> p(p_values.begin(), p_values.end());
  std::sort(p.begin(), p.end());
  const double m = static_cast<double>(f.tests);
  // The largest k with p_(k) <= k·alpha/m; every p up to p_(k) is significant.
  for (int k = f.tests; k >= 1; --k)
    if (p[static_cast<std::size_t>(k - 1)] <= k * alpha / m) {
      f.discoveries = k;
      break;
    }
  f.first_level = alpha / m;
  f.level = std::max(f.discoveries, 1) * alpha / m;
  return f;
}

double decisive_level(double alpha, int tests) { return alpha / std::max(tests, 1) / 2; }

double power_floor(int repeats, int rounds) {
  std::vector<std::pair<int, int>> sizes;
  for (const int n : round_sizes(repeats, std::clamp(rounds, 1, std::max(repeats, 1)))) sizes.emplace_back(n, n);
  return std::max(min_attainable_p(repeats, repeats), stratified_min_p(sizes));
}

int fewest_repeats(double level, int rounds) {
  int n = 1;
  while (n < 10000 && power_floor(n, rounds) > level) ++n;
  return n;
}

}  // namespace rb::reports
