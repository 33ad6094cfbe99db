// Wilcoxon's signed-rank test, exact by a distribution over doubled ranks.
#include "reports/compare/signed_rank.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "reports/compare/normal_tail.hpp"

namespace rb::reports {

double round_difference(double base, double neu) {
  if (base > 0 && neu > 0) return std::log(neu / base);
  return neu - base;
}

double walsh_select(std::span<const double> sorted, std::size_t k) {
  const std::size_t n = sorted.size();
  auto at = [&](std::size_t i, std::size_t j) { return (sorted[i] + sorted[j]) / 2; };
  // Row i holds the averages of sorted[i] with sorted[j], j >= i; its candidates are the columns
  // [lo[i], hi[i]). Every average left of the candidates is below the k-th, every one right of them
  // above it, so the k-th is the (k - left)-th candidate.
  std::vector<std::size_t> lo(n), hi(n, n), below(n), upto(n);
  for (std::size_t i = 0; i < n; ++i) lo[i] = i;
  // Few candidates left: list them and select among them, as the full list did.
  constexpr std::size_t kListed = 4096;
  std::mt19937_64 gen(0x5eed);  // any pivot gives the same answer; a fixed seed, the same work
  for (;;) {
    std::size_t candidates = 0, left = 0;
    for (std::size_t i = 0; i < n; ++i) candidates += hi[i] - lo[i], left += lo[i] - i;
    if (candidates <= std::max(kListed, n)) {
      std::vector<double> listed;
      listed.reserve(candidates);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = lo[i]; j < hi[i]; ++j) listed.push_back(at(i, j));
      const auto nth = listed.begin() + static_cast<std::ptrdiff_t>(k - left);
      std::nth_element(listed.begin(), nth, listed.end());
      return *nth;
    }
    // A candidate drawn at random is the pivot (Monahan's algorithm).
    std::size_t pick = std::uniform_int_distribution<std::size_t>(0, candidates - 1)(gen), row = 0;
    while (pick >= hi[row] - lo[row]) pick -= hi[row] - lo[row], ++row;
    const double pivot = at(row, lo[row] + pick);
    // Per row, the first column (j >= i) whose average is >= pivot, and the first > pivot: the
    // averages grow along a row and down a column, so both move left as the row moves down.
    std::size_t less = 0, not_more = 0;
    for (std::size_t i = 0, ge = n, gt = n; i < n; ++i) {
      while (ge > 0 && at(i, ge - 1) >= pivot) --ge;
      while (gt > 0 && at(i, gt - 1) > pivot) --gt;
      below[i] = std::max(ge, i);
      upto[i] = std::max(gt, i);
      less += below[i] - i;
      not_more += upto[i] - i;
    }
    if (k < less) {
      for (std::size_t i = 0; i < n; ++i) hi[i] = std::min(hi[i], below[i]);
    } else if (k >= not_more) {
      for (std::size_t i = 0; i < n; ++i) lo[i] = std::max(lo[i], upto[i]);
    } else {
      return pivot;
    }
  }
}

double hodges_lehmann(std::span<const double> differences) {
  std::vector<double> d;
  for (const double x : differences)
    if (std::isfinite(x)) d.push_back(x);
  if (d.empty()) return std::nan("");
  std::sort(d.begin(), d.end());
  const std::size_t count = d.size() * (d.size() + 1) / 2, mid = count / 2;
  const double upper = walsh_select(d, mid);
  if (count % 2 == 1) return upper;
  return (walsh_select(d, mid - 1) + upper) / 2;
}

double signed_rank_min_p(int rounds) {
  if (rounds < 1) return 1.0;
  return std::min(1.0, 2.0 * std::pow(0.5, rounds));
}

UTestResult signed_rank_test(std::span<const double> differences, bool allow_exact) {
  UTestResult r;
  std::vector<double> d;
  for (const double x : differences)
    if (x != 0 && std::isfinite(x)) d.push_back(x);
  const int n = static_cast<int>(d.size());
  if (n == 0) return r;  // p 1, method none
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return std::fabs(d[a]) < std::fabs(d[b]); });
  // Doubled midranks: a tie group over ranks i+1..j has mean rank (i+1+j)/2, doubled i+1+j, whole.
  std::vector<int> rank2(n);
  double tie_term = 0;  // Σ (t³ − t) over tie groups
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && std::fabs(d[order[j + 1]]) == std::fabs(d[order[i]])) ++j;
    const int t = j - i + 1;
    if (t > 1) {
      r.ties = true;
      tie_term += static_cast<double>(t) * t * t - t;
    }
    for (int k = i; k <= j; ++k) rank2[order[k]] = (i + 1) + (j + 1);
    i = j + 1;
  }
  int w2 = 0, total2 = 0;
  for (int k = 0; k < n; ++k) {
    total2 += rank2[k];
    if (d[k] > 0) w2 += rank2[k];
  }
  r.u1 = w2 / 2.0;
  r.u2 = (total2 - w2) / 2.0;
  if (allow_exact && n <= kSignedRankExactMax) {
    // P(W2 = s): each round's doubled rank is in W2 with probability 1/2, independently.
    std::vector<double> pr(static_cast<std::size_t>(total2) + 1, 0.0);
    pr[0] = 1.0;
    int reach = 0;
    for (int k = 0; k < n; ++k) {
      for (int s = reach; s >= 0; --s) {
        const double half = pr[s] / 2;
        pr[s] = half;
        pr[s + rank2[k]] += half;
      }
      reach += rank2[k];
    }
    double lower = 0, upper = 0;
    for (int s = 0; s <= total2; ++s) {
      if (s <= w2) lower += pr[s];
      if (s >= w2) upper += pr[s];
    }
    r.p_value = std::min(1.0, 2.0 * std::min(lower, upper));
    r.method = UTestMethod::exact;
    return r;
  }
  const double nn = n;
  const double mean = nn * (nn + 1) / 4;
  const double var = nn * (nn + 1) * (2 * nn + 1) / 24 - tie_term / 48;
  if (var <= 0) return r;
  const double z = (std::fabs(r.u1 - mean) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, 2.0 * normal_sf(std::max(z, 0.0)));
  r.method = UTestMethod::normal;
  return r;
}

}  // namespace rb::reports
