// Acceptance checks: validation errors name the file and JSON path; evaluation passes and fails on
// measured against required; JUnit XML names every check and escapes free text.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reports/compare/accept.hpp"
#include "reports/compare/compare.hpp"
#include "reports/compare/junit.hpp"
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
  // A value no run can hold would match nothing and fail for the wrong reason: refused up front.
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "where": {"split": ["zigzag", "zig-zag"]}}])"));
  EXPECT_NE(e.find("/checks/0/where/split/1"), std::string::npos) << e;
  EXPECT_NE(e.find("contiguous, zigzag, striped"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "where": {"cp": "4"}}])"));
  EXPECT_NE(e.find("/checks/0/where/cp"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": 1.1, "where": {"causal": 1}}])"));
  EXPECT_NE(e.find("true or false"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "imbalance", "max": "1.1"}])"));
  EXPECT_NE(e.find("/checks/0/max"), std::string::npos) << e;
  e = error_of(json::parse(R"([{"metric": "correctness", "min": 1}])"));
  EXPECT_NE(e.find("/checks/0/min"), std::string::npos) << e;
  e = error_of(
      json::parse(R"([{"metric": "imbalance", "max": 1.1, "name": "x"}, {"metric": "correctness", "name": "x"}])"));
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
  EXPECT_THROW(parse_accept_profile(json::parse(R"({"sweep": {}, "checks": [{"metric": "correctness"}], "x": 1})"),
                                    "p.json"),
               InputError);
}

ResultsFile sample_results() {
  auto zig = ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 1));
  zig["config"]["link_gbps"] = 400.0;  // the link model: the transfers crossed an emulated 400 Gbit/s link
  zig["metrics"]["overlap_fraction"] = 0.92;
  zig["metrics"]["comm_bandwidth_gbyte_per_s"] = 40.0;  // 320 Gbit/s
  auto contig = ok_run(config(1024, 4, "contiguous"), samples(12, 0.01, 5, 2));
  contig["config"]["transport"] = "mpi";  // one process per rank: the transfers left the process
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
      {"name": "no such run", "metric": "attention_tflops", "min": 0, "where": {"split": "striped"}},
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
  // At c = 1 nothing was transferred: N/A, not a measurement missing (issue 51), and never a pass.
  EXPECT_TRUE(rep.checks[6].na());
  EXPECT_EQ(rep.checks[6].outcomes[0].measured, "N/A: c = 1: nothing was transferred");
  EXPECT_FALSE(rep.pass());
  EXPECT_EQ(rep.failed_checks(), 4);
  EXPECT_EQ(rep.na_checks(), 1);

  const auto text = format_accept_text(rep);
  EXPECT_NE(text.find("PASS  correct"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  all balanced"), std::string::npos) << text;
  EXPECT_NE(text.find("measured 1.75"), std::string::npos) << text;
  EXPECT_NE(text.find("required <= 1.05"), std::string::npos) << text;
}

// The first H200 run passed "NVLink bandwidth" with a fraction of 2.333: device-local copies held
// against a 3600 Gbit/s link. A run whose transfers crossed no link cannot pass or fail such a
// check: it is N/A, with the reason, and never counts as a pass.
TEST(AcceptEvaluate, ABandwidthCheckOfTransfersThatCrossedNoLinkIsNotApplicable) {
  auto gpu_local = ok_run(config(32768, 8, "zigzag"), samples(10, 0.01, 5, 4));
  gpu_local["config"]["backend"] = "cuda";
  gpu_local["config"]["variant"] = "allgather";
  gpu_local["timing"]["devices"] = 1;
  gpu_local["metrics"]["comm_bandwidth_gbyte_per_s"] = 1050.0;  // 2.333 of 3600 Gbit/s
  auto gpu_two = gpu_local;
  gpu_two["config"]["id"] = "two-gpus";
  gpu_two["timing"]["devices"] = 2;  // peer copies between GPUs: a real link
  gpu_two["metrics"]["comm_bandwidth_gbyte_per_s"] = 150.0;
  auto paced = gpu_local;
  paced["config"]["id"] = "paced";
  paced["config"]["link_gbps"] = 400.0;  // the link model, at another link than the check's
  auto cpu_local = ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 5));
  cpu_local["metrics"]["comm_bandwidth_gbyte_per_s"] = 5.0;
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correct", "metric": "correctness"},
      {"name": "NVLink bandwidth", "metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 3600}])"),
                                   "p.json");
  {
    const auto rep = evaluate_checks("p", checks, results("r.json", {gpu_local, paced, cpu_local}));
    const auto& bw = rep.checks[1];
    EXPECT_TRUE(bw.na());
    EXPECT_EQ(bw.result(), "N/A");
    EXPECT_EQ(bw.skipped(), 3);
    EXPECT_FALSE(bw.outcomes[0].value);  // 2.333 is not reported as a measurement
    EXPECT_NE(bw.outcomes[0].measured.find("one GPU"), std::string::npos) << bw.outcomes[0].measured;
    EXPECT_NE(bw.outcomes[1].measured.find("400 Gbit/s"), std::string::npos) << bw.outcomes[1].measured;
    EXPECT_NE(bw.outcomes[2].measured.find("cpu backend"), std::string::npos) << bw.outcomes[2].measured;
    EXPECT_TRUE(rep.pass());  // correctness passed; the N/A check neither passes nor fails the node
    EXPECT_EQ(rep.na_checks(), 1);
    const auto text = format_accept_text(rep);
    EXPECT_NE(text.find("N/A   NVLink bandwidth"), std::string::npos) << text;
    EXPECT_EQ(text.find("PASS  NVLink"), std::string::npos) << text;
    EXPECT_NE(text.find("1 of 2 checks passed, 1 N/A"), std::string::npos) << text;
    const auto x = junit_xml(rep);
    EXPECT_NE(
        x.find("<testsuite name=\"node1: NVLink bandwidth\" tests=\"3\" failures=\"0\" errors=\"0\" skipped=\"3\""),
        std::string::npos)
        << x;
    EXPECT_NE(x.find("<skipped message=\"NVLink bandwidth: the local transport on one GPU"), std::string::npos) << x;
    EXPECT_EQ(rep.to_json()["checks"][1]["result"], "N/A");
  }
  {
    // With one run over two GPUs the check measures that run, and N/A runs beside it do not mask it.
    const auto rep = evaluate_checks("p", checks, results("r.json", {gpu_local, gpu_two}));
    const auto& bw = rep.checks[1];
    EXPECT_FALSE(bw.na());
    EXPECT_FALSE(bw.pass());  // 150 GB/s = 1200 Gbit/s = 0.333 of the link
    EXPECT_EQ(bw.failures(), 1);
    EXPECT_EQ(bw.skipped(), 1);
    EXPECT_NEAR(*bw.worst().value, 1200.0 / 3600.0, 1e-12);
  }
}

