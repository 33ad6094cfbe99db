// The report answers a sweep's questions at a glance (issue 32, part 4), asserted on the HTML of
// hand-built results: the summary pins its configuration column and moves what every row shares to
// one line; "fastest at each c" names the right split and margins; exposed comm is also a share of
// the pass; timeline bars are at least 2 px wide with exact hover text; a sweep with one S or one c
// draws bars; and a cpu run with more ranks than CPUs is flagged beside the figures it misleads.
// The same page at 1400 px in Chromium is tests/reports/test_report_glance_chromium.py.
#include <algorithm>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/html/svg_timeline.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {

using nlohmann::json;

constexpr const char* kWarning = "ranks shared CPUs: c = 4 ranks on 2 CPUs; per-rank times include waiting for a core";

// One ok run: median `ms`, per-rank attention times, exposed comm, and a timeline of one compute
// and one comm interval per rank.
json run(std::int64_t seq, int cp, const std::string& split, double ms, const std::string& variant = "ring") {
  json cfg = {{"id", fmt::format("s{}-c{}-{}-{}", seq, cp, split, variant)},
              {"seq", seq},
              {"cp", cp},
              {"split", split},
              {"variant", variant},
              {"heads", 8},
              {"kv_heads", 2},
              {"head_dim", 64},
              {"causal", true},
              {"dtype", "float32"},
              {"backend", "cpu"},
              {"transport", "local"},
              {"seed", 1},
              {"repeats", 3},
              {"warmup", 1},
              {"link_gbps", 0.0}};
  json prank = json::array(), mrank = json::array(), ivs = json::array();
  for (int r = 0; r < cp; ++r) {
    const double work = split == "contiguous" ? 2.0 * r + 1 : 1.0 * cp;
    prank.push_back({{"rank", r}, {"work", work * 1000}});
    mrank.push_back({{"rank", r}, {"attention_ms", ms * work / (2.0 * cp)}});
    ivs.push_back({{"rank", r},
                   {"kind", "compute"},
                   {"lane", "compute"},
                   {"name", "attention"},
                   {"step", 0},
                   {"begin_ms", 0.0},
                   {"end_ms", ms * 0.9}});
  }
  const double imb = split == "contiguous" ? 2.0 * cp / (cp + 1.0) : 1.0;
  return {{"config", cfg},
          {"status", "ok"},
          {"reason", nullptr},
          {"correctness", {{"checked", true}, {"passed", true}, {"max_abs_err", 1e-7}, {"rows_checked", seq}}},
          {"timing", {{"median_ms", ms}, {"noise_pct", 1.5}, {"samples_ms", {ms, ms}}}},
          {"plan", {{"work_imbalance", imb}, {"per_rank", prank}}},
          {"metrics",
           {{"attention_tflops", 0.5},
            {"overlap_fraction", 0.75},
            {"exposed_comm_ms", ms / 20},
            {"imbalance", imb},
            {"per_rank", mrank}}},
          {"timeline", {{"window_ms", ms}, {"truncated", false}, {"intervals", ivs}}},
          {"model", nullptr}};
}

std::string render(json runs, std::optional<int> cpu_threads = std::nullopt) {
  json host = {{"hostname", "node7"}, {"os", "Linux"}, {"gpus", json::array()}};
  if (cpu_threads) host["cpu_threads"] = *cpu_threads;
  json doc = {{"schema", kResultsSchema},
              {"schema_version", kResultsSchemaVersion},
              {"tool", {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}}},
              {"host", host},
              {"profile", {{"name", "glance"}}},
              {"runs", std::move(runs)}};
  ResultsFile f;
  validate_results(doc, "synthetic", &f);
  f.path = "synthetic/results.json";
  f.doc = std::move(doc);
  return render_report(f);
}

// The markup of the element that opens with `open` up to `close` after it; empty when absent.
std::string part(const std::string& html, const std::string& open, const std::string& close) {
  const auto a = html.find(open);
  if (a == std::string::npos) return {};
  const auto b = html.find(close, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b + close.size() - a);
}
std::string section(const std::string& html, const std::string& id) {
  return part(html, "<section id=\"" + id + "\"", "</section>");
}
std::string figure(const std::string& html, const std::string& id) {
  return part(html, "<figure class=\"chart\" id=\"" + id + "\"", "</figure>");
}

