// What the two trace writers (chrome_trace_writer: one file for Perfetto; kineto_trace_writer: one
// file per rank for HTA) share: µs times that keep the nanosecond, durations that never reach past
// the interval's own end, the pid of a rank, and one tid per (rank, track): a lane, and further tracks
// of it where its intervals overlap.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/timeline.hpp"

namespace rb::reports {

// Trace format version of the ringbench-specific parts (otherData, args, pids), written as
// otherData.ringbench_trace_version. 2: pid = rank + 1 (Perfetto treats pid 0 as the idle
// process) and the rank in metadata; 1: pid = rank.
inline constexpr int kChromeTraceVersion = 2;

// Perfetto's importer reserves pid 0; ranks start at 1.
constexpr int trace_pid(int rank) { return rank + 1; }

// ns on the trace's clock (relative to its origin) as µs: ns / 1000, the double nearest the exact
// decimal, so a reader that parses the text as a decimal (Perfetto) gets the nanosecond back.
double trace_us(std::int64_t ns);
// The duration to write for [begin, end): as close to (end - begin) / 1000 as doubles allow, but
// never so large that trace_us(begin) + dur exceeds trace_us(end) in double arithmetic, so no
// reader that adds them sees an interval overrun the next one on its track.
double trace_dur_us(std::int64_t begin_ns, std::int64_t end_ns);

// The track each interval is written on, in the order of `intervals`: its lane, or, where it begins
// before an earlier interval of the same rank and lane has ended (ring-bidirectional's two
// directions on one comm thread), the first of the lane's further tracks that is free by then,
// "<lane> 2", "<lane> 3", ... No event on a track then begins before the one before it ends, so
// Perfetto drops none and HTA's streams stay serial, as CUDA streams are.
std::vector<std::string> interval_tracks(const std::vector<const Interval*>& intervals);

// tid per (rank, lane), numbered from 1 in order of first appearance for each rank.
class LaneIds {
 public:
  int id(int rank, const std::string& lane);  // assigns on first use
  int find(int rank, const std::string& lane) const;
  const std::map<std::pair<int, std::string>, int>& all() const { return ids_; }
  int next(int rank) const;  // the first unused tid of a rank

 private:
  std::map<std::pair<int, std::string>, int> ids_;
  std::map<int, int> last_;
};

// The earliest window start or interval begin of the timelines (0 when there is none): the origin
// the writers subtract, kept as otherData.origin_ns.
std::int64_t trace_origin(const std::vector<Timeline>& timelines);

}  // namespace rb::reports
