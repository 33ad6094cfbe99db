// The HTML report from synthetic results documents: every section is there, text from the file is
// escaped, missing measurements are said to be missing, the timeline caps hold, and the output is
// deterministic. The same page in a real browser is tests/reports/test_report_chromium.py.
#include <algorithm>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/html/html_text.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// One run as the writer emits it; `measured` adds the measurement layer's overlap and exposed comm.
json make_run(std::int64_t seq, int cp, const std::string& split, const std::string& status = "ok",
              bool measured = false, bool timeline = true) {
  const std::string id = fmt::format("s{}-c{}-{}", seq, cp, split);
  json cfg = {{"id", id},          {"seq", seq},         {"cp", cp},         {"split", split},
              {"variant", "ring"}, {"heads", 8},         {"kv_heads", 2},    {"head_dim", 64},
              {"causal", true},    {"dtype", "float32"}, {"backend", "cpu"}, {"transport", "local"},
              {"seed", 1},         {"repeats", 3},       {"warmup", 1},      {"link_gbps", 0.0}};
  json run = {{"config", cfg},          {"status", status},    {"reason", nullptr},
              {"correctness", nullptr}, {"timing", nullptr},   {"plan", nullptr},
              {"metrics", nullptr},     {"timeline", nullptr}, {"model", nullptr}};
  if (status != "ok") {
    run["reason"] = status == "skipped" ? "seq: S % c != 0" : "correctness: 3 elements over tolerance";
    return run;
  }
  const double ms = 1e-6 * static_cast<double>(seq * seq) / cp;
  run["correctness"] = {{"checked", true}, {"passed", true}, {"max_abs_err", 1e-7}, {"rows_checked", seq}};
  run["timing"] = {{"median_ms", ms}, {"noise_pct", 1.5}, {"samples_ms", {ms, ms}}};
  json prank = json::array(), mrank = json::array(), ivs = json::array();
  for (int r = 0; r < cp; ++r) {
    const double work = split == "contiguous" ? 2.0 * r + 1 : 1.0 * cp;
    prank.push_back({{"rank", r}, {"work", work * 1000}});
    mrank.push_back({{"rank", r}, {"attention_ms", ms * work / cp}});
    for (int j = 0; j < cp; ++j) {
      ivs.push_back({{"rank", r},
                     {"kind", "compute"},
                     {"lane", "compute"},
                     {"name", "attention"},
                     {"step", j},
                     {"begin_ms", j * ms / cp},
                     {"end_ms", (j + 0.8) * ms / cp}});
      if (j + 1 < cp)
        ivs.push_back({{"rank", r},
                       {"kind", "comm"},
                       {"lane", "comm"},
                       {"name", "kv_recv"},
                       {"step", j + 1},
                       {"begin_ms", j * ms / cp},
                       {"end_ms", (j + 0.3) * ms / cp}});
    }
  }
  run["plan"] = {{"work_imbalance", split == "contiguous" ? 2.0 * cp / (cp + 1.0) : 1.0}, {"per_rank", prank}};
  run["metrics"] = {{"attention_tflops", 0.5}, {"per_rank", mrank}};
  if (measured) {
    run["metrics"]["overlap_fraction"] = 0.75;
    run["metrics"]["exposed_comm_ms"] = ms * 0.01;
    run["metrics"]["imbalance"] = run["plan"]["work_imbalance"];
    run["model"] = {{"kind", "ring_simulator"}, {"pass_ms", ms * 0.9}, {"memory", {{"gb_per_device", 0.5}}}};
    run["sm_clock"] = {{"method", "test"},
                       {"nominal_mhz", 1980.0},
                       {"threshold_pct", 75},
                       {"threshold_mhz", 1485.0},
                       {"recovery_ms", 50},
                       {"samples_ms", {ms * 3, ms, ms}},
                       {"samples_mhz", {345.0, 1980.0, 1980.0}},
                       {"dropped", {0}},
                       {"dropped_count", 1},
                       {"taken", 3}};
  }
  if (timeline) run["timeline"] = {{"window_ms", ms}, {"truncated", false}, {"intervals", ivs}};
  return run;
}

