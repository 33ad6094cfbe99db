// The stratified rank-sum test for an A/B pair (van Elteren's, unweighted): the two builds' samples
// were taken round by round, side by side, so each round is a block and only samples of the same
// round are ranked against each other. A burst or a slow core that hit one round hits both builds
// in it, and drops out of the comparison; the U test on all samples would count it as evidence.
//
// T = Σ_k U_k, U_k = #(x > y) within round k (ties one half). Without ties, and while the blocks are
// small, the null distribution of T is exact: the convolution of each block's exact U distribution
// (every arrangement within a round equally likely, rounds independent). Otherwise the normal
// approximation with each block's tie-corrected variance and a continuity correction of 0.5.
// Two-sided, as mann_whitney_u: p = min(1, 2 · min(P(T <= t), P(T >= t))).
#pragma once

#include <span>
#include <vector>

#include "reports/compare/mann_whitney.hpp"

namespace rb::reports {

// One round of each side.
struct RoundBlock {
  std::span<const double> x, y;
};

// A block with an empty side carries no comparison and is left out. UTestResult::u1 is T, u2 is
// Σ n_k·m_k − T.
UTestResult stratified_u_test(std::span<const RoundBlock> blocks, bool allow_exact = true);

// The smallest two-sided p any outcome can reach with these block sizes (n_k against m_k, without
// ties): 2 · Π_k 1 / C(n_k + m_k, n_k), or 1 with no block of two non-empty sides.
double stratified_min_p(std::span<const std::pair<int, int>> sizes);

}  // namespace rb::reports
