// What one rank does on a GPU, whichever transport moves its K/V (ring/cuda/cuda_transport.hpp): the copy
// transport's ranks, all in one process, and the nccl transport's one rank per process.
// A rank owns its Q, its step buffers (filled from the plan's block pieces), its gathered K/V,
// partial and accumulated O/LSE, a compute and a comm stream and per-step events; it enqueues each
// step's attention and merge and reads its compute intervals back. How K/V reach its step buffers
// is the transport's: device and peer copies, or NCCL.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "common/timeline.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/device_buffer.hpp"
#include "ring/cuda/cuda_handles.hpp"
#include "ring/cuda/cudnn_sdpa.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/step_launch.hpp"

namespace rb::ring {

using bf16 = __nv_bfloat16;
using kernels::DeviceBuffer;

// Timing events of one step of one rank. The transfer recorded at step j brings step j+1's pieces.
struct StepEvents {
  CudaEvent attn_begin, attn_end, merge_end, copy_begin, copy_end;
  CudaEvent recv_done, compute_done;  // ordering only
};

// How an executor's enqueues are recorded: under capture, timing events become event-record nodes
// and each kernel or copy node is labelled for the CUPTI tracer.
struct EnqueueContext {
  bool capturing = false;
  std::vector<GraphNodeLabel>* labels = nullptr;
  void timing(const CudaEvent& e, cudaStream_t s) const;
  // Names the node the last call on s added (capture only).
  void label(cudaStream_t s, int rank, int step, IntervalKind kind, const char* lane, const char* name) const;
  // The frontier to pass to label_since before a call that may add several nodes (capture only).
  std::vector<void*> frontier(cudaStream_t s) const;
  // Names every node the calls on s added since `before` (capture only).
  void label_since(cudaStream_t s, const std::vector<void*>& before, int rank, int step, IntervalKind kind,
                   const char* lane, const char* name) const;
};

// Its buffers are the set every backend holds (ring/executor/rank_buffers.hpp): bf16 Q and K/V, float O and
// LSE.
class CudaRank : public RankBuffers<DeviceBuffer<bf16>, DeviceBuffer<float>> {
 public:
  // Allocates rank r's buffers on the current device, which is `device`, and fills its Q and own
  // block on its compute stream (not synchronised: the caller syncs before the first pass). With
  // the cudnn kernel (Config::kernel) its steps run as SDPA pieces on `cudnn`, the device's, whose
  // graphs are prepared here, outside any capture.
  void setup(const Plan& plan, int r, int device, CudnnSdpa* cudnn = nullptr);

  // The step buffer rank r attends to at step j (rotating schedules), by the rule every backend
  // keeps (RankBuffers::step_buffer). Each holds every lane's [K | V] piece (common/kv_schedule.hpp).
  bf16* block(int j) const { return step_buffer(j).get(); }
  // Elements of one K or V row, and where lane l's piece starts in a step buffer.
  std::int64_t row_elems() const { return shape_.row; }
  std::int64_t piece_offset(int lane) const { return shape_.piece_offset(lane); }
  std::int64_t piece_elems() const { return shape_.piece; }
  int steps() const { return static_cast<int>(launches.size()); }

  // Enqueues step j's attention (and merge) on the compute stream, between its timing events, and
  // records compute_done. The keys come from block(j), or the gathered K/V. With cuDNN the step's
  // pieces and their folds all sit between attn_begin and attn_end (no separate merge interval).
  void attend(int j, const EnqueueContext& ctx);
  // Step j's compute intervals (attention, merge) relative to `ref`, appended to `out`.
  void compute_intervals(int j, const CudaEvent& ref, std::vector<Interval>& out) const;

  int rank = 0, device = 0;
  std::vector<StepLaunch> launches;                // per step: what it computes (step_launch.hpp)
  std::vector<kernels::DeviceAttentionWork> work;  // per step; empty for a skipped one, or with cuDNN
  std::vector<SdpaStep> sdpa;                      // per step, with cuDNN (ring/plan/sdpa_pieces.hpp)
  DeviceBuffer<std::byte> workspace;               // cuDNN's, the largest any of its graphs needs
  CudaStream compute, comm;
  std::vector<StepEvents> ev;  // per step

 private:
  // Step j on cuDNN: clear (if the step says so), then each piece into the scratch O and stats
  // (o_part's memory as bf16, lse_part) and its fold into the accumulators.
  void attend_cudnn(int j, const EnqueueContext& ctx);

  const Plan* plan_ = nullptr;
  CudnnSdpa* cudnn_ = nullptr;
  RankBufferShape shape_;
};

// The time between two events recorded on one device, in ns.
std::int64_t ns_between(const CudaEvent& a, const CudaEvent& b);

// Overwrites twice a device's L2 before a timed pass (outside its events), so that the pass starts
// cold; NVBench's cold measurement.
class L2Flush {
 public:
  L2Flush() = default;
  explicit L2Flush(int device);  // sizes the buffer from the device's L2; allocates on it
  void now() const;              // finished before it returns
 private:
  DeviceBuffer<std::byte> buffer_;
  int device_ = -1;
};

}  // namespace rb::ring
