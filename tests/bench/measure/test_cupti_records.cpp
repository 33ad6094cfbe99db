// CUPTI activity records built in memory → Timeline intervals: kernels with graph node ids,
// memcpy and peer copies, memsets, NVTX markers, node roles versus stream roles versus kernel
// names. Runs on the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "bench/measure/cupti_records.hpp"
#include "bench/measure/cupti_tracer.hpp"

namespace rb::bench {
namespace {

template <class R>
R zeroed(CUpti_ActivityKind kind) {
  R r;
  std::memset(&r, 0, sizeof r);
  r.kind = kind;
  return r;
}

const CUpti_Activity* as_record(const void* r) { return static_cast<const CUpti_Activity*>(r); }

CuptiKernelRecord kernel(const char* name, std::uint32_t device, std::uint32_t stream, std::uint64_t start,
                         std::uint64_t end, std::uint64_t node = 0) {
  auto k = zeroed<CuptiKernelRecord>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.name = name;
  k.deviceId = device;
  k.streamId = stream;
  k.start = start;
  k.end = end;
  k.graphNodeId = node;
  return k;
}

TEST(CuptiRecords, KernelsTakeRankLaneAndKindFromTheStreamRole) {
  CuptiConversionOptions opt;
  opt.streams[{0, 13}] = {2, IntervalKind::compute, "rank 2 compute"};
  opt.streams[{0, 14}] = {2, IntervalKind::comm, "rank 2 comm"};
  opt.nodes[501] = {2, 3, IntervalKind::compute, "rank 2 compute", ""};  // keeps the kernel's name
  CuptiRecordConverter conv(opt);
  const auto a = kernel("_Z13attention_fwdIfEvPKT_i", 0, 13, 1'000'000'000'000, 1'000'000'050'000, 501);
  const auto b = kernel("copy_kv_kernel", 0, 14, 1'000'000'010'000, 1'000'000'020'000);
  conv.add(as_record(&a));
  conv.add(as_record(&b));
  const Timeline t = conv.take(1'000'000'000'000, 1'000'000'100'000);
  ASSERT_EQ(t.intervals.size(), 2u);
  const auto& i0 = t.intervals[0];
  EXPECT_EQ(i0.rank, 2);
  EXPECT_EQ(i0.lane, "rank 2 compute");
  EXPECT_EQ(i0.kind, IntervalKind::compute);
  EXPECT_EQ(i0.name, "void attention_fwd<float>(float const*, int)");  // demangled
  EXPECT_EQ(i0.begin_ns, 1'000'000'000'000);
  EXPECT_EQ(i0.end_ns, 1'000'000'050'000);
  EXPECT_EQ(i0.graph_node_id, 501u);
  EXPECT_EQ(i0.step, 3);
  EXPECT_EQ(t.intervals[1].kind, IntervalKind::comm);  // role, though the name says compute
  EXPECT_EQ(t.intervals[1].step, -1);
  EXPECT_EQ(conv.differing(), 1u);
  EXPECT_EQ(t.window_end_ns, 1'000'000'100'000);
}

TEST(CuptiRecords, UnmappedStreamsFallBackToDeviceAndKernelName) {
  CuptiRecordConverter conv;
  const auto a = kernel("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", 1, 7, 10, 20);
  const auto b = kernel("gemm", 1, 7, 20, 30);
  conv.add(as_record(&a));
  conv.add(as_record(&b));
  const Timeline t = conv.take();
  EXPECT_EQ(t.intervals[0].rank, 1);
  EXPECT_EQ(t.intervals[0].lane, "stream 7");
  EXPECT_EQ(t.intervals[0].kind, IntervalKind::comm);
  EXPECT_EQ(t.intervals[1].kind, IntervalKind::compute);
  EXPECT_EQ(conv.differing(), 0u);
}

TEST(CuptiRecords, MemcpyPeerCopyAndMemset) {
  CuptiConversionOptions opt;
  opt.streams[{0, 20}] = {0, IntervalKind::comm, "rank 0 comm"};
  CuptiRecordConverter conv(opt);
  auto c = zeroed<CuptiMemcpyRecord>(CUPTI_ACTIVITY_KIND_MEMCPY);
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  c.bytes = 1 << 20;
  c.deviceId = 0;
  c.streamId = 5;
  c.start = 100;
  c.end = 160;
  c.graphNodeId = 9;
  auto p = zeroed<CuptiPeerCopyRecord>(CUPTI_ACTIVITY_KIND_MEMCPY2);
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.bytes = 4096;
  p.deviceId = 0;
  p.streamId = 20;
  p.srcDeviceId = 1;
  p.dstDeviceId = 0;
  p.start = 200;
  p.end = 300;
  auto s = zeroed<CuptiMemsetRecord>(CUPTI_ACTIVITY_KIND_MEMSET);
  s.bytes = 512;
  s.deviceId = 0;
  s.streamId = 5;
  s.start = 400;
  s.end = 410;
  for (const void* r : {static_cast<const void*>(&c), static_cast<const void*>(&p), static_cast<const void*>(&s)}) {
    conv.add(as_record(r));
  }
  const Timeline t = conv.take();
  ASSERT_EQ(t.intervals.size(), 3u);
  EXPECT_EQ(t.intervals[0].name, "Memcpy DtoD");
  EXPECT_EQ(t.intervals[0].kind, IntervalKind::memory);
  EXPECT_EQ(t.intervals[0].bytes, 1 << 20);
  EXPECT_EQ(t.intervals[0].graph_node_id, 9u);
  EXPECT_EQ(t.intervals[1].name, "Memcpy PtoP (device 1 -> 0)");
  EXPECT_EQ(t.intervals[1].kind, IntervalKind::comm);  // on the comm stream
  EXPECT_EQ(t.intervals[1].bytes, 4096);
  EXPECT_EQ(t.intervals[1].end_ns - t.intervals[1].begin_ns, 100);
  EXPECT_EQ(t.intervals[2].name, "Memset");
  EXPECT_EQ(t.intervals[2].kind, IntervalKind::memory);
  EXPECT_EQ(t.intervals[2].bytes, 512);
}

// The traced pass as the sweep converts it: the pass's work is labelled (node or stream), and what
// no role claims is the set-up around it (the stamp reset, a memset on the legacy stream; the
// clock probes on the origin stream), which must not land on rank 0 = device 0 nor stretch the
// window the metrics are taken over. In isolated mode the ranks' passes run one after another,
// with the host's gaps between them; their time at work adds up without the gaps.
TEST(CuptiRecords, UnattributedSetUpStaysOutOfTheTracedPass) {
  CuptiConversionOptions opt;
  opt.keep_unattributed = false;
  opt.streams[{0, 13}] = {0, IntervalKind::compute, "compute"};
  opt.streams[{1, 13}] = {1, IntervalKind::compute, "compute"};  // the same stream id on another device
  opt.nodes[70] = {1, 0, IntervalKind::compute, "compute", "attention"};
  CuptiRecordConverter conv(opt);
  auto reset = zeroed<CuptiMemsetRecord>(CUPTI_ACTIVITY_KIND_MEMSET);
  reset.deviceId = 0;
  reset.streamId = 7;  // the legacy stream
  reset.start = 0;
  reset.end = 50;
  const auto probe0 = kernel("clock_probe_kernel", 0, 3, 900, 905);
  const auto rank0 = kernel("attention", 0, 13, 1000, 2000);
  const auto rank1 = kernel("attention", 1, 13, 3000, 3500);          // by its stream, on device 1
  const auto rank1_node = kernel("attention", 0, 9, 3500, 4000, 70);  // by its node
  const auto probe1 = kernel("clock_probe_kernel", 0, 3, 4100, 4105);
  for (const void* r :
       {static_cast<const void*>(&reset), static_cast<const void*>(&probe0), static_cast<const void*>(&rank0),
        static_cast<const void*>(&rank1), static_cast<const void*>(&rank1_node), static_cast<const void*>(&probe1)})
    conv.add(as_record(r));
  EXPECT_EQ(conv.unattributed(), 3u);
  const Timeline t = conv.take(0, 5000);
  ASSERT_EQ(t.intervals.size(), 3u);
  EXPECT_EQ(t.intervals[0].rank, 0);
  EXPECT_EQ(t.intervals[1].rank, 1);  // device 1's stream 13 is rank 1's, not device 0's
  EXPECT_EQ(t.intervals[2].rank, 1);
  const auto span = activity_span(t);
  ASSERT_TRUE(span);
  EXPECT_EQ(span->begin_ns, 1000);
  EXPECT_EQ(span->end_ns, 4000);
  EXPECT_EQ(span->ns, 1000 + 1000);  // rank 0's 1000 ns, then rank 1's, without the 1000 ns gap
  // Kept (the default, as for outside traces), the same records fall back to rank = device id.
  CuptiRecordConverter keep(CuptiConversionOptions{});
  keep.add(as_record(&reset));
  EXPECT_EQ(keep.take().intervals.at(0).rank, 0);
  EXPECT_FALSE(activity_span(Timeline{}));
}

CuptiMemcpyRecord memcpy_record(std::uint32_t device, std::uint32_t stream, std::uint64_t start, std::uint64_t end,
                                std::uint64_t node) {
  auto c = zeroed<CuptiMemcpyRecord>(CUPTI_ACTIVITY_KIND_MEMCPY);
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
  c.bytes = 8192;
  c.deviceId = device;
  c.streamId = stream;
  c.start = start;
  c.end = end;
  c.graphNodeId = node;
  return c;
}

// Virtual ranks share device 0 and a replayed graph reports its work on the launching stream, so
// the node's role must win over both the stream's role and the name rule; ids the executor did
// not label fall back as before.
TEST(CuptiRecords, GraphNodeRoleWinsOverStreamRoleAndKernelName) {
  CuptiConversionOptions opt;
  opt.streams[{0, 13}] = {0, IntervalKind::compute, "origin"};
  opt.nodes[700] = {3, 2, IntervalKind::compute, "compute", "attention"};
  opt.nodes[701] = {3, 2, IntervalKind::comm, "comm", "kv_recv"};
  opt.nodes[702] = {1, 4, IntervalKind::comm, "comm", "link_pace"};
  CuptiRecordConverter conv(opt);
  const auto attn = kernel("_Z13attention_fwdIfEvPKT_i", 0, 13, 100, 200, 700);
  const auto copy = memcpy_record(0, 13, 120, 180, 701);                   // name rule: memory; stream role: compute
  const auto pace = kernel("ncclDevKernel_Generic", 0, 9, 200, 210, 702);  // unmapped stream, nccl name
  const auto unknown_on_role = kernel("gemm", 0, 13, 300, 310, 999);       // unlabelled node id
  const auto unknown_copy = memcpy_record(0, 5, 320, 330, 998);            // unlabelled, unmapped
  for (const void* r :
       {static_cast<const void*>(&attn), static_cast<const void*>(&copy), static_cast<const void*>(&pace),
        static_cast<const void*>(&unknown_on_role), static_cast<const void*>(&unknown_copy)}) {
    conv.add(as_record(r));
  }
  const Timeline t = conv.take();
  ASSERT_EQ(t.intervals.size(), 5u);

  const auto& a = t.intervals[0];
  EXPECT_EQ(a.rank, 3);  // not the device's 0, not the stream role's 0
  EXPECT_EQ(a.step, 2);
  EXPECT_EQ(a.kind, IntervalKind::compute);
  EXPECT_EQ(a.lane, "compute");
  EXPECT_EQ(a.name, "attention");
  EXPECT_EQ(a.graph_node_id, 700u);

  const auto& c = t.intervals[1];
  EXPECT_EQ(c.rank, 3);
  EXPECT_EQ(c.step, 2);
  EXPECT_EQ(c.kind, IntervalKind::comm);  // over the stream's compute and the name's memory
  EXPECT_EQ(c.lane, "comm");
  EXPECT_EQ(c.name, "kv_recv");
  EXPECT_EQ(c.bytes, 8192);
  EXPECT_EQ(c.begin_ns, 120);
  EXPECT_EQ(c.end_ns, 180);

  const auto& p = t.intervals[2];
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.step, 4);
  EXPECT_EQ(p.kind, IntervalKind::comm);
  EXPECT_EQ(p.name, "link_pace");

