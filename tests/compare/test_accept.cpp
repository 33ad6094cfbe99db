// Acceptance checks: validation errors name the file and JSON path; evaluation passes and fails on
// measured against required; JUnit XML names every check and escapes free text.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reports/accept.hpp"
#include "reports/junit.hpp"
#include "synthetic_results.hpp"

namespace rb::reports {
namespace {

using namespace rb::reports::testing;

std::string error_of(const json& checks) {
  try {
    parse_checks(checks, "prof.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(AcceptParse, ErrorsNameFileAndJsonPath) {
  EXPECT_NE(error_of(json::array()).find("prof.json: /checks"), std::string::npos);
  auto e = error_of(json::parse(R"([{"metric": "correctness"}, {"metric": "attention_tflop", "min": 1}])"));
  EXPECT_NE(e.find("prof.json: /checks/1/metric"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown metric"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "overlap_fraction"}])"));
  EXPECT_NE(e.find("/checks/0"), std::string::npos) << e;
  EXPECT_NE(e.find("needs min, max or both"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "where": {"splitt": "zigzag"}}])"));
  EXPECT_NE(e.find("/checks/0/where/splitt"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": "1.1"}])"));
  EXPECT_NE(e.find("/checks/0/max"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "correctness", "min": 1}])"));
  EXPECT_NE(e.find("/checks/0/min"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "name": "x"}, {"metric": "correctness", "name": "x"}])"));
  EXPECT_NE(e.find("/checks/1/name"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "treshold": 2}])"));
  EXPECT_NE(e.find("/checks/0/treshold"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "overlap_fraction", "min": 0.9, "max": 0.5}])"));
  EXPECT_NE(e.find("/checks/0/min"), std::string::npos) << e;
}

TEST(AcceptParse, ProfileSplitsIntoSweepAndChecks) {
  const auto doc = json::parse(R"({"name": "p", "description": "d", "sweep": {"seq": 64},
                                   "checks": [{"metric": "correctness"}]})");
  const auto p = parse_accept_profile(doc, "p.json");
  EXPECT_EQ(p.name, "p");
  EXPECT_FALSE(p.sweep_doc.contains("checks"));
  EXPECT_EQ(p.sweep_doc["sweep"]["seq"], 64);
  ASSERT_EQ(p.checks.size(), 1u);
  EXPECT_EQ(p.checks[0].name, "correctness");  // defaults to the metric
  EXPECT_THROW(parse_accept_profile(json::parse(R"({"sweep": {}})"), "p.json"), InputError);
  EXPECT_THROW(parse_accept_profile(json::parse(R"({"sweep": {}, "checks": [{"metric": "correctness"}], "x": 1})"), "p.json"),
               InputError);
}

ResultsFile sample_results() {
  auto zig = ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 1));
  zig["metrics"]["overlap_fraction"] = 0.92;
  zig["metrics"]["comm_bandwidth_gbyte_per_s"] = 40.0;  // 320 Gbit/s
  auto contig = ok_run(config(1024, 4, "contiguous"), samples(12, 0.01, 5, 2));
  contig["metrics"]["work_imbalance"] = 1.75;
  contig["metrics"]["overlap_fraction"] = 0.60;
  contig["metrics"]["comm_bandwidth_gbyte_per_s"] = 20.0;  // 160 Gbit/s
  auto single = ok_run(config(1024, 1, "contiguous"), samples(30, 0.01, 5, 3));
  single["metrics"]["overlap_fraction"] = nullptr;
  return results("res.json", {zig, contig, single});
}