ResultsFile make_file(json runs) {
  json doc =
      {{"schema", kResultsSchema},
       {"schema_version", kResultsSchemaVersion},
       {"tool",
        {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}, {"command_line", "ringbench run x"}}},
       {"host", {{"hostname", "node7"}, {"os", "Linux"}, {"gpus", json::array()}}},
       {"profile", {{"name", "unit"}, {"description", "synthetic"}}},
       {"runs", std::move(runs)}};
  ResultsFile f;
  validate_results(doc, "synthetic", &f);
  f.path = "synthetic/results.json";
  f.doc = std::move(doc);
  return f;
}

json sweep(bool measured) {
  json runs = json::array();
  for (std::int64_t s : {1024, 2048, 4096})
    for (int c : {1, 2, 4})
      for (const char* split : {"contiguous", "zigzag"}) runs.push_back(make_run(s, c, split, "ok", measured));
  return runs;
}

TEST(HtmlText, EscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(script_json_escape(R"({"a":"</script>"})"), R"({"a":"\u003c/script>"})");
  EXPECT_EQ(format_tokens(131072), "128k");
  EXPECT_EQ(format_tokens(100), "100");
  EXPECT_EQ(format_number(12.3456), "12.3");
  EXPECT_EQ(format_number(0.000123), "1.23e-4");
}

// The summary's headline is per rank, beside the slowest rank; comm taken from in-flight spans is
// marked; the CUPTI section appears only with CUPTI records and states what tracing cost.
TEST(HtmlReport, PerRankHeadlineCommBasisAndTheCostOfCupti) {
  json runs = sweep(true);
  EXPECT_EQ(render_report(make_file(runs)).find("id=\"cupti\""), std::string::npos);
  json& r = runs[5];
  r["metrics"]["attention_tflops_slowest_rank"] = 0.375;
  r["metrics"]["comm_time_ms"] = 1.874;
  r["metrics"]["comm_in_flight_ms"] = 1.874;
  r["metrics"]["comm_basis"] = "in_flight";
  r["cupti"] = {{"traced_pass_ms", 2.0},
                {"clean_median_ms", 0.8},
                {"overhead_pct", 150.0},
                {"dropped_records", 0},
                {"ignored_records", 0},
                {"intervals", 10},
                {"metrics", {{"comm_time_ms", 0.038}, {"overlap_fraction", 0.9}, {"exposed_comm_ms", 0.0038}}}};
  runs[4]["cupti"] = {{"error", "CUPTI is in use by another client"}};
  const std::string html = render_report(make_file(runs));
  // The cpu backend's rates read in GFLOP/s, as on its console (common/flops_unit.hpp): 0.375 TFLOP/s is 375.
  EXPECT_NE(html.find("<th>GFLOP/s per GPU</th>"), std::string::npos);
  EXPECT_NE(html.find(">375</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>slowest rank</th>"), std::string::npos);
  EXPECT_NE(html.find("1.87\u2020"), std::string::npos) << "in-flight comm is marked";
  const auto cupti = html.find("id=\"cupti\"");
  ASSERT_NE(cupti, std::string::npos);
  EXPECT_NE(html.find("Tracing costs time", cupti), std::string::npos);
  EXPECT_NE(html.find("up to 150% slower", cupti), std::string::npos);
  EXPECT_NE(html.find("class=\"n fail\"", cupti), std::string::npos) << "an overhead over 10% is marked";
  EXPECT_NE(html.find("tracing failed: CUPTI is in use by another client", cupti), std::string::npos);
  // A GPU's rates stay in TFLOP/s: the unit is the runs' backend's, one for the whole table.
  for (json& run : runs) run["config"]["backend"] = "cuda";
  const std::string gpu = render_report(make_file(runs));
  EXPECT_NE(gpu.find("<th>TFLOP/s per GPU</th>"), std::string::npos);
  EXPECT_EQ(gpu.find("GFLOP/s"), std::string::npos);
}