TEST(AcceptEvaluate, AProfileWhoseCorrectnessOrEveryCheckIsNotApplicableFails) {
  auto unchecked = ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 6));
  unchecked["correctness"] = {{"checked", false}};
  const auto res = results("r.json", {unchecked});
  const auto rep = evaluate_checks("p",
                                   parse_checks(json::parse(R"([
      {"name": "correct", "metric": "correctness"},
      {"name": "balanced", "metric": "work_imbalance", "max": 1.05}])"),
                                                "p.json"),
                                   res);
  EXPECT_TRUE(rep.checks[0].na());
  EXPECT_TRUE(rep.checks[1].pass());
  EXPECT_EQ(rep.failed_checks(), 0);
  EXPECT_FALSE(rep.pass());
  EXPECT_NE(rep.verdict_reason().find("correctness check 'correct' is N/A"), std::string::npos);
  EXPECT_NE(format_accept_text(rep).find("FAIL: 1 of 2 checks passed, 1 N/A (the correctness check"), std::string::npos)
      << format_accept_text(rep);
  EXPECT_NE(junit_xml(rep).find("<failure type=\"not-measured\""), std::string::npos);

  auto cpu_local = ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 7));
  cpu_local["metrics"]["comm_bandwidth_gbyte_per_s"] = 5.0;
  const auto all_na = evaluate_checks(
      "p",
      parse_checks(json::parse(R"([{"metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 3600}])"), "p.json"),
      results("r.json", {cpu_local}));
  EXPECT_EQ(all_na.failed_checks(), 0);
  EXPECT_FALSE(all_na.pass());
  EXPECT_NE(all_na.verdict_reason().find("every check is N/A"), std::string::npos);
}

// A cuda run's gpu_state (NVML before and after): a thermal or power clock-event reason fails "not
// throttled"; none passes it; no state at all (a CPU run, or NVML absent) is N/A.
json with_gpu_state(json run, bool limited, const std::string& reason) {
  const json gpu = {{"pci_bus_id", "0000:19:00.0"},
                    {"clock_event_reasons", json::array({reason})},
                    {"thermal_or_power_limited", limited}};
  run["gpu_state"] = {{"start", json::array({gpu})}, {"end", json::array({gpu})}};
  return run;
}

