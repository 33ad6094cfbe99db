// judge_fleet on hand-built results: the outlier rules, the metric's direction, a GPU judged against
// its node's siblings, the small fleet, mixed inputs and the order of the nodes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.hpp"
#include "reports/fleet/fleet.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

// One node: one configuration at c = 2 with a pass time, a per-GPU rate, and per-rank comm
// bandwidths, its ranks placed on GPUs named after the host.
ResultsFile node(const std::string& host, double pass_ms, double bw0 = 10, double bw1 = 10,
                 const std::string& profile = "p", const std::string& started = "2026-12-01T00:00:00Z") {
  json run = {{"config", {{"id", "s256-c2"}, {"cp", 2}}},
              {"status", "ok"},
              {"timing", {{"median_ms", pass_ms}, {"samples_ms", {pass_ms}}}},
              {"metrics",
               {{"attention_tflops", 100.0 / pass_ms},
                {"comm_bandwidth_gbyte_per_s", (bw0 + bw1) / 2},
                {"per_rank",
                 {{{"rank", 0}, {"comm_bandwidth_gbyte_per_s", bw0}},
                  {{"rank", 1}, {"comm_bandwidth_gbyte_per_s", bw1}}}}}},
              {"placement",
               {{{"rank", 0}, {"host", host}, {"device", fmt::format("GPU-{}-0", host)}},
                {{"rank", 1}, {"host", host}, {"device", fmt::format("GPU-{}-1", host)}}}}};
  ResultsFile f;
  f.path = fmt::format("{}/results.json", host);
  f.doc = {{"schema", "ringbench.results"},
           {"schema_version", "2.5.0"},
           {"tool", {{"version", "0.1.0"}, {"git_sha", "abc"}, {"build_type", "Release"}}},
           {"host", {{"hostname", host}, {"gpus", {{{"name", "H200"}, {"uuid", fmt::format("GPU-{}-0", host)}}}}}},
           {"run_time", {{"started_utc", started}, {"finished_utc", started}}},
           {"profile", {{"name", profile}}},
           {"runs", {run}}};
  return f;
}

std::vector<ResultsFile> fleet_of(int n, double spread_pct = 0) {
  std::vector<ResultsFile> out;
  for (int i = 0; i < n; ++i)
    out.push_back(node(fmt::format("n{}", i), 10.0 * (1 + spread_pct / 100 * ((i % 5) - 2) / 2)));
  return out;
}

const FleetMetricResult& metric(const FleetReport& r, const std::string& name) {
  return *std::find_if(r.metrics.begin(), r.metrics.end(), [&](const auto& m) { return m.metric.name == name; });
}

std::vector<std::string> outliers(const FleetReport& r) {
  std::vector<std::string> out;
  for (const auto& n : r.nodes)
    if (n.outlier) out.push_back(n.identity.hostname);
  return out;
}

TEST(Fleet, SlowerBeyondTheFractionIsAnOutlierAndLeadsTheList) {
  auto files = fleet_of(10, 1.0);
  files.push_back(node("slow", 10.6));  // 6% slower: beyond 5%
  const FleetReport r = judge_fleet(files, {});
  EXPECT_TRUE(r.judged);
  EXPECT_EQ(outliers(r), std::vector<std::string>{"slow"});
  EXPECT_EQ(r.nodes.front().identity.hostname, "slow");
  const auto& pass = metric(r, "pass_time");
  EXPECT_FALSE(pass.metric.higher_is_better);
  EXPECT_GT(pass.node_limit, pass.median);  // for a time, the worse side is above
  EXPECT_NEAR(pass.nodes.front().shortfall, 0.06, 0.002);
  // the rate that follows from the time is worse on its own side: below
  const auto& rate = metric(r, "attention_tflops");
  EXPECT_LT(rate.node_limit, rate.median);
}

