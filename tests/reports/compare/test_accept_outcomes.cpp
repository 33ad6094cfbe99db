// Acceptance outcomes beyond pass and fail: one failure per failed run (its metric checks are
// errors of the run, its plan still judged), N/A reasons per run, a filter matching nothing, and
// the node and run time every output names.
#include <algorithm>

#include <gtest/gtest.h>

#include "reports/compare/accept.hpp"
#include "reports/compare/junit.hpp"
#include "reports/results/record_config.hpp"
#include "reports/results/run_record.hpp"
// GCC 12 at -O3 takes the "s" + std::to_string(...) in config() for an overlapping copy
// (-Wrestrict, GCC bug 105651) when it emits config() out of line, as it does in this file.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include "synthetic_results.hpp"
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace rb::reports {
namespace {

using namespace rb::reports::testing;

std::string label_of(const json& run) { return label(read_run_record(run).config); }

// A run with its plan and its (untrusted) measurements, failed by the correctness check.
json failed_with_plan(const json& cfg, double work_imbalance, const std::string& reason) {
  json r = ok_run(cfg, samples(10, 0.01, 5, 12));
  r["status"] = "failed";
  r["reason"] = reason;
  r["correctness"] = {{"checked", true}, {"passed", false}, {"over_tolerance", 4}};
  r["plan"]["work_imbalance"] = work_imbalance;
  r["metrics"]["work_imbalance"] = work_imbalance;
  return r;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One failure, one cause: a run whose output was wrong fails the correctness check once; the
// checks that read its measurements get an error of the run (neither PASS nor a threshold FAIL),
// and the check the plan alone decides is judged from the plan.
TEST(AcceptEvaluate, AFailedRunFailsCorrectnessOnceAndIsAnErrorOfTheMetricChecks) {
  const std::string reason = "correctness: 4 elements over tolerance";
  const auto bad = failed_with_plan(config(512, 4, "zigzag"), 1.0, reason);
  const auto res = results("r.json", {ok_run(config(512, 2, "zigzag"), samples(10, 0.01, 5, 13)), bad});
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correctness", "metric": "correctness"},
      {"name": "zigzag balance", "metric": "work_imbalance", "max": 1.000001},
      {"name": "throughput", "metric": "attention_tflops", "min": 0},
      {"name": "fast", "metric": "median_ms", "max": 1e6}])"),
                                   "p");
  const auto rep = evaluate_checks("p", checks, res);
  const auto& correct = rep.checks[0];
  EXPECT_EQ(correct.result(), "FAIL");
  EXPECT_EQ(correct.failures(), 1);
  EXPECT_EQ(correct.errors(), 0);
  EXPECT_EQ(correct.outcomes[1].cause, "correctness");
  EXPECT_EQ(correct.outcomes[1].measured, "run failed: " + reason);

  const auto& balance = rep.checks[1];  // from the failed run's plan: exactly 1
  EXPECT_EQ(balance.result(), "PASS");
  EXPECT_EQ(balance.errors(), 0);
  ASSERT_TRUE(balance.outcomes[1].value);
  EXPECT_DOUBLE_EQ(*balance.outcomes[1].value, 1.0);

  for (const auto* c : {&rep.checks[2], &rep.checks[3]}) {
    EXPECT_EQ(c->result(), "ERROR") << c->spec.name;
    EXPECT_EQ(c->failures(), 0) << c->spec.name;  // the ok run passed; the failed one is not a threshold miss
    EXPECT_EQ(c->errors(), 1) << c->spec.name;
    EXPECT_TRUE(c->outcomes[1].error);
    EXPECT_FALSE(c->outcomes[1].value);  // its measurements are not reported as measured
    EXPECT_EQ(c->outcomes[1].cause, "run-failed");
    EXPECT_EQ(c->outcomes[1].measured, "run failed: " + reason);
  }
  EXPECT_FALSE(rep.pass());  // an error fails the profile: the run failed
  EXPECT_EQ(rep.failed_checks(), 1);
  EXPECT_EQ(rep.error_checks(), 2);
  EXPECT_EQ(rep.passed_checks(), 1);

  const auto text = format_accept_text(rep);
  EXPECT_NE(text.find("FAIL: 1 of 4 checks passed, 1 failed, 2 with run errors\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ERROR throughput "), std::string::npos) << text;
  EXPECT_NE(text.find("[1/1 runs, 1 run error]"), std::string::npos) << text;
  EXPECT_NE(text.find("      ERROR " + label_of(bad) + ": run failed: " + reason + "\n"), std::string::npos) << text;
  EXPECT_EQ(count(text, "      FAIL  "), 1u) << text;

  const auto x = junit_xml(rep);
  EXPECT_EQ(count(x, "<failure "), 1u) << x;
  EXPECT_NE(x.find("<failure type=\"correctness\" message=\"correctness: run failed: " + reason + "\""),
            std::string::npos)
      << x;
  EXPECT_EQ(count(x, "<error type=\"run-failed\" message=\"throughput: run failed: " + reason + "\""), 1u) << x;
  EXPECT_EQ(count(x, "<error "), 2u) << x;
  EXPECT_EQ(x.find("type=\"threshold\""), std::string::npos) << x;
  EXPECT_NE(x.find("tests=\"8\" failures=\"1\" errors=\"2\" skipped=\"0\">"), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"node1: throughput\" tests=\"2\" failures=\"0\" errors=\"1\""), std::string::npos)
      << x;
  const auto j = rep.to_json();
  EXPECT_EQ(j["checks"][2]["result"], "ERROR");
  EXPECT_EQ(j["checks"][2]["runs"][1]["error"], true);
  EXPECT_EQ(j["summary"]["errors"], 2);
}

