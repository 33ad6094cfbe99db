// A rank's step program (ring/program/program.hpp) as the cuda executor interprets it: lane 0's ops
// on the rank's compute stream, the comm lanes' on its comm stream, grouped by the step they belong
// to (the transfer issued during step j; step j's attention, merge or skip), each group's
// dependencies on the other stream turned into waits on that stream's events (a transfer's
// recv_done, a step's compute_done: ring/cuda/cuda_rank.hpp). What it interprets: exchange, gather,
// attend, merge, mark; any other kind is refused here and, before anything is made, by
// ring/executor/backend_support.hpp.
#pragma once

#include <vector>

#include <cuda_runtime_api.h>

#include "ring/cuda/cuda_rank.hpp"
#include "ring/plan/plan.hpp"
#include "ring/program/program.hpp"

namespace rb::ring {

class CudaProgram {
 public:
  CudaProgram() = default;
  // Rank r's program under `plan`. Throws rb::Error for an op kind it does not interpret.
  CudaProgram(const Plan& plan, int r);

  // Enqueues on `s` (the stream of rank rk's comm lanes, or its compute lane) the waits of its ops of
  // step j there; false where step j has no such op (nothing to enqueue).
  bool wait_for(const CudaRank& rk, int j, bool comm, cudaStream_t s) const;

  const RankProgram& program() const { return program_; }

 private:
  const CudaEvent& event_of(const CudaRank& rk, int op) const;

  RankProgram program_;
  std::vector<std::vector<int>> slots_;  // per step: its ops, in the program's order
};

}  // namespace rb::ring
