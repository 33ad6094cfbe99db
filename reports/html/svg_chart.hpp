// Inline SVG charts for the HTML report and the trend page: a line/scatter chart and a grouped bar
// chart, each with axes, ticks, gridlines, tooltips (<title>) and an HTML legend. The trend's band,
// baseline, steps and spreads are options of LineChart, so both pages draw through one stack. They
// are static markup, so a page reads without JavaScript; colours come from CSS classes (.c0 … .c9,
// see html_report.cpp; the trend page styles its own) so a chart stays small and the palette lives
// in one place. Every label is escaped here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/scheme_table.hpp"

namespace rb::reports {

enum class Scale { linear, log2, log10 };
enum class TickFormat { number, tokens, percent };

// A tick placed and labelled by the caller (dates, or a value beside its change in percent).
struct AxisTick {
  double at = 0;
  std::string label;
};

struct Axis {
  Axis() = default;
  Axis(std::string label_, Scale scale_ = Scale::linear, TickFormat format_ = TickFormat::number)
      : label(std::move(label_)), scale(scale_), format(format_) {}
  std::string label;
  Scale scale = Scale::linear;
  TickFormat format = TickFormat::number;
  std::optional<double> min, max;  // forced ends; otherwise taken from the data and made nice
  bool include_zero = true;        // linear axes only
  std::vector<AxisTick> ticks;     // when set, drawn instead of the nice ticks
};

enum class Marker { circle, square, diamond, ring, none };

struct Point {
  Point() = default;
  Point(double x_, double y_, std::string note_ = {}) : x(x_), y(y_), note(std::move(note_)) {}
  double x = 0, y = 0;
  std::string note;  // tooltip; empty: "name: x, y"
  // A spread drawn as a vertical bar through the point (e.g. the fastest sample to the p90).
  std::optional<double> lo, hi;
};

struct Series {
  std::string name;
  std::vector<Point> points;
  bool lines = true;  // join the points in x order
  bool dashed = false;
  int color = -1;  // palette index 0..9; -1: the series' position
  Marker marker = Marker::circle;
};

// A horizontal band over [lo, hi] in y units, drawn under everything (e.g. the ±threshold within
// which a change is SAME).
struct Band {
  double lo = 0, hi = 0;
  std::string css_class;
};

// A line across the plot at one x (vertical) or one y (horizontal), with a tooltip: a baseline, or
// the night a step happened. The page's CSS gives it its look through css_class.
struct Rule {
  enum class Along { horizontal, vertical };
  Along along = Along::horizontal;
  double at = 0;
  std::string css_class, title;
};

struct Margins {
  double left = 58, right = 14, top = 12, bottom = 42;
};

struct LineChart {
  std::string id, title, note;  // note: a line under the chart (what is plotted, where it comes from)
  Axis x, y;
  std::vector<Series> series;
  int width = 520, height = 300;
  std::vector<Band> bands;
  std::vector<Rule> rules;  // bands and rules widen an axis that is not forced, as points do
  std::string svg_class;    // a class on the <svg> itself, for a page's own CSS
  Margins margins;          // small charts with long tick labels need another layout
  bool legend = true;       // a chart of one series says what it is in its title
};

struct BarSeries {
  std::string name;
  std::vector<std::optional<double>> values;  // one per category; nullopt: no bar
  int color = -1;
};

struct BarChart {
  std::string id, title, note;
  std::string x_label;
  std::vector<std::string> categories;  // groups along x (ranks)
  Axis y;
  std::vector<BarSeries> series;
  std::optional<double> reference;  // a dashed horizontal line (e.g. the mean, 1.0)
  std::string reference_label;
  int width = 520, height = 260;
};

// The look the table of schemes gives a split scheme (common/scheme_table.hpp); a name the table
// does not hold (a results file from a later version) gets palette colour 7, solid circles.
ChartStyle split_style(std::string_view split);
// Sets a series' colour, marker and line style from a table style.
void apply_style(Series& s, const ChartStyle& style);

// What one chart draws at most, so a results file of any size gives a page a browser opens (a report
// over 1e6 points wrote 125 MB of HTML): a line chart beyond the cap draws evenly spaced points of
// each series, a bar chart its first groups, and either says so under the chart.
inline constexpr std::size_t kMaxChartPointsPerSeries = 2048;
inline constexpr std::size_t kMaxChartSeries = 32;
inline constexpr std::size_t kMaxBarCategories = 512;

// Each returns a <figure class="chart"> with the SVG, its caption and legend.
std::string render_line_chart(const LineChart& chart);
std::string render_bar_chart(const BarChart& chart);

// Tick positions for an axis over [lo, hi] (data units); exposed for tests.
struct Ticks {
  double lo = 0, hi = 1;  // the axis' ends after rounding out to nice values
  std::vector<double> at;
};
Ticks make_ticks(double lo, double hi, Scale scale, int target = 5);
std::string format_tick(double v, TickFormat f);

}  // namespace rb::reports
