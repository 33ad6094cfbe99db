// Chrome trace export (docs/design.md §8): Timelines as one Chrome trace JSON file that Perfetto and
// chrome://tracing open. One "X" event per interval (µs), pid = rank + 1 (Perfetto reserves pid 0),
// tid = one per lane (stream or thread; a lane whose intervals overlap gets further tracks, "comm 2"),
// named by process_name / thread_name metadata events; args carry kind, step and bytes, and
// otherData maps each pid to its rank, so that `ringbench analyze` reads the trace back with the
// executor's classification. One file per rank for HTA is kineto_trace_writer's. Format history:
// docs/formats.md, "Traces".
#pragma once

#include <filesystem>
#include <iosfwd>
#include <vector>

#include "common/timeline.hpp"
#include "reports/exports/trace_events.hpp"

namespace rb::reports {

// The timelines must share a clock; ranks that appear in several of them share a pid. Times are
// written relative to the earliest window start (or interval), stored as otherData.origin_ns so a
// reader restores the original clock; this keeps µs doubles exact to the ns on absolute clocks.
void write_chrome_trace(std::ostream& os, const std::vector<Timeline>& timelines);

// Writes to a file; throws rb::InputError when the path cannot be opened for writing and rb::Error
// when writing fails.
void write_chrome_trace(const std::filesystem::path& path, const std::vector<Timeline>& timelines);

}  // namespace rb::reports
