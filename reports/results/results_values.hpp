// The values a results file's fields may hold, beyond their JSON types (results_reader.hpp checks
// those first): what the schema says of each field as of the file's own version, and what a writer
// can write.
// - Every number is finite, and each figure in its range: times, rates, counts and errors are not
//   negative, fractions lie in [0, 1], imbalances are at least 1.
// - The schema's patterns: run_time's timestamps are real UTC times to the second ("2026-12-02T10:38:21Z"),
//   the run's end not before its start; ids and the pairing's names are not empty.
// - The schema's enums as of the version the file (or, in a results.jsonl, the record) was written
//   in: a value that version did not have is refused (`pairing.unit: "sample"` in a 2.7.0 file). A
//   file of a newer MINOR version than this reader's may hold values added since: those are read as
//   unknown, not refused (a check's `where` does not match them, a label prints them as written).
// - Every count a reader sizes something by is held to the writer's own caps (common/sweep_limits.hpp):
//   `config.cp`, the rounds and `timing.round_counts` (whose sum may not exceed the samples), and a
//   plan lists one rank per rank of `config.cp`; every rank a record names is one of its ranks.
// Errors are rb::InputError naming the file, the JSON path, the value and the rule.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rb::reports {

// Checks a document whose field types validate_results has checked; `source` names it in errors.
void check_results_values(const nlohmann::json& doc, const std::string& source);

// Whether `text` is a UTC time as results files write it: "YYYY-MM-DDTHH:MM:SSZ", a real date and
// time (a leap second's :60 allowed).
bool is_utc_timestamp(const std::string& text);

}  // namespace rb::reports
