// Packing timeline intervals for the trip between processes: what goes in comes out, and a damaged
// buffer is an error, never a silently short timeline.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "ring/transport/interval_pack.hpp"

namespace rb::ring {
namespace {

std::vector<Interval> sample() {
  return {Interval{0, IntervalKind::compute, "compute", "attention", 0, 0, 10, 250, 0},
          Interval{3, IntervalKind::comm, "comm", "dkv_recv", 2, 1 << 20, -5, 4'000'000'000'000LL, 0, 1},
          Interval{1, IntervalKind::memory, "", "", -1, 7, 0, 0, 0xfeedbeefULL}};
}

TEST(IntervalPack, RoundTripKeepsEveryField) {
  const auto in = sample();
  const auto bytes = pack_intervals(in);
  std::vector<Interval> out;
  unpack_intervals(bytes, out);
  ASSERT_EQ(out.size(), in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].rank, in[i].rank);
    EXPECT_EQ(out[i].kind, in[i].kind);
    EXPECT_EQ(out[i].lane, in[i].lane);
    EXPECT_EQ(out[i].name, in[i].name);
    EXPECT_EQ(out[i].step, in[i].step);
    EXPECT_EQ(out[i].bytes, in[i].bytes);
    EXPECT_EQ(out[i].begin_ns, in[i].begin_ns);
    EXPECT_EQ(out[i].end_ns, in[i].end_ns);
    EXPECT_EQ(out[i].graph_node_id, in[i].graph_node_id);
    EXPECT_EQ(out[i].phase, in[i].phase);  // the backward's intervals stay the backward's
  }
}

TEST(IntervalPack, ConcatenatedPartsUnpackAsOneTimeline) {
  // What an allgather hands back: each process's packed intervals, one after the other.
  const auto in = sample();
  auto a = pack_intervals(std::span(in).first(1));
  const auto b = pack_intervals(std::span(in).subspan(1));
  a.insert(a.end(), b.begin(), b.end());
  std::vector<Interval> out;
  unpack_intervals(a, out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[1].name, "dkv_recv");
  EXPECT_EQ(out[2].graph_node_id, 0xfeedbeefULL);
}

TEST(IntervalPack, TruncatedBufferIsAnError) {
  const auto bytes = pack_intervals(sample());
  for (std::size_t cut : {std::size_t{1}, std::size_t{20}, bytes.size() - 1}) {
    std::vector<Interval> out;
    EXPECT_THROW(unpack_intervals(std::span(bytes).first(cut), out), Error) << "cut at " << cut;
  }
}

TEST(IntervalPack, UnknownKindIsAnError) {
  auto bytes = pack_intervals(sample());
  bytes[4] = std::byte{42};  // the first interval's kind
  std::vector<Interval> out;
  EXPECT_THROW(unpack_intervals(bytes, out), Error);
}

TEST(IntervalPack, EmptyIsEmpty) {
  std::vector<Interval> out;
  unpack_intervals({}, out);
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(pack_intervals({}).empty());
}

}  // namespace
}  // namespace rb::ring
