// What both CUDA executors hold and report alike (the local transport's, ring/executor_cuda.cpp,
// and the nccl transport's, ring/executor_nccl.cpp): the plan, the options in use, the labels of
// the captured graph nodes, the last pass's raw time and the nominal SM clock.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ring/executor_cuda.hpp"

namespace rb::ring {

class CudaExecutorBase : public CudaExecutor {
 public:
  const Plan& plan() const override { return plan_; }
  const CudaOptions& options() const override { return opts_; }
  const std::vector<GraphNodeLabel>& graph_nodes() const override { return labels_; }
  std::int64_t last_raw_ns() const override { return raw_ns_; }
  std::optional<double> nominal_sm_clock_mhz() const override { return nominal_mhz_; }

 protected:
  CudaExecutorBase(const Plan& plan, const CudaOptions& opts) : plan_(plan), opts_(opts) {}

  Plan plan_;
  CudaOptions opts_;
  std::vector<GraphNodeLabel> labels_;  // every captured node the CUPTI tracer can classify
  std::int64_t raw_ns_ = 0;             // see last_raw_ns()
  double nominal_mhz_ = 0;              // the lowest cudaDevAttrClockRate over the devices in use
};

}  // namespace rb::ring
