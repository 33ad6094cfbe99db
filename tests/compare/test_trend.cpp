// The trend view: a history of dated results becomes one series per configuration and metric, in
// date order, with failed nights left out; step detection names the night a level changed; the
// page leads with what changed and its fragment is self-contained SVG.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reports/compare/step_detect.hpp"
#include "reports/compare/trend.hpp"
#include "synthetic_results.hpp"

namespace rb::reports {
namespace {

using namespace rb::reports::testing;

TEST(Trend, ParseDate) {
  EXPECT_EQ(parse_date("1970-01-01"), 0);
  EXPECT_EQ(parse_date("1970-01-02"), 1);
  EXPECT_EQ(parse_date("2024-03-01").value() - parse_date("2024-02-28").value(), 2);  // leap year
  EXPECT_FALSE(parse_date("2023-02-29"));
  EXPECT_FALSE(parse_date("2024-13-01"));
  EXPECT_FALSE(parse_date("20240101"));
  EXPECT_FALSE(parse_date("results"));
  EXPECT_EQ(parse_date("2024-05-01-h100"), parse_date("2024-05-01"));
}

TEST(Trend, SeriesPerConfigurationInDateOrder) {
  const auto a = config(1024, 2, "zigzag"), b = config(1024, 4, "contiguous");
  std::vector<DatedResults> files;
  // Given out of order; the 2nd night failed for b.
  files.push_back({"2024-05-03", results("3.json", {ok_run(a, {3.0, 3.1, 2.9}), ok_run(b, {5.0, 5.0, 5.0})})});
  files.push_back({"2024-05-01", results("1.json", {ok_run(a, {1.0, 1.1, 0.9}), ok_run(b, {4.0, 4.0, 4.0})})});
  files.push_back({"2024-05-02", results("2.json", {ok_run(a, {2.0, 2.1, 1.9}), failed_run(b, "boom")})});
  const auto h = build_history(files);
  EXPECT_EQ(h.dates, (std::vector<std::string>{"2024-05-01", "2024-05-02", "2024-05-03"}));
  ASSERT_EQ(h.configs.size(), 2u);
  const auto& time_a = h.configs[0].series.at(0);
  EXPECT_EQ(time_a.metric, "median_ms");
  ASSERT_EQ(time_a.points.size(), 3u);
  EXPECT_DOUBLE_EQ(time_a.points[0].value, 1.0);
  EXPECT_DOUBLE_EQ(time_a.points[2].value, 3.0);
  EXPECT_DOUBLE_EQ(*time_a.points[0].lo, 0.9);
  const auto& time_b = h.configs[1].series.at(0);
  ASSERT_EQ(time_b.points.size(), 2u);
  EXPECT_EQ(time_b.points[1].date, "2024-05-03");
  // Metrics absent from every night (overlap in these files) get no chart.
  for (const auto& s : h.configs[0].series) EXPECT_NE(s.metric, "overlap_fraction");

  const auto frag = trend_fragment(h);
  EXPECT_EQ(frag.rfind("<section class=\"rb-trend\">", 0), 0u);
  std::size_t charts = 0;
  for (auto p = frag.find("<svg"); p != std::string::npos; p = frag.find("<svg", p + 1)) ++charts;
  std::size_t series = 0;
  for (const auto& c : h.configs) series += c.series.size();
  EXPECT_EQ(charts, series);
  // Both configurations have one shape (S, heads, D, dtype): one heading over both.
  EXPECT_NE(frag.find("<h3 class=\"rbt-shape\">S=1024 Hq=8 Hkv=2 D=64 float32 causal cpu</h3>"), std::string::npos);
  EXPECT_NE(frag.find("2024-05-02: 2"), std::string::npos);  // the point's tooltip
  EXPECT_EQ(frag.find("<script"), std::string::npos);
  EXPECT_EQ(frag.find("http"), std::string::npos);
}

// Nights of one configuration whose samples are drawn around `center[i]` with 2% noise.
std::vector<DatedResults> nights(const std::vector<double>& center, unsigned seed) {
  std::vector<DatedResults> files;
  for (std::size_t i = 0; i < center.size(); ++i) {
    auto r = results(fmt::format("{}.json", i),
                     {ok_run(config(1024, 2, "zigzag"), samples(center[i], 0.02, 8, seed + static_cast<unsigned>(i)))});
    r.doc["tool"] = {{"git_sha", fmt::format("c{:02}", i + 1)}};
    files.push_back({fmt::format("2024-05-{:02}", i + 1), r});
  }
  return files;
}

// The must-show case: 12 nights, each the median of 8 samples drawn with 2% noise, 10% slower
// from night 6 on. Over 50 seeded histories the step is named at night 6 in at least 48, and the
// same noise without the step shows a step in at most one (simulated: 99.7% and 1.1%).
TEST(StepDetect, FindsAPlantedStepAndNothingInNoise) {
  int exact = 0, false_steps = 0;
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0.0, 0.02);
    std::vector<double> flat;
    for (int i = 0; i < 12; ++i) {
      std::vector<double> s(8);
      for (auto& x : s) x = 10.0 * (1 + noise(rng));
      std::sort(s.begin(), s.end());
      flat.push_back(0.5 * (s[3] + s[4]));
    }
    std::vector<double> stepped = flat;
    for (std::size_t i = 5; i < 12; ++i) stepped[i] *= 1.10;
    const StepFit fit = detect_steps(stepped);
    if (fit.steps.size() == 1 && fit.steps[0].at == 5) {
      ++exact;
      EXPECT_NEAR(fit.steps[0].change(), 0.10, 0.03) << "seed " << seed;
    }
    if (!detect_steps(flat).steps.empty()) ++false_steps;
  }
  EXPECT_GE(exact, 48);
  EXPECT_LE(false_steps, 1);
  // One wild night is a blip (two steps), not a change of level that stays.
  std::vector<double> blip(12, 10.0);
  blip[7] = 20.0;
  const StepFit fit = detect_steps(blip);
  ASSERT_EQ(fit.steps.size(), 2u);
  EXPECT_EQ(fit.steps[0].at, 7u);
  EXPECT_EQ(fit.steps[1].at, 8u);
  EXPECT_TRUE(detect_steps(std::vector<double>{1.0, 2.0}).steps.empty());  // too short to tell
}

