// Line and bar charts as inline SVG. Coordinates are rounded to 0.1 px: the report of a 500-run sweep
// holds many charts and the digits add up.
#include "reports/html/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

constexpr Margins kMargins;

double fwd(double v, Scale s) {
  switch (s) {
    case Scale::log2: return std::log2(v);
    case Scale::log10: return std::log10(v);
    default: return v;
  }
}

bool usable(double v, Scale s) { return std::isfinite(v) && (s == Scale::linear || v > 0); }

std::string px(double v) { return format_number(std::round(v * 10) / 10, 6); }

// Maps data to pixels over one axis.
struct Mapper {
  Ticks ticks;
  Scale scale = Scale::linear;
  double p0 = 0, p1 = 1;  // pixel ends (p0 at ticks.lo)
  double operator()(double v) const {
    const double a = fwd(ticks.lo, scale), b = fwd(ticks.hi, scale);
    const double t = b > a ? (fwd(v, scale) - a) / (b - a) : 0.5;
    return p0 + t * (p1 - p0);
  }
};

Mapper make_mapper(const Axis& axis, double lo, double hi, double p0, double p1) {
  if (axis.scale == Scale::linear && axis.include_zero) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  Mapper m;
  m.scale = axis.scale;
  m.ticks = make_ticks(lo, hi, axis.scale);
  if (axis.min) m.ticks.lo = *axis.min;
  if (axis.max) m.ticks.hi = *axis.max;
  m.p0 = p0;
  m.p1 = p1;
  return m;
}

// The caller's ticks where it gave them, else the nice ones in the axis' format.
std::vector<AxisTick> tick_marks(const Axis& axis, const Ticks& nice) {
  if (!axis.ticks.empty()) return axis.ticks;
  std::vector<AxisTick> out;
  for (double t : nice.at) out.push_back({t, format_tick(t, axis.format)});
  return out;
}

int color_of(int color, std::size_t position) { return (color >= 0 ? color : static_cast<int>(position)) % 10; }

std::string legend(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string out = "<ul class=\"legend\">";
  for (const auto& [cls, name] : entries)
    out += fmt::format("<li><span class=\"sw {}\"></span>{}</li>", cls, html_escape(name));
  return out + "</ul>";
}

std::string marker_svg(Marker m, double x, double y, const std::string& title) {
  const std::string t = "<title>" + html_escape(title) + "</title>";
  switch (m) {
    case Marker::square:
      return fmt::format("<rect class=\"mk\" x=\"{}\" y=\"{}\" width=\"6\" height=\"6\">{}</rect>", px(x - 3),
                         px(y - 3), t);
    case Marker::diamond:
      return fmt::format("<path class=\"mk\" d=\"M{} {}l4 4l-4 4l-4-4z\">{}</path>", px(x), px(y - 4), t);
    case Marker::ring:
      return fmt::format("<circle class=\"mk ring\" cx=\"{}\" cy=\"{}\" r=\"6\">{}</circle>", px(x), px(y), t);
    case Marker::none: return {};
    default: return fmt::format("<circle class=\"mk\" cx=\"{}\" cy=\"{}\" r=\"3\">{}</circle>", px(x), px(y), t);
  }
}

// Axes, gridlines and tick labels of a plot area [x0,x1]×[y0,y1] (y0 at the top).
std::string axes_svg(const std::vector<std::pair<double, std::string>>* categories, const Mapper& ym, const Axis& yaxis,
                     const std::string& xlabel, double x0, double x1, double y0, double y1) {
  std::string s = "<g class=\"axis\">";
  for (const auto& t : tick_marks(yaxis, ym.ticks)) {
    const double y = ym(t.at);
    s += fmt::format("<line class=\"gl\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", px(x0), px(x1), px(y), px(y));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.32em\">{}</text>", px(x0 - 5), px(y),
                     html_escape(t.label));
  }
  if (categories) {
    // Thin the labels when there are many categories (c = 64 ranks).
    const std::size_t every = std::max<std::size_t>(1, categories->size() / 16);
    for (std::size_t i = 0; i < categories->size(); i += every)
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px((*categories)[i].first),
                       px(y1 + 16), html_escape((*categories)[i].second));
  }
  s += fmt::format("<line class=\"frame\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>", px(x0), px(y0), px(y1));
  s += fmt::format("<line class=\"frame\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", px(x0), px(x1), px(y1));
  s += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", px((x0 + x1) / 2),
                   px(y1 + 34), html_escape(xlabel));
  s += fmt::format("<text class=\"label\" transform=\"translate(12 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
                   px((y0 + y1) / 2), html_escape(yaxis.label));
  return s + "</g>";
}

