// Lane charts of per-rank timelines. Bars are grouped by colour so the markup carries each class
// once; coordinates are rounded to 0.1 px to keep a 4096-interval pass in a few hundred kilobytes.
#include "reports/html/svg_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

constexpr double kLabelW = 92, kRight = 14, kTop = 6, kAxisH = 38;

std::string timeline_px(double v) { return format_number(std::round(v * 10) / 10, 6); }

// Lanes in the order a reader expects: compute above comm, anything else after, alphabetically.
int lane_rank(const std::string& lane) {
  if (lane == "compute") return 0;
  if (lane == "comm") return 1;
  return 2;
}

// Fixed colours for the names the executors emit, so every timeline in a report agrees.
int name_color(const std::string& name, std::map<std::string, int>& extra) {
  // step_skipped marks a step with no unmasked pair (docs/design.md §3c).
  static const std::map<std::string, int> known{{"attention", 0},    {"merge", 1},   {"kv_recv", 2},
                                                {"kv_allgather", 3}, {"kv_send", 4}, {"step_skipped", 9}};
  if (auto it = known.find(name); it != known.end()) return it->second;
  auto [it, inserted] = extra.try_emplace(name, 5 + static_cast<int>(extra.size()) % 5);
  return it->second;
}

// Names and lanes label rows and tooltips; a hostile record's megabyte name would be copied into
// every bar's tooltip.
std::string clipped(std::string s) {
  constexpr std::size_t kMaxLabel = 120;
  if (s.size() <= kMaxLabel) return s;
  std::size_t cut = kMaxLabel;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // keep UTF-8 whole
  s.resize(cut);
  return s + "\u2026";
}

// A time in ms to the nanosecond, without trailing zeros: 1.2345 ms, not 1.23 or 1.234500.
std::string exact_ms(double ms) {
  std::string s = fmt::format("{:.6f}", ms);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// The hover text of one bar: what ran, then its exact begin, end and duration, then the bytes moved.
std::string bar_title(int rank, const std::string& name, const std::string& kind, int step, std::int64_t bytes,
                      double begin, double end) {
  std::string s = fmt::format("r{} {}", rank, name);
  if (!kind.empty() && kind != name) s += fmt::format(" ({})", kind);
  if (step >= 0) s += fmt::format(", step {}", step);
  s += fmt::format("\nbegin {} ms, end {} ms, duration {} ms", exact_ms(begin), exact_ms(end), exact_ms(end - begin));
  if (bytes > 0) s += fmt::format("\n{} bytes", bytes);
  return s;
}

}  // namespace

std::string render_timeline_chart(const TimelineChart& c) {
  const double x0 = kLabelW, x1 = c.width - kRight;
  const double plot_h = static_cast<double>(c.rows.size()) * c.row_height;
  const double height = kTop + plot_h + kAxisH;
  const Ticks ticks = make_ticks(0, c.window_ms > 0 ? c.window_ms : 1, Scale::linear, 8);
  const double span = ticks.hi > 0 ? ticks.hi : 1;
  auto xmap = [&](double ms) { return x0 + (x1 - x0) * std::clamp(ms / span, 0.0, 1.0); };
  std::string s = fmt::format(
      "<figure class=\"chart timeline\"{} style=\"width:{}px\">{}<svg viewBox=\"0 0 {} {}\" width=\"{}\" "
      "height=\"{}\" role=\"img\" aria-label=\"{}\"><g class=\"axis\">",
      c.id.empty() ? "" : fmt::format(" id=\"{}\"", html_escape(c.id)), c.width,
      c.title.empty() ? "" : "<figcaption>" + html_escape(c.title) + "</figcaption>", c.width, timeline_px(height),
      c.width, timeline_px(height), html_escape(c.title.empty() ? std::string("per-rank timeline") : c.title));
  for (double t : ticks.at) {
    const double x = xmap(t);
    s += fmt::format(
        "<line class=\"gl\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/><text x=\"{0}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>",
        timeline_px(x), timeline_px(kTop), timeline_px(kTop + plot_h + 4), timeline_px(kTop + plot_h + 16),
        format_number(t, 3));
  }
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const double y = kTop + static_cast<double>(r) * c.row_height;
    if (r < c.row_starts_group.size() && c.row_starts_group[r] && r > 0)
      s += fmt::format("<line class=\"frame\" x1=\"0\" x2=\"{}\" y1=\"{}\" y2=\"{}\"/>", timeline_px(x1),
                       timeline_px(y), timeline_px(y));
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", timeline_px(x0 - 6),
                     timeline_px(y + c.row_height * 0.72), html_escape(c.rows[r]));
  }
  s += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">time in the pass (ms)</text></g>",
                   timeline_px((x0 + x1) / 2), timeline_px(kTop + plot_h + 32));
  std::map<std::pair<int, bool>, std::vector<const TimelineBar*>> by_color;
  for (const auto& b : c.bars) by_color[{b.color, b.planned}].push_back(&b);
  for (const auto& [key, bars] : by_color) {
    s += fmt::format("<g class=\"c{}{}\">", key.first % 10, key.second ? " planned" : "");
    for (const auto* b : bars) {
      // A short interval still gets a bar one can see and hover; one near the end grows leftwards.
      const double xa = xmap(b->begin_ms), xb = xmap(b->end_ms);
      const double w = std::max(kMinTimelineBarPx, xb - xa), x = std::max(x0, std::min(xa, x1 - w));
      s += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>",
                       timeline_px(x), timeline_px(kTop + b->row * c.row_height + 2), timeline_px(w), c.row_height - 4,
                       html_escape(b->title));
    }
    s += "</g>";
  }
  s += "</svg><ul class=\"legend\">";
  for (const auto& [color, name] : c.legend)
    s += fmt::format("<li><span class=\"sw c{}\"></span>{}</li>", color % 10, html_escape(name));
  s += "</ul>";
  if (!c.note.empty()) s += "<p class=\"note\">" + html_escape(c.note) + "</p>";
  return s + "</figure>";
}

