// The stratified rank-sum test: per-block U, convolved exactly or summed as normals.
#include "reports/compare/stratified_u.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rb::reports {
namespace {

// The convolution stays small: Σ n_k·m_k + 1 probabilities, one block at a time.
constexpr int kExactMaxPairs = 4000;

double normal_sf(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

std::vector<double> convolve(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}

}  // namespace

UTestResult stratified_u_test(std::span<const RoundBlock> blocks, bool allow_exact) {
  UTestResult r;
  double mean = 0, var = 0, pairs = 0;
  bool any = false, small = true;
  std::vector<std::pair<int, int>> sizes;
  for (const RoundBlock& b : blocks) {
    if (b.x.empty() || b.y.empty()) continue;
    any = true;
    const UTestResult u = mann_whitney_u(b.x, b.y, false);  // U and ties; its p is not used
    const double n1 = static_cast<double>(b.x.size()), n2 = static_cast<double>(b.y.size()), n = n1 + n2;
    r.u1 += u.u1;
    r.ties = r.ties || u.ties;
    pairs += n1 * n2;
    mean += n1 * n2 / 2.0;
    // The tie-corrected variance of U within the block: n1·n2/12 · ((n+1) − Σ(t³−t)/(n(n−1))).
    std::vector<double> all(b.x.begin(), b.x.end());
    all.insert(all.end(), b.y.begin(), b.y.end());
    std::sort(all.begin(), all.end());
    double tie_term = 0;
    for (std::size_t i = 0; i < all.size();) {
      std::size_t j = i;
      while (j < all.size() && all[j] == all[i]) ++j;
      const double t = static_cast<double>(j - i);
      tie_term += t * t * t - t;
      i = j;
    }
    var += n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)));
    small = small && b.x.size() + b.y.size() <= static_cast<std::size_t>(kExactMaxTotal);
    sizes.emplace_back(static_cast<int>(b.x.size()), static_cast<int>(b.y.size()));
  }
  if (!any) return r;
  r.u2 = pairs - r.u1;
  if (allow_exact && !r.ties && small && pairs <= kExactMaxPairs) {
    std::vector<double> dist{1.0};
    for (const auto& [n1, n2] : sizes) dist = convolve(dist, u_distribution(n1, n2));
    const auto t = static_cast<std::size_t>(std::llround(r.u1));
    double le = 0, ge = 0;
    for (std::size_t k = 0; k < dist.size(); ++k) {
      if (k <= t) le += dist[k];
      if (k >= t) ge += dist[k];
    }
    r.p_value = std::min(1.0, 2.0 * std::min(le, ge));
    r.method = UTestMethod::exact;
    return r;
  }
  r.method = UTestMethod::normal;
  if (!(var > 0)) {
    r.p_value = 1.0;
    return r;
  }
  const double z = (std::max(r.u1, r.u2) - mean - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, 2.0 * normal_sf(z));
  return r;
}

double stratified_min_p(std::span<const std::pair<int, int>> sizes) {
  double log_p = std::log(2.0);
  bool any = false;
  for (const auto& [n1, n2] : sizes) {
    if (n1 <= 0 || n2 <= 0) continue;
    any = true;
    log_p -= std::lgamma(n1 + n2 + 1.0) - std::lgamma(n1 + 1.0) - std::lgamma(n2 + 1.0);
  }
  return any ? std::min(1.0, std::exp(log_p)) : 1.0;
}

}  // namespace rb::reports