TEST(Fleet, FasterIsNeverAnOutlier) {
  auto files = fleet_of(10);
  files.push_back(node("fast", 5.0));
  EXPECT_TRUE(outliers(judge_fleet(files, {})).empty());
}

TEST(Fleet, TheSpreadRuleNamesWhatTheFloorAllowsInATightFleet) {
  auto files = fleet_of(10, 0.2);       // nodes within 0.2%
  files.push_back(node("odd", 10.45));  // 4.5%: under the 5% floor, 20+ spreads, above 4%
  EXPECT_EQ(outliers(judge_fleet(files, {})), std::vector<std::string>{"odd"});
  FleetOptions strict;
  strict.min_shortfall = 0.046;  // the spread rule now needs 4.6%: nothing left to name
  EXPECT_TRUE(outliers(judge_fleet(files, strict)).empty());
}

TEST(Fleet, AWeakGpuIsNamedByItsUuidAndASlowNodesGpusAreNot) {
  auto files = fleet_of(8);
  files.push_back(node("weak", 10.0, 10.0, 5.0));  // rank 1's link at half speed
  files.push_back(node("slow", 11.0, 9.0, 9.0));   // everything 10% worse: a node finding only
  const FleetReport r = judge_fleet(files, {});
  const auto& bw = metric(r, "comm_bandwidth");
  std::vector<std::string> gpus;
  for (const auto& g : bw.gpus)
    if (g.outlier) gpus.push_back(g.gpu);
  EXPECT_EQ(gpus, std::vector<std::string>{"GPU-weak-1"});
  const auto weak = std::find_if(bw.gpus.begin(), bw.gpus.end(), [](const auto& g) { return g.gpu == "GPU-weak-1"; });
  EXPECT_EQ(weak->ranks, std::vector<int>{1});
  EXPECT_LT(weak->relative, 0.7);
  auto sorted = outliers(r);
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<std::string>{"slow", "weak"}));
}

TEST(Fleet, FewerThanTheMinimumIsNotJudged) {
  auto files = fleet_of(3);
  files.push_back(node("slow", 20.0));
  const FleetReport r = judge_fleet(files, {});
  EXPECT_FALSE(r.judged);
  EXPECT_EQ(r.na_reason, "4 nodes: too few to judge outliers (5 or more)");
  EXPECT_TRUE(outliers(r).empty());
  EXPECT_EQ(r.outlier_count(), 0);
}

TEST(Fleet, NothingSharedIsNotAPass) {
  auto files = fleet_of(6);
  for (int i = 0; i < 6; ++i)  // six sweeps under one profile name, no configuration in common
    files[i].doc["runs"][0]["config"]["id"] = fmt::format("s256-c2-{}", i);
  const FleetReport r = judge_fleet(files, {});
  EXPECT_FALSE(r.judged);
  EXPECT_EQ(r.na_reason, "no configuration ran ok on every one of the 6 nodes: nothing to compare");
  EXPECT_NE(format_fleet_text(r).find("N/A: no configuration ran ok"), std::string::npos);
  EXPECT_EQ(format_fleet_text(r).find("PASS"), std::string::npos);
  EXPECT_EQ(r.outlier_count(), 0);
}

const FleetNode& node_named(const FleetReport& r, const std::string& host) {
  return *std::find_if(r.nodes.begin(), r.nodes.end(), [&](const FleetNode& n) { return n.identity.hostname == host; });
}