  const auto& u = t.intervals[3];  // the stream role, as without nodes
  EXPECT_EQ(u.rank, 0);
  EXPECT_EQ(u.step, -1);
  EXPECT_EQ(u.kind, IntervalKind::compute);
  EXPECT_EQ(u.lane, "origin");
  EXPECT_EQ(u.name, "gemm");
  EXPECT_EQ(u.graph_node_id, 999u);

  const auto& m = t.intervals[4];  // the device and the name rule, as without nodes
  EXPECT_EQ(m.rank, 0);
  EXPECT_EQ(m.step, -1);
  EXPECT_EQ(m.kind, IntervalKind::memory);
  EXPECT_EQ(m.lane, "stream 5");
  EXPECT_EQ(m.name, "Memcpy DtoD");

  // The copy's node says comm where its name says memory; the others agree with their names.
  EXPECT_EQ(conv.differing(), 1u);
}

// Node id 0 means "not from a graph": a role filed under 0 must never apply.
TEST(CuptiRecords, NodeIdZeroIsNeverLookedUp) {
  CuptiConversionOptions opt;
  opt.nodes[0] = {5, 1, IntervalKind::comm, "comm", "kv_recv"};
  CuptiRecordConverter conv(opt);
  const auto k = kernel("gemm", 2, 7, 10, 20, 0);
  conv.add(as_record(&k));
  const Timeline t = conv.take();
  ASSERT_EQ(t.intervals.size(), 1u);
  EXPECT_EQ(t.intervals[0].rank, 2);
  EXPECT_EQ(t.intervals[0].step, -1);
  EXPECT_EQ(t.intervals[0].kind, IntervalKind::compute);
  EXPECT_EQ(t.intervals[0].name, "gemm");
}

// Labels follow their node into every clone instantiation made, clones of clones included; an id
// nobody cloned stands alone, and a cycle (never made by CUDA) still ends.
TEST(CuptiRecords, LabelsFollowNodesIntoTheirClones) {
  const std::multimap<std::uint64_t, std::uint64_t> clones{{1, 5}, {1, 6}, {5, 9}, {2, 3}, {10, 11}, {11, 10}};
  auto sorted = [](std::vector<std::uint64_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(with_clones(1, clones)), (std::vector<std::uint64_t>{1, 5, 6, 9}));
  EXPECT_EQ(with_clones(7, clones), std::vector<std::uint64_t>{7});
  EXPECT_EQ(with_clones(9, clones), std::vector<std::uint64_t>{9});
  EXPECT_LE(with_clones(10, clones).size(), clones.size() + 2);
}

CuptiMarkerRecord marker(CUpti_ActivityFlag flags, std::uint32_t id, std::uint64_t ts, const char* name,
                         const char* domain) {
  auto m = zeroed<CuptiMarkerRecord>(CUPTI_ACTIVITY_KIND_MARKER);
  m.flags = flags;
  m.id = id;
  m.timestamp = ts;
  m.name = name;
  m.domain = domain;
  return m;
}

TEST(CuptiRecords, NvtxMarkersPairIntoRangesOfTheirDomain) {
  CuptiConversionOptions opt;
  opt.marker_domain = "ringbench";
  opt.marker_rank = 1;
  CuptiRecordConverter conv(opt);
  const auto s1 = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, 1000, "replay", "ringbench");
  const auto s2 = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, 1100, "torch op", "other");
  const auto e2 = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, 1200, nullptr, nullptr);
  const auto e1 = marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, 1900, nullptr, nullptr);
  const auto open = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 3, 2000, "step", "ringbench");
  for (const auto* m : {&s1, &s2, &e2, &e1, &open}) conv.add(as_record(m));
  EXPECT_EQ(conv.open_markers(), 1u);
  auto unknown = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  conv.add(as_record(&unknown));
  EXPECT_EQ(conv.ignored_records(), 1u);
  const Timeline t = conv.take();
  ASSERT_EQ(t.intervals.size(), 1u);  // the other domain is filtered, the open range dropped
  EXPECT_EQ(t.intervals[0].name, "replay");
  EXPECT_EQ(t.intervals[0].lane, "nvtx ringbench");
  EXPECT_EQ(t.intervals[0].kind, IntervalKind::other);
  EXPECT_EQ(t.intervals[0].rank, 1);
  EXPECT_EQ(t.intervals[0].begin_ns, 1000);
  EXPECT_EQ(t.intervals[0].end_ns, 1900);
  EXPECT_EQ(conv.open_markers(), 0u);
}

}  // namespace
}  // namespace rb::bench