// A sweep over S, c and two splits: zig-zag 20% faster than contiguous at c > 1.
json two_splits(const std::vector<std::int64_t>& seqs, const std::vector<int>& cps) {
  json runs = json::array();
  for (auto s : seqs)
    for (int c : cps) {
      const double base = 1e-6 * static_cast<double>(s * s) / c;
      runs.push_back(run(s, c, "contiguous", base));
      runs.push_back(run(s, c, "zigzag", c > 1 ? base * 0.8 : base));
    }
  return runs;
}

TEST(ReportGlance, SummaryPinsTheConfigurationAndMovesSharedColumnsToOneLine) {
  const std::string html = render(two_splits({1024, 2048}, {1, 2, 4}));
  const std::string summary = section(html, "summary");
  EXPECT_NE(summary.find("all rows: ring, H=8/2, D=64, causal, float32, cpu, local"), std::string::npos);
  for (const char* gone : {"<th>H</th>", "<th>D</th>", "<th>dtype</th>", "<th>backend</th>", "<th>transport</th>",
                           "<th>mask</th>", "<th>variant</th>", "<th>shape</th>"})
    EXPECT_EQ(summary.find(gone), std::string::npos) << gone;
  for (const char* kept : {"<th>S</th>", "<th>c</th>", "<th>split</th>"})
    EXPECT_NE(summary.find(kept), std::string::npos) << kept;  // they vary
  EXPECT_NE(summary.find("<th class=\"pin\">configuration</th>"), std::string::npos);
  std::size_t pinned = 0;
  for (auto p = summary.find("<td class=\"id pin\" title=\""); p != std::string::npos;
       p = summary.find("<td class=\"id pin\" title=\"", p + 1))
    ++pinned;
  EXPECT_EQ(pinned, 12u);  // every row's configuration cell
  // The cell shows what tells the rows apart (here every id ends in "-ring"); the whole id is its tooltip.
  EXPECT_NE(summary.find("<td class=\"id pin\" title=\"s2048-c4-zigzag-ring"), std::string::npos);
  EXPECT_NE(summary.find(">s2048-c4-zigzag</a></td>"), std::string::npos) << summary;
  EXPECT_EQ(summary.find(">s2048-c4-zigzag-ring</a>"), std::string::npos);
  // The key columns come first, in this order, before anything that describes the configuration.
  std::size_t at = summary.find("<thead>");
  for (const char* h : {"configuration", "status", "error", "median ms", "GFLOP/s per GPU", "exposed comm ms",
                        "exposed % of pass", "overlap", "imbalance", "<th>S</th>"}) {
    const auto next = summary.find(h, at);
    ASSERT_NE(next, std::string::npos) << h;
    at = next;
  }
  // A column that varies in one row only is not dropped.
  json runs = two_splits({1024}, {2});
  runs[1]["config"]["dtype"] = "float64";
  const std::string mixed = section(render(runs), "summary");
  EXPECT_NE(mixed.find("<th>dtype</th>"), std::string::npos);
  EXPECT_NE(mixed.find("all rows: S=1k, c=2, ring, H=8/2"), std::string::npos);
  // One row: nothing to tell apart, the id is shown whole.
  EXPECT_NE(section(render(json::array({run(512, 2, "zigzag", 1.0)})), "summary").find(">s512-c2-zigzag-ring</a>"),
            std::string::npos);
}

TEST(ReportGlance, ExposedCommIsAlsoAShareOfThePass) {
  json runs = json::array({run(4096, 4, "zigzag", 4.0)});
  runs[0]["metrics"]["exposed_comm_ms"] = 0.5;
  const std::string summary = section(render(runs), "summary");
  // 0.5 ms of a 4 ms median pass, sorted by the exact fraction.
  EXPECT_NE(summary.find("<td class=\"n\" data-v=\"0.125\">12.5%</td>"), std::string::npos) << summary;
  EXPECT_NE(summary.find("<td class=\"n\" data-v=\"0.5\">0.5</td>"), std::string::npos);  // the ms beside it
  runs[0]["metrics"].erase("exposed_comm_ms");
  EXPECT_EQ(section(render(runs), "summary").find("12.5%"), std::string::npos);
}

