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

// What the first compare said, and of what.
struct FirstCompare {
  std::map<std::string, FirstVerdict> verdicts;  // by config id
  bool paired = false;                           // it compared an A/B pair
  std::string base, neu;                         // the files it compared, as it names them
};

// The first compare (`compare --json-out`). Throws InputError naming `flag`, the file and the JSON
// path for anything that is not a ringbench.compare document of major version 0 from 0.3.0 on, a
// compare of another metric than `metric`, or one that lists a config id twice (which verdict
// would count?).
FirstCompare read_first_compare(const std::filesystem::path& file, const std::string& flag, const Metric& metric);

// Marks `repeat` as the repeat of `first`: each run found there gets its first verdict, and SLOWER
// counts as a regression only where the first compare said SLOWER too. Other regressions (a FAILED
// run, UNDERPOWERED) stand as they are. Throws InputError naming `flag` when the two do not make a
// repeat: one compared an A/B pair and the other not, or FIRST compared these very files (a repeat
// is a fresh pair).
void apply_repeat(Comparison& repeat, const FirstCompare& first, const std::string& first_path,
                  const std::string& flag = "--repeat-of");

}  // namespace rb::reports
