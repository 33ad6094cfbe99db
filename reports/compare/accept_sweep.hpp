// Whether a results file ran an acceptance profile's sweep: `accept P --results F` judges F by P's
// checks, which mean something only over P's configurations (a fwd+bwd file of S = 128 passed a
// profile of S = 4096 fwd).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/results_reader.hpp"

namespace rb::reports {

// Throws InputError unless every record of `results` is one of `sweep` (the profile's
// configurations, each as results.json writes its `config`), naming the first record that is not
// and the first field of it, in the id's order, whose value no configuration of the sweep has. A
// sweep that did not finish (a subset) passes here; accept reports it INCOMPLETE.
void check_results_ran_sweep(const ResultsFile& results, const std::vector<nlohmann::json>& sweep,
                             const std::string& profile_path);

}  // namespace rb::reports
