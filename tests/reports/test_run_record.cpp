// The typed record and the metric registry: a run reads into one RunRecord (rounds split as the
// writer laid them out, absent fields absent, the parts the HTML report draws included), and every
// metric compare, accept and trend know is one registry entry whose value, direction and docs
// reference hold.
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "reports/compare/accept.hpp"
#include "reports/html/report_runs.hpp"
#include "reports/results/metric_registry.hpp"
#include "reports/results/run_record.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

json run_json() {
  return json::parse(R"({
    "status": "ok", "reason": null,
    "config": {"id": "a", "seq": 64, "cp": 2, "split": "zigzag", "variant": "ring", "heads": 2, "kv_heads": 1,
               "head_dim": 8, "causal": false, "dtype": "float32", "backend": "cpu", "link_gbps": 100},
    "correctness": {"checked": true, "passed": true, "max_abs_err": 1e-6},
    "timing": {"samples_ms": [4, 2, 3, 10, 12], "round_counts": [3, 2], "rounds": 2, "median_ms": 4,
               "min_ms": 2, "p90_ms": 11, "noise_pct": 7.5, "machine_probe_ms": [1.5, 2.5]},
    "plan": {"flops": 1e9, "work_imbalance": 1.25},
    "metrics": {"attention_tflops": 0.5, "attention_tflops_gpus": 2, "overlap_fraction": 0.25,
                "exposed_comm_ms": 0.75, "comm_bandwidth_gbyte_per_s": 5, "comm_basis": "execution"}
  })");
}

TEST(RunRecord, ReadsEveryPartOfARun) {
  const RunRecord r = read_run_record(run_json());
  EXPECT_EQ(r.status, RunStatus::ok);
  EXPECT_EQ(r.config.id, "a");
  EXPECT_EQ(r.config.cp, 2);
  EXPECT_FALSE(r.config.causal);
  EXPECT_EQ(r.config.transport, "local");  // absent before 0.2.0: the local transport
  EXPECT_EQ(r.config.kernel, "ringbench");
  ASSERT_TRUE(r.correctness);
  EXPECT_EQ(r.correctness->passed, true);
  EXPECT_EQ(r.timing.median_ms, 4);
  EXPECT_EQ(r.timing.machine_probe_ms, (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(r.metrics.comm_basis, "execution");
  EXPECT_FALSE(r.metrics.imbalance);  // absent stays absent
  EXPECT_EQ(r.plan.work_imbalance, 1.25);
  EXPECT_FALSE(r.throttle().measured);
}

// A run with every part the report draws, some of each malformed the way a hand-made file may be.
json drawn_run_json() {
  json run = run_json();
  run["metrics"]["comm_time_ms"] = 0.5;
  run["metrics"]["exposed_comm_ms_mean"] = 0.9;  // the 0.x name, beside the current one
  run["metrics"]["per_rank"] = json::parse(R"([{"attention_ms": 3}, {"rank": 0, "attention_time_ms": 1},
                                              {"rank": 7, "attention_time_ms": 9}, 5])");
  run["plan"]["per_rank"] = json::parse(R"([{"work": 10}, {"work": 30}])");
  run["cupti"] = json::parse(R"({"traced_pass_ms": 6, "clean_median_ms": 4, "overhead_pct": 50,
                                 "metrics": {"comm_time_ms": 0.25, "overlap_fraction": 0.5}})");
  run["sm_clock"] = json::parse(R"({"method": "probe", "threshold_mhz": 1500, "samples_ms": [4, 2],
                                    "samples_mhz": [1900, null, 1800], "dropped": [1, -1]})");
  run["timeline"] = json::parse(R"({"window_ms": 3, "truncated": true, "intervals": [
      {"rank": 1, "kind": "comm", "name": "kv_recv", "step": 2, "begin_ms": 0.5, "end_ms": 1},
      {"rank": 0, "begin_ms": 2, "end_ms": 1}, {"rank": 0, "end_ms": 1}, {"begin_ms": 0, "end_ms": 1}]})");
  run["model"] = json::parse(R"({"pass_ms": 3.5, "kind": "ring", "memory": {"bytes_per_device": 2e9}})");
  return run;
}

