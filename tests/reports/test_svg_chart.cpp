// The SVG charts: nice ticks on linear and log axes, one marker per plottable point, one bar per
// value, and timelines that skip malformed intervals instead of failing the whole report.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/svg_chart.hpp"
#include "reports/html/svg_timeline.hpp"

namespace rb::reports {
namespace {

std::size_t occurrences(const std::string& hay, const std::string& needle) {
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
  EXPECT_EQ(occurrences(svg, "class=\"mk\""), 4u);
  EXPECT_EQ(occurrences(svg, "<path class=\"ln"), 1u);  // b has one point left: no line
  EXPECT_NE(svg.find("t &amp; &lt;u&gt;"), std::string::npos);
  EXPECT_EQ(occurrences(svg, "<li>"), 2u);
}

TEST(BarChart, OneBarPerValue) {
  BarChart c;
  c.categories = {"0", "1", "2"};
  c.series.push_back({"contiguous", {1.0, 2.0, 3.0}, 0});
  c.series.push_back({"zigzag", {2.0, std::nullopt, 2.0}, 1});
  c.reference = 2.0;
  const std::string svg = render_bar_chart(c);
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), 5u);
  EXPECT_EQ(occurrences(svg, "class=\"ref\""), 1u);
}

TEST(ChartCaps, ALineChartThinsEachSeriesAndSaysSo) {
  LineChart c;
  Series a;
  a.name = "samples";
  for (int i = 0; i < 100'000; ++i) a.points.emplace_back(i, i % 17);
  c.series.assign(40, a);
  const std::string svg = render_line_chart(c);
  EXPECT_EQ(occurrences(svg, "class=\"mk\""), kMaxChartPointsPerSeries * kMaxChartSeries);
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
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), kMaxBarCategories);
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
  ASSERT_TRUE(timeline_from_run(read_run_record(nlohmann::json{{"timeline", {{"intervals", intervals}}}}), c));
  EXPECT_EQ(c.bars.size(), kMaxTimelineBars);
  EXPECT_NE(c.note.find("the first 4096 of the 10000 intervals"), std::string::npos) << c.note;
  const std::string svg = render_timeline_chart(c);
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), kMaxTimelineBars);
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
  ASSERT_TRUE(timeline_from_run(read_run_record(run), c));
  EXPECT_EQ(c.bars.size(), 2u);
  EXPECT_EQ(c.rows, (std::vector<std::string>{"r0 compute", "r1 comm"}));
  EXPECT_FALSE(c.note.empty());  // truncated
  EXPECT_EQ(occurrences(render_timeline_chart(c), "<rect class=\"bar\""), 2u);
  TimelineChart none;
  EXPECT_FALSE(timeline_from_run(read_run_record(nlohmann::json{{"timeline", nullptr}}), none));
}

