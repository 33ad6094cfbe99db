// Chrome trace JSON writer (see chrome_trace_writer.hpp). Events are streamed one per line so a
// trace of a million intervals never sits in memory as one JSON document.
#include "reports/exports/chrome_trace_writer.hpp"

#include <algorithm>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/output_file.hpp"

namespace rb::reports {

void write_chrome_trace(std::ostream& os, const std::vector<Timeline>& timelines) {
  using nlohmann::json;
  // The origin: earliest window start, else earliest interval; keeps written µs values small.
  const std::int64_t origin = trace_origin(timelines);
  std::int64_t win_lo = std::numeric_limits<std::int64_t>::max(), win_hi = std::numeric_limits<std::int64_t>::min();
  for (const auto& t : timelines)
    if (t.window_end_ns > t.window_begin_ns) {
      win_lo = std::min(win_lo, t.window_begin_ns);
      win_hi = std::max(win_hi, t.window_end_ns);
    }

  // tid per (rank, track) in order of first appearance: deterministic and stable across a sweep. A
  // track is the interval's lane, or a further track of it where intervals of one lane overlap.
  std::vector<const Interval*> all;
  for (const auto& t : timelines)
    for (const auto& iv : t.intervals) all.push_back(&iv);
  const std::vector<std::string> tracks = interval_tracks(all);
  LaneIds tids;
  std::set<int> ranks;
  for (std::size_t i = 0; i < all.size(); ++i) {
    ranks.insert(all[i]->rank);
    tids.id(all[i]->rank, all[i]->lane);  // a lane's own track numbers before its further ones
    tids.id(all[i]->rank, tracks[i]);
  }

  os << "{\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const json& ev) {
    if (!first) os << ",\n";
    first = false;
    os << ev.dump();
  };
  json rank_of_pid = json::array();
  for (int r : ranks) {
    const int pid = trace_pid(r);
    rank_of_pid.push_back({{"pid", pid}, {"rank", r}});
    emit({{"ph", "M"},
          {"name", "process_name"},
          {"pid", pid},
          {"tid", 0},
          {"args", {{"name", "rank " + std::to_string(r)}}}});
    emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", r}}}});
  }
  for (const auto& [key, tid] : tids.all()) {
    const int pid = trace_pid(key.first);
    emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", key.second}}}});
    emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Interval& iv = *all[i];
    json args = {{"kind", to_string(iv.kind)}, {"step", iv.step}, {"bytes", iv.bytes}};
    if (iv.graph_node_id != 0) args["graph_node_id"] = iv.graph_node_id;
    emit({{"ph", "X"},
          {"cat", to_string(iv.kind)},
          {"name", iv.name},
          {"pid", trace_pid(iv.rank)},
          {"tid", tids.find(iv.rank, tracks[i])},
          {"ts", trace_us(iv.begin_ns - origin)},
          {"dur", trace_dur_us(iv.begin_ns - origin, iv.end_ns - origin)},
          {"args", std::move(args)}});
  }
  json other = {{"producer", "ringbench"},
                {"ringbench_trace_version", kChromeTraceVersion},
                {"origin_ns", origin},
                {"ranks", rank_of_pid}};
  if (win_hi > win_lo) {
    other["window_begin_ns"] = win_lo;
    other["window_end_ns"] = win_hi;
  }
  // No displayTimeUnit: older Perfetto read it as the unit of ts.
  os << "\n],\"otherData\":" << other.dump() << "}\n";
}

void write_chrome_trace(const std::filesystem::path& path, const std::vector<Timeline>& timelines) {
  std::ostringstream os;
  write_chrome_trace(os, timelines);
  write_output_file("--trace", path, os.str());
}

}  // namespace rb::reports
