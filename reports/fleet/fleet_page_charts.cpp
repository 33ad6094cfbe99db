// The fleet page's strip charts. Drawn here rather than through svg_chart.hpp's LineChart: a strip
// needs its band along x (LineChart's bands lie along y), two lanes of points placed by the chart
// rather than by a value, and labels beside chosen points. The axes, ticks and classes follow
// svg_chart.cpp so the page reads like the report.
#include "reports/fleet/fleet_page_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports::fleet_page {
namespace {

constexpr double kWidth = 1180;
constexpr double kLeft = 92, kRight = 24, kTop = 26, kBottom = 46;
constexpr double kLaneGap = 14;
constexpr double kNodeRadius = 4.5, kGpuRadius = 3;
constexpr double kLabelHeight = 13, kCharWidth = 7;  // 11.5px bold sans, generously

std::string fleet_px(double v) { return format_number(std::round(v * 10) / 10, 7); }

// Heights for a swarm of points of radius r at pixel positions xs: each point, in x order, takes the
// free height nearest the lane's middle, so a fleet of nodes at one standing spreads out instead of
// hiding behind one mark. Returns offsets from the middle, within ±max_half - r; where no height is
// free the point takes the one it overlaps least.
//
// The heights a point may take are slots, multiples of `step`; the points placed less than `gap` to
// the left are kept by slot, and a height looks only at the slots within `gap` of it, each holding at
// most kSlotDepth points (the nearest in x; a slot that full is covered anyway). So a point costs a
// bounded amount of work however many share its standing: near-linear in the points, where looking
// at every near point for every height took 17.6 s for 2,000 nodes at one standing.
std::vector<double> swarm(const std::vector<double>& xs, double r, double max_half) {
  std::vector<std::size_t> order(xs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return xs[a] < xs[b]; });
  const double gap = 2 * r + 1, step = 0.8 * r, reach = std::max(0.0, max_half - r);
  constexpr std::size_t kSlotDepth = 8;
  // Slot m (height m * step) is slots[m + last]; a height sees the slots within `window` of its own.
  const auto last = static_cast<long>(std::floor(reach / step));
  const auto window = static_cast<long>(std::ceil(gap / step));
  std::vector<std::deque<std::size_t>> slots(static_cast<std::size_t>(2 * last + 1));
  std::vector<double> ys(xs.size(), 0.0);
  for (std::size_t i : order) {
    for (auto& slot : slots)
      while (!slot.empty() && xs[i] - xs[slot.front()] >= gap) slot.pop_front();
    double best = 0, least = std::numeric_limits<double>::infinity();
    long best_slot = 0;
    for (int k = 0;; ++k) {
      const long m = (k + 1) / 2 * (k % 2 ? 1 : -1);
      const double off = ((k + 1) / 2) * step * (k % 2 ? 1 : -1);  // 0, +s, -s, +2s, -2s, ...
      if (std::fabs(off) > reach || std::labs(m) > last) break;
      double overlap = 0;
      for (long n = std::max(m - window, -last); n <= std::min(m + window, last) && overlap < least; ++n)
        for (std::size_t j : slots[static_cast<std::size_t>(n + last)]) {
          const double dx = xs[i] - xs[j], dy = off - ys[j];
          if (dx * dx + dy * dy >= gap * gap * (1 + 1e-9)) continue;
          const double d = std::hypot(dx, dy);
          if (d < gap) overlap += gap - d;
        }
      if (overlap < least) least = overlap, best = off, best_slot = m;
      if (overlap == 0) break;
    }
    ys[i] = best;
    auto& slot = slots[static_cast<std::size_t>(best_slot + last)];
    slot.push_back(i);
    if (slot.size() > kSlotDepth) slot.pop_front();
  }
  return ys;
}