TEST(AcceptEvaluate, NotThrottledFailsOnAThermalOrPowerReasonAndIsNotApplicableWithoutNvml) {
  const auto checks = parse_checks(json::parse(R"([{"name": "not throttled", "metric": "gpu_throttled", "max": 0}])"),
                                   "p");
  const auto cool = with_gpu_state(ok_run(config(1024, 2, "zigzag"), samples(10, 0.01, 5, 8)), false, "gpu_idle");
  const auto hot = with_gpu_state(ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 9)), true,
                                  "hw_thermal_slowdown");
  auto rep = evaluate_checks("p", checks, results("r.json", {cool}));
  EXPECT_TRUE(rep.checks[0].pass());
  rep = evaluate_checks("p", checks, results("r.json", {cool, hot}));
  EXPECT_FALSE(rep.checks[0].pass());
  EXPECT_EQ(rep.checks[0].failures(), 1);
  rep = evaluate_checks("p", checks, results("r.json", {ok_run(config(1024, 2, "zigzag"), samples(10, 0.01, 5, 10))}));
  EXPECT_TRUE(rep.checks[0].na());
  // compare: a throttled NEW is NOISY with the reason, never SLOWER, however clear the change.
  const auto s = samples(10.0, 0.01, 12, 11);
  auto cmp = compare_results(
      results("b", {with_gpu_state(ok_run(config(1024, 2, "zigzag"), s), false, "gpu_idle")}),
      results("n", {with_gpu_state(ok_run(config(1024, 2, "zigzag"), scaled(s, 1.3)), true, "sw_power_cap")}), {});
  ASSERT_EQ(cmp.runs.size(), 1u);
  EXPECT_EQ(cmp.runs[0].verdict, Verdict::noisy);
  EXPECT_NE(cmp.runs[0].note.find("throttled in NEW: GPU 0000:19:00.0 at the start: sw_power_cap"), std::string::npos)
      << cmp.runs[0].note;
  cmp = compare_results(results("b", {with_gpu_state(ok_run(config(1024, 2, "zigzag"), s), false, "gpu_idle")}),
                        results("n",
                                {with_gpu_state(ok_run(config(1024, 2, "zigzag"), scaled(s, 1.3)), false, "gpu_idle")}),
                        {});
  EXPECT_EQ(cmp.runs[0].verdict, Verdict::slower);
}

TEST(Junit, NamesEveryCheckAndEscapes) {
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correctness & <all>", "metric": "correctness"},
      {"name": "balanced", "metric": "work_imbalance", "max": 1.05}])"),
                                   "p.json");
  const auto x = junit_xml(evaluate_checks("p", checks, sample_results()));
  EXPECT_EQ(x.rfind("<?xml", 0), 0u);
  EXPECT_NE(x.find("<testsuite name=\"node1: correctness &amp; &lt;all&gt;\" tests=\"3\" failures=\"0\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuite name=\"node1: balanced\" tests=\"3\" failures=\"1\""), std::string::npos) << x;
  EXPECT_NE(x.find("<failure type=\"threshold\" message=\"balanced: measured 1.75, required &lt;= 1.05\""),
            std::string::npos)
      << x;
  EXPECT_NE(x.find("<testsuites name=\"node1: ringbench accept p\" tests=\"6\" failures=\"1\" errors=\"0\""),
            std::string::npos)
      << x;
}

// The JUnit file parses in a CI job whatever bytes reach it: a control character XML forbids becomes
// '?', a byte that is not UTF-8 (a path) U+FFFD, and ' is written as XML's own entity.
TEST(Junit, WritesOnlyWhatXmlAllows) {
  auto checks = parse_checks(json::parse(R"([{"name": "correctness", "metric": "correctness"}])"), "p.json");
  checks[0].name = "it's \x1b[2J\x07 ok";
  auto rep = evaluate_checks("p\x01", checks, sample_results());
  rep.results_path = "bad\xff/results.json";
  const auto x = junit_xml(rep);
  EXPECT_NE(x.find("<testsuite name=\"node1: it&apos;s ?[2J? ok\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuites name=\"node1: ringbench accept p?\""), std::string::npos) << x;
  EXPECT_NE(x.find("<property name=\"results\" value=\"bad\xef\xbf\xbd/results.json\"/>"), std::string::npos) << x;
  for (const char ch : x) {
    const auto c = static_cast<unsigned char>(ch);
    EXPECT_FALSE(c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') << static_cast<int>(c);
    EXPECT_NE(c, 0xff);
  }
}

}  // namespace
}  // namespace rb::reports