// A 2.15.0 record's model timeline: each rank's measured lanes, then its pale program lanes, with
// the program's bars where the simulator put them; a rank the measured timeline does not show is
// left out of the program's too.
TEST(Timeline, DrawsTheProgramsScheduleBesideTheMeasuredLanes) {
  auto iv = [](int rank, const char* lane, const char* name, int step, double b, double e) {
    return nlohmann::json{{"rank", rank}, {"kind", std::string(lane) == "comm" ? "comm" : "compute"},
                          {"lane", lane}, {"name", name},
                          {"step", step}, {"begin_ms", b},
                          {"end_ms", e}};
  };
  const nlohmann::json run = {{"timeline",
                               {{"window_ms", 3.0},
                                {"intervals",
                                 {iv(0, "compute", "attention", 0, 0.0, 1.0), iv(0, "comm", "kv_recv", 1, 0.0, 0.5),
                                  iv(0, "compute", "attention", 1, 2.0, 3.0)}}}},
                              {"model",
                               {{"kind", "program_simulator"},
                                {"pass_ms", 2.0},
                                {"timeline",
                                 {{"window_ms", 2.0},
                                  {"intervals",
                                   {iv(0, "compute", "attention", 0, 0.0, 1.0), iv(0, "comm", "kv_recv", 1, 0.0, 0.5),
                                    iv(0, "compute", "attention", 1, 1.0, 2.0),
                                    iv(1, "compute", "attention", 0, 0.0, 1.0)}}}}}}};
  const RunRecord rec = read_run_record(run);
  ASSERT_TRUE(rec.model && rec.model->timeline);
  EXPECT_EQ(rec.model->timeline->intervals.size(), 4u);
  EXPECT_EQ(rec.model->other_numbers.count("timeline.window_ms"), 0u) << "the timeline is no model number";
  TimelineChart c;
  ASSERT_TRUE(timeline_from_run(rec, c));
  EXPECT_EQ(c.rows,
            (std::vector<std::string>{"r0 compute", "r0 comm", "r0 compute\u00b7program", "r0 comm\u00b7program"}));
  ASSERT_EQ(c.bars.size(), 6u);
  EXPECT_EQ(std::count_if(c.bars.begin(), c.bars.end(), [](const TimelineBar& b) { return b.planned; }), 3);
  const TimelineBar& last = c.bars.back();
  EXPECT_TRUE(last.planned);
  EXPECT_EQ(last.row, 2);
  EXPECT_DOUBLE_EQ(last.begin_ms, 1.0);  // measured at 2.0: it waited a millisecond the program does not
  EXPECT_NE(last.title.find("as the program schedules it"), std::string::npos) << last.title;
  EXPECT_NE(c.note.find("\u00b7program"), std::string::npos) << c.note;
  const std::string svg = render_timeline_chart(c);
  EXPECT_EQ(occurrences(svg, " planned\">"), 2u);  // two colours of program bars, each one pale group
  EXPECT_EQ(occurrences(svg, "<rect class=\"bar\""), 6u);
  // An older record (no model timeline) draws as before.
  nlohmann::json old = run;
  old["model"].erase("timeline");
  TimelineChart plain;
  ASSERT_TRUE(timeline_from_run(read_run_record(old), plain));
  EXPECT_EQ(plain.rows.size(), 2u);
}

// What a regular report chart sets none of draws nothing new: no band, rule or bar, the default
// layout and the legend.
TEST(LineChart, WithoutOverlaysDrawsTheDefaultLayout) {
  LineChart c;
  Series a;
  a.name = "a";
  a.points = {{1, 1}, {2, 2}};
  c.series = {a};
  const std::string svg = render_line_chart(c);
  EXPECT_NE(svg.find("<svg viewBox=\"0 0 520 300\""), std::string::npos) << svg;
  EXPECT_NE(svg.find("<line class=\"frame\" x1=\"58\" x2=\"58\" y1=\"12\" y2=\"258\"/>"), std::string::npos) << svg;
  EXPECT_EQ(occurrences(svg, "<ul class=\"legend\">"), 1u);
  for (const char* absent : {"whisker", "<rect", "class=\"rbt"})
    EXPECT_EQ(svg.find(absent), std::string::npos) << absent;
}