// A node that failed everything made the fleet N/A (exit 0), hiding a node 30% slower, and was
// never named. It is an outlier by name, and the rest is judged over what they share.
TEST(Fleet, ADeadNodeIsNamedAndTheRestIsStillJudged) {
  auto files = fleet_of(5);
  files.push_back(node("slow", 13.0));
  files[2].doc["runs"][0]["status"] = "failed";
  files[2].doc["runs"][0]["reason"] = "CUDA error: an illegal memory access";
  const FleetReport r = judge_fleet(files, {});
  EXPECT_TRUE(r.judged);
  auto named = outliers(r);
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named, (std::vector<std::string>{"n2", "slow"}));
  const FleetNode& dead = node_named(r, "n2");
  ASSERT_EQ(dead.findings.size(), 1u);
  EXPECT_NE(dead.findings[0].find("no configuration ran ok (1 failed, 0 skipped; first: "), std::string::npos)
      << dead.findings[0];
  EXPECT_NE(dead.findings[0].find("an illegal memory access"), std::string::npos);
  EXPECT_NE(format_fleet_text(r).find("OUTLIER  n2  no configuration ran ok"), std::string::npos);
  EXPECT_NE(fleet_junit_xml(r).find("failures=\"2\""), std::string::npos);
  // Too few to judge by the spread, the dead node is named all the same.
  auto small = fleet_of(3);
  small[1].doc["runs"][0]["status"] = "failed";
  const FleetReport s = judge_fleet(small, {});
  EXPECT_FALSE(s.judged);
  EXPECT_EQ(outliers(s), std::vector<std::string>{"n1"});
  EXPECT_EQ(s.na_reason, "2 nodes with an ok run: too few to judge outliers (5 or more)");
  EXPECT_NE(format_fleet_text(s).find("FAIL: 1 outlier by what it failed to measure"), std::string::npos);
  const std::string xml = fleet_junit_xml(s);
  EXPECT_NE(xml.find("failures=\"1\" errors=\"0\" skipped=\"2\""), std::string::npos) << xml;
}

// A node that failed a configuration the others ran ok is named, and does not take that
// configuration from the rest: they are still compared on both.
TEST(Fleet, ANodeThatFailedWhatOthersRanOkIsNamedAndShrinksNothing) {
  auto files = fleet_of(6);
  for (auto& f : files) {
    json second = f.doc["runs"][0];
    second["config"]["id"] = "s512-c2";
    f.doc["runs"].push_back(second);
  }
  files[3].doc["runs"][1]["status"] = "failed";
  files[3].doc["runs"][1]["reason"] = "out of memory";
  const FleetReport r = judge_fleet(files, {});
  EXPECT_TRUE(r.judged);
  EXPECT_EQ(outliers(r), std::vector<std::string>{"n3"});
  ASSERT_EQ(node_named(r, "n3").findings.size(), 1u);
  EXPECT_NE(node_named(r, "n3").findings[0].find("1 configuration failed that ran ok on other nodes (first: "),
            std::string::npos);
  for (const auto& p : metric(r, "pass_time").nodes) EXPECT_EQ(p.configurations, p.node == "n3" ? 1 : 2) << p.node;
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();  // nothing left out
}

// A figure of 0 dropped the metric for every node (PASS: 0 outliers): it names its node instead, and
// the metric is still judged over the rest.
TEST(Fleet, AZeroFigureNamesItsNodeAndDropsNoMetric) {
  auto files = fleet_of(6);
  files.push_back(node("slow", 13.0));
  files[4].doc["runs"][0]["metrics"]["attention_tflops"] = 0.0;
  files[5].doc["runs"][0]["metrics"]["per_rank"][1]["comm_bandwidth_gbyte_per_s"] = 0.0;
  const FleetReport r = judge_fleet(files, {});
  auto named = outliers(r);
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named, (std::vector<std::string>{"n4", "n5", "slow"}));
  EXPECT_NE(node_named(r, "n4").findings.back().find("attention TFLOP/s per GPU: 0 in 1 configuration"),
            std::string::npos);
  EXPECT_NE(node_named(r, "n5").findings.back().find("comm bandwidth: GPU GPU-n5-1 (rank 1): 0 in 1 configuration"),
            std::string::npos);
  const FleetMetricResult& tf = metric(r, "attention_tflops");
  int placed = 0;
  for (const auto& p : tf.nodes) placed += std::isfinite(p.relative);
  EXPECT_EQ(placed, 6);  // every node but the one with 0
  EXPECT_TRUE(std::any_of(tf.nodes.begin(), tf.nodes.end(), [](const FleetPoint& p) { return p.outlier; }));
}

