// The SVG charts: nice ticks on linear and log axes, one marker per plottable point, one bar per
// value, and timelines that skip malformed intervals instead of failing the whole report.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/svg_chart.hpp"
#include "reports/html/svg_timeline.hpp"

namespace rb::reports {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + needle.size())) ++n;
  return n;
}

TEST(Ticks, LinearRoundsOutToNiceSteps) {
  const Ticks t = make_ticks(0, 7.3, Scale::linear);
  EXPECT_EQ(t.lo, 0);
  EXPECT_EQ(t.hi, 8);
  EXPECT_EQ(t.at, (std::vector<double>{0, 2, 4, 6, 8}));
  const Ticks u = make_ticks(0.0012, 0.0049, Scale::linear);
  EXPECT_NEAR(u.at.front(), 0.001, 1e-12);
  EXPECT_NEAR(u.at.back(), 0.005, 1e-12);
}

TEST(Ticks, LogAxesUsePowers) {
  EXPECT_EQ(make_ticks(1, 16, Scale::log2).at, (std::vector<double>{1, 2, 4, 8, 16}));
  const Ticks t = make_ticks(3, 12, Scale::log2);
  EXPECT_EQ(t.lo, 2);
  EXPECT_EQ(t.hi, 16);
  const Ticks d = make_ticks(0.07, 72, Scale::log10);
  EXPECT_NEAR(d.lo, 0.01, 1e-15);
  EXPECT_EQ(d.hi, 100);
  EXPECT_EQ(d.at.size(), 5u);                                       // 0.01 … 100, no minor ticks over four decades
  EXPECT_EQ(make_ticks(1024, 1 << 24, Scale::log2).at.size(), 8u);  // thinned to every other power
}

TEST(Ticks, DegenerateRangesStillGiveAnAxis) {
  const Ticks t = make_ticks(5, 5, Scale::linear);
  EXPECT_LT(t.lo, 5);
  EXPECT_GT(t.hi, 5);
  EXPECT_FALSE(make_ticks(4, 4, Scale::log10).at.empty());
  EXPECT_EQ(format_tick(131072, TickFormat::tokens), "128k");
  EXPECT_EQ(format_tick(0.25, TickFormat::percent), "25%");
}

TEST(LineChart, OneMarkerPerPlottablePoint) {
  LineChart c;
  c.id = "t";
  c.title = "t & <u>";
  c.x = Axis("x", Scale::log2);
  c.y = Axis("y", Scale::log10);
  Series a, b;
  a.name = "a";
  a.points = {{1, 1}, {2, 10}, {4, 100}};
  b.name = "b";
  b.points = {{1, 0}, {2, -1}, {4, 5}};  // non-positive values cannot sit on a log axis
  c.series = {a, b};
  const std::string svg = render_line_chart(c);
  EXPECT_EQ(count(svg, "class=\"mk\""), 4u);
  EXPECT_EQ(count(svg, "<path class=\"ln"), 1u);  // b has one point left: no line
  EXPECT_NE(svg.find("t &amp; &lt;u&gt;"), std::string::npos);
  EXPECT_EQ(count(svg, "<li>"), 2u);
}

TEST(BarChart, OneBarPerValue) {
  BarChart c;
  c.categories = {"0", "1", "2"};
  c.series.push_back({"contiguous", {1.0, 2.0, 3.0}, 0});
  c.series.push_back({"zigzag", {2.0, std::nullopt, 2.0}, 1});
  c.reference = 2.0;
  const std::string svg = render_bar_chart(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), 5u);
  EXPECT_EQ(count(svg, "class=\"ref\""), 1u);
}

