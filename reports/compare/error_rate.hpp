// The error rate over a whole compare. A sweep of 36 configurations, each tested two-sided at
// alpha 0.05, expects 1.8 false verdicts a night from chance alone; the nightly gate controls the
// false-discovery rate over all the configurations of one compare instead (Benjamini–Hochberg): of
// the changes it reports, at most a fraction alpha are expected to be false, and when nothing
// changed (an A/A night) the chance of any false verdict is at most alpha. BH rather than Holm's
// family-wise control because a real regression rarely moves one configuration alone: when 12 of 36
// move, BH's level rises with them, where Holm's stays near alpha/36 (docs/compare.md).
#pragma once

#include <span>
#include <string>

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
// on each side, measured apart (the U test over the samples) or as an A/B pair (the signed-rank
// test over the rounds, one difference a round: signed_rank.hpp); the larger of the two.
double power_floor(int repeats, int rounds);

// The layout to take so that a compare can reach `level`: at least `repeats` and `rounds`. Paired
// (or not known to be apart, as `run --require-power`): more rounds where the signed-rank test
// needs them, at least one repeat a round, and the U test's repeats. Apart: the U test's repeats.
struct Layout {
  int repeats = 0, rounds = 0;
};
Layout fewest_layout(double level, int repeats, int rounds, bool paired = true);
// "take at least 12 rounds and 12 repeats" (or only what must grow).
std::string layout_advice(const Layout& asked, const Layout& needed);

}  // namespace rb::reports