TEST(RunRecord, ReadsWhatTheReportDraws) {
  const RunRecord r = read_run_record(drawn_run_json());
  EXPECT_EQ(r.metrics.comm_time_ms, 0.5);
  EXPECT_EQ(r.metrics.exposed_comm_ms, 0.75);
  EXPECT_EQ(r.metrics.exposed_comm_ms_mean, 0.9);
  const auto attention = r.metrics.rank_attention_ms();
  ASSERT_TRUE(attention);
  ASSERT_EQ(attention->size(), 3u);    // the entry that is not an object is left out
  EXPECT_EQ((*attention)[0].rank, 0);  // no "rank": its position
  EXPECT_EQ((*attention)[0].value, 3);
  EXPECT_EQ((*attention)[2].rank, 7);
  const auto work = r.plan.rank_work();
  ASSERT_TRUE(work);
  EXPECT_EQ((*work)[1].value, 30);
  ASSERT_TRUE(r.cupti);
  EXPECT_EQ(r.cupti->overhead_pct, 50);
  EXPECT_EQ(r.cupti->metrics.overlap_fraction, 0.5);
  EXPECT_FALSE(r.cupti->metrics.exposed_comm_ms);
  EXPECT_TRUE(r.cupti->error.empty());
  ASSERT_TRUE(r.sm_clock);
  EXPECT_EQ(r.sm_clock->samples_ms, (std::vector<double>{4, 2}));
  EXPECT_EQ(r.sm_clock->samples_mhz, (std::vector<std::optional<double>>{1900, std::nullopt, 1800}));
  EXPECT_EQ(r.sm_clock->dropped, (std::vector<std::int64_t>{1, -1}));
  EXPECT_EQ(r.sm_clock->threshold_mhz, 1500);
  EXPECT_FALSE(r.sm_clock->nominal_mhz);
  ASSERT_TRUE(r.timeline);
  EXPECT_EQ(r.timeline->window_ms, 3);
  EXPECT_TRUE(r.timeline->truncated);
  ASSERT_EQ(r.timeline->intervals.size(), 1u);  // reversed, begin-less and rank-less intervals left out
  const RecordInterval& iv = r.timeline->intervals[0];
  EXPECT_EQ(iv.rank, 1);
  EXPECT_EQ(iv.step, 2);
  EXPECT_EQ(iv.lane, "comm");  // no lane: its kind
  EXPECT_EQ(iv.name, "kv_recv");
  ASSERT_TRUE(r.model);
  EXPECT_EQ(r.model->pass_ms, 3.5);
  EXPECT_EQ(r.model->memory_gb_per_device(), 2);  // from bytes
  EXPECT_EQ(r.model->numbers(), (std::map<std::string, double>{{"memory.bytes_per_device", 2e9}, {"pass_ms", 3.5}}));
}

TEST(RunRecord, AbsentOrMalformedPartsAreNotMeasured) {
  json run = run_json();
  run["cupti"] = nullptr;
  run["model"] = nullptr;
  run["timeline"] = json::parse(R"({"window_ms": 3, "intervals": []})");
  run["sm_clock"] = json::parse(R"({"samples_ms": "x", "dropped": 1})");
  const RunRecord r = read_run_record(run);
  EXPECT_FALSE(r.cupti);
  EXPECT_FALSE(r.model);
  EXPECT_FALSE(r.timeline);  // no interval listed: no timeline
  EXPECT_FALSE(r.metrics.rank_attention_ms());
  EXPECT_FALSE(r.plan.rank_work());
  ASSERT_TRUE(r.sm_clock);
  EXPECT_TRUE(r.sm_clock->samples_ms.empty());
  EXPECT_TRUE(r.sm_clock->dropped.empty());
  // Every interval malformed: the timeline is listed, with nothing to draw.
  run["timeline"]["intervals"] = json::parse(R"([{"rank": 0, "begin_ms": 1, "end_ms": 0}])");
  const RunRecord listed = read_run_record(run);
  ASSERT_TRUE(listed.timeline);
  EXPECT_TRUE(listed.timeline->intervals.empty());
}

TEST(RunView, TakesTheReportsValuesFromTheRecord) {
  json run = drawn_run_json();
  run["metrics"].erase("exposed_comm_ms");
  run["plan"].erase("work_imbalance");
  run["metrics"]["work_imbalance"] = 1.5;
  const RunView v = view_run(read_run_record(run), 4);
  EXPECT_EQ(v.index, 4u);
  EXPECT_EQ(v.status, "ok");
  EXPECT_EQ(v.exposed_comm_ms, 0.9);  // the 0.x mean where the current name is absent
  EXPECT_EQ(v.work_imbalance, 1.5);   // the metrics' where the plan has none
  EXPECT_EQ(v.cupti_traced_ms, 6);
  EXPECT_TRUE(v.has_timeline);
  // Placed by rank over c = 2: rank 0 named twice keeps the last, rank 7 is not this run's.
  EXPECT_EQ(v.rank_attention_ms, (std::vector<std::optional<double>>{1, std::nullopt}));
  EXPECT_EQ(v.rank_work, (std::vector<std::optional<double>>{10, 30}));
  EXPECT_FALSE(v.imbalance);  // a rank without a time: not derived
  run["metrics"]["per_rank"] = json::parse(R"([{"attention_time_ms": 1}, {"attention_time_ms": 3}])");
  const RunView derived = view_run(read_run_record(run), 0);
  EXPECT_EQ(derived.imbalance, 1.5);  // max / mean of the per-rank attention time
  EXPECT_TRUE(derived.imbalance_derived);
  EXPECT_TRUE(view_run(read_run_record(run_json()), 0).rank_work.empty());  // no per_rank: none, not c blanks
}

