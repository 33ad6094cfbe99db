// Shared pieces of the trace writers (see trace_events.hpp).
#include "reports/exports/trace_events.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <utility>

namespace rb::reports {

double trace_us(std::int64_t ns) { return static_cast<double>(ns) / 1e3; }

double trace_dur_us(std::int64_t begin_ns, std::int64_t end_ns) {
  const double b = trace_us(begin_ns), e = trace_us(end_ns);
  double d = trace_us(end_ns - begin_ns);
  while (d > 0 && b + d > e) d = std::nextafter(d, 0.0);
  return d;
}

std::vector<std::string> interval_tracks(const std::vector<const Interval*>& intervals) {
  std::vector<std::size_t> order(intervals.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return intervals[a]->begin_ns < intervals[b]->begin_ns; });
  std::map<std::pair<int, std::string>, std::vector<std::int64_t>> busy_until;  // per lane, per track
  std::vector<std::string> tracks(intervals.size());
  for (const std::size_t i : order) {
    const Interval& iv = *intervals[i];
    auto& ends = busy_until[{iv.rank, iv.lane}];
    std::size_t k = 0;
    while (k < ends.size() && ends[k] > iv.begin_ns) ++k;
    if (k == ends.size()) ends.push_back(iv.end_ns);
    ends[k] = std::max(iv.end_ns, iv.begin_ns);
    tracks[i] = k == 0 ? iv.lane : iv.lane + " " + std::to_string(k + 1);
  }
  return tracks;
}

int LaneIds::id(int rank, const std::string& lane) {
  auto key = std::make_pair(rank, lane);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  const int t = ++last_[rank];
  ids_.emplace(std::move(key), t);
  return t;
}

int LaneIds::find(int rank, const std::string& lane) const {
  const auto it = ids_.find({rank, lane});
  return it == ids_.end() ? 0 : it->second;
}

int LaneIds::next(int rank) const {
  const auto it = last_.find(rank);
  return it == last_.end() ? 1 : it->second + 1;
}

std::int64_t trace_origin(const std::vector<Timeline>& timelines) {
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  for (const auto& t : timelines) {
    if (t.window_end_ns > t.window_begin_ns) origin = std::min(origin, t.window_begin_ns);
    for (const auto& iv : t.intervals) origin = std::min(origin, iv.begin_ns);
  }
  return origin == std::numeric_limits<std::int64_t>::max() ? 0 : origin;
}

}  // namespace rb::reports
