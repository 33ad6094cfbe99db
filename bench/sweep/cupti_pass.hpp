// The CUPTI-traced pass of a CUDA configuration (docs/design.md §7 step 4): after the timed passes,
// one more pass with CUPTI activity tracing on, whose metrics sit beside the timed ones in the
// record's `cupti`. Built only where CUPTI was found (RINGBENCH_HAVE_CUPTI).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "bench/measure/metrics.hpp"
#include "reports/results/record_cupti.hpp"
#include "ring/executor/executor.hpp"

namespace rb::bench {

// Runs `run_pass` once more with CUPTI activity tracing on, after the timed passes so that tracing
// never touches them. Replayed graph work is classified by the executor's node labels, carried
// over to the clones instantiation made (`clones`); eager work by the executor's streams.
// A CUPTI failure becomes a part with only its error: profiling must not fail the configuration. The pass
// itself runs even then, because a collective executor's ranks must all run it.
reports::RecordCupti cupti_traced_pass(ring::Executor& exec, const std::function<ring::PassRecord()>& run_pass,
                                       const std::multimap<std::uint64_t, std::uint64_t>& clones,
                                       const std::string& clone_error, const MetricsInputs& in, double clean_median_ms);

}  // namespace rb::bench
