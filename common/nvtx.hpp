// NVTX3 ranges in the `ringbench` domain (docs/design.md §7, docs/nsight.md) that make a ring pass readable
// in Nsight Systems, plus names for OS threads and CUDA streams. Without NVTX (no
// RINGBENCH_HAVE_NVTX) every call compiles to nothing, so callers never need an #ifdef.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rb::nvtx {

inline constexpr const char* kDomain = "ringbench";

// Range names, exactly as docs/nsight.md lists them.
inline constexpr const char* kRangeConfig =
    "config";  // one round of a configuration; message "config <label> round <k>"
inline constexpr const char* kRangeReplay =
    "replay";                                      // one graph replay around cudaGraphLaunch; payload = replay index
inline constexpr const char* kRangeStep = "step";  // one ring step of an eager pass; payload = step
inline constexpr const char* kRangeTransfer = "transfer";  // one K/V transfer of an eager pass; payload = step it feeds
inline constexpr const char* kRangeRankPass = "rank pass";  // cuda: one rank's own pass (isolated mode, or a nccl
                                                            // process's); payload = rank
inline constexpr const char* kRangeCapture = "capture";     // cuda: capturing a pass into a CUDA graph; payload = rank,
                                                            // or -1 for the whole ring

// A push/pop range on the calling thread for the lifetime of the object.
class ScopedRange {
 public:
  explicit ScopedRange(const char* name);
  ScopedRange(const char* name, std::int64_t payload);
  // A dynamic message, e.g. "config S=8192 c=4 zigzag ring".
  explicit ScopedRange(const std::string& message, std::optional<std::int64_t> payload = std::nullopt);
  ~ScopedRange();
  ScopedRange(const ScopedRange&) = delete;
  ScopedRange& operator=(const ScopedRange&) = delete;

 private:
  bool pushed_ = false;
};

// Names the calling OS thread (e.g. "rank 3 comm") on the Nsight timeline.
void name_current_thread(const std::string& name);

// Names a CUDA stream (pass the cudaStream_t). The parameter is opaque so that this header stays
// free of CUDA headers. A no-op without NVTX, and unless this library is compiled with
// RINGBENCH_HAVE_CUDA (the build does not do that today): the CUDA executor names its streams
// with ring::name_stream (ring/cuda/cuda_handles.hpp), which only CUDA translation units include.
void name_stream(void* cuda_stream, const std::string& name);

// Whether ranges are compiled in (RINGBENCH_HAVE_NVTX).
bool enabled();

// Names `library` as the tool NVTX loads (NVTX_INJECTION64_PATH). NVTX reads that variable once,
// at the process's first NVTX call, and never again: so this must run before any NVTX call, which
// is why main has it called, before any command runs, whenever a CUPTI pass may follow (CUPTI sees
// NVTX ranges only as NVTX's tool; bench/measure/cupti_nvtx_tool.hpp decides whether libcupti may
// be). Leaves a variable that is already set alone (Nsight Systems sets its own). Returns whether
// the variable names `library` afterwards; false without NVTX.
bool attach_injection(const std::string& library);

}  // namespace rb::nvtx
