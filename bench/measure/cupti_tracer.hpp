// The CUPTI activity tracer of the CUDA backend (docs/design.md §7 step 4): enables CONCURRENT_KERNEL,
// MEMCPY, MEMCPY2, MEMSET and MARKER activity, hands CUPTI its buffers, converts completed buffers
// into Timeline intervals (bench/measure/cupti_records.hpp) and counts dropped records so a run can report
// them. `--no-cupti` simply never constructs one, which leaves CUPTI free for Nsight Systems.
// Built only with CUPTI (RINGBENCH_HAVE_CUPTI).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <cupti_callbacks.h>

#include "bench/measure/cupti_records.hpp"
#include "common/timeline.hpp"

namespace rb::bench {

class CuptiTracer {
 public:
  // Registers the buffer callbacks and enables the activity kinds. CUPTI's activity API is
  // process-global, so only one tracer may live at a time (rb::Error otherwise). NVTX markers
  // reach CUPTI only if NVTX_INJECTION64_PATH named libcupti at the process's first NVTX call:
  // main sees to that (bench/measure/cupti_nvtx_tool.hpp), and so do the tracer's tests.
  explicit CuptiTracer(CuptiConversionOptions options = {});
  ~CuptiTracer();  // disables the activity kinds and flushes; never throws
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // CUPTI's clock, the clock of every interval this tracer produces.
  static std::int64_t now_ns();

  // States the role of a CUDA stream (pass the cudaStream_t) of `device`, so its records get the
  // executor's rank, lane and kind instead of the kernel-name rule. The device is the stream's own,
  // whichever is current: the ranks of one process may live on several.
  void set_stream_role(void* cuda_stream, int device, CuptiStreamRole role);

  // Forces CUPTI to deliver every buffer, complete or not.
  void flush();

  // Flushes, then returns the intervals collected so far with the given window (CUPTI ns) and
  // starts afresh. Throws rb::Error if a buffer could not be parsed.
  Timeline take(std::int64_t window_begin_ns = 0, std::int64_t window_end_ns = 0);

  // Records CUPTI dropped because no buffer was free; non-zero means the timeline is incomplete
  // and the run must say so.
  std::uint64_t dropped_records() const;
  std::size_t ignored_records() const;
  // Records no role claimed, left out (CuptiConversionOptions::keep_unattributed = false).
  std::size_t unattributed_records() const;

  // Called from CUPTI's callbacks.
  void on_buffer(CUcontext ctx, std::uint32_t stream_id, std::uint8_t* buffer, std::size_t valid_size) noexcept;

 private:
  mutable std::mutex mu_;
  CuptiRecordConverter converter_;
  std::uint64_t dropped_ = 0;
  std::string callback_error_;
};

// The path of the libcupti this process loaded, for name_cupti_as_nvtx_tool; empty if unknown.
std::string cupti_library_path();

// CUPTI's id of a CUDA graph node (pass the cudaGraphNode_t). Throws rb::ApiError.
std::uint64_t cupti_graph_node_id(void* graph_node);

// cudaGraphInstantiate clones every node of the captured graph, and CUPTI files a replayed node's
// work under the clone's id, not under the id of the node the executor labelled at capture. While
// a recorder lives, every clone made on any thread is noted, so labels can follow their nodes
// into the executable graphs; it must therefore exist while the executor captures and
// instantiates. Only the graph-node-cloned resource callback is enabled, so launches never pass
// through it. A CUPTI subscriber, hence process-wide: constructing one throws rb::ApiError when
// another subscriber (e.g. Nsight Systems) holds CUPTI.
class CuptiCloneRecorder {
 public:
  CuptiCloneRecorder();
  ~CuptiCloneRecorder();  // unsubscribes; never throws
  CuptiCloneRecorder(const CuptiCloneRecorder&) = delete;
  CuptiCloneRecorder& operator=(const CuptiCloneRecorder&) = delete;

  // Original id → ids of its clones, as noted so far. Throws rb::Error if a callback failed.
  std::multimap<std::uint64_t, std::uint64_t> clones() const;

  // Called from CUPTI's callback.
  void on_cloned(const CUpti_GraphData& graph) noexcept;

 private:
  CUpti_SubscriberHandle subscriber_ = nullptr;
  mutable std::mutex mu_;
  std::multimap<std::uint64_t, std::uint64_t> clones_;
  std::string callback_error_;
};

// `id` and every id cloned from it, directly or through clones of clones.
std::vector<std::uint64_t> with_clones(std::uint64_t id, const std::multimap<std::uint64_t, std::uint64_t>& clones);

}  // namespace rb::bench
