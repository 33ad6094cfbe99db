// How a record's fields stand to each other, beyond each field's own range (results_values.hpp
// checks those). One rule for every status, so that a file ringbench writes is one every reader reads:
// - What the writer derives from a configuration holds on every record, whatever its status: the id
//   names the phase config.phase gives (absent: fwd); `dkv` is there exactly for a backward of
//   a rotating variant, `ulysses_degree` exactly for ulysses (then c) and hybrid; padding only with
//   documents under doc-zigzag; a forward carries no backward figure; the gradients pass only where
//   each gradient checked passed. A skipped record is written from its configuration by the same
//   writer (bench/sweep/result_record.cpp), so it holds these too.
// - What a sweep validates a configuration by (the documents and their padding make up S, U divides
//   c) holds on a record that ran: `ok`. A `skipped` or `failed` record records what was asked, which
//   may be the very rule it broke (`run --skip-invalid`), so it is not held to them.
// - What a record carries beyond its configuration (a plan, metrics, a failed later round's timing)
//   is held to the configuration whatever the status: every rank, source and step it names is one
//   of the c ranks, and a plan lists each rank once, forward and backward.
// Errors are rb::InputError naming the file, the JSON path, the value and the rule.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rb::reports {

// Checks one record whose types and ranges have been checked; `run_path` is its JSON pointer ("/runs/3").
void check_record_relations(const nlohmann::json& run, const std::string& run_path, const std::string& source);

}  // namespace rb::reports