TEST(Trend, APlantedStepLeadsThePageWithItsCommitRange) {
  std::vector<double> center(12, 10.0);
  for (std::size_t i = 5; i < 12; ++i) center[i] = 11.0;  // 10% slower from night 6 on
  History h = build_history(nights(center, 100));
  const auto& time = h.configs.at(0).series.at(0);
  ASSERT_EQ(time.metric, "median_ms");
  ASSERT_EQ(time.steps.size(), 1u);
  EXPECT_EQ(time.steps[0].date, "2024-05-06");
  EXPECT_EQ(time.steps[0].previous_date, "2024-05-05");
  EXPECT_EQ(time.steps[0].previous_commit, "c05");
  EXPECT_EQ(time.steps[0].commit, "c06");
  EXPECT_TRUE(time.steps[0].regression);  // a step up in time, though tonight equals last night
  // TFLOP/s stepped down at the same night: a regression too, in its own direction.
  const auto steps = steps_by_severity(h);
  ASSERT_GE(steps.size(), 2u);
  EXPECT_TRUE(steps[0].step->regression);
  EXPECT_EQ(steps[0].step->date, "2024-05-06");

  const json j = to_json(h);
  EXPECT_EQ(j["schema"], "ringbench.trend");
  ASSERT_FALSE(j["steps"].empty());
  EXPECT_EQ(j["steps"][0]["commits"], "c05..c06");
  EXPECT_TRUE(j["steps"][0]["regression"].get<bool>());

  const std::string page = trend_page(h, "t");
  const auto table = page.find("<h3>Steps in the history</h3>");
  const auto first_row = page.find("<tr class=\"rbt-regression\">", table);
  const auto first_chart = page.find("<svg");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(first_row, first_chart);  // what changed comes before any chart
  EXPECT_NE(page.find("2024-05-06", first_row), std::string::npos);
  EXPECT_LT(page.find("c05..c06"), first_chart);
  EXPECT_NE(page.find("class=\"rbt-step rbt-reg\""), std::string::npos);  // marked on the chart
}

