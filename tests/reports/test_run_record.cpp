// The typed record and the metric registry: a run reads into one RunRecord (rounds split as the
// writer laid them out, absent fields absent), and every metric compare, accept and trend know is
// one registry entry whose value, direction and docs reference hold.
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "reports/compare/accept.hpp"
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
  EXPECT_FALSE(r.throttle.measured);
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

TEST(MetricRegistry, OneEntryPerNameAndCompareOffersFiveInItsOrder) {
  std::set<std::string_view> names;
  for (const Metric& m : all_metrics()) EXPECT_TRUE(names.insert(m.name).second) << m.name;
  std::vector<std::string_view> offered;
  for (const Metric* m : compare_metrics()) offered.push_back(m->compare_name);
  EXPECT_EQ(offered, (std::vector<std::string_view>{"time", "tflops", "overlap", "exposed_comm", "imbalance"}));
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
