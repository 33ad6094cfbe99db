// The Chrome trace writer against the reader: what is written is Chrome trace JSON with the
// metadata Perfetto needs, and reads back to the same intervals, window and metrics.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/metrics.hpp"
#include "bench/trace_reader.hpp"
#include "reports/chrome_trace_writer.hpp"

namespace rb::bench {
namespace {

// On an absolute clock (as CUPTI's), with lanes, steps, bytes and a graph node id.
Timeline sample_timeline() {
  const std::int64_t t0 = 1'700'000'000'123'456'789;
  Timeline t{{
                 Interval{0, IntervalKind::compute, "compute", "attention", 0, 0, t0 + 1000, t0 + 5001},
                 Interval{0, IntervalKind::comm, "comm", "kv_recv", 1, 4096, t0 + 1200, t0 + 7003},
                 Interval{0, IntervalKind::compute, "compute", "merge", 0, 0, t0 + 5001, t0 + 5500},
                 Interval{1, IntervalKind::compute, "compute", "attention", 0, 0, t0 + 900, t0 + 6000},
                 Interval{1, IntervalKind::memory, "stream 9", "Memcpy DtoD", -1, 77, t0 + 6100, t0 + 6107},
                 Interval{1, IntervalKind::other, "nvtx ringbench", "replay", -1, 0, t0 + 800, t0 + 8000},
             },
             t0 + 500, t0 + 9000};
  t.intervals[0].graph_node_id = 42;
  return t;
}

TEST(ChromeTrace, IsChromeTraceJsonWithProcessAndThreadNames) {
  std::ostringstream os;
  reports::write_chrome_trace(os, {sample_timeline()});
  const auto j = nlohmann::json::parse(os.str());
  ASSERT_TRUE(j["traceEvents"].is_array());
  int x = 0, process_names = 0, thread_names = 0;
  for (const auto& ev : j["traceEvents"]) {
    ASSERT_TRUE(ev["pid"].is_number_integer());
    ASSERT_TRUE(ev["tid"].is_number_integer());
    if (ev["ph"] == "X") {
      ++x;
      EXPECT_TRUE(ev["ts"].is_number());
      EXPECT_GE(ev["dur"].get<double>(), 0.0);
      EXPECT_TRUE(ev["args"].contains("kind"));
      EXPECT_TRUE(ev["args"].contains("step"));
      EXPECT_TRUE(ev["args"].contains("bytes"));
    } else if (ev["ph"] == "M" && ev["name"] == "process_name") {
      ++process_names;
      EXPECT_EQ(ev["args"]["name"], "rank " + std::to_string(ev["pid"].get<int>()));
    } else if (ev["ph"] == "M" && ev["name"] == "thread_name") {
      ++thread_names;
    }
  }
  EXPECT_EQ(x, 6);
  EXPECT_EQ(process_names, 2);
  EXPECT_EQ(thread_names, 5);  // rank 0: compute, comm; rank 1: compute, stream 9, nvtx ringbench
  EXPECT_EQ(j["displayTimeUnit"], "ns");
  EXPECT_EQ(j["otherData"]["producer"], "ringbench");
}

TEST(ChromeTrace, RoundTripsThroughTheReaderToTheNanosecond) {
  const auto dir = std::filesystem::temp_directory_path() / "ringbench_test_trace_roundtrip";
  std::filesystem::create_directories(dir);
  const auto path = dir / "trace.json";
  const Timeline in = sample_timeline();
  reports::write_chrome_trace(path, {in});
  const TraceFile tf = read_trace_file(path);
  EXPECT_EQ(tf.format, "ringbench");
  EXPECT_EQ(tf.skipped_events, 14u);  // metadata: 2 per rank, 2 per lane
  EXPECT_EQ(tf.role_classified, in.intervals.size());
  ASSERT_EQ(tf.timeline.intervals.size(), in.intervals.size());
  for (std::size_t i = 0; i < in.intervals.size(); ++i) {
    const auto& a = in.intervals[i];
    const auto& b = tf.timeline.intervals[i];
    EXPECT_EQ(a.rank, b.rank) << i;
    EXPECT_EQ(a.kind, b.kind) << i;
    EXPECT_EQ(a.lane, b.lane) << i;
    EXPECT_EQ(a.name, b.name) << i;
    EXPECT_EQ(a.step, b.step) << i;
    EXPECT_EQ(a.bytes, b.bytes) << i;
    EXPECT_EQ(a.begin_ns, b.begin_ns) << i;
    EXPECT_EQ(a.end_ns, b.end_ns) << i;
    EXPECT_EQ(a.graph_node_id, b.graph_node_id) << i;
  }
  EXPECT_EQ(tf.timeline.window_begin_ns, in.window_begin_ns);
  EXPECT_EQ(tf.timeline.window_end_ns, in.window_end_ns);
  EXPECT_EQ(compute_metrics(tf.timeline).to_json(), compute_metrics(in).to_json());
  // By kernel name "kv_recv" is compute and "replay" too: the role and the name rule differ there.
  EXPECT_EQ(tf.differing, 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::bench
