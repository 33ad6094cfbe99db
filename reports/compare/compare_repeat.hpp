// A regression must repeat. When the nightly gate finds SLOWER configurations in an A/B pair, it
// measures just those again as a fresh pair (`run --only`) and compares that pair with
// `--repeat-of FIRST.json`, the first compare's JSON: a configuration is then a regression only
// where it was SLOWER in both, and each row carries both verdicts. A burst that hit the first pair
// cannot also hit its repeat minutes later, in the same configurations, the same way; a real
// slowdown does (asv's step detection over the history plays the same role).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "reports/compare/compare.hpp"

namespace rb::reports {

struct FirstVerdict {
  Verdict verdict = Verdict::same;
  std::optional<double> change;
};

// The verdicts of a compare's JSON (`compare --json-out`), by config id. Throws InputError naming
// `flag` and the file for anything that is not a ringbench.compare document of 0.3.0 or later.
std::map<std::string, FirstVerdict> read_first_compare(const std::filesystem::path& file, const std::string& flag);

// Marks `repeat` as the repeat of `first`: each run found there gets its first verdict, and SLOWER
// counts as a regression only where the first compare said SLOWER too. Other regressions (a FAILED
// run, UNDERPOWERED) stand as they are.
void apply_repeat(Comparison& repeat, const std::map<std::string, FirstVerdict>& first, const std::string& first_path);

}  // namespace rb::reports
