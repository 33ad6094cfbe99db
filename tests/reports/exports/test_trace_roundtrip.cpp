// The Chrome trace writer against the reader: what is written is Chrome trace JSON with the
// metadata Perfetto needs, and reads back to the same intervals, window and metrics.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/measure/metrics.hpp"
#include "bench/measure/trace_reader.hpp"
#include "common/error.hpp"
#include "reports/exports/chrome_trace_writer.hpp"

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
             t0 + 500,
             t0 + 9000};
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
      EXPECT_GE(ev["pid"].get<int>(), 1);  // Perfetto reserves pid 0
      EXPECT_EQ(ev["args"]["name"], "rank " + std::to_string(ev["pid"].get<int>() - 1));
    } else if (ev["ph"] == "M" && ev["name"] == "thread_name") {
      ++thread_names;
    }
  }
  EXPECT_EQ(x, 6);
  EXPECT_EQ(process_names, 2);
  EXPECT_EQ(thread_names, 5);                   // rank 0: compute, comm; rank 1: compute, stream 9, nvtx ringbench
  EXPECT_FALSE(j.contains("displayTimeUnit"));  // older Perfetto took it for the unit of ts
  EXPECT_EQ(j["otherData"]["producer"], "ringbench");
  EXPECT_EQ(j["otherData"]["ringbench_trace_version"], 2);
  EXPECT_EQ(j["otherData"]["ranks"], nlohmann::json::parse(R"([{"pid": 1, "rank": 0}, {"pid": 2, "rank": 1}])"));
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

// Traces written before version 2 had pid = rank and no rank map: they still read as they were.
TEST(ChromeTrace, VersionOneTracesStillReadWithThePidAsTheRank) {
  const std::string v1 = R"({"traceEvents": [
    {"ph": "X", "cat": "compute", "name": "attention", "pid": 0, "tid": 1, "ts": 0.5, "dur": 2.0,
     "args": {"kind": "compute", "step": 0, "bytes": 0}},
    {"ph": "X", "cat": "comm", "name": "kv_recv", "pid": 3, "tid": 2, "ts": 1.0, "dur": 1.0,
     "args": {"kind": "comm", "step": 1, "bytes": 64}}],
    "displayTimeUnit": "ns", "otherData": {"producer": "ringbench", "ringbench_trace_version": 1, "origin_ns": 1000}})";
  const TraceFile tf = parse_trace_text(v1, "v1.json");
  EXPECT_EQ(tf.trace_version, 1);
  ASSERT_EQ(tf.timeline.intervals.size(), 2u);
  EXPECT_EQ(tf.timeline.intervals[0].rank, 0);
  EXPECT_EQ(tf.timeline.intervals[1].rank, 3);
  EXPECT_EQ(tf.timeline.intervals[1].begin_ns, 2000);
  // Version 2 needs its rank map; a pid it does not name is an input error.
  std::string v2 = v1;
  const std::string key = "\"ringbench_trace_version\": 1";
  v2.replace(v2.find(key), key.size(), "\"ringbench_trace_version\": 2");
  EXPECT_THROW(parse_trace_text(v2, "v2.json"), InputError);
}

// Perfetto drops an X event that starts inside the previous one on its track and ends after it; a
// reader that adds ts and dur in doubles must never see an interval reach past the next one. Random
// back-to-back intervals on absolute clocks, 1 ns apart or touching.
TEST(ChromeTrace, NoIntervalOvershootsTheNextOnItsTrack) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> len(1, 5'000'000), gap(0, 1);
  Timeline t;
  std::int64_t at = 1'700'000'000'123'456'789;
  t.window_begin_ns = at;
  for (int i = 0; i < 5000; ++i) {
    const std::int64_t b = at, e = b + len(rng);
    t.intervals.push_back(Interval{0, IntervalKind::compute, "compute", "attention", i, 0, b, e});
    at = e + gap(rng);
  }
  t.window_end_ns = at;
  std::ostringstream os;
  reports::write_chrome_trace(os, {t});
  const auto j = nlohmann::json::parse(os.str());
  std::vector<std::pair<double, double>> xs;
  for (const auto& ev : j["traceEvents"])
    if (ev["ph"] == "X") xs.emplace_back(ev["ts"].get<double>(), ev["dur"].get<double>());
  ASSERT_EQ(xs.size(), t.intervals.size());
  int overshoots = 0;
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) overshoots += xs[i].first + xs[i].second > xs[i + 1].first;
  EXPECT_EQ(overshoots, 0);
  // And the reader still gets every nanosecond back.
  const TraceFile tf = parse_trace_text(os.str(), "t.json");
  for (std::size_t i = 0; i < t.intervals.size(); ++i) {
    ASSERT_EQ(tf.timeline.intervals[i].begin_ns, t.intervals[i].begin_ns) << i;
    ASSERT_EQ(tf.timeline.intervals[i].end_ns, t.intervals[i].end_ns) << i;
  }
}

}  // namespace
}  // namespace rb::bench