TEST(AcceptEvaluate, APlanCheckOfAFailedRunIsJudgedOnThePlanOrIsAnErrorWithoutOne) {
  const auto checks = parse_checks(json::parse(R"([{"name": "balance", "metric": "work_imbalance", "max": 1.05}])"),
                                   "p");
  // The plan says 1.75 > 1.05: a threshold failure, whatever the run did.
  auto rep = evaluate_checks("p", checks,
                             results("r.json", {failed_with_plan(config(512, 4, "contiguous"), 1.75, "x")}));
  EXPECT_EQ(rep.checks[0].result(), "FAIL");
  EXPECT_EQ(rep.checks[0].outcomes[0].cause, "threshold");
  EXPECT_NE(junit_xml(rep).find("<failure type=\"threshold\" message=\"balance: measured 1.75, required &lt;= 1.05\""),
            std::string::npos);
  // No plan in the record (a run that failed before planning): nothing to judge, an error, not a failure.
  rep = evaluate_checks("p", checks, results("r.json", {failed_run(config(512, 4, "zigzag"), "timeout: 60 s")}));
  EXPECT_EQ(rep.checks[0].result(), "ERROR");
  EXPECT_EQ(rep.checks[0].failures(), 0);
  EXPECT_NE(rep.checks[0].outcomes[0].measured.find("run failed: timeout: 60 s"), std::string::npos);
  EXPECT_NE(rep.checks[0].outcomes[0].measured.find("no plan"), std::string::npos);
  // A skipped run fails the correctness check with its reason, and errs the metric checks.
  auto skipped = failed_run(config(512, 2, "zigzag"), "needs the cuda backend");
  skipped["status"] = "skipped";
  rep = evaluate_checks("p",
                        parse_checks(json::parse(R"([{"metric": "correctness"}, {"metric": "median_ms", "max": 1}])"),
                                     "p"),
                        results("r.json", {skipped}));
  EXPECT_EQ(rep.checks[0].outcomes[0].measured, "run skipped: needs the cuda backend");
  EXPECT_EQ(rep.checks[0].outcomes[0].cause, "run-failed");
  EXPECT_EQ(rep.checks[0].failures(), 1);
  EXPECT_EQ(rep.checks[1].errors(), 1);
  // What the config rules out stays N/A for a run that failed: at c = 1 nothing moved, whatever happened.
  rep = evaluate_checks(
      "p", parse_checks(json::parse(R"([{"metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 100}])"), "p"),
      results("r.json", {failed_run(config(512, 1, "zigzag"), "x")}));
  EXPECT_TRUE(rep.checks[0].na());
  EXPECT_EQ(rep.checks[0].errors(), 0);
  EXPECT_EQ(rep.checks[0].outcomes[0].measured, "N/A: c = 1: nothing was transferred");
}

