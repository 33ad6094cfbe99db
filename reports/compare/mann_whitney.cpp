// Mann–Whitney U: ranks with ties averaged, the exact null distribution by counting arrangements,
// and the tie-corrected normal approximation.
#include "reports/compare/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "reports/compare/normal_tail.hpp"

namespace rb::reports {
namespace {

// Number of arrangements of n1 x's and n2 y's (in value order) for every U = #(x > y), u = 0..n1·n2.
// Recursion on the largest value: an x there beats all n2 y's (u − n2 from the rest), a y beats none.
std::vector<double> u_counts(int n1, int n2) {
  // prev[j] / cur[j]: the distribution for (i − 1, j) / (i, j), i being the outer index.
  std::vector<std::vector<double>> prev(n2 + 1), cur(n2 + 1);
  for (int j = 0; j <= n2; ++j) prev[j] = {1.0};  // i = 0: one arrangement, U = 0
  for (int i = 1; i <= n1; ++i) {
    for (int j = 0; j <= n2; ++j) {
      cur[j].assign(static_cast<std::size_t>(i * j + 1), 0.0);
      for (int u = 0; u <= i * j; ++u) {
        double c = 0;
        if (u - j >= 0 && u - j <= (i - 1) * j) c += prev[j][u - j];
        if (j > 0 && u <= i * (j - 1)) c += cur[j - 1][u];
        cur[j][u] = c;
      }
    }
    std::swap(prev, cur);
  }
  return prev[n2];
}

}  // namespace

std::string_view to_string(UTestMethod m) {
  switch (m) {
    case UTestMethod::exact: return "exact";
    case UTestMethod::normal: return "normal";
    case UTestMethod::none: return "none";
  }
  return "none";
}

double min_attainable_p(int n1, int n2) {
  if (n1 <= 0 || n2 <= 0) return 1.0;
  // 2 / C(n1 + n2, n1), computed in logs so large samples do not overflow.
  const double log_c = std::lgamma(n1 + n2 + 1.0) - std::lgamma(n1 + 1.0) - std::lgamma(n2 + 1.0);
  return std::min(1.0, 2.0 * std::exp(-log_c));
}

std::vector<double> u_distribution(int n1, int n2) {
  std::vector<double> p = u_counts(std::max(0, n1), std::max(0, n2));
  const double total = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& x : p) x /= total;
  return p;
}

int min_samples_for(double alpha) {
  int n = 1;
  while (n < 1000 && !(min_attainable_p(n, n) < alpha)) ++n;
  return n;
}

UTestResult mann_whitney_u(std::span<const double> x, std::span<const double> y, bool allow_exact) {
  UTestResult r;
  const std::size_t n1 = x.size(), n2 = y.size();
  if (n1 == 0 || n2 == 0) return r;
  const std::size_t n = n1 + n2;

  // Pool, sort, and give tied values the average of the ranks they span.
  std::vector<std::pair<double, bool>> all;  // (value, from x)
  all.reserve(n);
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;  // tie_term = Σ (t³ − t) over groups of t tied values
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum_x += avg_rank;
    if (t > 1) {
      tie_term += t * t * t - t;
      r.ties = true;
    }
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  r.u1 = rank_sum_x - dn1 * (dn1 + 1) / 2.0;
  r.u2 = dn1 * dn2 - r.u1;

  if (allow_exact && !r.ties && n <= static_cast<std::size_t>(kExactMaxTotal)) {
    const auto counts = u_counts(static_cast<int>(n1), static_cast<int>(n2));
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const auto u = static_cast<std::size_t>(std::llround(r.u1));
    double le = 0, ge = 0;
    for (std::size_t k = 0; k < counts.size(); ++k) {
      if (k <= u) le += counts[k];
      if (k >= u) ge += counts[k];
    }
    r.p_value = std::min(1.0, 2.0 * std::min(le, ge) / total);
    r.method = UTestMethod::exact;
    return r;
  }

  const double mu = dn1 * dn2 / 2.0;
  const double var = dn1 * dn2 / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
  r.method = UTestMethod::normal;
  if (!(var > 0)) {  // every value tied: no evidence of any difference
    r.p_value = 1.0;
    return r;
  }
  const double z = (std::max(r.u1, r.u2) - mu - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, 2.0 * normal_sf(z));
  return r;
}

}  // namespace rb::reports