// The pieces the trend page draws through this chart: a band, a horizontal and a vertical rule with
// tooltips, a spread bar per point, ticks placed and labelled by the caller, a class on the <svg>,
// its own margins and no legend.
TEST(LineChart, BandsRulesSpreadsAndFixedTicks) {
  LineChart c;
  c.title = "median_ms (ms)";
  c.svg_class = "rbt-chart";
  c.width = 400;
  c.height = 120;
  c.margins = {122, 30, 8, 22};
  c.legend = false;
  c.x.min = 0.0;
  c.x.max = 4.0;
  c.x.ticks = {{0.0, "2024-05-01"}, {4.0, "2024-05-05"}};
  c.y.min = -0.1;
  c.y.max = 0.1;
  c.y.ticks = {{0.1, "11 ms +10.0%"}, {-0.1, "9 ms -10.0%"}, {0.0, "10 ms"}};
  c.bands = {{-0.05, 0.05, "rbt-band"}};
  c.rules = {{Rule::Along::horizontal, 0.0, "rbt-base", "baseline: 10"},
             {Rule::Along::vertical, 2.0, "rbt-step rbt-reg", "step <+8%> on 2024-05-03"}};
  Series a;
  a.name = "median_ms";
  for (int i = 0; i <= 4; ++i) {
    Point p(i, i < 2 ? -0.02 : 0.06, "night " + std::to_string(i));
    if (i != 3) p.lo = p.y - 0.01, p.hi = p.y + 0.02;
    a.points.push_back(p);
  }
  c.series = {a};
  const std::string svg = render_line_chart(c);
  EXPECT_NE(svg.find("<svg class=\"rbt-chart\" viewBox=\"0 0 400 120\""), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<ul class=\"legend\">"), std::string::npos);
  EXPECT_NE(svg.find("<line class=\"frame\" x1=\"122\" x2=\"122\" y1=\"8\" y2=\"98\"/>"), std::string::npos) << svg;
  // y: -0.1 at 98, 0.1 at 8, so the band ±0.05 spans 30.5 … 75.5 and lies under the axes.
  EXPECT_NE(svg.find("<rect class=\"rbt-band\" x=\"122\" y=\"30.5\" width=\"248\" height=\"45\"/>"), std::string::npos)
      << svg;
  EXPECT_LT(svg.find("rbt-band"), svg.find("<g class=\"axis\">"));
  EXPECT_NE(svg.find("<line class=\"rbt-base\" x1=\"122\" x2=\"370\" y1=\"53\" y2=\"53\"><title>baseline: "
                     "10</title></line>"),
            std::string::npos)
      << svg;
  // x: 0 at 122, 4 at 370: the step at night 2 sits on the third point's marker, its tooltip escaped.
  EXPECT_NE(svg.find("<line class=\"rbt-step rbt-reg\" x1=\"246\" x2=\"246\" y1=\"8\" y2=\"98\"><title>step "
                     "&lt;+8%&gt; on 2024-05-03</title></line>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<circle class=\"mk\" cx=\"246\""), std::string::npos) << svg;
  EXPECT_EQ(occurrences(svg, "<line class=\"whisker\""), 4u);  // night 3 has no spread
  EXPECT_EQ(occurrences(svg, "class=\"mk\""), 5u);
  for (const char* label : {">2024-05-01</text>", ">2024-05-05</text>", ">11 ms +10.0%</text>", ">9 ms -10.0%</text>",
                            ">10 ms</text>", "<title>night 4</title>"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(occurrences(svg, "<line class=\"gl\""), 3u);  // a gridline per given tick, none of the nice ones
  EXPECT_EQ(occurrences(svg, "<line class=\"tick\""), 2u);
}

// An axis left free spans its overlays and spreads as well as its points, so none is drawn outside.
TEST(LineChart, OverlaysWidenAFreeAxis) {
  LineChart c;
  Series a;
  a.name = "a";
  a.points = {{1, 1}, {2, 2}};
  c.series = {a};
  EXPECT_EQ(render_line_chart(c).find(">10</text>"), std::string::npos);
  c.rules = {{Rule::Along::horizontal, 10.0, "ref", ""}};
  EXPECT_NE(render_line_chart(c).find(">10</text>"), std::string::npos);
  c.rules.clear();
  c.bands = {{0.5, 10.0, "band"}};
  EXPECT_NE(render_line_chart(c).find(">10</text>"), std::string::npos);
  c.bands.clear();
  c.series[0].points[1].lo = 1.5;
  c.series[0].points[1].hi = 10.0;
  EXPECT_NE(render_line_chart(c).find(">10</text>"), std::string::npos);
  c.rules = {{Rule::Along::vertical, 20.0, "step", ""}};
  EXPECT_NE(render_line_chart(c).find(">20</text>"), std::string::npos);
}

}  // namespace
}  // namespace rb::reports
