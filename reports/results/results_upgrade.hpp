// Older results read as the current format. Two MAJOR versions changed what stored fields mean, so
// a reader that compared an old file's numbers with a new one's would compare different things:
// - 1.0.0: metrics.attention_tflops was the sum over the c ranks; it became per rank (per GPU),
//   with the sum under attention_tflops_aggregate and the slowest rank's rate beside it; and
//   comm_time_ms of a cuda run was the span of CUDA events around each copy (in flight); it became
//   the copies' execution, with comm_basis saying which and comm_in_flight_ms beside it;
// - 2.0.0: attention_tflops divides by the GPUs that ran the ranks at once
//   (attention_tflops_gpus), not by c: cuda's concurrent mode ran c ranks on fewer GPUs.
// upgrade_results rewrites an older document in place, run by run, into those meanings, so report,
// compare, accept and trend read one format. Each run says which version wrote it: its own
// schema_version from 1.0.0 on; before that the document's, or for a results.jsonl (whose lines
// had no version) 0.x.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rb::reports {

// Converts every run older than the current major version; sets the document's schema_version to
// the current one and records the original in `converted_from` when anything was converted.
// `unversioned_major` is the major version of runs that carry none (default: the document's).
// Returns the number of runs converted.
int upgrade_results(nlohmann::json& doc, std::optional<int> unversioned_major = std::nullopt);

// One run written in format `from_major`.x, in place.
void upgrade_run(nlohmann::json& run, int from_major);

}  // namespace rb::reports
