// Timeline intervals (docs/design.md §6): what ran where and when, per rank. Backends record them; the
// metrics, the Chrome trace and `ringbench analyze` read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

// comm is a transfer executing (a copy kernel's first to last CTA, a comm thread's copy, a NCCL
// kernel as CUPTI saw it); comm_in_flight brackets a transfer from the moment its stream reached it
// until it was done, waiting for SMs or a peer included (CUDA events around a copy or a NCCL call).
// Metrics take comm time from comm intervals, and from in-flight ones only where a rank has none
// (docs/metrics.md, "Which clock is comm time").
enum class IntervalKind { compute, comm, memory, comm_in_flight, other };
std::string_view to_string(IntervalKind k);

struct Interval {
  int rank = 0;
  IntervalKind kind = IntervalKind::other;
  std::string lane;  // stream or thread, e.g. "compute", "comm"
  std::string name;  // e.g. "attention", "merge", "kv_recv"
  int step = -1;     // ring step, -1 when not tied to one
  std::int64_t bytes = 0;
  std::int64_t begin_ns = 0;  // on the recording clock, relative to the measured window's start
  std::int64_t end_ns = 0;
  std::uint64_t graph_node_id = 0;  // CUDA graph node of a kernel, copy or memset (CUPTI); 0: none
  int phase = 0;                    // 0: the forward, 1: the backward (docs/design.md §3a)
};

struct Timeline {
  std::vector<Interval> intervals;
  std::int64_t window_begin_ns = 0;
  std::int64_t window_end_ns = 0;
};

}  // namespace rb
