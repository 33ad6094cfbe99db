// The report's "Samples" section: for each configuration that read a per-sample SM clock (cuda,
// results 1.2.0), its timed samples in the order taken and, beneath them on the same x axis, the
// clock each ran at, with the throttle threshold and the dropped samples marked. A cold start, a
// GPU that heats up, a neighbour's burst: each reads off these two charts at once.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

constexpr int kKept = 0, kDropped = 2, kLimit = 9;  // palette: blue, red, dark grey

struct ClockSamples {
  std::vector<double> ms;
  std::vector<std::optional<double>> mhz;
  std::vector<bool> dropped;
  std::optional<double> threshold, nominal;
  int dropped_count = 0;
  std::string method;
};

// The record's clock paired with its samples by index; nullopt when the run read no clock.
std::optional<ClockSamples> clock_samples(const RunRecord& run) {
  if (!run.sm_clock || run.sm_clock->samples_ms.empty()) return std::nullopt;
  const RecordSmClock& c = *run.sm_clock;
  ClockSamples s;
  s.ms = c.samples_ms;
  s.mhz.assign(s.ms.size(), std::nullopt);
  s.dropped.assign(s.ms.size(), false);
  std::copy_n(c.samples_mhz.begin(), std::min(s.ms.size(), c.samples_mhz.size()), s.mhz.begin());
  for (const std::int64_t i : c.dropped)
    if (i >= 0 && static_cast<std::size_t>(i) < s.ms.size()) {
      s.dropped[static_cast<std::size_t>(i)] = true;
      ++s.dropped_count;
    }
  s.threshold = c.threshold_mhz;
  s.nominal = c.nominal_mhz;
  s.method = c.method;
  return s;
}

// A horizontal line across the samples, drawn as a dashed two-point series.
Series level(const std::string& name, double y, std::size_t n, int color) {
  Series s{name, {{1, y}, {static_cast<double>(std::max<std::size_t>(n, 2)), y}}, true, true, color, Marker::none};
  return s;
}

std::string charts_for(const RunView& r, const ClockSamples& cs) {
  const std::string id = std::to_string(r.index);  // ids from results files are not safe as element ids
  Series kept{"kept", {}, true, false, kKept, Marker::circle};
  Series dropped{"dropped (under the threshold)", {}, false, false, kDropped, Marker::ring};
  Series clock_kept{"SM clock", {}, true, false, kKept, Marker::circle};
  Series clock_dropped{"dropped", {}, false, false, kDropped, Marker::ring};
  for (std::size_t i = 0; i < cs.ms.size(); ++i) {
    const double x = static_cast<double>(i + 1);
    (cs.dropped[i] ? dropped : kept)
        .points.push_back({x, cs.ms[i],
                           fmt::format("sample {}: {:.4g} ms{}", i + 1, cs.ms[i], cs.dropped[i] ? " (dropped)" : "")});
    if (cs.mhz[i])
      (cs.dropped[i] ? clock_dropped : clock_kept)
          .points.push_back({x, *cs.mhz[i],
                             fmt::format("sample {}: {:.0f} MHz{}", i + 1, *cs.mhz[i],
                                         cs.dropped[i] ? " (dropped)" : "")});
  }
  // One chart per quantity over the same x axis: the kept samples joined, the dropped ones marked.
  auto per_sample = [&](const std::string& kind, const char* title, const char* y, const Series& k, const Series& d) {
    LineChart ch;
    ch.id = "samples-" + kind + "-" + id;
    ch.title = title;
    ch.x = Axis("sample");
    ch.y = Axis(y);
    ch.series = {k};
    if (!d.points.empty()) ch.series.push_back(d);
    ch.height = 220;
    return ch;
  };
  const LineChart time = per_sample("ms", "Time per sample, in the order taken", "pass time (ms)", kept, dropped);
  LineChart clock = per_sample("mhz", "SM clock per sample", "MHz", clock_kept, clock_dropped);
  if (cs.threshold)
    clock.series.push_back(level(fmt::format("threshold {:.0f} MHz", *cs.threshold), *cs.threshold, cs.ms.size(),
                                 kDropped));
  if (cs.nominal)
    clock.series.push_back(level(fmt::format("nominal {:.0f} MHz", *cs.nominal), *cs.nominal, cs.ms.size(), kLimit));
  clock.note = clock_kept.points.empty() && clock_dropped.points.empty()
                   ? "No sample's clock could be read (the probes' counters disagreed)."
                   : "How the clock was read: " + (cs.method.empty() ? std::string("not recorded") : cs.method) + ".";
  return fmt::format("<div class=\"samples\" id=\"samples-{}\"><h3>{}{}</h3>{}{}</div>", id,
                     html_escape(run_label(r, true)),
                     cs.dropped_count > 0
                         ? html_escape(fmt::format(": {} of {} samples dropped", cs.dropped_count, cs.ms.size()))
                         : "",
                     render_line_chart(time), render_line_chart(clock));
}

}  // namespace

std::string section_samples(const std::vector<RunView>& runs, const ReportOptions& opt) {
  std::string s =
      "<section id=\"samples\"><h2>Samples and the SM clock</h2><p class=\"note\">Every timed sample of a "
      "configuration that read its GPU's clock, and the clock beneath it. Samples under the throttle "
      "threshold (--throttle-threshold, a share of the clock the runtime reports) are left out of the "
      "statistics and marked; configurations that dropped samples come first.</p>";
  std::vector<std::pair<const RunView*, ClockSamples>> drawn;
  for (const auto& r : runs)
    if (auto cs = clock_samples(r.record)) drawn.emplace_back(&r, std::move(*cs));
  if (drawn.empty())
    return s +
           not_measured(
               "No run read a per-sample SM clock (the CPU backend reads none; results before 1.2.0 "
               "carry none).") +
           "</section>";
  std::stable_sort(drawn.begin(), drawn.end(),
                   [](const auto& a, const auto& b) { return a.second.dropped_count > b.second.dropped_count; });
  const std::size_t shown = std::min(drawn.size(), opt.max_timelines);
  for (std::size_t i = 0; i < shown; ++i) s += charts_for(*drawn[i].first, drawn[i].second);
  if (shown < drawn.size())
    s += fmt::format(
        "<p class=\"note\">{} more configurations read a clock; --max-timelines limits how many are "
        "drawn.</p>",
        drawn.size() - shown);
  return s + "</section>";
}

}  // namespace rb::reports