// c = 1 moves nothing, c = 2 and 4 move within one process: two reasons, each given for its runs,
// the same string on the console and in the JUnit file (the console once gave c = 1's for all).
TEST(AcceptEvaluate, NotApplicableReasonsArePerRunAndTheSameInTextAndJunit) {
  std::vector<json> runs = {ok_run(config(1024, 1, "zigzag"), samples(10, 0.01, 5, 15)),
                            ok_run(config(1024, 2, "zigzag"), samples(10, 0.01, 5, 16)),
                            ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 18))};
  for (auto& r : runs) r["metrics"]["comm_bandwidth_gbyte_per_s"] = 5.0;
  const auto checks = parse_checks(
      json::parse(R"([{"name": "link", "metric": "comm_bandwidth_fraction", "min": 0.5, "link_gbps": 100}])"), "p");
  const auto rep = evaluate_checks("p", checks, results("r.json", runs));
  const auto& link = rep.checks[0];
  ASSERT_TRUE(link.na());
  EXPECT_EQ(outcome_text(link.spec, link.outcomes[0]), "c = 1: nothing was transferred");
  for (const std::size_t i : {1u, 2u})
    EXPECT_EQ(outcome_text(link.spec, link.outcomes[i]),
              "the local transport on the cpu backend: every transfer stayed in one process's memory");
  const auto text = format_accept_text(rep);
  const auto x = junit_xml(rep);
  EXPECT_NE(text.find("N/A   link   N/A for 2 reasons (each run below)"), std::string::npos) << text;
  EXPECT_EQ(text.find("(every run)"), std::string::npos) << text;
  for (const auto& o : link.outcomes) {
    const std::string reason = outcome_text(link.spec, o);
    EXPECT_NE(text.find("      N/A   " + o.run_label + ": " + reason + "\n"), std::string::npos) << text;
    std::string escaped = reason;
    if (const auto q = escaped.find('\''); q != std::string::npos) escaped.replace(q, 1, "&apos;");
    const auto at = x.find("name=\"" + o.run_label + " [" + o.run_id + "]\"");
    ASSERT_NE(at, std::string::npos) << x;
    const std::string one_case = x.substr(at, x.find("</testcase>", at) - at);
    EXPECT_NE(one_case.find("<skipped message=\"link: " + escaped + "\"/>"), std::string::npos) << one_case;
  }
  // One reason for every run: said once, on the check's line.
  const auto one = evaluate_checks("p", checks, results("r.json", {runs[1], runs[2]}));
  const auto t1 = format_accept_text(one);
  EXPECT_NE(t1.find("measured N/A: the local transport on the cpu backend: every transfer stayed in one process's "
                    "memory (every run)"),
            std::string::npos)
      << t1;
  EXPECT_EQ(t1.find("      N/A"), std::string::npos) << t1;
}

TEST(AcceptEvaluate, ACheckMatchingNoRunSaysWhichFilterMatchedNothing) {
  const auto checks =
      parse_checks(json::parse(R"([{"name": "cp16", "metric": "median_ms", "max": 1, "where": {"cp": [16, 32],
                                    "split": "zigzag"}}])"),
                   "p");
  const auto rep = evaluate_checks("p", checks,
                                   results("r.json", {ok_run(config(1024, 4, "zigzag"), samples(10, 0.01, 5, 22))}));
  EXPECT_EQ(rep.checks[0].outcomes[0].measured, R"(no run matches where {"cp": [16, 32], "split": "zigzag"})");
  EXPECT_EQ(rep.checks[0].outcomes[0].cause, "no-match");
  const auto text = format_accept_text(rep);
  EXPECT_NE(
      text.find(R"(FAIL  cp16   no run matches where {"cp": [16, 32], "split": "zigzag"}  required <= 1  [0/0 runs])"),
      std::string::npos)
      << text;
  EXPECT_EQ(text.find("worst"), std::string::npos) << text;
  EXPECT_NE(junit_xml(rep).find(R"(<failure type="no-match" message="cp16: no run matches where {&quot;cp&quot;)"),
            std::string::npos);
}

ResultsFile identified_results(const std::string& backend) {
  auto run = ok_run(config(1024, 2, "zigzag"), samples(10, 0.01, 5, 20));
  run["config"]["backend"] = backend;
  const json host = {{"hostname", "gpu-node-7"},
                     {"gpus", json::array({{{"name", "NVIDIA H200"},
                                            {"uuid", "GPU-1234"},
                                            {"pci_bus_id", "0000:19:00.0"},
                                            {"serial", "1650924060012"},
                                            {"board", "692-2G520-0200-000"}}})},
                     {"libraries",
                      {{"cuda", {{"driver", "570.86"}, {"runtime", "12.8"}}}, {"nccl", {{"library", "2.26.2"}}}}}};
  auto f = results("r.json", {run}, host);
  f.doc["tool"] = {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}, {"build_type", "Release"}};
  f.doc["run_time"] = {{"started_utc", "2026-12-01T08:00:00Z"}, {"finished_utc", "2026-12-01T08:05:00Z"}};
  return f;
}