bool timeline_from_run(const RunRecord& run, TimelineChart& out) {
  if (!run.timeline) return false;
  const RecordTimeline& tl = *run.timeline;
  struct Iv {
    int rank, step;
    std::string lane, name, kind;
    std::int64_t bytes;
    double b, e;
  };
  std::vector<Iv> ivs;
  double end_max = 0;
  const std::size_t usable = tl.intervals.size();
  for (std::size_t i = 0; i < usable && i < kMaxTimelineBars; ++i) {  // the rest counted for the note, not drawn
    const RecordInterval& iv = tl.intervals[i];
    ivs.push_back({iv.rank, iv.step.value_or(-1), clipped(iv.lane), clipped(iv.name), clipped(iv.kind), iv.bytes,
                   iv.begin_ms, iv.end_ms});
    end_max = std::max(end_max, iv.end_ms);
  }
  if (ivs.empty()) return false;
  // The program's schedule of the same pass, for the ranks the measured timeline shows.
  std::set<int> ranks;
  for (const auto& x : ivs) ranks.insert(x.rank);
  std::vector<Iv> planned;
  if (run.model && run.model->timeline)
    for (const RecordInterval& iv : run.model->timeline->intervals)
      if (ranks.count(iv.rank) && planned.size() < kMaxTimelineBars) {
        planned.push_back({iv.rank, iv.step.value_or(-1), clipped(iv.lane), clipped(iv.name), clipped(iv.kind),
                           iv.bytes, iv.begin_ms, iv.end_ms});
        end_max = std::max(end_max, iv.end_ms);
      }
  // Rows: per rank its measured lanes, then its program lanes.
  std::set<std::tuple<int, bool, int, std::string>> lanes;
  for (const auto& x : ivs) lanes.emplace(x.rank, false, lane_rank(x.lane), x.lane);
  for (const auto& x : planned) lanes.emplace(x.rank, true, lane_rank(x.lane), x.lane);
  std::map<std::tuple<int, bool, std::string>, int> row_of;
  TimelineChart c;
  int prev_rank = -1;
  for (const auto& [rank, program, order, lane] : lanes) {
    row_of[{rank, program, lane}] = static_cast<int>(c.rows.size());
    c.rows.push_back(fmt::format("r{} {}{}", rank, lane, program ? "\u00b7program" : ""));
    c.row_starts_group.push_back(rank != prev_rank);
    prev_rank = rank;
  }
  std::map<std::string, int> extra;
  std::map<int, std::string> legend;
  for (const bool program : {false, true})
    for (const auto& x : program ? planned : ivs) {
      const int color = name_color(x.name, extra);
      legend.emplace(color, x.name);
      std::string title = bar_title(x.rank, x.name, x.kind, x.step, x.bytes, x.b, x.e);
      if (program) title.insert(title.find('\n'), ", as the program schedules it");
      c.bars.push_back({row_of[{x.rank, program, x.lane}], x.b, x.e, color, std::move(title), program});
    }
  for (const auto& [color, name] : legend) c.legend.emplace_back(color, name);
  c.window_ms = std::max(tl.window_ms.value_or(0), end_max);
  if (usable > kMaxTimelineBars)
    c.note = fmt::format("Drawn: the first {} of the {} intervals in the record (a timeline draws at most {}).",
                         kMaxTimelineBars, usable, kMaxTimelineBars);
  else if (tl.truncated)
    c.note = "The record keeps the first intervals of this pass only (truncated); the rest are not drawn.";
  if (!planned.empty())
    c.note += std::string(c.note.empty() ? "" : " ") +
              "Pale rows (\u00b7program): the same ops where the step program puts them with their measured "
              "lengths (runs[].model.timeline); a measured bar later than its pale one waited on more than the "
              "program requires.";
  out = std::move(c);
  return true;
}

}  // namespace rb::reports
