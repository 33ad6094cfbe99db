// The CUPTI activity tracer of the CUDA backend (DESIGN §7 step 4): enables CONCURRENT_KERNEL,
// MEMCPY, MEMCPY2, MEMSET and MARKER activity, hands CUPTI its buffers, converts completed buffers
// into Timeline intervals (bench/cupti_records.hpp) and counts dropped records so a run can report
// them. `--no-cupti` simply never constructs one, which leaves CUPTI free for Nsight Systems.
// Built only with CUPTI (RINGBENCH_HAVE_CUPTI).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "bench/cupti_records.hpp"
#include "common/timeline.hpp"

namespace rb::bench {

class CuptiTracer {
 public:
  // Registers the buffer callbacks and enables the activity kinds. CUPTI's activity API is
  // process-global, so only one tracer may live at a time (rb::Error otherwise). NVTX markers
  // reach CUPTI only if NVTX_INJECTION64_PATH names libcupti before the first NVTX call: the
  // constructor sets it (when unset) to the libcupti this process loaded.
  explicit CuptiTracer(CuptiConversionOptions options = {});
  ~CuptiTracer();  // disables the activity kinds and flushes; never throws
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // CUPTI's clock, the clock of every interval this tracer produces.
  static std::int64_t now_ns();

  // States the role of a CUDA stream (pass the cudaStream_t) of the current device, so its
  // records get the executor's rank, lane and kind instead of the kernel-name rule.
  void set_stream_role(void* cuda_stream, CuptiStreamRole role);

  // Forces CUPTI to deliver every buffer, complete or not.
  void flush();

  // Flushes, then returns the intervals collected so far with the given window (CUPTI ns) and
  // starts afresh. Throws rb::Error if a buffer could not be parsed.
  Timeline take(std::int64_t window_begin_ns = 0, std::int64_t window_end_ns = 0);

  // Records CUPTI dropped because no buffer was free; non-zero means the timeline is incomplete
  // and the run must say so.
  std::uint64_t dropped_records() const;
  std::size_t ignored_records() const;

  // Called from CUPTI's callbacks.
  void on_buffer(CUcontext ctx, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t valid_size) noexcept;

 private:
  mutable std::mutex mu_;
  CuptiRecordConverter converter_;
  std::uint64_t dropped_ = 0;
  std::string callback_error_;
};

}  // namespace rb::bench
