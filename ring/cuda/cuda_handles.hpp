// Owning wrappers for CUDA streams, events, graphs and graph executables, so an executor that
// throws halfway through setup (or capture) releases what it created. Destructors do not throw;
// creation goes through RB_CUDA_CHECK. Also the NVTX name of a stream, kept here rather than in
// common/nvtx so that only CUDA translation units see the CUDA-flavoured NVTX header.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#ifdef RINGBENCH_HAVE_NVTX
#include <nvtx3/nvToolsExtCudaRt.h>
#endif

#include "kernels/cuda_check.hpp"

// The capture queries below take CUDA 13's forms (edge data in cudaStreamGetCaptureInfo and
// cudaGraphNodeGetDependencies); configure refuses an older toolkit (cmake/RingbenchDependencies.cmake).
static_assert(CUDART_VERSION >= 13000, "ringbench's CUDA backend needs CUDA 13 or newer");

namespace rb::ring {

template <typename H, cudaError_t (*Destroy)(H)>
class CudaHandle {
 public:
  CudaHandle() = default;
  explicit CudaHandle(H h) : h_(h) {}
  CudaHandle(CudaHandle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  CudaHandle& operator=(CudaHandle&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  CudaHandle(const CudaHandle&) = delete;
  CudaHandle& operator=(const CudaHandle&) = delete;
  ~CudaHandle() { reset(); }
  H get() const { return h_; }
  void reset() noexcept {
    if (h_) Destroy(h_);
    h_ = nullptr;
  }

 private:
  H h_ = nullptr;
};

using CudaStream = CudaHandle<cudaStream_t, cudaStreamDestroy>;
using CudaEvent = CudaHandle<cudaEvent_t, cudaEventDestroy>;
using CudaGraph = CudaHandle<cudaGraph_t, cudaGraphDestroy>;
using CudaGraphExec = CudaHandle<cudaGraphExec_t, cudaGraphExecDestroy>;

inline CudaStream make_stream() {
  cudaStream_t s = nullptr;
  RB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return CudaStream(s);
}
// timing = false gives the cheaper events used only for fork/join ordering.
inline CudaEvent make_event(bool timing) {
  cudaEvent_t e = nullptr;
  RB_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming));
  return CudaEvent(e);
}

// Names a stream on the Nsight Systems timeline (docs/design.md §7.5, e.g. "rank 3 comm"); a no-op
// without NVTX. NVTX only records the name for a tool, so there is no status to check.
inline void name_stream(cudaStream_t s, const std::string& name) {
#ifdef RINGBENCH_HAVE_NVTX
  nvtxNameCudaStreamA(s, name.c_str());
#else
  (void)s;
  (void)name;
#endif
}

// Records a timing event; under capture as an event-record node (cudaEventRecordExternal), so
// every replay of the graph leaves its times behind.
inline void record_timing(cudaEvent_t e, cudaStream_t s, bool capturing) {
  if (capturing)
    RB_CUDA_CHECK(cudaEventRecordWithFlags(e, s, cudaEventRecordExternal));
  else
    RB_CUDA_CHECK(cudaEventRecord(e, s));
}

// The graph node the last call on `s` added while `s` is capturing, or nullptr (not capturing, or
// the call left several dependencies), for labelling nodes by what they are.
// Every capture query passes an edge-data array: CUDA 13 answers cudaErrorLossyQuery to one without
// it where an edge carries data (a programmatic dependent launch, which cuDNN's or NCCL's kernels may
// use); the data itself is not needed here.
inline void* last_captured_node(cudaStream_t s) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t n = 0;
  RB_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, &edges, &n));
  return status == cudaStreamCaptureStatusActive && n == 1 ? static_cast<void*>(deps[0]) : nullptr;
}

// The capture's frontier on s: the nodes the next call on s will depend on (empty when s is not
// capturing).
inline std::vector<void*> capture_frontier(cudaStream_t s) {
  cudaStreamCaptureStatus status{};
  const cudaGraphNode_t* deps = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t n = 0;
  RB_CUDA_CHECK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, &edges, &n));
  if (status != cudaStreamCaptureStatusActive || deps == nullptr) return {};
  return std::vector<void*>(deps, deps + n);
}

// Every node captured on s since its frontier was `before`, walked back from the frontier now
// through the nodes' dependencies and stopped at `before`: a library call that enqueues several
// nodes (cuDNN's execute) leaves them all, not only its last. More than `limit` nodes means the
// walk left the call's own (a join from another stream): then only the last node, if one.
inline std::vector<void*> captured_since(cudaStream_t s, const std::vector<void*>& before, std::size_t limit = 64) {
  std::vector<void*> out, todo = capture_frontier(s);
  std::set<void*> seen(before.begin(), before.end());
  while (!todo.empty()) {
    void* node = todo.back();
    todo.pop_back();
    if (!seen.insert(node).second) continue;
    out.push_back(node);
    if (out.size() > limit) {
      void* last = last_captured_node(s);
      return last ? std::vector<void*>{last} : std::vector<void*>{};
    }
    std::size_t n = 0;
    const auto gn = static_cast<cudaGraphNode_t>(node);
    RB_CUDA_CHECK(cudaGraphNodeGetDependencies(gn, nullptr, nullptr, &n));
    std::vector<cudaGraphNode_t> deps(n);
    std::vector<cudaGraphEdgeData> edges(n);
    if (n > 0) RB_CUDA_CHECK(cudaGraphNodeGetDependencies(gn, deps.data(), edges.data(), &n));
    for (cudaGraphNode_t d : deps) todo.push_back(static_cast<void*>(d));
  }
  return out;
}

// Captures what `enqueue` issues on `s` (which forks and joins any other stream it uses) into a
// graph, instantiates it and uploads it to the device. `capturing` is true while the capture is
// open, for code that must not synchronise then. If `enqueue` throws, the capture is ended and its
// graph dropped, so the stream stays usable and the error in flight is the one reported.
inline std::pair<CudaGraph, CudaGraphExec> capture_graph(cudaStream_t s, bool& capturing,
                                                         const std::function<void()>& enqueue) {
  RB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  capturing = true;
  try {
    enqueue();
  } catch (...) {
    capturing = false;
    cudaGraph_t g = nullptr;
    cudaStreamEndCapture(s, &g);  // invalidated by the failure, or unjoined: an error, dropped
    if (g) cudaGraphDestroy(g);
    (void)cudaGetLastError();  // so the next launch check reports its own error, not this one
    throw;
  }
  capturing = false;
  cudaGraph_t g = nullptr;
  RB_CUDA_CHECK(cudaStreamEndCapture(s, &g));
  CudaGraph graph(g);
  cudaGraphExec_t e = nullptr;
  RB_CUDA_CHECK(cudaGraphInstantiate(&e, graph.get(), 0));
  CudaGraphExec exec(e);
  RB_CUDA_CHECK(cudaGraphUpload(exec.get(), s));
  return {std::move(graph), std::move(exec)};
}

}  // namespace rb::ring