// A node whose sweep did not run whole is named; a results.jsonl (no header) is named by its
// records' placement and judged on them, or refused when they name no host.
TEST(Fleet, AnUnfinishedNodeIsNamedAndAJsonlNodeIsReadByItsRecords) {
  auto files = fleet_of(6);
  files[1].doc["stopped"] = "the sweep was interrupted by SIGTERM";
  ResultsFile killed = node("n9", 10.0);
  killed.path = "n9/results.jsonl";
  killed.doc = {{"schema", "ringbench.results"}, {"schema_version", "2.8.0"}, {"runs", killed.doc["runs"]}};
  files.push_back(killed);
  const FleetReport r = judge_fleet(files, {});
  EXPECT_TRUE(r.judged);
  auto named = outliers(r);
  std::sort(named.begin(), named.end());
  EXPECT_EQ(named, (std::vector<std::string>{"n1", "n9"}));
  EXPECT_EQ(node_named(r, "n1").findings,
            std::vector<std::string>{"its sweep did not finish: the sweep was interrupted by SIGTERM"});
  EXPECT_NE(node_named(r, "n9").findings.at(0).find("a results.jsonl without its results.json"), std::string::npos);
  EXPECT_EQ(r.profile, "p");  // from the files that have a header
  EXPECT_TRUE(std::isfinite(metric(r, "pass_time").nodes.at(0).relative));

  killed.doc["runs"][0].erase("placement");
  files.back() = killed;
  try {
    judge_fleet(files, {});
    ADD_FAILURE() << "a results.jsonl without a host was judged";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "n9/results.jsonl: host");
  }
}

TEST(Fleet, MixedProfilesAreRefusedNamingBothFiles) {
  auto files = fleet_of(5);
  files.push_back(node("other", 10, 10, 10, "nightly"));
  try {
    judge_fleet(files, {});
    FAIL() << "mixed profiles were judged";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("other/results.json"), std::string::npos) << what;
    EXPECT_NE(what.find("n0/results.json"), std::string::npos) << what;
    EXPECT_NE(what.find("\"nightly\""), std::string::npos) << what;
  }
}

TEST(Fleet, TheNewestFileOfANodeIsJudgedAndTheEarlierOneIsItsDrift) {
  auto files = fleet_of(6);
  files.push_back(node("n1", 13.0, 10, 10, "p", "2026-12-09T00:00:00Z"));  // a later day, 30% slower
  const FleetReport r = judge_fleet(files, {});
  EXPECT_EQ(r.nodes.size(), 6u);
  EXPECT_EQ(outliers(r), std::vector<std::string>{"n1"});
  const auto d = std::find_if(r.drift.begin(), r.drift.end(),
                              [](const auto& x) { return x.node == "n1" && x.metric == "pass time"; });
  ASSERT_NE(d, r.drift.end());
  EXPECT_NEAR(d->change, 0.30, 1e-9);
  EXPECT_TRUE(d->beyond);
  EXPECT_EQ(d->to_utc, "2026-12-09T00:00:00Z");
}

TEST(Fleet, TheOutputsAgreeOnTheOutliers) {
  auto files = fleet_of(10);
  files.push_back(node("slow", 12.0));
  const FleetReport r = judge_fleet(files, {});
  const json j = to_json(r);
  EXPECT_EQ(j["outliers"], 1);
  EXPECT_EQ(j["nodes"][0]["node"]["hostname"], "slow");
  const std::string text = format_fleet_text(r);
  EXPECT_NE(text.find("OUTLIER  slow  pass time: 20.0% above the fleet median"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL: 1 outlier among 11 nodes"), std::string::npos) << text;
  const std::string xml = fleet_junit_xml(r);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("name=\"slow\""), std::string::npos);
}

}  // namespace
}  // namespace rb::reports