TEST(ReportGlance, BestAtEachCNamesTheFastestSplitAndItsMargins) {
  json runs = json::array();
  runs.push_back(run(4096, 4, "contiguous", 10.0));
  runs.push_back(run(4096, 4, "zigzag", 8.0));
  runs.push_back(run(4096, 4, "striped", 9.0));
  runs.push_back(run(4096, 4, "zigzag", 8.6, "allgather"));
  runs.push_back(run(4096, 2, "contiguous", 12.0));
  runs.push_back(run(4096, 2, "zigzag", 14.0));
  runs.push_back(run(4096, 1, "contiguous", 20.0));
  runs.push_back(run(4096, 1, "zigzag", 20.0));
  runs.back()["alias_of"] = "s4096-c1-contiguous-ring";  // c = 1 runs once (results 2.6.0)
  runs.push_back(run(2048, 4, "contiguous", 3.0));
  runs.push_back(run(2048, 4, "zigzag", 4.0));
  runs.back()["timing"]["noise_pct"] = 40.0;  // a 33% gap is inside its noise
  const std::string best = section(render(runs), "best");
  ASSERT_FALSE(best.empty());
  // One table per S (the variant is compared, not a table of its own).
  EXPECT_NE(best.find("<caption>S=4k \u00b7 Hq=8 Hkv=2 D=64 causal float32 cpu/local</caption>"), std::string::npos)
      << best;
  EXPECT_NE(best.find("<caption>S=2k \u00b7"), std::string::npos);
  const std::string t4k = part(best, "S=4k", "</table>");
  const std::string c4 = part(t4k, "<tr data-c=\"4\"", "</tr>");
  EXPECT_NE(c4.find("<td class=\"best\">zigzag ring</td><td class=\"n\">8</td>"), std::string::npos) << c4;
  EXPECT_NE(c4.find("<td>zigzag allgather</td><td class=\"n\">+0.6 ms (+7.5%)</td>"), std::string::npos) << c4;
  EXPECT_NE(c4.find("<td>contiguous ring</td><td class=\"n\">+2 ms (+25.0%)</td>"), std::string::npos) << c4;
  EXPECT_NE(c4.find("<td class=\"n\">4</td></tr>"), std::string::npos);  // four compared
  const std::string c2 = part(t4k, "<tr data-c=\"2\"", "</tr>");
  EXPECT_NE(c2.find("<td class=\"best\">contiguous ring</td>"), std::string::npos) << c2;
  EXPECT_NE(c2.find("+2 ms (+16.7%)"), std::string::npos) << c2;
  // The summary marks the alias's row: its figures are the measured one's.
  EXPECT_NE(render(runs).find("<td class=\"st alias\" title=\"c = 1: the same computation as "
                              "s4096-c1-contiguous-ring, measured once\">ok =</td>"),
            std::string::npos);
  const std::string c1 = part(t4k, "<tr data-c=\"1\"", "</tr>");
  EXPECT_NE(c1.find("the other 1 are the same computation at c = 1"), std::string::npos) << c1;
  const std::string t2k = part(best, "S=2k", "</table>");
  EXPECT_NE(part(t2k, "<tr data-c=\"4\"", "</tr>").find("<td class=\"best\">contiguous ring</td>"), std::string::npos);
  EXPECT_NE(part(t2k, "<tr data-c=\"4\"", "</tr>").find("+1 ms (+33.3%) <span class=\"within\""), std::string::npos);
  EXPECT_EQ(t4k.find("within noise"), std::string::npos);
  // Rows come in c order.
  EXPECT_LT(t4k.find("data-c=\"1\""), t4k.find("data-c=\"2\""));
  EXPECT_LT(t4k.find("data-c=\"2\""), t4k.find("data-c=\"4\""));
}