TEST(AcceptEvaluate, PassAndFailWithMeasuredAgainstRequired) {
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correct", "metric": "correctness"},
      {"name": "zigzag balanced", "metric": "work_imbalance", "max": 1.05, "where": {"split": "zigzag"}},
      {"name": "all balanced", "metric": "work_imbalance", "max": 1.05},
      {"name": "overlap", "metric": "overlap_fraction", "min": 0.8, "where": {"cp": [2, 4]}},
      {"name": "link", "metric": "comm_bandwidth_fraction", "min": 0.7, "link_gbps": 400, "where": {"cp": 4}},
      {"name": "typo filter", "metric": "attention_tflops", "min": 0, "where": {"split": "zig-zag"}},
      {"name": "c1 overlap", "metric": "overlap_fraction", "min": 0.5, "where": {"cp": 1}}
  ])"),
                                   "p.json");
  const auto rep = evaluate_checks("p", checks, sample_results());
  ASSERT_EQ(rep.checks.size(), 7u);
  EXPECT_TRUE(rep.checks[0].pass());
  EXPECT_EQ(rep.checks[0].outcomes.size(), 3u);
  EXPECT_TRUE(rep.checks[1].pass());
  EXPECT_FALSE(rep.checks[2].pass());
  EXPECT_EQ(rep.checks[2].failures(), 1);
  EXPECT_DOUBLE_EQ(*rep.checks[2].worst().value, 1.75);
  EXPECT_FALSE(rep.checks[3].pass());  // contiguous: 0.60 < 0.8
  EXPECT_DOUBLE_EQ(*rep.checks[3].worst().value, 0.60);
  EXPECT_FALSE(rep.checks[4].pass());  // 160/400 = 0.4 < 0.7; zigzag 320/400 = 0.8 passes
  EXPECT_EQ(rep.checks[4].failures(), 1);
  EXPECT_NEAR(*rep.checks[4].worst().value, 0.4, 1e-12);
  EXPECT_FALSE(rep.checks[5].pass());  // matches nothing: a gate cannot pass vacuously
  EXPECT_NE(rep.checks[5].outcomes[0].measured.find("no run matches"), std::string::npos);
  EXPECT_FALSE(rep.checks[6].pass());  // null overlap is not measured, not a pass
  EXPECT_FALSE(rep.pass());
  EXPECT_EQ(rep.failed_checks(), 5);

  const auto text = format_accept_text(rep);
  EXPECT_NE(text.find("PASS  correct"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  all balanced"), std::string::npos) << text;
  EXPECT_NE(text.find("measured 1.75"), std::string::npos) << text;
  EXPECT_NE(text.find("required <= 1.05"), std::string::npos) << text;
}

TEST(AcceptEvaluate, FailedRunsFailEveryCheckTheyMatch) {
  const auto res = results("r.json", {failed_run(config(512, 2, "zigzag"), "correctness: 4 elements over tolerance")});
  const auto checks = parse_checks(json::parse(R"([{"metric": "correctness"}, {"metric": "attention_tflops", "min": 0}])"), "p");
  const auto rep = evaluate_checks("p", checks, res);
  EXPECT_FALSE(rep.checks[0].pass());
  EXPECT_FALSE(rep.checks[1].pass());
  EXPECT_NE(rep.checks[1].outcomes[0].measured.find("run failed"), std::string::npos);
}

TEST(Junit, NamesEveryCheckAndEscapes) {
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correctness & <all>", "metric": "correctness"},
      {"name": "balanced", "metric": "work_imbalance", "max": 1.05}])"),
                                   "p.json");
  const auto x = junit_xml(evaluate_checks("p", checks, sample_results()));
  EXPECT_EQ(x.rfind("<?xml", 0), 0u);
  EXPECT_NE(x.find("<testsuite name=\"correctness &amp; &lt;all&gt;\" tests=\"3\" failures=\"0\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"balanced\" tests=\"3\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<failure type=\"threshold\" message=\"balanced: measured 1.75, required &lt;= 1.05\""),
            std::string::npos) << x;
  EXPECT_NE(x.find("<testsuites name=\"ringbench accept p\" tests=\"6\" failures=\"1\""), std::string::npos) << x;
}

}  // namespace
}  // namespace rb::reports