TEST(RunRecord, SplitsRoundsAsTheWriterLaidThemOut) {
  RecordTiming t;
  t.samples_ms = {4, 2, 3, 10, 12};
  t.round_counts = {3, 2};
  EXPECT_EQ(t.rounds_of_samples(), (std::vector<std::vector<double>>{{4, 2, 3}, {10, 12}}));
  // Counts that do not add up to the samples (before 1.2.0): the even split over timing.rounds.
  t.round_counts = {2, 2};
  t.rounds = 2;
  EXPECT_EQ(t.rounds_of_samples(), (std::vector<std::vector<double>>{{4, 2, 3}, {10, 12}}));
  // A round that kept no sample is left out; one round left is one group.
  t.round_counts = {0, 5};
  t.rounds = std::nullopt;
  EXPECT_EQ(t.rounds_of_samples(), (std::vector<std::vector<double>>{{4, 2, 3, 10, 12}}));
}

TEST(MetricRegistry, OneEntryPerNameAndCompareOffersSevenInItsOrder) {
  std::set<std::string_view> names;
  for (const Metric& m : all_metrics()) EXPECT_TRUE(names.insert(m.name).second) << m.name;
  std::vector<std::string_view> offered;
  for (const Metric* m : compare_metrics()) offered.push_back(m->compare_name);
  EXPECT_EQ(offered, (std::vector<std::string_view>{"time", "tflops", "overlap", "exposed_comm", "imbalance",
                                                    "fwd_time", "bwd_time"}));
  // accept lists exactly the registry, in its order.
  ASSERT_EQ(accept_metric_names().size(), all_metrics().size());
  for (std::size_t i = 0; i < all_metrics().size(); ++i)
    EXPECT_EQ(accept_metric_names()[i].first, all_metrics()[i].name);
  EXPECT_THROW(compare_metric("latency", "--metric"), InputError);
}

TEST(MetricRegistry, ValuesDirectionsAndStandIns) {
  const RunRecord r = read_run_record(run_json());
  const auto value = [&](const char* name, MetricContext ctx = {}) { return find_metric(name)->value(r, ctx); };
  EXPECT_EQ(value("median_ms"), 4);
  EXPECT_EQ(value("attention_tflops_per_rank"), 0.5);
  EXPECT_EQ(value("work_imbalance"), 1.25);  // the plan's, where the metrics lack it
  EXPECT_EQ(value("comm_bandwidth_fraction"), 5 * 8.0 / 100);
  EXPECT_EQ(value("comm_bandwidth_fraction", {.link_gbps = 400}), 5 * 8.0 / 400);
  EXPECT_FALSE(value("gpu_throttled"));  // no NVML state: not measured, not 0
  EXPECT_TRUE(find_metric("median_ms")->lower_is_better);
  EXPECT_FALSE(find_metric("attention_tflops")->lower_is_better);
  // imbalance is measured; compare and trend read the plan's in its place, and say so.
  const Metric& imb = compare_metric("imbalance", "--metric");
  EXPECT_FALSE(imb.value(r, {}));
  bool stood_in = false;
  EXPECT_EQ(value_or_stand_in(imb, r, &stood_in), 1.25);
  EXPECT_TRUE(stood_in);
  // Per-sample TFLOP/s keeps the rounds of the time samples.
  const auto rounds = compare_metric("tflops", "--metric").rounds(r);
  ASSERT_EQ(rounds.size(), 2u);
  EXPECT_DOUBLE_EQ(rounds[1][0], 1e9 / 2 / 10 / 1e9);
}

// A slug as GitHub makes it from a heading: lower case, punctuation dropped, spaces to hyphens.
std::string slug(const std::string& heading) {
  std::string out;
  for (const unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_')
      out += static_cast<char>(std::tolower(c));
    else if (c == ' ')
      out += '-';
  }
  return out;
}

TEST(MetricRegistry, EveryDocsReferenceNamesAHeadingThatExists) {
  for (const Metric& m : all_metrics()) {
    const std::string ref(m.docs);
    const auto hash = ref.find('#');
    ASSERT_NE(hash, std::string::npos) << m.name;
    std::ifstream in(std::string(RINGBENCH_SOURCE_DIR) + "/" + ref.substr(0, hash));
    ASSERT_TRUE(in) << m.name << ": " << ref;
    std::set<std::string> anchors;
    for (std::string line; std::getline(in, line);)
      if (line.starts_with("#")) anchors.insert(slug(line.substr(line.find(' ') + 1)));
    EXPECT_TRUE(anchors.count(ref.substr(hash + 1))) << m.name << ": " << ref;
  }
}

}  // namespace
}  // namespace rb::reports