// The strategies side by side (issue 44): "fastest at each c" ranks the ring, Ulysses and the hybrid
// with its group, and a chart draws each strategy's pass time against c.
TEST(ReportGlance, BestAtEachCRanksTheStrategiesAndChartsThemAgainstC) {
  json runs = json::array();
  for (const int c : {2, 4, 8}) {
    runs.push_back(run(1024, c, "zigzag", 10.0 / c));
    runs.push_back(run(1024, c, "zigzag", c > 5 ? 0.5 * 10.0 / c : 2 * 10.0 / c, "ulysses"));
    json hybrid = run(1024, c, "zigzag", 1.5 * 10.0 / c, "hybrid");
    hybrid["config"]["ulysses_degree"] = 2;
    hybrid["config"]["id"] = hybrid["config"]["id"].get<std::string>() + "-u2";
    runs.push_back(hybrid);
  }
  for (auto& r : runs)
    if (r["config"]["variant"] == "ulysses") r["config"]["ulysses_degree"] = r["config"]["cp"];
  const std::string html = render(runs);
  const std::string best = section(html, "best");
  // One table: the strategies share the shape; Ulysses wins beyond c = 5, the ring below.
  EXPECT_EQ(best.find("best-table-1"), std::string::npos) << best;
  EXPECT_NE(best.find("<tr data-c=\"4\"><td class=\"n\">4</td><td class=\"best\">zigzag ring</td>"), std::string::npos)
      << best;
  EXPECT_NE(best.find("<tr data-c=\"8\"><td class=\"n\">8</td><td class=\"best\">zigzag ulysses</td>"),
            std::string::npos)
      << best;
  EXPECT_NE(best.find("zigzag hybrid U=2"), std::string::npos);
  const std::string chart = figure(best, "best-chart-0");
  ASSERT_FALSE(chart.empty()) << best;
  for (const char* name : {"ring", "ulysses", "hybrid U=2"})
    EXPECT_NE(chart.find(fmt::format("</span>{}</li>", name)), std::string::npos) << name;
  EXPECT_NE(chart.find("ulysses c=8 zigzag: 0.625 ms"), std::string::npos) << chart;
  EXPECT_NE(chart.find("hybrid U=2 c=2 zigzag: 7.5 ms"), std::string::npos) << chart;
  // One strategy alone draws no such chart.
  EXPECT_EQ(section(render(two_splits({1024}, {2, 4})), "best").find("best-chart-"), std::string::npos);
}

TEST(ReportGlance, TimelineBarsAreAtLeastTwoPixelsWideWithExactHoverText) {
  json runs = json::array({run(4096, 2, "zigzag", 100.0)});
  json& ivs = runs[0]["timeline"]["intervals"];
  ivs.push_back({{"rank", 1},
                 {"kind", "comm"},
                 {"lane", "comm"},
                 {"name", "kv_recv"},
                 {"step", 1},
                 {"bytes", 65536},
                 {"begin_ms", 50.0},
                 {"end_ms", 50.0012}});
  ivs.push_back({{"rank", 0},
                 {"kind", "comm"},
                 {"lane", "comm"},
                 {"name", "kv_recv"},
                 {"step", 1},
                 {"bytes", 65536},
                 {"begin_ms", 99.999},
                 {"end_ms", 100.0}});  // at the window's very end
  const std::string tl = section(render(runs), "timelines");
  const std::regex rect(R"re(<rect class="bar" x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)")re");
  std::size_t bars = 0;
  double min_w = 1e9, max_right = 0;
  for (auto it = std::sregex_iterator(tl.begin(), tl.end(), rect); it != std::sregex_iterator(); ++it, ++bars) {
    const double x = std::stod((*it)[1]), w = std::stod((*it)[2]);
    min_w = std::min(min_w, w);
    max_right = std::max(max_right, x + w);
  }
  EXPECT_EQ(bars, ivs.size());
  EXPECT_GE(min_w, kMinTimelineBarPx);
  EXPECT_LE(max_right, 900 - 14 + 0.05);  // a widened bar stays inside the plot
  EXPECT_NE(tl.find("<title>r1 kv_recv (comm), step 1\nbegin 50 ms, end 50.0012 ms, duration 0.0012 ms\n65536 "
                    "bytes</title>"),
            std::string::npos)
      << tl.substr(0, 4000);
  EXPECT_NE(tl.find("<title>r0 attention (compute), step 0\nbegin 0 ms, end 90 ms, duration 90 ms</title>"),
            std::string::npos);
}

