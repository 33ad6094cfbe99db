// The traced pass where CUPTI was found: the clone recorder around the executor's making, then
// cupti_traced_pass.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "bench/measure/cupti_tracer.hpp"
#include "bench/sweep/cupti_pass.hpp"
#include "bench/sweep/traced_pass.hpp"
#include "common/error.hpp"

namespace rb::bench {

struct TracedPass::State {
  bool traced = false;
  std::optional<CuptiCloneRecorder> recorder;
  std::multimap<std::uint64_t, std::uint64_t> clones;
  std::string clone_error;  // why the clones are unknown; the traced pass then reports it
};

TracedPass::TracedPass(bool wanted, ring::CudaLaunch launch) : state_(std::make_unique<State>()) {
  state_->traced = wanted;
  if (!wanted || launch != ring::CudaLaunch::graph) return;
  try {
    state_->recorder.emplace();
  } catch (const Error& e) {
    state_->clone_error = e.what();
  }
}

TracedPass::~TracedPass() = default;

bool TracedPass::traced() const { return state_->traced; }

void TracedPass::executor_made() {
  try {
    if (state_->recorder) state_->clones = state_->recorder->clones();
  } catch (const Error& e) {
    state_->clone_error = e.what();
  }
  state_->recorder.reset();
}

std::optional<reports::RecordCupti> TracedPass::run(ring::Executor& exec, const std::function<ring::PassRecord()>& pass,
                                                    const MetricsInputs& in, double clean_median_ms) {
  if (!state_->traced) return std::nullopt;
  return cupti_traced_pass(exec, pass, state_->clones, state_->clone_error, in, clean_median_ms);
}

}  // namespace rb::bench