TEST(ChartCaps, ALineChartThinsEachSeriesAndSaysSo) {
  LineChart c;
  Series a;
  a.name = "samples";
  for (int i = 0; i < 100'000; ++i) a.points.emplace_back(i, i % 17);
  c.series.assign(40, a);
  const std::string svg = render_line_chart(c);
  EXPECT_EQ(count(svg, "class=\"mk\""), kMaxChartPointsPerSeries * kMaxChartSeries);
  EXPECT_NE(svg.find("Drawn: 65536 evenly spaced of 3200000 points"), std::string::npos);
  EXPECT_NE(svg.find("8 more series not drawn"), std::string::npos);
  // The ends of each series survive the thinning, so the axis still spans the data.
  Series b;
  for (int i = 0; i < 5000; ++i) b.points.emplace_back(i, 1, "p" + std::to_string(i));
  c.series = {b};
  const std::string one = render_line_chart(c);
  EXPECT_NE(one.find("<title>p0</title>"), std::string::npos);
  EXPECT_NE(one.find("<title>p4999</title>"), std::string::npos);
  // At the cap nothing is thinned and no note appears.
  b.points.resize(kMaxChartPointsPerSeries);
  c.series = {b};
  EXPECT_EQ(render_line_chart(c).find("Drawn:"), std::string::npos);
}

TEST(ChartCaps, ABarChartDrawsItsFirstGroups) {
  BarChart c;
  BarSeries s{"imbalance", {}, 0};
  for (int i = 0; i < 4096; ++i) {
    c.categories.push_back(std::to_string(i));
    s.values.push_back(1.0 + i % 3);
  }
  c.series = {s};
  const std::string svg = render_bar_chart(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), kMaxBarCategories);
  EXPECT_NE(svg.find("the first 512 of 4096 groups"), std::string::npos);
}

TEST(ChartCaps, ATimelineDrawsAtMostItsCapWithANote) {
  nlohmann::json intervals = nlohmann::json::array();
  for (int i = 0; i < 10'000; ++i)
    intervals.push_back({{"rank", i % 4},
                         {"lane", "compute"},
                         {"name", std::string(i == 0 ? 5000 : 8, 'n')},
                         {"begin_ms", i * 0.001},
                         {"end_ms", i * 0.001 + 0.0005}});
  TimelineChart c;
  ASSERT_TRUE(timeline_from_run(nlohmann::json{{"timeline", {{"intervals", intervals}}}}, c));
  EXPECT_EQ(c.bars.size(), kMaxTimelineBars);
  EXPECT_NE(c.note.find("the first 4096 of the 10000 intervals"), std::string::npos) << c.note;
  const std::string svg = render_timeline_chart(c);
  EXPECT_EQ(count(svg, "<rect class=\"bar\""), kMaxTimelineBars);
  EXPECT_LT(svg.size(), std::size_t{2} << 20);  // the 5,000-byte name is clipped, not copied into the page
  EXPECT_EQ(svg.find(std::string(200, 'n')), std::string::npos);
}

TEST(Timeline, SkipsMalformedIntervals) {
  const nlohmann::json run = {{"timeline",
                               {{"window_ms", 2.0},
                                {"truncated", true},
                                {"intervals",
                                 {{{"rank", 0},
                                   {"kind", "compute"},
                                   {"lane", "compute"},
                                   {"name", "attention"},
                                   {"step", 0},
                                   {"begin_ms", 0.0},
                                   {"end_ms", 1.0}},
                                  {{"rank", 1},
                                   {"kind", "comm"},
                                   {"lane", "comm"},
                                   {"name", "kv_recv"},
                                   {"step", 1},
                                   {"begin_ms", 0.5},
                                   {"end_ms", 0.7}},
                                  {{"rank", 1}, {"begin_ms", 2.0}, {"end_ms", 1.0}},    // ends before it begins
                                  {{"rank", "x"}, {"begin_ms", 0.0}, {"end_ms", 1.0}},  // not a rank
                                  {{"rank", 0}, {"end_ms", 1.0}}}}}}};
  TimelineChart c;
  ASSERT_TRUE(timeline_from_run(run, c));
  EXPECT_EQ(c.bars.size(), 2u);
  EXPECT_EQ(c.rows, (std::vector<std::string>{"r0 compute", "r1 comm"}));
  EXPECT_FALSE(c.note.empty());  // truncated
  EXPECT_EQ(count(render_timeline_chart(c), "<rect class=\"bar\""), 2u);
  TimelineChart none;
  EXPECT_FALSE(timeline_from_run(nlohmann::json{{"timeline", nullptr}}, none));
}

}  // namespace
}  // namespace rb::reports