TEST(ReportGlance, OneSOrOneCDrawsBarsInsteadOfALonelyPoint) {
  const std::string many = render(two_splits({1024, 2048}, {1, 2, 4}));
  EXPECT_NE(figure(many, "time-chart-0").find("<path class=\"ln"), std::string::npos);
  EXPECT_EQ(figure(many, "time-chart-0").find("<rect class=\"bar\""), std::string::npos);
  EXPECT_NE(figure(many, "imbalance-chart-0").find("<path class=\"ln"), std::string::npos);  // unchanged

  const std::string one_s = render(two_splits({2048}, {1, 2, 4}));
  const std::string time = figure(one_s, "time-chart-0");
  ASSERT_FALSE(time.empty());
  EXPECT_EQ(time.find("<path class=\"ln"), std::string::npos);
  std::size_t bars = 0;
  for (auto p = time.find("<rect class=\"bar\""); p != std::string::npos; p = time.find("<rect class=\"bar\"", p + 1))
    ++bars;
  EXPECT_EQ(bars, 6u);  // 3 c × 2 splits
  EXPECT_NE(time.find("S=2k"), std::string::npos);
  EXPECT_NE(time.find("zigzag c=4: "), std::string::npos);

  const std::string one_c = render(two_splits({1024, 2048}, {4}));
  EXPECT_NE(figure(one_c, "time-chart-0").find("<path class=\"ln"), std::string::npos);  // two S: a line
  for (const char* id : {"overlap-chart-0", "exposed-chart-0", "imbalance-chart-0"}) {
    const std::string f = figure(one_c, id);
    ASSERT_FALSE(f.empty()) << id;
    EXPECT_NE(f.find("<rect class=\"bar\""), std::string::npos) << id;
    EXPECT_EQ(f.find("<path class=\"ln"), std::string::npos) << id;
  }
  const std::string imb = figure(one_c, "imbalance-chart-0");
  EXPECT_NE(imb.find("measured contiguous: 1.6"), std::string::npos) << imb;  // 2c/(c+1) at c = 4
  EXPECT_NE(imb.find("planned zigzag: 1"), std::string::npos);
}

// Placement of each rank on the cpu backend (results 2.5.0): "cpu N" bound, "cpu" left to the OS.
json placed(json r, const std::vector<std::string>& devices) {
  r["placement"] = json::array();
  for (std::size_t i = 0; i < devices.size(); ++i)
    r["placement"].push_back({{"rank", i}, {"host", "node7"}, {"device", devices[i]}});
  return r;
}

TEST(ReportGlance, WarnsBesideMisleadingFiguresOnlyWhenRanksOutnumberCpus) {
  auto runs_on = [](const std::vector<std::string>& c4_devices) {
    json runs = json::array();
    for (const char* split : {"contiguous", "zigzag"}) {
      runs.push_back(placed(run(4096, 2, split, 10.0), {"cpu 0", "cpu 1"}));
      runs.push_back(placed(run(4096, 4, split, split[0] == 'z' ? 12.0 : 9.0), c4_devices));
    }
    return runs;
  };
  // c = 4 bound round-robin to 2 CPUs: ranks 0 and 2 shared one.
  const std::string shared = render(runs_on({"cpu 0", "cpu 1", "cpu 0", "cpu 1"}), 16);
  for (const char* id : {"summary", "best", "rank-bars", "overlap", "timelines"})
    EXPECT_NE(section(shared, id).find(kWarning), std::string::npos) << id;
  EXPECT_NE(part(section(shared, "best"), "<tr data-c=\"4\"", "</tr>").find("4 ranks on 2 CPUs"), std::string::npos);
  EXPECT_EQ(part(section(shared, "best"), "<tr data-c=\"2\"", "</tr>").find("\u26a0"), std::string::npos);
  EXPECT_EQ(section(shared, "time-vs-seq").find(kWarning), std::string::npos);  // whole-pass times: not per rank

  // Four distinct CPUs: no sharing, whatever the host has.
  EXPECT_EQ(render(runs_on({"cpu 0", "cpu 1", "cpu 2", "cpu 3"}), 2).find("ranks shared CPUs"), std::string::npos);
  // Threads the OS placed: the host's CPU count decides.
  EXPECT_NE(render(runs_on({"cpu", "cpu", "cpu", "cpu"}), 2).find(kWarning), std::string::npos);
  EXPECT_EQ(render(runs_on({"cpu", "cpu", "cpu", "cpu"}), 4).find("ranks shared CPUs"), std::string::npos);
  // A file before 2.5.0 (no placement) on a 2-CPU host; none at all without host.cpu_threads.
  json bare = two_splits({4096}, {2, 4});
  EXPECT_NE(render(bare, 2).find(kWarning), std::string::npos);
  EXPECT_EQ(render(bare, 4).find("ranks shared CPUs"), std::string::npos);
  EXPECT_EQ(render(bare).find("ranks shared CPUs"), std::string::npos);
  // GPU ranks are not CPU threads.
  for (auto& r : bare) r["config"]["backend"] = "cuda";
  EXPECT_EQ(render(bare, 2).find("ranks shared CPUs"), std::string::npos);
}

}  // namespace
}  // namespace rb::reports
