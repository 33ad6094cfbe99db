// The two-sided Mann–Whitney U test (Wilcoxon rank-sum), the test Google Benchmark's compare.py and
// asv use to tell a performance change from noise. Timing samples are not normal (long right tails,
// bimodal when a core is shared), so a rank test is the honest choice: it assumes nothing about the
// shape of the distribution, only that samples are independent.
//
// Method, chosen per call and reported in the result:
//  - exact: when there are no ties and n1 + n2 <= kExactMaxTotal, the p-value comes from the exact
//    null distribution of U (every arrangement of the ranks equally likely), two-sided as
//    p = min(1, 2 · min(P(U <= u), P(U >= u))), which is what scipy.stats.mannwhitneyu(method="exact")
//    computes;
//  - normal: otherwise, the normal approximation with the tie-corrected variance and a continuity
//    correction of 0.5 (scipy's method="asymptotic", use_continuity=True).
#pragma once

#include <span>
#include <string_view>
#include <vector>

namespace rb::reports {

enum class UTestMethod { exact, normal, none };
std::string_view to_string(UTestMethod m);

struct UTestResult {
  double u1 = 0;       // U of the first sample: pairs (x, y) with x > y, ties counting one half
  double u2 = 0;       // n1·n2 − u1
  double p_value = 1;  // two-sided; 1 when the test cannot run (an empty sample, or every value tied)
  UTestMethod method = UTestMethod::none;
  bool ties = false;
};

// Largest n1 + n2 for which the exact distribution is used (without ties). Its counts are kept in
// doubles, exact up to C(n, n/2) < 2^53, which holds to n = 54; 40 keeps well inside that.
inline constexpr int kExactMaxTotal = 40;

// allow_exact = false forces the normal approximation (for tests against published asymptotic values).
UTestResult mann_whitney_u(std::span<const double> x, std::span<const double> y, bool allow_exact = true);

// The smallest two-sided p-value any outcome can reach with these sample sizes (without ties):
// 2 / C(n1 + n2, n1), or 1 for an empty sample. When it is above alpha no difference can ever be
// significant, however large: compare uses it to say "too few samples" rather than "no change".
double min_attainable_p(int n1, int n2);

// The exact null distribution of U = #(x > y) for samples of n1 and n2 untied values: the
// probability of each u = 0..n1·n2.
std::vector<double> u_distribution(int n1, int n2);

// The fewest samples per side (n against n) whose smallest attainable p is below alpha: 4 for
// alpha 0.05 (2 / C(8, 4) = 0.029), 5 for 0.01. nightly.sh refuses a profile with fewer.
int min_samples_for(double alpha);

}  // namespace rb::reports
