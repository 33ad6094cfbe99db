// Timeline intervals (DESIGN §6): what ran where and when, per rank. Backends record them; the
// metrics, the Chrome trace and `ringbench analyze` read them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rb {

enum class IntervalKind { compute, comm, memory, other };
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
};

struct Timeline {
  std::vector<Interval> intervals;
  std::int64_t window_begin_ns = 0;
  std::int64_t window_end_ns = 0;
};

}  // namespace rb
