// One pass's timeline (ring/executor/pass_timeline.hpp), alone and merged over a process group of threads
// (thread_group.hpp) whose clocks are offset from rank 0's. Each executor merged its own before
// they shared this one; the group case is also checked against those two merges, kept here as they
// were, so that moving them changed no timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "ring/executor/pass_timeline.hpp"
#include "ring/transport/interval_pack.hpp"
#include "thread_group.hpp"

namespace rb::ring {
namespace {

using testing::ThreadGroup;
using testing::ThreadGroupState;

Interval iv(int rank, const char* name, std::int64_t b, std::int64_t e) {
  return Interval{rank, IntervalKind::compute, "compute", name, 0, 0, b, e};
}

struct Span {
  int rank;
  std::string name;
  std::int64_t begin, end;
  friend bool operator==(const Span&, const Span&) = default;
};
std::vector<Span> spans(const Timeline& tl) {
  std::vector<Span> out;
  for (const auto& i : tl.intervals) out.push_back({i.rank, i.name, i.begin_ns, i.end_ns});
  return out;
}

TEST(PassTimeline, AloneItIsRelativeToThePassAndOrderedByRank) {
  const std::vector<Interval> mine = {iv(2, "a", 1100, 1500), iv(0, "b", 1200, 1300), iv(1, "c", 1000, 1900),
                                      iv(0, "d", 1050, 1060)};
  const Timeline tl = pass_timeline(mine, 1000, 5000, nullptr);
  EXPECT_EQ(tl.window_begin_ns, 0);
  EXPECT_EQ(tl.window_end_ns, 4000);
  // Each rank's intervals keep the order they were recorded in.
  const std::vector<Span> expected = {{0, "b", 200, 300}, {0, "d", 50, 60}, {1, "c", 0, 900}, {2, "a", 100, 500}};
  EXPECT_EQ(spans(tl), expected);
}

// The CPU executor's merge before it moved to pass_timeline: intervals and bounds on the steady clock.
Timeline cpu_merge_before(ProcessGroup& g, std::vector<Interval> mine, std::int64_t t0, std::int64_t t1) {
  const std::int64_t off = g.clock_offset_ns();
  for (auto& i : mine) {
    i.begin_ns -= off;
    i.end_ns -= off;
  }
  const std::int64_t begin = g.min(t0 - off), end = g.max(t1 - off);
  std::vector<std::int64_t> sizes;
  const auto all = g.allgather(pack_intervals(mine), sizes);
  std::vector<Interval> ring;
  unpack_intervals(all, ring);
  Timeline tl;
  tl.window_end_ns = end - begin;
  for (auto& i : ring) {
    i.begin_ns -= begin;
    i.end_ns -= begin;
  }
  std::stable_sort(ring.begin(), ring.end(), [](const Interval& a, const Interval& b) { return a.rank < b.rank; });
  tl.intervals = std::move(ring);
  return tl;
}

// The CUDA executor's (group_timeline) before it moved: intervals relative to the pass's begin
// event, which lies `local` before the pass's end, seen on the steady clock at host_end.
Timeline cuda_merge_before(ProcessGroup& g, std::vector<Interval> mine, std::int64_t host_end, std::int64_t local) {
  const std::int64_t t0 = host_end - local - g.clock_offset_ns();
  for (auto& i : mine) {
    i.begin_ns += t0;
    i.end_ns += t0;
  }
  const std::int64_t begin = g.min(t0), end = g.max(t0 + local);
  std::vector<std::int64_t> sizes;
  const auto all = g.allgather(pack_intervals(mine), sizes);
  Timeline tl;
  unpack_intervals(all, tl.intervals);
  for (auto& i : tl.intervals) {
    i.begin_ns -= begin;
    i.end_ns -= begin;
  }
  std::stable_sort(tl.intervals.begin(), tl.intervals.end(),
                   [](const Interval& a, const Interval& b) { return a.rank < b.rank; });
  tl.window_end_ns = end - begin;
  return tl;
}

struct Member {
  std::int64_t offset;      // this process's steady clock minus rank 0's
  std::int64_t begin, end;  // its pass, on its own steady clock
};

TEST(PassTimeline, AGroupMovesEveryProcessToRankZerosClockAndGathersTheRing) {
  // On rank 0's clock the passes run [10000, 10900], [9900, 10800], [10050, 11000]: the ring's
  // window is [9900, 11000].
  const std::vector<Member> members = {{0, 10000, 10900}, {500, 10400, 11300}, {-200, 9850, 10800}};
  const int n = static_cast<int>(members.size());
  ThreadGroupState state(n);
  std::vector<Timeline> got(members.size()), cpu(members.size()), cuda(members.size());
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      const Member& m = members[static_cast<std::size_t>(r)];
      ThreadGroup g(state, r, n, m.offset);
      // Two intervals, 100 and 300 ns into the pass, the second recorded first.
      const std::vector<Interval> mine = {iv(r, "late", m.begin + 300, m.begin + 400),
                                          iv(r, "early", m.begin + 100, m.begin + 200)};
      const auto k = static_cast<std::size_t>(r);
      got[k] = pass_timeline(mine, m.begin, m.end, &g);
      cpu[k] = cpu_merge_before(g, mine, m.begin, m.end);
      // The CUDA executor's events: relative to the pass's begin, which it shifts onto the steady clock.
      std::vector<Interval> relative = mine;
      for (auto& i : relative) {
        i.begin_ns -= m.begin;
        i.end_ns -= m.begin;
      }
      cuda[k] = cuda_merge_before(g, relative, m.end, m.end - m.begin);
    });
  for (auto& t : threads) t.join();
  const std::vector<Span> expected = {{0, "late", 400, 500},  {0, "early", 200, 300}, {1, "late", 300, 400},
                                      {1, "early", 100, 200}, {2, "late", 450, 550},  {2, "early", 250, 350}};
  for (int r = 0; r < n; ++r) {
    const auto k = static_cast<std::size_t>(r);
    SCOPED_TRACE(::testing::Message() << "process " << r);
    EXPECT_EQ(got[k].window_begin_ns, 0);
    EXPECT_EQ(got[k].window_end_ns, 1100);
    EXPECT_EQ(spans(got[k]), expected);
    EXPECT_EQ(spans(cpu[k]), expected);
    EXPECT_EQ(cpu[k].window_end_ns, 1100);
    EXPECT_EQ(spans(cuda[k]), expected);
    EXPECT_EQ(cuda[k].window_end_ns, 1100);
  }
}

}  // namespace
}  // namespace rb::ring
