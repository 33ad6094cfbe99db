// The traced pass in a build without CUPTI: no round traces, and the record has no `cupti`.
#include "bench/sweep/traced_pass.hpp"

namespace rb::bench {

struct TracedPass::State {};

TracedPass::TracedPass(bool, ring::CudaLaunch) {}
TracedPass::~TracedPass() = default;
bool TracedPass::traced() const { return false; }
void TracedPass::executor_made() {}
std::optional<reports::RecordCupti> TracedPass::run(ring::Executor&, const std::function<ring::PassRecord()>&,
                                                    const MetricsInputs&, double) {
  return std::nullopt;
}

}  // namespace rb::bench
