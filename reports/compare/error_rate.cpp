// Benjamini–Hochberg's step-up level.
#include "reports/compare/error_rate.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "reports/compare/mann_whitney.hpp"
#include "reports/compare/signed_rank.hpp"

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
  // A round without a sample is no round (the sweep spreads repeats over at most that many).
  const int kept = std::clamp(rounds, 1, std::max(repeats, 1));
  return std::max(min_attainable_p(repeats, repeats), signed_rank_min_p(kept));
}

Layout fewest_layout(double level, int repeats, int rounds, bool paired) {
  Layout l{std::max(repeats, 1), std::max(rounds, 1)};
  if (paired) {
    while (l.rounds < 10000 && signed_rank_min_p(l.rounds) > level) ++l.rounds;
    l.repeats = std::max(l.repeats, l.rounds);
  }
  while (l.repeats < 10000 && min_attainable_p(l.repeats, l.repeats) > level) ++l.repeats;
  return l;
}

std::string layout_advice(const Layout& asked, const Layout& needed) {
  if (needed.rounds > asked.rounds)
    return fmt::format("take at least {} rounds and {} repeats", needed.rounds, needed.repeats);
  return fmt::format("take at least {} repeats", needed.repeats);
}

}  // namespace rb::reports
