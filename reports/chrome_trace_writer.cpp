// Chrome trace JSON writer (see chrome_trace_writer.hpp). Events are streamed one per line so a
// trace of a million intervals never sits in memory as one JSON document.
#include "reports/chrome_trace_writer.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace rb::reports {
namespace {

double us_since(std::int64_t ns, std::int64_t origin) { return static_cast<double>(ns - origin) / 1e3; }

}  // namespace

void write_chrome_trace(std::ostream& os, const std::vector<Timeline>& timelines) {
  using nlohmann::json;
  // The origin: earliest window start, else earliest interval; keeps written µs values small.
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  std::int64_t win_lo = std::numeric_limits<std::int64_t>::max(), win_hi = std::numeric_limits<std::int64_t>::min();
  for (const auto& t : timelines) {
    if (t.window_end_ns > t.window_begin_ns) {
      win_lo = std::min(win_lo, t.window_begin_ns);
      win_hi = std::max(win_hi, t.window_end_ns);
    }
    for (const auto& iv : t.intervals) origin = std::min(origin, iv.begin_ns);
  }
  if (win_hi > win_lo) origin = std::min(origin, win_lo);
  if (origin == std::numeric_limits<std::int64_t>::max()) origin = 0;

  // tid per (rank, lane) in order of first appearance: deterministic and stable across a sweep.
  std::map<std::pair<int, std::string>, int> tids;
  std::map<int, int> next_tid;
  std::set<int> ranks;
  for (const auto& t : timelines) {
    for (const auto& iv : t.intervals) {
      ranks.insert(iv.rank);
      auto key = std::make_pair(iv.rank, iv.lane);
      if (!tids.contains(key)) tids.emplace(std::move(key), ++next_tid[iv.rank]);
    }
  }

  os << "{\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const json& ev) {
    if (!first) os << ",\n";
    first = false;
    os << ev.dump();
  };
  for (int r : ranks) {
    emit({{"ph", "M"}, {"name", "process_name"}, {"pid", r}, {"tid", 0}, {"args", {{"name", "rank " + std::to_string(r)}}}});
    emit({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", r}, {"tid", 0}, {"args", {{"sort_index", r}}}});
  }
  for (const auto& [key, tid] : tids) {
    emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", key.first}, {"tid", tid}, {"args", {{"name", key.second}}}});
    emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", key.first}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
  }
  for (const auto& t : timelines) {
    for (const auto& iv : t.intervals) {
      json args = {{"kind", to_string(iv.kind)}, {"step", iv.step}, {"bytes", iv.bytes}};
      if (iv.graph_node_id != 0) args["graph_node_id"] = iv.graph_node_id;
      emit({{"ph", "X"},
            {"cat", to_string(iv.kind)},
            {"name", iv.name},
            {"pid", iv.rank},
            {"tid", tids.at({iv.rank, iv.lane})},
            {"ts", us_since(iv.begin_ns, origin)},
            {"dur", static_cast<double>(iv.end_ns - iv.begin_ns) / 1e3},
            {"args", std::move(args)}});
    }
  }
  json other = {{"producer", "ringbench"}, {"ringbench_trace_version", kChromeTraceVersion}, {"origin_ns", origin}};
  if (win_hi > win_lo) {
    other["window_begin_ns"] = win_lo;
    other["window_end_ns"] = win_hi;
  }
  os << "\n],\"displayTimeUnit\":\"ns\",\"otherData\":" << other.dump() << "}\n";
}

void write_chrome_trace(const std::filesystem::path& path, const std::vector<Timeline>& timelines) {
  std::ofstream os(path, std::ios::binary);
  if (!os) throw InputError(path.string(), "'" + path.string() + "'", "the trace file must be writable");
  write_chrome_trace(os, timelines);
  os.flush();
  if (!os) throw Error("writing the Chrome trace " + path.string() + " failed");
}

}  // namespace rb::reports