TEST(Trend, TonightsVerdictsLeadRegressionsFirst) {
  History h = build_history(nights(std::vector<double>(4, 10.0), 7));
  const std::string id = h.configs.at(0).id;
  const json cmp = {{"schema", "ringbench.compare"},
                    {"runs",
                     {{{"id", "other"}, {"label", "x"}, {"verdict", "FASTER"}, {"regression", false}, {"change", -0.2}},
                      {{"id", id}, {"label", "y"}, {"verdict", "SAME"}, {"regression", false}, {"change", 0.0}},
                      {{"id", id}, {"label", "z"}, {"verdict", "SLOWER"}, {"regression", true}, {"change", 0.3}}}}};
  set_tonight(h, cmp, "c.json");
  const std::string page = trend_page(h, "t");
  const auto slower = page.find("<td>SLOWER</td>"), faster = page.find("<td>FASTER</td>");
  ASSERT_NE(slower, std::string::npos);
  EXPECT_LT(slower, faster);
  EXPECT_EQ(page.find("<td>SAME</td>"), std::string::npos);
  EXPECT_LT(page.find("Tonight against the baseline"), page.find("<svg"));
  EXPECT_NE(page.find("href=\"#trend-" + id + "\""), std::string::npos);
  EXPECT_THROW(set_tonight(h, json{{"schema", "other"}}, "c.json"), InputError);
}