// Every output names the node and the time it judged, so many nodes' outputs can be told apart.
TEST(AcceptNode, TheReportNamesTheNodeTheBuildAndTheRunsTime) {
  const auto checks = parse_checks(json::parse(R"([{"name": "correctness", "metric": "correctness"}])"), "p");
  const auto rep = evaluate_checks("p", checks, identified_results("cuda"));
  EXPECT_EQ(rep.node.hostname, "gpu-node-7");
  ASSERT_EQ(rep.node.gpus.size(), 1u);
  EXPECT_EQ(rep.node.gpus[0].serial, "1650924060012");
  EXPECT_EQ(rep.node.started_utc, "2026-12-01T08:00:00Z");
  EXPECT_EQ(rep.node.versions.at("driver"), "570.86");
  EXPECT_TRUE(rep.node.missing.empty()) << json(rep.node.missing).dump();

  const auto text = format_accept_text(rep);
  EXPECT_EQ(text.find("accept p: r.json\nnode   gpu-node-7\nGPU 0  GPU-1234 (NVIDIA H200, 0000:19:00.0)\n"
                      "run    2026-12-01T08:00:00Z to 2026-12-01T08:05:00Z\n"
                      "build  type Release, commit abc123, ringbench 0.1.0\nPASS  correctness"),
            0u)
      << text;
  const auto x = junit_xml(rep);
  EXPECT_NE(x.find("<testsuites name=\"gpu-node-7: ringbench accept p\""), std::string::npos) << x;
  EXPECT_NE(x.find("<testsuite name=\"gpu-node-7: correctness\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\""),
            std::string::npos)
      << x;
  // The standard attributes; JUnit's timestamp takes no time zone (UTC, as node.started_utc says).
  EXPECT_NE(x.find("\" hostname=\"gpu-node-7\" timestamp=\"2026-12-01T08:00:00\">\n"), std::string::npos) << x;
  for (const std::string p :
       {R"("node.hostname" value="gpu-node-7")", R"("node.started_utc" value="2026-12-01T08:00:00Z")",
        R"("node.finished_utc" value="2026-12-01T08:05:00Z")", R"("node.build_type" value="Release")",
        R"("node.git_sha" value="abc123")", R"("node.tool_version" value="0.1.0")",
        R"("node.version.driver" value="570.86")", R"("node.version.cuda_runtime" value="12.8")",
        R"("node.version.nccl" value="2.26.2")", R"("node.gpu.0.uuid" value="GPU-1234")",
        R"("node.gpu.0.serial" value="1650924060012")", R"("node.gpu.0.pci_bus_id" value="0000:19:00.0")",
        R"("node.gpu.0.board" value="692-2G520-0200-000")", R"("node.gpu.0.name" value="NVIDIA H200")"})
    EXPECT_NE(x.find("<property name=" + p + "/>"), std::string::npos) << p << "\n" << x;
  EXPECT_NE(x.find(R"(<property name="metric" value="correctness"/>)"), std::string::npos);  // kept
  const auto j = rep.to_json();
  EXPECT_EQ(j["schema_version"], kAcceptSchemaVersion);
  EXPECT_EQ(j["node"]["hostname"], "gpu-node-7");
  EXPECT_EQ(j["node"]["gpus"][0]["uuid"], "GPU-1234");
  EXPECT_EQ(j["node"]["started_utc"], "2026-12-01T08:00:00Z");
}

// A header of before 2.5.0 has no run times or build type: said so, never guessed or left blank.
TEST(AcceptNode, AnOlderHeaderSaysWhatItDoesNotRecord) {
  const auto checks = parse_checks(json::parse(R"([{"name": "correctness", "metric": "correctness"}])"), "p");
  auto f = results("r.json", {ok_run(config(1024, 2, "zigzag"), samples(10, 0.01, 5, 21))});
  f.doc["schema_version"] = "2.4.0";
  f.doc["tool"] = {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}};
  const auto rep = evaluate_checks("p", checks, f);
  EXPECT_EQ(rep.node.hostname, "node1");
  for (const std::string path : {"/run_time/started_utc", "/run_time/finished_utc", "/tool/build_type"})
    EXPECT_NE(std::find(rep.node.missing.begin(), rep.node.missing.end(), path), rep.node.missing.end()) << path;
  const auto text = format_accept_text(rep);
  EXPECT_NE(text.find("node   node1\nGPUs   no GPU (cpu backend)\nrun    not recorded (results older than 2.5.0)\n"
                      "build  type not recorded (results older than 2.5.0), commit abc123, ringbench 0.1.0\n"),
            std::string::npos)
      << text;
  const auto x = junit_xml(rep);
  EXPECT_NE(x.find("hostname=\"node1\">"), std::string::npos) << x;  // no timestamp to give
  EXPECT_EQ(x.find("timestamp="), std::string::npos) << x;
  EXPECT_EQ(x.find("node.started_utc"), std::string::npos) << x;
  EXPECT_EQ(rep.to_json()["node"]["missing"], json(rep.node.missing));
  // A cuda file with no GPU list says the list is missing, not that the node has no GPU.
  auto cuda = identified_results("cuda");
  cuda.doc["host"]["gpus"] = json::array();
  EXPECT_NE(format_accept_text(evaluate_checks("p", checks, cuda)).find("GPUs   not recorded\n"), std::string::npos);
}

