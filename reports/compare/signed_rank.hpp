// The paired test of an A/B pair: Wilcoxon's signed-rank test over rounds. The two builds take turns,
// one pass of rounds at a time, and whatever the machine does during a turn (a compile sharing a
// core, a neighbour's burst) lands on every sample of that turn alike. The turn, not the sample, is
// the unit that varies independently, so each round gives one difference, d_k = log(median of NEW's
// round k / median of BASE's round k), and the test asks whether those differences lean one way.
// Testing the samples themselves (a stratified rank-sum test, until 2026-12-02) counted one slowed
// turn as several independent samples: an A/A pair under a compile job was called SLOWER +91%, and
// its repeat agreed (docs/compare.md, "A/B: the round is the unit").
//
// W+ = the sum of the ranks of |d_k| over the rounds with d_k > 0; zero differences are left out
// (Wilcoxon's rule), tied |d_k| take their mean rank. Under the null every sign is equally likely
// and independent: the exact distribution of W+ (doubled ranks keep midranks whole) up to
// kSignedRankExactMax rounds, else the normal approximation with the tie correction. Two-sided:
// p = min(1, 2 · min(P(W+ <= w), P(W+ >= w))).
#pragma once

#include <cstddef>
#include <span>

#include "reports/compare/mann_whitney.hpp"

namespace rb::reports {

inline constexpr int kSignedRankExactMax = 200;

// UTestResult::u1 is W+, u2 is W−.
UTestResult signed_rank_test(std::span<const double> differences, bool allow_exact = true);

// The smallest two-sided p any outcome of `rounds` non-zero differences can reach: 2 / 2^rounds
// (every round one way), 1 with no round.
double signed_rank_min_p(int rounds);

// The Hodges-Lehmann estimate that goes with the test: the median of the Walsh averages
// (d_i + d_j) / 2 over i <= j, the shift the signed-rank test is most in doubt about. It survives up
// to 29% of rounds hit by a burst on one side, where a mean or a ratio of pooled medians moves with
// them. NaN with no finite difference.
// Computed by selection over the implicit matrix of Walsh averages (Monahan's algorithm: a random
// pivot, each row's bounds narrowed by two pointers), O(n log n) time expected and O(n) memory;
// the averages themselves (2.3 GB at 24,000 rounds) are never listed.
double hodges_lehmann(std::span<const double> differences);

// The k-th smallest (0-based) of the Walsh averages (d_i + d_j) / 2, i <= j, of `sorted` (ascending,
// finite), exactly as listing and sorting them would give it. k < n(n+1)/2.
double walsh_select(std::span<const double> sorted, std::size_t k);

// The per-round difference signed_rank_test takes: log(new / base) where both are positive (a
// slow round for both builds weighs no more than a fast one), else new − base.
double round_difference(double base, double neu);

}  // namespace rb::reports