struct Box {
  double x0, y0, x1, y1;
  bool hits(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

// Places text labels beside their points without overlapping one another: to the right of the point
// (to the left near the right edge), moved up or down a line at a time until free.
class Labels {
 public:
  Labels(double left, double right, double top, double bottom)
      : left_(left), right_(right), top_(top), bottom_(bottom) {}

  // `outward_right`: whether the side away from the fleet is the right, where an outlier's name covers
  // no other point. The name is anchored at its point's side, so an estimate of its width off by a
  // few pixels never runs it into the point.
  std::string place(double x, double y, double r, bool outward_right, const std::string& text,
                    const std::string& node) {
    const double w = kCharWidth * static_cast<double>(code_points(text));
    const bool fits_right = x + r + 4 + w <= right_, fits_left = x - r - 4 - w >= left_;
    const bool right_side = fits_right && (outward_right || !fits_left);
    const bool left_side = !right_side && (fits_left || x - left_ > right_ - x);
    // Where it fits neither side, it is pinned to the nearer edge of the chart.
    const double ax = right_side  ? x + r + 4
                      : left_side ? std::max(x - r - 4, left_ + w)
                                  : std::min(x + r + 4, right_ - w);
    const bool end = left_side;
    const double bx = end ? ax - w : ax;
    for (int k = 0; k < 40; ++k) {
      const double dy = ((k + 1) / 2) * kLabelHeight * (k % 2 ? -1 : 1);
      const double cy = y + dy;
      if (cy - kLabelHeight / 2 < top_ || cy + kLabelHeight / 2 > bottom_) continue;
      const Box b{bx, cy - kLabelHeight / 2, bx + w, cy + kLabelHeight / 2};
      if (hits_placed(b)) continue;
      place_box(b);
      std::string s;
      if (dy != 0)
        s += fmt::format("<line class=\"leader\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", fleet_px(x), fleet_px(y),
                         fleet_px(end ? ax + 1 : ax - 1), fleet_px(cy));
      return s + text_at(node, ax, cy, end, text);
    }
    // No free line: the name still goes in, beside its point, since a hidden name is worse.
    return text_at(node, ax, y, end, text);
  }

 private:
  // The names placed so far, filed by the cells of a grid they cover: a new name is checked against
  // the names in its own cells only, never against every name (a fleet of 1,000 outliers).
  static constexpr double kCellWidth = 64, kCellHeight = kLabelHeight;
  static long cell(double v, double size) { return static_cast<long>(std::floor(v / size)); }
  static std::uint64_t key(long cx, long cy) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(cx)) << 32) | static_cast<std::uint32_t>(cy);
  }
  template <typename F>
  void each_cell(const Box& b, F f) const {
    // Every name reaches into [left_, right_] (it is pinned there), so two names that overlap do so
    // there too: a name wider than the chart (a 100 kB hostname) is filed by the chart's cells only.
    const double x0 = std::max(b.x0, left_ - 1), x1 = std::min(b.x1, right_ + 1);
    for (long cx = cell(x0, kCellWidth); cx <= cell(x1, kCellWidth); ++cx)
      for (long cy = cell(b.y0, kCellHeight); cy <= cell(b.y1, kCellHeight); ++cy) f(key(cx, cy));
  }
  bool hits_placed(const Box& b) const {
    bool hit = false;
    each_cell(b, [&](std::uint64_t k) {
      if (hit) return;
      const auto it = grid_.find(k);
      if (it != grid_.end())
        hit = std::any_of(it->second.begin(), it->second.end(), [&](std::size_t o) { return placed_[o].hits(b); });
    });
    return hit;
  }
  void place_box(const Box& b) {
    placed_.push_back(b);
    each_cell(b, [&](std::uint64_t k) { grid_[k].push_back(placed_.size() - 1); });
  }

  static std::size_t code_points(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  }
  static std::string text_at(const std::string& node, double x, double y, bool end, const std::string& text) {
    return fmt::format("<text class=\"olabel\" data-node=\"{}\" x=\"{}\" y=\"{}\" dy=\"0.35em\"{}>{}</text>",
                       html_escape(node), fleet_px(x), fleet_px(y), end ? " text-anchor=\"end\"" : "",
                       html_escape(text));
  }

 private:
  double left_, right_, top_, bottom_;
  std::vector<Box> placed_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> grid_;
};

std::string rank_list(const std::vector<int>& ranks) {
  if (ranks.empty()) return {};
  std::string s = ranks.size() == 1 ? " (rank " : " (ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) s += (i ? ", " : "") + std::to_string(ranks[i]);
  return s + ")";
}

std::string point_title(const FleetMetricResult& m, const FleetPoint& p) {
  std::string t = p.node.empty() ? "unnamed node" : p.node;
  if (!p.gpu.empty()) t += " · GPU " + p.gpu + rank_list(p.ranks);
  t += fmt::format("\n{}: {} from {} (relative {})", m.metric.title, signed_percent(p.relative - 1),
                   p.gpu.empty() ? "the fleet median" : "the median of its node's GPUs", format_number(p.relative, 4));
  t += fmt::format("\nshortfall {} ({} robust spreads), over {} configuration{}", signed_percent(p.shortfall),
                   format_number(p.spreads, 3), p.configurations, p.configurations == 1 ? "" : "s");
  if (p.outlier) t += "\noutlier" + (p.why.empty() ? std::string() : ": " + p.why);
  return t;
}