std::string open_figure(const std::string& id, const std::string& title, int w, int h,
                        const std::string& svg_class = {}) {
  return fmt::format(
      "<figure class=\"chart\"{} style=\"width:{}px\"><figcaption>{}</figcaption><svg{} viewBox=\"0 0 {} {}\" "
      "width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">",
      id.empty() ? "" : fmt::format(" id=\"{}\"", html_escape(id)), w, html_escape(title),
      svg_class.empty() ? "" : fmt::format(" class=\"{}\"", html_escape(svg_class)), w, h, w, h, html_escape(title));
}

std::string bands_svg(const std::vector<Band>& bands, const Mapper& ym, double x0, double x1) {
  std::string s;
  for (const auto& b : bands) {
    if (!std::isfinite(b.lo) || !std::isfinite(b.hi)) continue;
    const double top = std::min(ym(b.lo), ym(b.hi)), bottom = std::max(ym(b.lo), ym(b.hi));
    s += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", html_escape(b.css_class),
                     px(x0), px(top), px(x1 - x0), px(bottom - top));
  }
  return s;
}

std::string rules_svg(const std::vector<Rule>& rules, const Mapper& xm, const Mapper& ym, double x0, double x1,
                      double y0, double y1) {
  std::string s;
  for (const auto& r : rules) {
    if (!std::isfinite(r.at)) continue;
    const bool h = r.along == Rule::Along::horizontal;
    const double at = h ? ym(r.at) : xm(r.at);
    s += fmt::format("<line class=\"{}\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\">", html_escape(r.css_class),
                     px(h ? x0 : at), px(h ? x1 : at), px(h ? at : y0), px(h ? at : y1));
    s += r.title.empty() ? "</line>" : "<title>" + html_escape(r.title) + "</title></line>";
  }
  return s;
}

std::string close_figure(const std::string& legend_html, const std::string& note) {
  return "</svg>" + legend_html + (note.empty() ? "" : "<p class=\"note\">" + html_escape(note) + "</p>") + "</figure>";
}

// `keep` points at even steps through `pts`, the first and the last among them.
std::vector<Point> evenly_spaced(const std::vector<Point>& pts, std::size_t keep) {
  std::vector<Point> out;
  out.reserve(keep);
  const double step = static_cast<double>(pts.size() - 1) / static_cast<double>(keep - 1);
  for (std::size_t k = 0; k < keep; ++k)
    out.push_back(pts[static_cast<std::size_t>(std::llround(step * static_cast<double>(k)))]);
  return out;
}

}  // namespace

std::string format_tick(double v, TickFormat f) {
  switch (f) {
    case TickFormat::tokens: return format_tokens(v);
    case TickFormat::percent: return format_percent(v, 0);
    default: return format_number(v, 3);
  }
}

Ticks make_ticks(double lo, double hi, Scale scale, int target) {
  Ticks t;
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (scale == Scale::linear) {
    if (hi == lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.5), lo = lo == 0 ? 0 : lo - std::fabs(lo) * 0.5;
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10, std::floor(std::log10(raw)));
    const double r = raw / mag;
    const double step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
    t.lo = std::floor(lo / step + 1e-9) * step;
    t.hi = std::ceil(hi / step - 1e-9) * step;
    for (double v = t.lo; v <= t.hi + step * 1e-6; v += step) t.at.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return t;
  }
  const double base = scale == Scale::log2 ? 2 : 10;
  if (lo <= 0) lo = hi > 0 ? hi / base : 1;
  if (hi <= 0) hi = 1;
  int e0 = static_cast<int>(std::floor(fwd(lo, scale) + 1e-9)), e1 = static_cast<int>(std::ceil(fwd(hi, scale) - 1e-9));
  if (e1 == e0) ++e1;
  t.lo = std::pow(base, e0);
  t.hi = std::pow(base, e1);
  const int every = std::max(1, (e1 - e0 + 9) / 10);  // at most ~10 labelled powers
  for (int e = e0; e <= e1; e += every) t.at.push_back(std::pow(base, e));
  if (scale == Scale::log10 && e1 - e0 <= 2)  // short decades: 2 and 5 in between
    for (int e = e0; e < e1; ++e)
      for (double m : {2.0, 5.0}) t.at.push_back(m * std::pow(10, e));
  std::sort(t.at.begin(), t.at.end());
  return t;
}