// A pass with a backward (docs/design.md §3a): the section sets the two parts side by side and splits
// each rank's attention time; a report of forward passes has no such section.
TEST(HtmlReport, APassWithABackwardShowsBothPartsPerRank) {
  EXPECT_EQ(render_report(make_file(sweep(true))).find("id=\"backward\""), std::string::npos);
  json run = make_run(2048, 2, "zigzag", "ok", true);
  run["config"]["phase"] = "fwd+bwd";
  run["config"]["dkv"] = "follow";
  run["config"]["id"] = run["config"]["id"].get<std::string>() + "-fwd+bwd-follow";  // as the writer names it
  run["timing"]["phase_ms"] = {{"fwd", {{"median_ms", 1.25}, {"samples_ms", {1.25, 1.25}}}},
                               {"bwd", {{"median_ms", 3.5}, {"samples_ms", {3.5, 3.5}}}}};
  json fwd = {{"attention_tflops", 0.4},
              {"exposed_comm_ms", 0.01},
              {"overlap_fraction", 0.5},
              {"per_rank", {{{"rank", 0}, {"attention_time_ms", 1.0}}, {{"rank", 1}, {"attention_time_ms", 1.1}}}}};
  json bwd = {{"attention_tflops", 0.6},
              {"exposed_comm_ms", 0.02},
              {"overlap_fraction", 0.25},
              {"per_rank", {{{"rank", 0}, {"attention_time_ms", 2.5}}, {{"rank", 1}, {"attention_time_ms", 3.0}}}}};
  run["phase_metrics"] = {{"fwd", fwd}, {"bwd", bwd}};
  run["correctness"]["gradients"] = {{"tolerance", 1e-3},
                                     {"tolerance_basis", "float32"},
                                     {"dq", {{"max_abs_err", 2e-6}, {"passed", true}}},
                                     {"dk", {{"max_abs_err", 7e-6}, {"passed", true}}},
                                     {"dv", nullptr},
                                     {"dkv_unchecked", nullptr},
                                     {"passed", true}};
  const std::string html = render_report(make_file(json::array({run})));
  const auto at = html.find("id=\"backward\"");
  ASSERT_NE(at, std::string::npos);
  const std::string section = html.substr(at, html.find("</section>", at) - at);
  for (const char* want : {"follow", "1.25", "3.5", "2.8", "50.0%", "25.0%", "7.00e-06", "attention time per rank",
                           "<th>fwd GFLOP/s</th>", ">400</td>", ">600</td>"})  // the cpu backend's unit
    EXPECT_NE(section.find(want), std::string::npos) << want;
  EXPECT_EQ(count(section, "class=\"bar c3\""), 2u);  // one backward bar per rank
}

TEST(HtmlReport, HasEverySection) {
  const std::string html = render_report(make_file(sweep(true)));
  for (const char* id :
       {"id=\"summary-table\"",   "id=\"failures\"",        "id=\"time-vs-seq\"",       "id=\"time-chart-0\"",
        "id=\"rank-bars\"",       "id=\"work-bars-0\"",     "id=\"attn-bars-0\"",       "id=\"overlap\"",
        "id=\"overlap-chart-0\"", "id=\"exposed-chart-0\"", "id=\"imbalance-chart-0\"", "id=\"timelines\"",
        "id=\"timeline-pick\"",   "id=\"model\"",           "id=\"model-memory\"",      "id=\"samples\"",
        "id=\"samples-ms-0\"",    "id=\"samples-mhz-0\"",   "id=\"environment\"",       "id=\"env-facts\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  EXPECT_EQ(count(html, "<tr class=\"ok\">"), 18u);  // one summary row per run
  EXPECT_EQ(html.find("Not measured"), std::string::npos);
  EXPECT_NE(html.find("id=\"model-vs-measured\""), std::string::npos);
  EXPECT_NE(html.find("id=\"model-table\""), std::string::npos);
  EXPECT_NE(html.find("(run&#39;s model)"), std::string::npos);  // memory marks from runs[].model
  EXPECT_EQ(html.find("http://"), std::string::npos);            // nothing to fetch
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_NE(html.find("node7"), std::string::npos);
  EXPECT_NE(html.find("ringbench run x"), std::string::npos);
}