struct Lane {
  Lane(const std::vector<FleetPoint>& points_, bool gpu_, double median_, double limit_)
      : points(&points_),
        gpu(gpu_),
        median(median_),
        limit(limit_),
        radius(gpu_ ? kGpuRadius : kNodeRadius),
        name(gpu_ ? "GPUs" : "nodes") {}
  const std::vector<FleetPoint>* points;
  bool gpu;
  double median, limit, radius;
  std::string name;
  double top = 0, height = 0;
  std::vector<double> xs, offsets;
  std::vector<bool> drawn;
};

}  // namespace

std::string signed_percent(double fraction, int decimals) {
  const std::string s = fmt::format("{:.{}f}%", 100 * std::fabs(fraction), decimals);
  if (s.find_first_of("123456789") == std::string::npos) return s;
  return (fraction < 0 ? "\u2212" : "+") + s;
}

std::string short_gpu(std::string_view gpu) {
  if (gpu.starts_with("GPU-") && gpu.size() > 13) return std::string(gpu.substr(0, 12)) + "\u2026";
  if (gpu.size() > 18) return std::string(gpu.substr(0, 16)) + "\u2026";
  return std::string(gpu);
}

bool worse_below(const FleetMetricResult& m) {
  // The limit lies on the worse side by definition; the flag decides only where the two coincide.
  return m.node_limit != m.median ? m.node_limit < m.median : m.metric.higher_is_better;
}

