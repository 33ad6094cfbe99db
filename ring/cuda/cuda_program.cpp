// A rank's step program on two streams (see cuda_program.hpp).
#include "ring/cuda/cuda_program.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "ring/program/compile.hpp"

namespace rb::ring {

CudaProgram::CudaProgram(const Plan& plan, int r) : program_(compile_program(plan, r)) {
  slots_.assign(plan.ranks.at(static_cast<std::size_t>(r)).steps.size(), {});
  for (int i = 0; i < static_cast<int>(program_.ops.size()); ++i) {
    const Op& op = program_.ops[static_cast<std::size_t>(i)];
    int j = op.step;
    switch (op.kind) {
      case OpKind::exchange: j = op.step - 1; break;  // issued during the step before the one it feeds
      case OpKind::gather: j = 0; break;
      case OpKind::attend:
      case OpKind::merge:
      case OpKind::mark: break;
      default:
        throw Error(fmt::format("cuda executor: the step program's {} ops are not interpreted on the GPU yet",
                                to_string(op.kind)));
    }
    slots_.at(static_cast<std::size_t>(j)).push_back(i);
  }
}

bool CudaProgram::wait_for(const CudaRank& rk, int j, bool comm, cudaStream_t s) const {
  bool any = false;
  for (const int i : slots_.at(static_cast<std::size_t>(j))) {
    const Op& op = program_.ops[static_cast<std::size_t>(i)];
    if ((op.lane > 0) != comm) continue;
    any = true;
    for (const int d : op.deps) RB_CUDA_CHECK(cudaStreamWaitEvent(s, event_of(rk, d).get(), 0));
  }
  return any;
}

const CudaEvent& CudaProgram::event_of(const CudaRank& rk, int i) const {
  const Op& op = program_.ops.at(static_cast<std::size_t>(i));
  if (op.kind == OpKind::gather) return rk.ev.at(0).recv_done;
  if (op.kind == OpKind::exchange) return rk.ev.at(static_cast<std::size_t>(op.step - 1)).recv_done;
  return rk.ev.at(static_cast<std::size_t>(op.step)).compute_done;
}

}  // namespace rb::ring