// A c = 1 alias (results 2.6.0) repeats the measurement of the configuration it names: a check that
// covers both counts it once; a check that names only the alias still judges it.
TEST(AcceptEvaluate, AnAliasOfAFailedRunIsTheSameFailure) {
  const std::string reason = "correctness: 4 elements over tolerance";
  const auto measured = failed_with_plan(config(512, 1, "zigzag"), 1.0, reason);
  auto alias = failed_with_plan(config(512, 1, "contiguous"), 1.0, reason);
  alias["alias_of"] = measured["config"]["id"];
  const auto res = results("r.json", {measured, alias});
  const auto checks = parse_checks(json::parse(R"([
      {"name": "correctness", "metric": "correctness"},
      {"name": "contiguous only", "metric": "correctness", "where": {"split": "contiguous"}}])"),
                                   "p");
  const auto rep = evaluate_checks("p", checks, res);
  ASSERT_EQ(rep.checks[0].outcomes.size(), 1u);
  EXPECT_EQ(rep.checks[0].outcomes[0].run_id, measured["config"]["id"]);
  EXPECT_EQ(rep.checks[0].failures(), 1);
  ASSERT_EQ(rep.checks[1].outcomes.size(), 1u);
  EXPECT_EQ(rep.checks[1].outcomes[0].run_id, alias["config"]["id"]);
  EXPECT_EQ(rep.checks[1].failures(), 1);
}

// A sweep that did not run whole fails the profile, however its checks came out: the cause leads
// the summary, and JUnit carries it as a failing case of type "incomplete".
TEST(AcceptEvaluate, ASweepCutShortFailsWhateverItsChecksSay) {
  auto cut = ok_run(config(512, 2, "zigzag"), samples(10, 0.01, 3, 4));
  cut["timing"]["rounds"] = 1;
  cut["timing"]["rounds_planned"] = 2;
  const json whole = ok_run(config(512, 2, "contiguous"), samples(10, 0.01, 6, 5));
  const auto checks = parse_checks(json::parse(R"([{"name": "correctness", "metric": "correctness"},
      {"name": "rate", "metric": "attention_tflops", "min": 0}])"),
                                   "p");
  // As measured: every check passes.
  EXPECT_TRUE(evaluate_checks("p", checks, results("r.json", {whole})).pass());

  ResultsFile stopped = results("r.json", {whole, cut});
  stopped.doc["stopped"] = "the sweep was interrupted by SIGTERM";
  const auto rep = evaluate_checks("p", checks, stopped);
  EXPECT_EQ(rep.failed_checks(), 0);
  EXPECT_FALSE(rep.pass());
  ASSERT_EQ(rep.incomplete.size(), 2u);
  EXPECT_EQ(rep.incomplete[0], "the sweep did not finish: the sweep was interrupted by SIGTERM");
  EXPECT_EQ(rep.incomplete[1], label_of(cut) + ": ran 1 of 2 rounds");
  const std::string text = format_accept_text(rep);
  EXPECT_NE(text.find("FAIL: 2 of 2 checks passed (the sweep did not finish: the sweep was interrupted by SIGTERM; "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("INCOMPLETE  " + label_of(cut) + ": ran 1 of 2 rounds"), std::string::npos) << text;
  const std::string xml = junit_xml(rep);
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure type=\"incomplete\" message=\"the sweep did not finish: the sweep was interrupted by "
                     "SIGTERM;"),
            std::string::npos)
      << xml;
  EXPECT_EQ(rep.to_json().at("pass"), false);
  EXPECT_EQ(rep.to_json().at("reason"), rep.verdict_reason());

  // Fewer rounds alone (a stopped sweep's file whose header was lost) fail too; a failed run does
  // not count twice: its failure is the correctness check's.
  auto failed = failed_run(config(256, 2, "zigzag"), "round 2 of 2: out of memory");
  const auto short_only = evaluate_checks("p", checks, results("r.json", {whole, cut, failed}));
  EXPECT_EQ(short_only.incomplete, std::vector<std::string>{label_of(cut) + ": ran 1 of 2 rounds"});
  EXPECT_FALSE(short_only.pass());
}

}  // namespace
}  // namespace rb::reports
