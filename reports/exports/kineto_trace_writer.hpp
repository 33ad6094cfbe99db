// One trace file per rank in the PyTorch profiler's (Kineto's) shape, so that Meta's Holistic Trace
// Analysis loads a ringbench run as it loads a training job: `TraceAnalysis(trace_dir=DIR)` with
// every rank, and `get_comm_comp_overlap` equal to `ringbench analyze DIR`. What HTA needs, and
// how each file gives it (docs/nsight.md, "Opening a run in HTA"):
// - the rank as `"distributedInfo": {"backend": ..., "rank": N, "world_size": c}`, written with a
//   space after each colon, since HTA may find the rank with the pattern `"rank":\s+(\d+)`;
// - device events only (the intervals the metrics count: compute, memory, and comm executing, or
//   in flight where a rank saw nothing else), as `cat` kernel / gpu_memcpy / gpu_memset with
//   integer `args.stream` (the tid of the interval's track: its lane, or a further track of the lane
//   where its intervals overlap, so that every stream is serial) and `args.correlation`;
// - comm named `ncclKernel_ringbench_<name>`, which every HTA version classes as communication
//   (0.5's `^nccl.*Kernel`, older `ncclKernel` anywhere); the original name stays in
//   `args.ringbench_name`;
// - a CPU `cuda_runtime` event per device event with the same correlation, and two ProfilerStep
//   annotations (`ProfilerStep#0` over the pass, an empty `ProfilerStep#1` after it), so that HTA's
//   default of dropping kernels launched in the last profiler step drops none of the pass.
// Times are µs with three decimals; HTA rounds them to whole µs (start up, end down) unless
// HTA_DISABLE_NS_ROUNDING=1. pid is rank + 1 as in the Perfetto file.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>

#include "common/timeline.hpp"

namespace rb::reports {

struct KinetoRankInfo {
  int rank = 0;
  int world_size = 1;
  std::string backend;  // distributedInfo.backend, e.g. "ringbench cuda/local"
};

// The intervals of `info.rank` in `timeline` as one Kineto-style trace.
void write_kineto_rank_trace(std::ostream& os, const Timeline& timeline, const KinetoRankInfo& info);

// DIR/rank<N>.json; creates DIR. Throws rb::InputError when it cannot be written.
std::filesystem::path write_kineto_rank_trace(const std::filesystem::path& dir, const Timeline& timeline,
                                              const KinetoRankInfo& info);

// The HTA-facing name of a device event (above).
std::string kineto_event_name(const Interval& iv);

}  // namespace rb::reports
