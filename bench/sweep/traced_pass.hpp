// The CUPTI-traced pass as a stage of a round (docs/design.md §7 step 4). It spans the round: CUPTI
// must watch the executor's graph capture and instantiation to tell which clones its node labels
// became, and the pass itself runs after the timed ones so that tracing never touches them. A
// build without CUPTI links traced_pass_none.cpp, where nothing is traced, instead of
// traced_pass_cupti.cpp: the choice is CMake's, not an #if in the round.
#pragma once

#include <functional>
#include <memory>

#include <optional>

#include "bench/measure/metrics.hpp"
#include "reports/results/record_cupti.hpp"
#include "ring/cuda/cuda_options.hpp"
#include "ring/executor/executor.hpp"

namespace rb::bench {

class TracedPass {
 public:
  // Before the round's executor is made. `wanted`: this round traces (the configuration's last
  // round, cuda, --cupti); with graph launch, CUPTI starts watching the capture.
  TracedPass(bool wanted, ring::CudaLaunch launch);
  ~TracedPass();
  TracedPass(const TracedPass&) = delete;
  TracedPass& operator=(const TracedPass&) = delete;

  // Whether the round traces: wanted, and this build has CUPTI.
  bool traced() const;
  // After the executor is made: what instantiation cloned is noted, and CUPTI stops watching.
  void executor_made();
  // After the timed passes: one more pass, traced; the record's `cupti` (nullopt when this round
  // does not trace). A CUPTI failure becomes a part with only its error; the pass runs even then,
  // since a collective executor's ranks must all run it.
  std::optional<reports::RecordCupti> run(ring::Executor& exec, const std::function<ring::PassRecord()>& pass,
                                          const MetricsInputs& in, double clean_median_ms);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rb::bench
