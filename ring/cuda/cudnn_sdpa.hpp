// cuDNN's fused flash attention for the `--kernel cudnn` path: one device's cuDNN handle and the
// SDPA forward graphs its ranks' pieces need (ring/plan/sdpa_pieces.hpp), built and planned once at the
// executor's setup, outside any capture, and cached by shape; executing one enqueues it on a stream,
// capturable, with the pointers of one piece. Built with CUDA; without cuDNN (RINGBENCH_HAVE_CUDNN)
// construction throws, which the sweep never reaches (bench/sweep/kernel_choice.hpp refuses first).
// This header needs no cuDNN header.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>

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
  // A handle on `device`, which becomes the current device. Not to be shared between threads.
  explicit CudnnSdpa(int device);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;

  // Builds and plans the graph for `key` once (validate, lower, heuristics, check support, build
  // the plan); returns the workspace one execution needs. Throws rb::ApiError when cuDNN has no plan
  // for it.
  std::int64_t prepare(const SdpaGraphKey& key);
  // Enqueues one piece on `stream` (the device's). `workspace` holds at least prepare(key) bytes.
  void run(const SdpaGraphKey& key, const SdpaPointers& p, void* workspace, cudaStream_t stream);
  // The plans chosen so far: "rows x keys mask: plan name", one per graph, for the record.
  std::map<std::string, std::string> plans() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The frontend's validate() of the graph prepare() would build for `key`, for GPUs of `sm_version`
// (90: Hopper): "" when cuDNN's frontend accepts it, else its message. Needs no device or handle,
// only the library (kernels/cudnn_library); so the CPU tests hold every graph a profile needs to it.
std::string validate_sdpa_graph(const SdpaGraphKey& key, int sm_version);

// What this build and process use: cuDNN's library version (cudnnGetVersion; "unavailable: why"
// where no libcudnn opens), the version its headers declared, and the frontend's, e.g. {"library":
// "9.14.0", "headers": "9.19.0", "frontend": "1.32.0"}; empty without cuDNN. Never throws.
std::map<std::string, std::string> cudnn_versions();

}  // namespace rb::ring
