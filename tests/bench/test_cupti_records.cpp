// CUPTI activity records built in memory → Timeline intervals: kernels with graph node ids,
// memcpy and peer copies, memsets, NVTX markers, stream roles versus kernel names. Runs on the CPU.
#include <gtest/gtest.h>

#include <cstring>

#include "bench/cupti_records.hpp"

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
  opt.node_steps[501] = 3;
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
