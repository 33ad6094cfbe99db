// The CUDA backend (docs/design.md §7): one executor over a transport (ring/cuda/cuda_transport.hpp).
// Each rank has a compute and a comm stream; K/V are double-buffered per rank and move on the comm
// stream while the step's attention runs on the compute stream. A whole pass is captured once as a
// CUDA Graph and replayed; timing and the timeline come from CUDA events. make_cuda_executor runs
// every rank in this process (the copy transport, on one GPU or dealt over several);
// make_nccl_executor (ring/cuda/cuda_transport_nccl.hpp) one rank per process. Built only with
// RINGBENCH_HAVE_CUDA; this header itself needs no CUDA header.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/timeline.hpp"
#include "ring/cuda/cuda_devices.hpp"
#include "ring/cuda/cuda_options.hpp"
#include "ring/cuda/cudnn_graph_cache.hpp"
#include "ring/executor/executor.hpp"

namespace rb::ring {

struct CudaOptions {
  CudaRankMode mode = CudaRankMode::isolated;
  CudaLaunch launch = CudaLaunch::graph;
  bool l2_flush = false;  // overwrite 2x the L2 before each timed replay (outside the timed events)
  int device = 0;
  // Devices the virtual ranks are dealt over, round-robin (ring/cuda/rank_placement.hpp): 1 keeps them
  // all on `device`; 0 uses every visible device, one process driving a node's GPUs with peer
  // copies between them (docs/distributed.md).
  int devices = 1;
  // The link model is Config::link_gbps: each transfer is paced to bytes / link (kernels/link_pace).
};

// One captured node and what it is, for the CUPTI tracer to classify activity records by graph
// node (it maps `node`, a cudaGraphNode_t, to CUPTI's id with cuptiGetGraphNodeId).
struct GraphNodeLabel {
  void* node = nullptr;
  int rank = 0;
  int step = -1;
  IntervalKind kind = IntervalKind::other;
  std::string lane;  // "compute" or "comm"
  std::string name;  // "attention", "merge", "kv_recv", "kv_allgather", "link_pace"
};

// One stream of the executor and what runs on it. Eager launches are reported by CUPTI on the
// stream they were issued to, so a tracer classifies them by these when there are no graph nodes.
struct StreamLabel {
  void* stream = nullptr;  // cudaStream_t
  int device = 0;          // the stream's device
  int rank = 0;
  IntervalKind kind = IntervalKind::compute;
  std::string lane;  // "compute" or "comm", as in the event timeline
};

class CudaExecutor : public Executor {
 public:
  virtual const CudaOptions& options() const = 0;
  // Labels of every kernel and copy node captured (all rank graphs); empty in eager mode.
  virtual const std::vector<GraphNodeLabel>& graph_nodes() const = 0;
  // Every hosted rank's compute and comm stream (over nccl, this process's rank only).
  virtual std::vector<StreamLabel> streams() const = 0;
  // Sum over ranks of each rank's measured pass (isolated mode) next to the composed wall time
  // run_pass reports; equal to wall_ns in concurrent mode. From the last run_pass.
  virtual std::int64_t last_raw_ns() const = 0;
  // With the cudnn kernel: each SDPA graph shape, the cuDNN plan (engine) chosen for it, its
  // implementation and build time, and how many of the graphs this executor built (the others
  // came built from an earlier executor of the process: ring/cuda/cudnn_graph_cache.hpp).
  virtual CudnnGraphsUsed cudnn_graphs() const = 0;
};

// Every rank in this process over the copy transport: allocates and fills every rank's shard on its
// device, runs one eager pass, and (graph launch) captures, instantiates, uploads and replays the
// pass once, untimed. Throws InputError for dtypes other than bfloat16 or D other than 64/128
// (ring/executor/backend_support.hpp, whatever backend plan.config names), ApiError for CUDA failures.
std::unique_ptr<CudaExecutor> make_cuda_executor(const Plan& plan, const CudaOptions& opts);

// make_cuda_executor for a caller that has checked the configuration by the same rule already: the
// sweep (bench/sweep/backend.cpp, check_backend) makes its executors through the backend table with
// this, so each configuration is checked once. Nothing here checks the dtype or D again.
std::unique_ptr<CudaExecutor> make_cuda_executor_prechecked(const Plan& plan, const CudaOptions& opts);

}  // namespace rb::ring
