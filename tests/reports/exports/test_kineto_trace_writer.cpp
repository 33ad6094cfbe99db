// The per-rank trace files for Meta's HTA, field by field against what HTA reads (its rank pattern,
// device events with a stream and a correlation id, its kernel-name classes, its ProfilerStep
// filter), and read back by `ringbench analyze` to the same metrics as the timeline they came from.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/measure/metrics.hpp"
#include "bench/measure/trace_reader.hpp"
#include "reports/exports/kineto_trace_writer.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

// Two ranks of a ring: rank 0's copy seen executing inside its in-flight span, rank 1's only in
// flight (as under nccl), on an absolute clock.
Timeline ring_timeline() {
  const std::int64_t t0 = 1'700'000'000'000'000'000;
  return Timeline{{
                      Interval{0, IntervalKind::compute, "compute", "attention", 0, 0, t0 + 0, t0 + 40'000},
                      Interval{0, IntervalKind::comm_in_flight, "comm in flight", "kv_recv", 1, 4096, t0 + 1000,
                               t0 + 30'000},
                      Interval{0, IntervalKind::comm, "comm", "kv_recv", 1, 4096, t0 + 20'000, t0 + 30'000},
                      Interval{0, IntervalKind::compute, "compute", "attention", 1, 0, t0 + 40'000, t0 + 70'000},
                      Interval{0, IntervalKind::compute, "compute", "merge", 1, 0, t0 + 70'000, t0 + 71'500},
                      Interval{0, IntervalKind::other, "nvtx ringbench", "replay", -1, 0, t0, t0 + 72'000},
                      Interval{1, IntervalKind::compute, "compute", "attention", 0, 0, t0 + 0, t0 + 35'000},
                      Interval{1, IntervalKind::comm_in_flight, "comm in flight", "kv_recv", 1, 4096, t0 + 500,
                               t0 + 45'000},
                      Interval{1, IntervalKind::compute, "compute", "attention", 1, 0, t0 + 45'000, t0 + 60'000},
                  },
                  t0,
                  t0 + 72'000};
}

std::string rank_file(const Timeline& t, int rank) {
  std::ostringstream os;
  reports::write_kineto_rank_trace(os, t, reports::KinetoRankInfo{rank, 2, "ringbench cuda/nccl"});
  return os.str();
}

TEST(KinetoTraceWriter, CarriesWhatHtaReads) {
  const Timeline t = ring_timeline();
  for (int rank : {0, 1}) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    const std::string text = rank_file(t, rank);
    // HTA may find the rank with this pattern on the raw text: a space after the colon.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"re("rank":\s+(\d+))re")));
    EXPECT_EQ(std::stoi(m[1]), rank);
    const json j = json::parse(text);
    EXPECT_EQ(j["distributedInfo"]["rank"], rank);
    EXPECT_EQ(j["distributedInfo"]["world_size"], 2);
    std::map<std::int64_t, double> launch;  // correlation -> runtime event ts
    std::vector<double> steps;
    int device = 0;
    for (const auto& ev : j["traceEvents"]) {
      EXPECT_EQ(ev["pid"], rank + 1);
      if (ev["ph"] != "X") continue;
      const std::string cat = ev["cat"];
      if (cat == "user_annotation") {
        steps.push_back(ev["ts"].get<double>());
        continue;
      }
      if (cat == "cuda_runtime") {
        launch[ev["args"]["correlation"].get<std::int64_t>()] = ev["ts"].get<double>();
        continue;
      }
      ++device;
      EXPECT_TRUE(cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") << cat;
      EXPECT_TRUE(ev["args"]["stream"].is_number_integer());
      EXPECT_GE(ev["args"]["stream"].get<int>(), 0);
      EXPECT_GE(ev["args"]["correlation"].get<std::int64_t>(), 0);
      const std::string name = ev["name"];
      // HTA 0.5's communication pattern, and the older `ncclKernel` anywhere; compute names must fall
      // in none of HTA's other classes.
      const bool comm = ev["args"]["kind"] == "comm" || ev["args"]["kind"] == "comm_in_flight";
      EXPECT_EQ(std::regex_search(name, std::regex("^nccl.*Kernel")), comm) << name;
      EXPECT_EQ(name.find("ncclKernel") != std::string::npos, comm) << name;
      if (!comm) {
        EXPECT_FALSE(std::regex_search(name, std::regex("(^Memcpy)|(^Memset)|(^dma)|(Sync)"))) << name;
      }
    }
    // Every device event has its launch, and all launches fall before the last ProfilerStep, so
    // HTA's default (drop the last step's kernels) keeps them all.
    ASSERT_EQ(steps.size(), 2u);
    const double last = std::max(steps[0], steps[1]);
    EXPECT_EQ(launch.size(), static_cast<std::size_t>(device));
    for (const auto& [corr, ts] : launch) EXPECT_LT(ts, last) << corr;
    // Rank 0: attention, attention, merge and the executing copy (its in-flight span is a bracket);
    // rank 1: two attention and its in-flight span, its only comm.
    EXPECT_EQ(device, rank == 0 ? 4 : 3);
  }
}

// Read back, one file per rank, the metrics are the timeline's own, HTA's step filter included.
TEST(KinetoTraceWriter, ReadsBackToTheTimelinesMetrics) {
  const Timeline t = ring_timeline();
  for (bool hta_steps : {false, true}) {
    std::vector<Timeline> back;
    for (int rank : {0, 1}) {
      TraceReadOptions opt;
      opt.exclude_last_profiler_step = hta_steps;
      const TraceFile tf = parse_trace_text(rank_file(t, rank), "rank.json", opt);
      EXPECT_EQ(tf.format, "ringbench");
      EXPECT_EQ(tf.excluded_last_step, 0u);
      // The HTA-facing names classify as the roles do, but for an in-flight span that stands in for
      // comm: HTA counts it as a communication kernel, ringbench as comm in flight.
      EXPECT_EQ(tf.differing, rank == 1 ? 1u : 0u);
      back.push_back(tf.timeline);
    }
    const Metrics want = compute_metrics(t), got = compute_metrics(merge_timelines(back));
    ASSERT_EQ(got.per_rank.size(), 2u);
    for (std::size_t r = 0; r < 2; ++r) {
      EXPECT_EQ(got.per_rank[r].comm_ns, want.per_rank[r].comm_ns) << r;
      EXPECT_EQ(got.per_rank[r].overlap_ns, want.per_rank[r].overlap_ns) << r;
      EXPECT_EQ(got.per_rank[r].attention_ns, want.per_rank[r].attention_ns) << r;
      EXPECT_EQ(got.per_rank[r].comm_basis, want.per_rank[r].comm_basis) << r;
    }
  }
}

TEST(KinetoTraceWriter, NamesForHta) {
  EXPECT_EQ(reports::kineto_event_name(Interval{0, IntervalKind::comm, "comm", "kv_allgather"}),
            "ncclKernel_ringbench_kv_allgather");
  EXPECT_EQ(reports::kineto_event_name(Interval{0, IntervalKind::memory, "s", "Memset (Device)"}), "Memset (Device)");
  EXPECT_EQ(reports::kineto_event_name(Interval{0, IntervalKind::memory, "s", "stamp_reset"}), "Memcpy stamp_reset");
  EXPECT_EQ(reports::kineto_event_name(Interval{0, IntervalKind::compute, "c", "attention"}), "attention");
}

}  // namespace
}  // namespace rb::bench
