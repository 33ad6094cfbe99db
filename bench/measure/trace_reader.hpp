// Reads Chrome/Kineto trace JSON (plain or gzip) into Timelines for `ringbench analyze`: traces
// ringbench wrote (kind in args; the rank from otherData.ranks or distributedInfo since trace
// version 2, from the pid in version 1) and PyTorch profiler traces, one file per rank, of which only
// device events count (cat kernel, gpu_memcpy, gpu_memset), classified by stream role where the
// caller names one, else by kernel name as HTA does. CPU ops, runtime calls and annotations are
// skipped. Optionally, as HTA's TraceAnalysis does by default, device events launched in the last
// ProfilerStep are dropped.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "common/timeline.hpp"

namespace rb::bench {

struct TraceReadOptions {
  // Lane ("stream 7" for Kineto, the thread_name for other traces) → kind; a stated role wins
  // over the kernel name.
  std::map<std::string, IntervalKind> stream_roles;
  // Rank for a file that states none (no distributedInfo.rank and not written by ringbench).
  int default_rank = 0;
  // HTA's default (TraceAnalysis(include_last_profiler_step=False)): with two or more
  // ProfilerStep#N annotations, keep only device events whose launching CPU event (same
  // args.correlation) began before the last step; the others, and those with no launching event,
  // are dropped. A file with fewer steps is kept whole.
  bool exclude_last_profiler_step = false;
  // The most a trace may hold once decompressed (a gzip bomb stops here); `analyze --max-trace-mb`.
  std::size_t max_bytes = std::size_t{1} << 30;
};

struct TraceFile {
  std::string source;                  // the path, as given
  std::string format;                  // "ringbench" (ours) or "kineto" (any other Chrome trace)
  Timeline timeline;                   // kind by stream role where known, else by kernel name
  Timeline by_name;                    // the same intervals, every kind by kernel name (HTA's rule)
  std::size_t role_classified = 0;     // intervals whose kind came from a role (args.kind or stream_roles)
  std::size_t differing = 0;           // of those, how many the kernel-name rule classifies otherwise
  std::size_t skipped_events = 0;      // events that are not GPU/timeline intervals
  std::size_t profiler_steps = 0;      // ProfilerStep#N annotations seen
  std::size_t excluded_last_step = 0;  // device events dropped by exclude_last_profiler_step
  int trace_version = 0;               // otherData.ringbench_trace_version of a ringbench trace (1 when absent)
};

// Throws rb::InputError naming the file, the JSON path (as file#/json/pointer), the value and the
// rule for unreadable files, bad gzip, text that is not JSON, and events of the wrong shape.
TraceFile read_trace_file(const std::filesystem::path& path, const TraceReadOptions& options = {});

// The same from text already in memory; `source` names it in errors.
TraceFile parse_trace_text(std::string_view text, const std::string& source, const TraceReadOptions& options = {});

}  // namespace rb::bench
