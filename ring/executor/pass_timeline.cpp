// A pass's timeline, alone or merged over a process group (see pass_timeline.hpp).
#include "ring/executor/pass_timeline.hpp"

#include <algorithm>
#include <utility>

#include "ring/transport/interval_pack.hpp"

namespace rb::ring {
namespace {

Timeline relative_to(std::vector<Interval> ivs, std::int64_t begin, std::int64_t end) {
  Timeline tl;
  tl.window_begin_ns = 0;
  tl.window_end_ns = end - begin;
  for (auto& iv : ivs) {
    iv.begin_ns -= begin;
    iv.end_ns -= begin;
  }
  std::stable_sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) { return a.rank < b.rank; });
  tl.intervals = std::move(ivs);
  return tl;
}

}  // namespace

Timeline pass_timeline(std::vector<Interval> mine, std::int64_t begin_ns, std::int64_t end_ns, ProcessGroup* group) {
  if (!group) return relative_to(std::move(mine), begin_ns, end_ns);
  // Each process's offset is estimated once per job; the earliest start is the ring's.
  const std::int64_t off = group->clock_offset_ns();
  for (auto& iv : mine) {
    iv.begin_ns -= off;
    iv.end_ns -= off;
  }
  const std::int64_t begin = group->min(begin_ns - off), end = group->max(end_ns - off);
  std::vector<std::int64_t> sizes;
  const auto all = group->allgather(pack_intervals(mine), sizes);
  std::vector<Interval> ring;
  unpack_intervals(all, ring);
  return relative_to(std::move(ring), begin, end);
}

}  // namespace rb::ring