TEST(HtmlReport, SaysWhatIsNotMeasured) {
  const std::string html = render_report(make_file(sweep(false)));
  EXPECT_NE(html.find("Not measured"), std::string::npos);
  EXPECT_EQ(html.find("id=\"overlap-chart-0\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"model-vs-measured\""), std::string::npos);
  EXPECT_NE(html.find("id=\"imbalance-chart-0\""), std::string::npos);  // derived from per-rank times
}

TEST(HtmlReport, EscapesTextFromTheFile) {
  json runs = sweep(false);
  runs[0]["config"]["id"] = "<script>alert(1)</script>";
  runs.push_back(make_run(1000, 3, "zigzag", "skipped"));
  runs.back()["reason"] = "bad \"S\" <img src=x onerror=alert(2)>";
  auto f = make_file(runs);
  f.doc["profile"]["name"] = "<b>p</b>";
  f.doc["host"]["hostname"] = "h\"><svg onload=alert(3)>";
  const std::string html = render_report(f);
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<svg onload"), std::string::npos);
  EXPECT_EQ(html.find("<b>p</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("bad &quot;S&quot; &lt;img"), std::string::npos);
  EXPECT_EQ(count(html, "<script>"), 1u);  // only the report's own
}

TEST(HtmlReport, ListsFailuresAndSkipsWithReasons) {
  json runs = sweep(false);
  runs.push_back(make_run(1000, 3, "zigzag", "skipped"));
  runs.push_back(make_run(1024, 8, "zigzag", "failed"));
  const std::string html = render_report(make_file(runs));
  EXPECT_NE(html.find("1 failed, 1 skipped."), std::string::npos);
  EXPECT_NE(html.find("seq: S % c != 0"), std::string::npos);
  EXPECT_NE(html.find("correctness: 3 elements over tolerance"), std::string::npos);
}

TEST(HtmlReport, CapsTimelinesAndListsTheRest) {
  json runs = json::array();
  for (int i = 0; i < 40; ++i) runs.push_back(make_run(256 * (i + 1), 4, i % 2 ? "zigzag" : "contiguous"));
  ReportOptions opt;
  opt.max_timelines = 5;
  opt.timeline_ids = {"s2560-c4-zigzag"};
  const std::string html = render_report(make_file(runs), opt);
  EXPECT_EQ(count(html, "<details class=\"tl\""), 6u);  // the one asked for, plus the cap
  EXPECT_NE(html.find("data-run=\"s2560-c4-zigzag\""), std::string::npos);
  EXPECT_NE(html.find("34 more configurations have a timeline"), std::string::npos);
  ReportOptions tiny;
  tiny.timeline_budget_bytes = 1;  // the first always fits, nothing after it
  EXPECT_EQ(count(render_report(make_file(runs), tiny), "<details class=\"tl\""), 1u);
}

TEST(HtmlReport, TimelineDrawsEveryInterval) {
  json runs = json::array({make_run(4096, 4, "zigzag")});
  const std::size_t n = runs[0]["timeline"]["intervals"].size();
  const std::string html = render_report(make_file(runs));
  const auto a = html.find("<details class=\"tl\""), b = html.find("</details>", a);
  ASSERT_NE(a, std::string::npos);
  EXPECT_EQ(count(html.substr(a, b - a), "<rect class=\"bar\""), n);
  EXPECT_NE(html.find("r3 comm"), std::string::npos);  // lanes per rank
}

TEST(HtmlReport, RendersEmptyAndHeaderlessFiles) {
  const std::string empty = render_report(make_file(json::array()));
  EXPECT_NE(empty.find("id=\"summary-table\""), std::string::npos);
  EXPECT_NE(empty.find("Not measured"), std::string::npos);
  ResultsFile f = make_file(json::array({make_run(512, 2, "zigzag")}));
  f.doc.erase("tool");
  f.doc.erase("host");
  f.doc["profile"] = nullptr;  // a results.jsonl wrapped by the reader has no header
  EXPECT_NE(render_report(f).find("not recorded"), std::string::npos);
}

TEST(HtmlReport, IsDeterministic) {
  const auto f = make_file(sweep(true));
  EXPECT_EQ(render_report(f), render_report(f));
}

}  // namespace
}  // namespace rb::reports
