// What a reader of two results files checks of their raw JSON before it compares their runs as
// RunRecords: that two runs under one config id are one configuration, and whether the files are
// an A/B pair. Both read fields by name, so they live beside the reader (docs/architecture.md).
#pragma once

#include <cstddef>
#include <string>

#include "reports/results/results_reader.hpp"

namespace rb::reports {

// Runs are matched by config id, so two runs under one id must be one configuration: a run whose
// split or sequence length differs under the same id (a file edited by hand, or written by a build
// whose ids meant something else) would be compared with a different measurement and called SAME.
// Throws InputError naming both files and the JSON path. A field absent from either run (an older
// file's default, as its id says) is not compared.
void check_same_config(const ResultsFile& base, std::size_t bi, const ResultsFile& neu, std::size_t ni);

// The file's pairing.pair_id (results 2.3.0: written by `ringbench ab`), or "" when it has none.
std::string pairing_id(const ResultsFile& f);

}  // namespace rb::reports
