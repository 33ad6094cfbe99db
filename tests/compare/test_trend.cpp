// The trend view: a history of dated results becomes one series per configuration and metric, in
// date order, with failed nights left out; the fragment is self-contained SVG.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "reports/trend.hpp"
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
  EXPECT_NE(frag.find("2024-05-02: 2"), std::string::npos);  // the point's tooltip
  EXPECT_EQ(frag.find("<script"), std::string::npos);
  EXPECT_EQ(frag.find("http"), std::string::npos);
}

TEST(Trend, LoadHistoryRejectsBadDirectories) {
  const auto dir = std::filesystem::temp_directory_path() / ("rb-trend-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  EXPECT_THROW(load_history(dir), InputError);  // missing
  std::filesystem::create_directories(dir);
  EXPECT_THROW(load_history(dir), InputError);  // empty
  const json doc{{"schema", kResultsSchema}, {"schema_version", kResultsSchemaVersion},
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