std::string render_line_chart(const LineChart& c) {
  std::size_t thinned_from = 0, drawn_points = 0, series_left_out = 0;
  const Margins& m = c.margins;
  const double x0 = m.left, x1 = c.width - m.right, y0 = m.top, y1 = c.height - m.bottom;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  auto widen_x = [&](double v) {
    if (usable(v, c.x.scale)) xlo = std::min(xlo, v), xhi = std::max(xhi, v);
  };
  auto widen_y = [&](double v) {
    if (usable(v, c.y.scale)) ylo = std::min(ylo, v), yhi = std::max(yhi, v);
  };
  for (const auto& s : c.series)
    for (const auto& p : s.points) {
      if (!usable(p.x, c.x.scale) || !usable(p.y, c.y.scale)) continue;
      widen_x(p.x), widen_y(p.y);
      if (p.lo) widen_y(*p.lo);
      if (p.hi) widen_y(*p.hi);
    }
  for (const auto& b : c.bands) widen_y(b.lo), widen_y(b.hi);
  for (const auto& r : c.rules) {
    if (r.along == Rule::Along::horizontal)
      widen_y(r.at);
    else
      widen_x(r.at);
  }
  if (!(xlo <= xhi)) xlo = 0, xhi = 1;
  if (!(ylo <= yhi)) ylo = 0, yhi = 1;
  Axis xaxis = c.x;
  xaxis.include_zero = false;
  const Mapper xm = make_mapper(xaxis, xlo, xhi, x0, x1);
  const Mapper ym = make_mapper(c.y, ylo, yhi, y1, y0);
  std::string s = open_figure(c.id, c.title, c.width, c.height, c.svg_class);
  s += bands_svg(c.bands, ym, x0, x1);
  // X ticks take the axis' own format: draw them here rather than in axes_svg.
  s += axes_svg(nullptr, ym, c.y, c.x.label, x0, x1, y0, y1);
  s += "<g class=\"axis\">";
  for (const auto& t : tick_marks(xaxis, xm.ticks))
    s += fmt::format(
        "<line class=\"tick\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>",
        px(xm(t.at)), px(y1), px(y1 + 4), px(y1 + 16), html_escape(t.label));
  s += "</g>";
  s += rules_svg(c.rules, xm, ym, x0, x1, y0, y1);
  std::vector<std::pair<std::string, std::string>> leg;
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    if (i == kMaxChartSeries) {
      series_left_out = c.series.size() - i;
      break;
    }
    const auto& ser = c.series[i];
    const std::string cls = fmt::format("c{}", color_of(ser.color, i));
    std::vector<Point> pts;
    for (const auto& p : ser.points)
      if (usable(p.x, c.x.scale) && usable(p.y, c.y.scale)) pts.push_back(p);
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    if (pts.size() > kMaxChartPointsPerSeries) {
      thinned_from += pts.size();
      pts = evenly_spaced(pts, kMaxChartPointsPerSeries);
      drawn_points += pts.size();
    }
    s += fmt::format("<g class=\"{}\">", cls);
    if (ser.lines && pts.size() > 1) {
      std::string d;
      for (std::size_t k = 0; k < pts.size(); ++k)
        d += fmt::format("{}{} {}", k ? 'L' : 'M', px(xm(pts[k].x)), px(ym(pts[k].y)));
      s += fmt::format("<path class=\"ln{}\" d=\"{}\"/>", ser.dashed ? " dash" : "", d);
    }
    for (const auto& p : pts) {
      if (p.lo && p.hi && usable(*p.lo, c.y.scale) && usable(*p.hi, c.y.scale))
        s += fmt::format("<line class=\"whisker\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>", px(xm(p.x)),
                         px(ym(*p.hi)), px(ym(*p.lo)));
      const std::string note = p.note.empty() ? fmt::format("{}: {}, {}", ser.name, format_tick(p.x, c.x.format),
                                                            format_number(p.y, 4))
                                              : p.note;
      s += marker_svg(ser.marker, xm(p.x), ym(p.y), note);
    }
    s += "</g>";
    leg.emplace_back(cls + (ser.marker == Marker::ring ? " ring" : "") + (ser.dashed ? " dash" : ""), ser.name);
  }
  std::string note = c.note;
  if (thinned_from > 0)
    note += fmt::format("{}Drawn: {} evenly spaced of {} points (a chart draws at most {} a series).",
                        note.empty() ? "" : " ", drawn_points, thinned_from, kMaxChartPointsPerSeries);
  if (series_left_out > 0)
    note += fmt::format("{}{} more series not drawn (a chart draws at most {}).", note.empty() ? "" : " ",
                        series_left_out, kMaxChartSeries);
  return s + close_figure(c.legend ? legend(leg) : std::string(), note);
}