TEST(Trend, ChartsAreRelativeToTheMedianAndZeroMetricsAreText) {
  // A 0.8% wiggle: the axis stays at the ±5% band, it does not zoom into the noise.
  std::vector<double> center{10.0, 10.04, 10.08, 10.0, 10.05};
  History h = build_history(nights(center, 3));
  for (auto& s : h.configs[0].series) s.steps.clear();
  const std::string frag = trend_fragment(h);
  EXPECT_NE(frag.find("+5."), std::string::npos) << "the top tick sits just past +5%";
  EXPECT_EQ(frag.find("+50."), std::string::npos);
  EXPECT_NE(frag.find(" ms"), std::string::npos);  // ticks carry the unit
  // Exposed comm 0 every night: a line of text, not a chart.
  std::vector<DatedResults> zero = nights({1.0, 1.0, 1.0}, 5);
  for (auto& f : zero) f.results.doc["runs"][0]["metrics"]["exposed_comm_ms"] = 0.0;
  const std::string z = trend_fragment(build_history(zero));
  EXPECT_NE(z.find("exposed_comm_ms: 0 on every night"), std::string::npos);
  EXPECT_EQ(z.find("exposed_comm_ms (ms)"), std::string::npos);
  // The baseline is marked.
  History b = build_history(nights({10.0, 10.0, 10.0}, 9));
  set_baseline(b, results("base.json", {ok_run(config(1024, 2, "zigzag"), {9.0, 9.0, 9.0})}));
  EXPECT_DOUBLE_EQ(*b.configs[0].series[0].baseline, 9.0);
  EXPECT_NE(trend_fragment(b).find("<title>baseline: 9</title>"), std::string::npos);
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

// A chart is drawn by the report's SVG stack (reports/html/svg_chart) and keeps what it shows: every
// night's point with its tooltip and spread, the step with its commits, the baseline, the ±threshold
// band and the nights at the ends of the history.
TEST(Trend, ChartsKeepEveryPointStepBaselineAndBand) {
  std::vector<double> center(12, 10.0);
  for (std::size_t i = 5; i < 12; ++i) center[i] = 11.0;
  History h = build_history(nights(center, 100));
  set_baseline(h, results("base.json", {ok_run(config(1024, 2, "zigzag"), {9.0, 9.5, 10.0})}));
  const auto& time = h.configs.at(0).series.at(0);
  ASSERT_EQ(time.metric, "median_ms");
  ASSERT_EQ(time.points.size(), 12u);
  std::size_t spreads = 0;
  for (const auto& p : time.points) spreads += p.lo && p.hi;
  ASSERT_GT(spreads, 0u);
  const std::string frag = trend_fragment(h);
  const auto open = frag.find("<figure class=\"chart\"");
  ASSERT_NE(open, std::string::npos);
  const std::string chart = frag.substr(open, frag.find("</figure>", open) - open);
  EXPECT_NE(chart.find("<svg class=\"rbt-chart\""), std::string::npos);
  EXPECT_NE(chart.find("<figcaption>median_ms (ms) \u2193 better</figcaption>"), std::string::npos) << chart;
  EXPECT_EQ(count(chart, "class=\"mk\""), time.points.size());
  EXPECT_EQ(count(chart, "<line class=\"whisker\""), spreads);
  for (const auto& p : time.points) EXPECT_NE(chart.find("<title>" + p.date + ": "), std::string::npos) << p.date;
  EXPECT_EQ(count(chart, "<line class=\"rbt-step rbt-reg\""), 1u);
  EXPECT_NE(chart.find(" on 2024-05-06 (c05..c06)</title>"), std::string::npos) << chart;
  EXPECT_EQ(count(chart, "<rect class=\"rbt-band\""), 1u);
  EXPECT_NE(chart.find("<title>baseline: 9.5</title>"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">2024-05-01</text>"), std::string::npos);
  EXPECT_NE(chart.find(">2024-05-12</text>"), std::string::npos);
  EXPECT_NE(frag.find("<div class=\"rbt-cfg\" id=\"trend-" + h.configs[0].id + "\">"), std::string::npos);
  EXPECT_EQ(count(frag, "<svg"), count(frag, "<figure class=\"chart\""));
}

// Free text on the page (a title, tonight's labels and notes) passes through the one escaper.
TEST(Trend, PageTextIsEscaped) {
  History h = build_history(nights(std::vector<double>(3, 10.0), 7));
  const json cmp = {{"schema", "ringbench.compare"},
                    {"runs",
                     {{{"id", "x"},
                       {"label", "<b>x</b>"},
                       {"verdict", "SLOWER"},
                       {"regression", true},
                       {"change", 0.3},
                       {"note", "it's & <i>"}}}}};
  set_tonight(h, cmp, "c.json");
  const std::string page = trend_page(h, "nightly 'a' <t>");
  EXPECT_NE(page.find("<title>nightly &#39;a&#39; &lt;t&gt;</title>"), std::string::npos);
  EXPECT_NE(page.find("<td>&lt;b&gt;x&lt;/b&gt;</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>it&#39;s &amp; &lt;i&gt;</td>"), std::string::npos);
  EXPECT_EQ(page.find("<b>x"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
}

TEST(Trend, LoadHistoryRejectsBadDirectories) {
  const auto dir = std::filesystem::temp_directory_path() / ("rb-trend-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  EXPECT_THROW(load_history(dir), InputError);  // missing
  std::filesystem::create_directories(dir);
  EXPECT_THROW(load_history(dir), InputError);  // empty
  const json doc{{"schema", kResultsSchema},
                 {"schema_version", kResultsSchemaVersion},
                 {"runs", {ok_run(config(64, 1, "contiguous"), {1.0, 1.2})}}};
  std::ofstream(dir / "2024-01-01.json") << doc.dump();
  std::ofstream(dir / "notes.txt") << "ignored";
  EXPECT_EQ(load_history(dir).dates.size(), 1u);
  std::ofstream(dir / "latest.json") << doc.dump();
  EXPECT_THROW(load_history(dir), InputError);  // not named by a date
  std::filesystem::remove(dir / "latest.json");
  std::ofstream(dir / "2024-01-01-rerun.json") << doc.dump();
  EXPECT_THROW(load_history(dir), InputError);  // two files of one date
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::reports
