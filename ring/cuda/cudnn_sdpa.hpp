// cuDNN's fused flash attention for the `--kernel cudnn` path: one executor's view, on one device, of
// the process's cuDNN handles and SDPA forward graphs (ring/cuda/cudnn_graph_cache.hpp: one handle
// per device, each shape built and planned once per process, outside any capture); executing one
// enqueues it on a stream, capturable, with the pointers of one piece. Built with CUDA; without
// cuDNN (RINGBENCH_HAVE_CUDNN) construction throws, which the sweep never reaches
// (bench/sweep/kernel_choice.hpp refuses first). This header needs no cuDNN header.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

#include "ring/cuda/cudnn_graph_cache.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring {

// A piece's buffers, each already offset to the piece's first row (ring/plan/sdpa_pieces.hpp's offsets).
struct SdpaPointers {
  const void* q = nullptr;  // bf16 (rows, Hq, D), rows Hq·D apart
  const void* k = nullptr;  // bf16 (keys, Hkv, D)
  const void* v = nullptr;  // bf16 (keys, Hkv, D)
  void* o = nullptr;        // bf16 (rows, Hq, D)
  float* stats = nullptr;   // fp32 (rows, Hq): the natural-log log-sum-exp of the scaled scores
};

class CudnnSdpa {
 public:
  // A view of the process's graphs on `device`, which becomes the current device. Not to be shared
  // between threads.
  explicit CudnnSdpa(int device);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  // The graph for `key`, built and planned by the first executor of the process that needs it
  // (validate, lower, heuristics, check support, build the plan; the implementation that
  // sdpa_implementation names); returns the workspace one execution needs. Throws rb::ApiError
  // when cuDNN has no plan for it.
  std::int64_t prepare(const SdpaGraphKey& key);
  // Enqueues one piece on `stream` (the device's). `workspace` holds at least prepare(key) bytes.
  void run(const SdpaGraphKey& key, const SdpaPointers& p, void* workspace, cudaStream_t stream);
  // The graphs prepared through this view: each shape's plan, implementation and build time, and
  // how many of them this view built (the others were built before, by another executor).
  CudnnGraphsUsed used() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The frontend's validate() of the graph prepare() would build for `key` (its implementation
// included), for GPUs of `sm_version` (90: Hopper): "" when cuDNN's frontend accepts it, else its
// message. Needs no device or handle,
// only the library (kernels/cudnn_library); so the CPU tests hold every graph a profile needs to it.
std::string validate_sdpa_graph(const SdpaGraphKey& key, int sm_version);

// What this build and process use: cuDNN's library version (cudnnGetVersion; "unavailable: why"
// where no libcudnn opens), the version its headers declared, and the frontend's, e.g. {"library":
// "9.14.0", "headers": "9.19.0", "frontend": "1.32.0"}; empty without cuDNN. Never throws.
std::map<std::string, std::string> cudnn_versions();

}  // namespace rb::ring