std::string strip_chart(const FleetMetricResult& m) {
  std::vector<Lane> lanes;
  lanes.emplace_back(m.nodes, false, m.median, m.node_limit);
  if (!m.gpus.empty()) lanes.emplace_back(m.gpus, true, m.gpu_median, m.gpu_limit);

  // x spans every point, the medians and the limits, and 0, padded.
  double lo = 0, hi = 0;
  std::size_t undrawn = 0;
  for (const Lane& l : lanes) {
    for (double v : {l.median - 1, l.limit - 1})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    for (const FleetPoint& p : *l.points)
      if (std::isfinite(p.relative)) lo = std::min(lo, p.relative - 1), hi = std::max(hi, p.relative - 1);
  }
  const double pad = std::max(0.04 * (hi - lo), 0.005);
  const Ticks ticks = make_ticks(lo - pad, hi + pad, Scale::linear, 9);
  const double x0 = kLeft, x1 = kWidth - kRight;
  auto to_x = [&](double rel) { return x0 + (rel - 1 - ticks.lo) / (ticks.hi - ticks.lo) * (x1 - x0); };

  double y = kTop;
  for (Lane& l : lanes) {
    for (const FleetPoint& p : *l.points) {
      l.drawn.push_back(std::isfinite(p.relative));
      l.xs.push_back(l.drawn.back() ? to_x(p.relative) : x0);
      undrawn += l.drawn.back() ? 0 : 1;
    }
    // Tall enough for a tight fleet's column of points; the lane is only as tall as its swarm.
    l.offsets = swarm(l.xs, l.radius, 220);
    double extent = 0;
    for (double o : l.offsets) extent = std::max(extent, std::fabs(o));
    l.height = 2 * std::max(extent + l.radius + 6, 28.0);
    l.top = y;
    y += l.height + kLaneGap;
  }
  const double y1 = y - kLaneGap, height = y1 + kBottom;
  const bool below = worse_below(m);

  const std::string title = fmt::format("{}{} — {} is better", m.metric.title,
                                        m.metric.unit.empty() || m.metric.title.find(m.metric.unit) != std::string::npos
                                            ? ""
                                            : " (" + m.metric.unit + ")",
                                        m.metric.higher_is_better ? "higher" : "lower");
  std::string s = fmt::format(
      "<figure class=\"strip\" id=\"strip-{0}\" data-metric=\"{0}\"><figcaption>{1}</figcaption>"
      "<svg viewBox=\"0 0 {2} {3}\" width=\"{2}\" height=\"{3}\" role=\"img\" aria-label=\"{1}\">",
      html_escape(m.metric.name), html_escape(title), fleet_px(kWidth), fleet_px(height));

  // The fleet's band and its edges under everything, then the axes.
  for (const Lane& l : lanes) {
    const double b0 = to_x(l.median), b1 = to_x(l.limit);
    if (std::isfinite(b0) && std::isfinite(b1))
      s += fmt::format(
          "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: the fleet's band, from the "
          "median ({}) to the outlier limit ({})</title></rect>",
          fleet_px(std::min(b0, b1)), fleet_px(l.top), fleet_px(std::fabs(b1 - b0)), fleet_px(l.height), l.name,
          signed_percent(l.median - 1), signed_percent(l.limit - 1));
  }
  s += "<g class=\"axis\">";
  for (double t : ticks.at) {
    const double step = ticks.at.size() > 1 ? ticks.at[1] - ticks.at[0] : 1;
    const int decimals = step * 100 >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step * 100) - 1e-9));
    const double tx = to_x(t + 1);
    s += fmt::format("<line class=\"gl\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>", fleet_px(tx), fleet_px(kTop),
                     fleet_px(y1));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", fleet_px(tx), fleet_px(y1 + 15),
                     signed_percent(t, decimals));
  }
  s += fmt::format("<line class=\"frame\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", fleet_px(x0), fleet_px(x1),
                   fleet_px(y1));
  s += fmt::format(
      "<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}: a node against the fleet median{}, "
      "over the configurations the fleet shares</text>",
      fleet_px((x0 + x1) / 2), fleet_px(y1 + 36), html_escape(m.metric.title),
      m.gpus.empty() ? "" : "; a GPU against its node's other GPUs");
  s += fmt::format("<text class=\"dir {}\" x=\"{}\" y=\"{}\">← {}</text>", below ? "worse" : "better", fleet_px(x0),
                   fleet_px(kTop - 9), below ? "worse" : "better");
  s += fmt::format("<text class=\"dir {}\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{} →</text>",
                   below ? "better" : "worse", fleet_px(x1), fleet_px(kTop - 9), below ? "better" : "worse");
  for (const Lane& l : lanes) {
    s += fmt::format("<text class=\"lane-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", fleet_px(x0 - 10),
                     fleet_px(l.top + l.height / 2 - 2), l.name);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", fleet_px(x0 - 10),
                     fleet_px(l.top + l.height / 2 + 12), l.points->size());
    if (&l != &lanes.front())
      s += fmt::format("<line class=\"sep\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", fleet_px(x0), fleet_px(x1),
                       fleet_px(l.top - kLaneGap / 2));
  }
  s += "</g>";
  for (const Lane& l : lanes) {
    const double y0 = l.top, ye = l.top + l.height;
    s += fmt::format(
        "<line class=\"median\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"><title>{3}: the fleet median "
        "({4})</title></line>",
        fleet_px(to_x(l.median)), fleet_px(y0), fleet_px(ye), l.name, signed_percent(l.median - 1));
    s += fmt::format(
        "<line class=\"limit\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"><title>{3}: the outlier limit "
        "({4}); beyond it a {5} is an outlier</title></line>",
        fleet_px(to_x(l.limit)), fleet_px(y0), fleet_px(ye), l.name, signed_percent(l.limit - 1),
        l.gpu ? "GPU" : "node");
  }

  // Points, outliers last so nothing covers them; then the outliers' names.
  Labels labels(kLeft, kWidth - 2, 2, height - 2);  // not over the lanes' names
  std::string names;
  for (bool outliers : {false, true})
    for (const Lane& l : lanes)
      for (std::size_t i = 0; i < l.points->size(); ++i) {
        const FleetPoint& p = (*l.points)[i];
        if (!l.drawn[i] || p.outlier != outliers) continue;
        const double cx = l.xs[i], cy = l.top + l.height / 2 + l.offsets[i];
        s += fmt::format(
            "<circle class=\"pt {}{}\" data-node=\"{}\"{} cx=\"{}\" cy=\"{}\" r=\"{}\"><title>{}</title></circle>",
            l.gpu ? "gpu" : "node", p.outlier ? " out" : "", html_escape(p.node),
            l.gpu ? fmt::format(" data-gpu=\"{}\"", html_escape(p.gpu)) : "", fleet_px(cx), fleet_px(cy),
            fleet_px(p.outlier ? l.radius + 1 : l.radius), html_escape(point_title(m, p)));
        if (p.outlier) {
          const std::string host = p.node.empty() ? "unnamed node" : p.node;
          names += labels.place(cx, cy, l.radius + 1, cx >= to_x(l.median),
                                l.gpu ? host + " · " + short_gpu(p.gpu) : host, p.node);
        }
      }
  s += names + "</svg>";
  s += fmt::format(
      "<p class=\"note\">Median {} (robust spread {}) over {} nodes{}. The shaded band reaches from the median to "
      "the outlier limit; a point beyond it is an outlier (red, named).{}</p>",
      signed_percent(m.median - 1), format_percent(m.spread), m.nodes.size(),
      m.gpus.empty() ? std::string()
                     : fmt::format("; GPUs: median {} (spread {}) over {}", signed_percent(m.gpu_median - 1),
                                   format_percent(m.gpu_spread), m.gpus.size()),
      undrawn ? fmt::format(" {} figure{} without a finite value not drawn.", undrawn, undrawn == 1 ? "" : "s") : "");
  return s + "</figure>";
}

}  // namespace rb::reports::fleet_page
