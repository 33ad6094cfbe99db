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

// Six nights beside a compile (median ms of the planted configuration, scripts/ab-trials-like A/B
// nights; 4x planted from night 4): the load's noise grew with the level, and on the raw values the
// upper level's noise hid the step. In logs the noise is one size, and the step is where it was.
TEST(StepDetect, RelativeStepsFindALevelWhoseNoiseGrewWithIt) {
  const std::vector<double> nights{12.92, 14.84, 18.38, 57.74, 78.89, 52.12};
  EXPECT_TRUE(detect_steps(nights).steps.empty());
  const StepFit fit = detect_relative_steps(nights);
  ASSERT_EQ(fit.steps.size(), 1u);
  EXPECT_EQ(fit.steps[0].at, 3u);
  EXPECT_DOUBLE_EQ(fit.steps[0].before, 14.84);  // the raw values' medians
  EXPECT_DOUBLE_EQ(fit.steps[0].after, 57.74);
  // The same series ten times smaller or larger: the same pieces.
  for (const double scale : {0.1, 10.0}) {
    std::vector<double> s = nights;
    for (auto& x : s) x *= scale;
    ASSERT_EQ(detect_relative_steps(s).steps.size(), 1u) << scale;
    EXPECT_EQ(detect_relative_steps(s).steps[0].at, 3u);
  }
  // A flat series stays one piece; a value that is not positive leaves the raw fit in charge.
  EXPECT_TRUE(detect_relative_steps(std::vector<double>(8, 3.0)).steps.empty());
  const std::vector<double> with_zero{0.0, 0.0, 0.0, 5.0, 5.0, 5.0};
  EXPECT_EQ(detect_relative_steps(with_zero).steps.size(), detect_steps(with_zero).steps.size());
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

// A sweep's nights: levels[c][n] is configuration c's time on night n (0: it failed that night),
// sampled with `noise` relative spread; night n is 2026-11-(25+n), built by commit "nnnnnnn0c0ffee"
// (n = 1..6), so the history's commits differ in their first character.
std::vector<DatedResults> sweep_nights(const std::vector<std::vector<double>>& levels, double noise = 0.02) {
  std::vector<json> configs;
  for (int seq : {256, 512, 768, 1024, 1536, 2048})
    for (int cp : {1, 2, 4})
      for (const char* split : {"zigzag", "contiguous"}) configs.push_back(config(seq, cp, split));
  std::vector<DatedResults> files;
  for (std::size_t n = 0; n < levels.at(0).size(); ++n) {
    json runs = json::array();
    for (std::size_t c = 0; c < levels.size(); ++c) {
      const double level = levels[c][n];
      const auto seed = static_cast<unsigned>(1000 * c + n);
      runs.push_back(level > 0 ? ok_run(configs.at(c), samples(level, noise, 8, seed)) : failed_run(configs[c], "x"));
    }
    auto r = results(fmt::format("{}.json", n + 1), runs);
    r.doc["tool"] = {{"git_sha", std::string(7, static_cast<char>('1' + n)) + "0c0ffee"}};
    files.push_back({fmt::format("2026-11-{}", 25 + n), r});
  }
  return files;
}

// Every run of night n gets the machine probe `ms[n]` (version `version[n]`, 2 when not given).
void plant_probe(std::vector<DatedResults>& files, const std::vector<double>& ms,
                 const std::vector<int>& version = {}) {
  for (std::size_t n = 0; n < files.size(); ++n)
    for (auto& run : files[n].results.doc["runs"])
      if (run["status"] == "ok") {
        run["timing"]["machine_probe_ms"] = {ms.at(n) * 0.99, ms[n] * 1.01};
        run["timing"]["machine_probe_version"] = version.empty() ? 2 : version.at(n);
      }
}

// 36 configurations, a third of them 15% slower from night 4: the must-show's six nights.
std::vector<std::vector<double>> planted_third() {
  std::vector<std::vector<double>> levels;
  for (std::size_t c = 0; c < 36; ++c) {
    const double base = 1.0 + 0.1 * static_cast<double>(c);
    std::vector<double> nights(6, base);
    if (c % 3 == 0)
      for (std::size_t n = 3; n < 6; ++n) nights[n] = 1.15 * base;
    levels.push_back(nights);
  }
  return levels;
}

TEST(TrendChanges, TheFirstSentenceNamesTheNightAndCommitRangeOfASlowdown) {
  const History h = build_history(sweep_nights(planted_third()));
  EXPECT_FALSE(h.probe);  // no run carries a probe: no series, no note
  const auto changes = trend_changes(h);
  ASSERT_FALSE(changes.empty());
  const TrendChange& first = changes[0];
  EXPECT_EQ(first.date, "2026-11-28");
  EXPECT_EQ(first.previous_date, "2026-11-27");
  EXPECT_EQ(first.previous_commit, "33333330c0ffee");
  EXPECT_EQ(first.commit, "44444440c0ffee");
  EXPECT_TRUE(first.regression);
  EXPECT_EQ(first.stepped, 12u);
  EXPECT_EQ(first.of, 36u);
  EXPECT_NEAR(first.change, 0.15, 0.01);
  EXPECT_FALSE(first.probe_change);
  for (std::size_t c = 0; c < first.ids.size(); ++c) EXPECT_EQ(first.ids[c], h.configs.at(3 * c).id);
  for (std::size_t i = 1; i < changes.size(); ++i) EXPECT_LE(changes[i].size(), first.size());

  const auto lead = lead_sentences(h);
  ASSERT_GE(lead.size(), 2u);
  EXPECT_EQ(lead[0],
            "Tonight's commit 6666666 (night 2026-11-30); no baseline given: the history starts at 1111111 "
            "(night 2026-11-25).");
  EXPECT_EQ(lead[1], "12 of 36 configurations became +15% slower between 3333333 and 4444444 (night 2026-11-28).");

  // The page leads with the same: the commits, then the sentence, before any table or chart.
  const std::string page = trend_page(h, "t");
  const auto commits = page.find("<p class=\"rbt-commits\">Tonight&#39;s commit 6666666");
  const auto sentence = page.find("<ol class=\"rbt-changes\"><li class=\"rbt-regression\">12 of 36 configurations");
  ASSERT_NE(commits, std::string::npos);
  ASSERT_NE(sentence, std::string::npos);
  EXPECT_LT(commits, sentence);
  EXPECT_LT(sentence, page.find("<table"));
  EXPECT_LT(sentence, page.find("<svg"));
  EXPECT_EQ(page.find("machine-probe"), std::string::npos);
  EXPECT_NE(page.find("<code>3333333..4444444</code>"), std::string::npos);  // the steps table, short too

  const json j = to_json(h);
  EXPECT_EQ(j["lead"], json(lead));
  EXPECT_EQ(j["changes"][0]["stepped"], 12);
  EXPECT_EQ(j["changes"][0]["of"], 36);
  EXPECT_EQ(j["changes"][0]["commits"], "33333330c0ffee..44444440c0ffee");
  EXPECT_EQ(j["tonight_commit"], "66666660c0ffee");
  EXPECT_TRUE(j["baseline_commit"].is_null());
  EXPECT_TRUE(j["machine_probe"].is_null());
}

TEST(TrendChanges, TheBaselinesCommitStandsAtTheTop) {
  History h = build_history(sweep_nights(planted_third()));
  auto base = results("base.json", {ok_run(config(256, 1, "zigzag"), {1.0, 1.0, 1.0})});
  base.doc["tool"] = {{"git_sha", "abcdef0123"}};
  set_baseline(h, base);
  EXPECT_EQ(commits_sentence(h), "Tonight's commit 6666666 (night 2026-11-30); the baseline's abcdef0.");
  // A commit that shares its first 7 characters with another is printed long enough to tell them apart.
  base.doc["tool"]["git_sha"] = "66666660c0ffef";
  set_baseline(h, base);
  EXPECT_EQ(commits_sentence(h), "Tonight's commit 66666660c0ffee (night 2026-11-30); the baseline's 66666660c0ffef.");
}

TEST(TrendChanges, AProbeStepTheSameNightIsNoted) {
  struct Case {
    std::vector<double> probe;
    std::vector<int> version;
    std::string ending;        // of the first sentence
    std::size_t probe_points;  // in the probe's series
    std::size_t probe_steps;   // beyond the threshold
  };
  const std::vector<Case> cases{
      {{5, 5, 5, 6, 6, 6}, {}, "(night 2026-11-28; the machine probe stepped +20% the same night).", 6, 1},
      {{5, 5, 5, 5, 5, 5}, {}, "(night 2026-11-28).", 6, 0},
      // Version 1 timed other work: the series keeps the last probed night's version only.
      {{2, 2, 2, 5, 5, 5}, {1, 1, 1, 2, 2, 2}, "(night 2026-11-28).", 3, 0},
  };
  for (const auto& c : cases) {
    auto files = sweep_nights(planted_third());
    plant_probe(files, c.probe, c.version);
    const History h = build_history(files);
    ASSERT_TRUE(h.probe);
    EXPECT_EQ(h.probe_version, 2);
    EXPECT_EQ(h.probe->points.size(), c.probe_points);
    EXPECT_DOUBLE_EQ(h.probe->points.back().value, c.probe.back());  // the median of the runs' means
    std::size_t steps = 0;
    for (const auto& t : h.probe->steps) steps += t.beyond_threshold;
    EXPECT_EQ(steps, c.probe_steps);
    const auto lead = lead_sentences(h);
    ASSERT_GE(lead.size(), 2u);
    EXPECT_TRUE(lead[1].starts_with("12 of 36 configurations became +15% slower between 3333333 and 4444444 "))
        << lead[1];
    EXPECT_TRUE(lead[1].ends_with(c.ending)) << lead[1];
    // The probe's own chart leads, above the configurations' charts.
    const std::string page = trend_page(h, "t");
    const auto probe = page.find("<div id=\"machine-probe\">");
    ASSERT_NE(probe, std::string::npos);
    EXPECT_LT(page.find("<ol class=\"rbt-changes\">"), probe);
    EXPECT_EQ(page.find("<svg"), page.find("<svg", probe));
    EXPECT_LT(page.find("<svg", probe), page.find("<div class=\"rbt-cfg\""));
    EXPECT_EQ(page.find("The machine probe stepped") != std::string::npos, c.probe_steps > 0);
    EXPECT_EQ(to_json(h)["machine_probe"]["points"].size(), c.probe_points);
  }
}

// Steps group by night and commit range, split by direction, and rank by stepped × |median change|;
// "of" counts the configurations with a point on both nights.
TEST(TrendChanges, GroupedByNightAndDirectionRankedBySize) {
  std::vector<std::vector<double>> levels(6, std::vector<double>(6, 1.0));
  for (std::size_t n = 3; n < 6; ++n) {
    levels[0][n] = levels[1][n] = 1.3;                  // night 4: two 30% slower (size 0.6)
    levels[2][n] = levels[3][n] = levels[4][n] = 0.88;  // and three 12% faster (0.36)
  }
  levels[5] = {2.0, 2.0, 2.0, 0.0, 3.0, 3.0};  // failed night 4, 50% slower from night 5 (0.5)
  History h = build_history(sweep_nights(levels, 0.002));
  const auto changes = trend_changes(h);
  ASSERT_EQ(changes.size(), 3u);
  const auto lead = lead_sentences(h);
  ASSERT_EQ(lead.size(), 4u);
  EXPECT_EQ(lead[1], "2 of 5 configurations became +30% slower between 3333333 and 4444444 (night 2026-11-28).");
  EXPECT_EQ(lead[2], "1 of 6 configurations became +50% slower between 3333333 and 5555555 (night 2026-11-29).");
  EXPECT_EQ(lead[3], "3 of 5 configurations became -12% faster between 3333333 and 4444444 (night 2026-11-28).");
  EXPECT_FALSE(changes[2].regression);
  EXPECT_EQ(changes[2].ids, (std::vector<std::string>{h.configs[2].id, h.configs[3].id, h.configs[4].id}));
  // Another metric names itself and reads worse/better in its own sense (TFLOP/s falls when time rises).
  h.metric = "attention_tflops";
  EXPECT_EQ(lead_sentences(h).at(1),
            "2 of 5 configurations became worse, attention_tflops -23%, between 3333333 and 4444444 (night "
            "2026-11-28).");
}

TEST(TrendChanges, AHistoryWithoutStepsSaysSoInOneSentence) {
  const History h = build_history(sweep_nights(std::vector<std::vector<double>>(4, std::vector<double>(6, 1.0))));
  EXPECT_TRUE(trend_changes(h).empty());
  const auto lead = lead_sentences(h);
  ASSERT_EQ(lead.size(), 2u);
  EXPECT_EQ(lead[1], "None of 4 configurations became slower or faster by more than ±5% over 6 nights.");
  EXPECT_NE(trend_page(h, "t").find("<p class=\"rbt-changes\">None of 4 configurations"), std::string::npos);
  EXPECT_TRUE(to_json(h)["changes"].empty());
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

std::size_t occurrences(const std::string& hay, const std::string& needle) {
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
  EXPECT_EQ(occurrences(chart, "class=\"mk\""), time.points.size());
  EXPECT_EQ(occurrences(chart, "<line class=\"whisker\""), spreads);
  for (const auto& p : time.points) EXPECT_NE(chart.find("<title>" + p.date + ": "), std::string::npos) << p.date;
  EXPECT_EQ(occurrences(chart, "<line class=\"rbt-step rbt-reg\""), 1u);
  EXPECT_NE(chart.find(" on 2024-05-06 (c05..c06)</title>"), std::string::npos) << chart;
  EXPECT_EQ(occurrences(chart, "<rect class=\"rbt-band\""), 1u);
  EXPECT_NE(chart.find("<title>baseline: 9.5</title>"), std::string::npos) << chart;
  EXPECT_NE(chart.find(">2024-05-01</text>"), std::string::npos);
  EXPECT_NE(chart.find(">2024-05-12</text>"), std::string::npos);
  EXPECT_NE(frag.find("<div class=\"rbt-cfg\" id=\"trend-" + h.configs[0].id + "\">"), std::string::npos);
  EXPECT_EQ(occurrences(frag, "<svg"), occurrences(frag, "<figure class=\"chart\""));
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
