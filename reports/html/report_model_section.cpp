// The model's charts with the sweep's configurations marked. Memory per device against c is the
// plate's left-hand chart (docs/design.md §9: Llama 3 405B, t = 8, p = 16, FlashAttention), computed here
// from model/ — reports/ may depend on model/ (docs/design.md §4) — for the plate's S and the sweep's S, with
// the sweep's (S, c) marked. When runs carry a `model` prediction of their own, its numbers are shown
// too, whatever fields it has, so the report keeps up as the model's record grows.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "model/activation_memory.hpp"
#include "model/model_inputs.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"
#include "reports/html/svg_chart.hpp"

namespace rb::reports {
namespace {

constexpr std::int64_t kPlateSeq = 131072;
constexpr std::size_t kMaxModelRows = 60, kMaxModelColumns = 10;

// The run's own memory prediction, if its `model` field has one (GB per device).
std::optional<double> run_model_gb(const RunView& r) {
  return r.record.model ? r.record.model->memory_gb_per_device() : std::nullopt;
}

std::string model_table(const std::vector<RunView>& runs) {
  std::vector<std::pair<const RunView*, std::map<std::string, double>>> rows;
  std::map<std::string, std::size_t> key_count;
  for (const auto& r : runs) {
    if (!r.record.model) continue;
    auto numbers = r.record.model->numbers();
    for (const auto& [k, v] : numbers) ++key_count[k];
    rows.emplace_back(&r, std::move(numbers));
  }
  if (rows.empty())
    return not_measured(
        "No run carries a `model` prediction of its own (runs[].model is null), so the model is "
        "shown only through the chart above.");
  std::vector<std::pair<std::string, std::size_t>> keys(key_count.begin(), key_count.end());
  std::stable_sort(keys.begin(), keys.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (keys.size() > kMaxModelColumns) keys.resize(kMaxModelColumns);
  std::string s =
      "<div class=\"scroll\"><table id=\"model-table\"><caption>The runs' own model predictions "
      "(runs[].model, numeric fields)</caption><thead><tr><th>configuration</th>";
  for (const auto& [k, n] : keys) s += "<th>" + html_escape(k) + "</th>";
  s += "</tr></thead><tbody>";
  for (std::size_t i = 0; i < rows.size() && i < kMaxModelRows; ++i) {
    s += "<tr><td class=\"id\">" + html_escape(rows[i].first->id) + "</td>";
    for (const auto& [k, n] : keys) {
      auto it = rows[i].second.find(k);
      s += it == rows[i].second.end() ? "<td class=\"na\">\u2014</td>"
                                      : "<td class=\"n\">" + format_number(it->second, 4) + "</td>";
    }
    s += "</tr>";
  }
  s += "</tbody></table></div>";
  if (rows.size() > kMaxModelRows)
    s += fmt::format("<p class=\"note\">{} more runs with a model prediction not listed.</p>",
                     rows.size() - kMaxModelRows);
  return s;
}

// Measured pass time against the ring simulator's prediction for the same run (runs[].model.pass_ms),
// with the y = x line: points above it are scheduling overhead the model leaves out.
std::string predicted_vs_measured(const std::vector<RunView>& runs) {
  LineChart c;
  c.id = "model-vs-measured";
  c.title = "model: predicted against measured pass time";
  c.x = Axis("predicted pass time (ms, runs[].model.pass_ms)", Scale::log10);
  c.y = Axis("measured median pass time (ms)", Scale::log10);
  std::map<std::string, Series> by_split;
  double lo = 0, hi = 0;
  for (const auto& r : runs) {
    const double predicted = r.record.model ? r.record.model->pass_ms.value_or(0) : 0;  // 0: none
    if (r.status != "ok" || !r.median_ms || predicted <= 0 || *r.median_ms <= 0) continue;
    auto& ser = by_split[r.split];
    ser.name = r.split;
    ser.lines = false;
    apply_style(ser, split_style(r.split));
    ser.dashed = false;  // points only
    ser.points.push_back({predicted, *r.median_ms,
                          fmt::format("{}: model {} ms, measured {} ms", run_label(r, true),
                                      format_number(predicted, 4), format_number(*r.median_ms, 4))});
    const double a = std::min(predicted, *r.median_ms), b = std::max(predicted, *r.median_ms);
    lo = lo == 0 ? a : std::min(lo, a);
    hi = std::max(hi, b);
  }
  if (by_split.empty()) return {};
  Series diag;
  diag.name = "model = measured";
  diag.dashed = true;
  diag.marker = Marker::none;
  diag.color = 9;
  diag.points = {{lo, lo}, {hi, hi}};
  c.series.push_back(std::move(diag));
  for (auto& [k, ser] : by_split) c.series.push_back(std::move(ser));
  c.note =
      "Each ok run with a model prediction of its own; above the dashed line the run was slower than the model "
      "predicts from its own measured step times.";
  return render_line_chart(c);
}

}  // namespace

std::string section_model(const std::vector<RunView>& runs) {
  const model::ModelInputs in = model::plate_inputs();
  std::set<std::int64_t> seqs{kPlateSeq, 8192};
  std::set<int> cps{1, 2, 4, 8, 16};
  std::set<std::pair<std::int64_t, int>> marked;
  std::set<std::int64_t> run_seqs;
  for (const auto& r : runs) {
    if (r.seq <= 0 || r.cp <= 0) continue;
    run_seqs.insert(r.seq);
    cps.insert(r.cp);
    marked.insert({r.seq, r.cp});
  }
  // The sweep's largest few S, so a wide sweep does not bury the chart in lines.
  for (auto it = run_seqs.rbegin(); it != run_seqs.rend() && seqs.size() < 6; ++it) seqs.insert(*it);
  auto gb = [&](std::int64_t seq, int cp) {
    return model::activation_bytes_per_device(in.memory_row, in.activation_shape(seq), in.layers_per_stage(), cp) / 1e9;
  };
  LineChart c;
  c.id = "model-memory";
  c.title = "model: activation memory per device against c";
  c.x = {"CP degree c", Scale::log2};
  c.y = {"activation memory per device (GB)", Scale::log10};
  int color = 0;
  for (auto it = seqs.rbegin(); it != seqs.rend(); ++it, ++color) {
    Series ser;
    ser.name = fmt::format("S={}{}", format_tokens(static_cast<double>(*it)), *it == kPlateSeq ? " (plate)" : "");
    ser.color = color;
    for (int cp : cps)
      if (cp <= *it)
        ser.points.push_back({static_cast<double>(cp), gb(*it, cp),
                              fmt::format("S={} c={}: {} GB", format_tokens(static_cast<double>(*it)), cp,
                                          format_number(gb(*it, cp), 3))});
    c.series.push_back(std::move(ser));
  }
  Series marks;
  marks.name = "this sweep's (S, c)";
  marks.lines = false;
  marks.marker = Marker::ring;
  marks.color = 9;
  bool from_runs = false;
  for (const auto& [seq, cp] : marked) {
    std::optional<double> own;
    for (const auto& r : runs)
      if (r.seq == seq && r.cp == cp && (own = run_model_gb(r))) break;
    from_runs |= own.has_value();
    const double v = own.value_or(gb(seq, cp));
    marks.points.push_back({static_cast<double>(cp), v,
                            fmt::format("this sweep: S={} c={}: {} GB{}", format_tokens(static_cast<double>(seq)), cp,
                                        format_number(v, 3), own ? " (run's model)" : "")});
  }
  if (!marks.points.empty()) c.series.push_back(std::move(marks));
  c.note = fmt::format(
      "{} (L={}, h={}), t={}, p={} ({} layers per stage), FlashAttention, Korthikanti et al. row {}: "
      "activations of one sequence per device, divided by c (docs/design.md \u00a79, docs/model.md). Rings "
      "mark the sweep's configurations{}.",
      in.shape.name, in.shape.layers, in.shape.hidden, in.tp, in.pp, format_number(in.layers_per_stage(), 4),
      model::to_string(in.memory_row),
      from_runs ? " at their runs' own model predictions where they have one"
                : " at the model's value for their S and c");
  std::string s =
      "<section id=\"model\"><h2>The model</h2><p class=\"note\">What the analytic model predicts for "
      "the plate's model at this sweep's sequence lengths. The plate's right-hand chart, work per rank "
      "by split, is drawn from the plans above (Work per rank).</p><div class=\"grid\">";
  s += render_line_chart(c) + predicted_vs_measured(runs) + "</div>" + model_table(runs);
  return s + "</section>";
}

}  // namespace rb::reports
