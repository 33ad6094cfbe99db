// The error rate over a whole compare. A sweep of 36 configurations, each tested two-sided at
// alpha 0.05, expects 1.8 false verdicts a night from chance alone; the nightly gate controls the
// false-discovery rate over all the configurations of one compare instead (Benjamini–Hochberg): of
// the changes it reports, at most a fraction alpha are expected to be false, and when nothing
// changed (an A/A night) the chance of any false verdict is at most alpha. BH rather than Holm's
// family-wise control because a real regression rarely moves one configuration alone: when 12 of 36
// move, BH's level rises with them, where Holm's stays near alpha/36 (docs/compare.md).
#pragma once

#include <span>

namespace rb::reports {

struct FamilyLevel {
  int tests = 0;           // m: the p-values of the family
  int discoveries = 0;     // k: how many are significant
  double level = 0;        // p at or below which a test is significant: k·alpha/m, or alpha/m when k = 0
  double first_level = 0;  // alpha/m: what a change needs when it is the only one
};

// Benjamini–Hochberg's step-up procedure at false-discovery rate `alpha` over `p_values`.
FamilyLevel benjamini_hochberg(std::span<const double> p_values, double alpha);

// No verdict rests on a test that cannot reach half the level a lone change needs over `tests`
// configurations: alpha / tests / 2 (docs/compare.md, UNDERPOWERED).
double decisive_level(double alpha, int tests);

// The smallest p compare can reach for a configuration of `repeats` samples over `rounds` rounds
// on each side, measured apart (the U test) or as an A/B pair (round by round, the stricter).
double power_floor(int repeats, int rounds);

// The fewest repeats over `rounds` rounds whose power_floor is at most `level`.
int fewest_repeats(double level, int rounds);

}  // namespace rb::reports