std::string render_bar_chart(const BarChart& c) {
  const double x0 = kMargins.left, x1 = c.width - kMargins.right, y0 = kMargins.top, y1 = c.height - kMargins.bottom;
  double ylo = 0, yhi = 0;
  for (const auto& ser : c.series)
    for (const auto& v : ser.values)
      if (v && std::isfinite(*v)) ylo = std::min(ylo, *v), yhi = std::max(yhi, *v);
  if (c.reference) yhi = std::max(yhi, *c.reference);
  if (yhi == ylo) yhi = ylo + 1;
  Axis yaxis = c.y;
  yaxis.scale = Scale::linear;  // bars start at zero
  const Mapper ym = make_mapper(yaxis, ylo, yhi, y1, y0);
  const std::size_t shown = std::min(c.categories.size(), kMaxBarCategories);
  const std::size_t n = std::max<std::size_t>(1, shown);
  const double group_w = (x1 - x0) / static_cast<double>(n);
  const double inner = group_w * 0.8;
  const double bar_w = inner / static_cast<double>(std::max<std::size_t>(1, c.series.size()));
  std::vector<std::pair<double, std::string>> cats;
  for (std::size_t i = 0; i < shown; ++i)
    cats.emplace_back(x0 + group_w * (static_cast<double>(i) + 0.5), c.categories[i]);
  std::string s = open_figure(c.id, c.title, c.width, c.height);
  s += axes_svg(&cats, ym, yaxis, c.x_label, x0, x1, y0, y1);
  std::vector<std::pair<std::string, std::string>> leg;
  const double zero = ym(0);
  for (std::size_t k = 0; k < c.series.size() && k < kMaxChartSeries; ++k) {
    const auto& ser = c.series[k];
    const std::string cls = fmt::format("c{}", color_of(ser.color, k));
    s += fmt::format("<g class=\"{}\">", cls);
    for (std::size_t i = 0; i < ser.values.size() && i < shown; ++i) {
      if (!ser.values[i] || !std::isfinite(*ser.values[i])) continue;
      const double v = *ser.values[i], y = ym(v);
      const double x = x0 + group_w * static_cast<double>(i) + (group_w - inner) / 2 + bar_w * static_cast<double>(k);
      s += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
                       px(x), px(std::min(y, zero)), px(std::max(0.5, bar_w - 0.5)), px(std::fabs(zero - y)),
                       html_escape(fmt::format("{} {}: {}", ser.name, c.categories[i], format_number(v, 4))));
    }
    s += "</g>";
    leg.emplace_back(cls, ser.name);
  }
  if (c.reference) {
    const double y = ym(*c.reference);
    s += fmt::format("<line class=\"ref\" x1=\"{}\" x2=\"{}\" y1=\"{}\" y2=\"{}\"><title>{}</title></line>", px(x0),
                     px(x1), px(y), px(y), html_escape(c.reference_label));
  }
  std::string note = c.note;
  if (shown < c.categories.size() || c.series.size() > kMaxChartSeries)
    note += fmt::format("{}Drawn: the first {} of {} groups and {} of {} series (the caps of one chart).",
                        note.empty() ? "" : " ", shown, c.categories.size(), std::min(c.series.size(), kMaxChartSeries),
                        c.series.size());
  return s + close_figure(legend(leg), note);
}

ChartStyle split_style(std::string_view split) {
  if (const SplitInfo* i = find_split(split)) return i->style;
  return ChartStyle{7, "circle", false};
}

void apply_style(Series& s, const ChartStyle& style) {
  s.color = style.color;
  s.dashed = style.dashed;
  s.marker = style.marker == "square"    ? Marker::square
             : style.marker == "diamond" ? Marker::diamond
             : style.marker == "ring"    ? Marker::ring
                                         : Marker::circle;
}

}  // namespace rb::reports
