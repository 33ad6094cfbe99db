// The report's section on passes with a backward (docs/design.md §3a): each configuration's forward
// and backward side by side (their medians, rates, exposed comm and overlap, the gradients' error),
// and per rank the split of the median pass's attention time between the two, so a rank that waits
// in one direction and not the other shows.
#include <algorithm>

#include <fmt/format.h>

#include "common/flops_unit.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_sections.hpp"

namespace rb::reports {
namespace {

std::string cell(const std::optional<double>& v, const std::string& text) { return num_cell(v, v ? text : ""); }

std::string ms(const std::optional<double>& v) { return cell(v, v ? format_number(*v, 4) : ""); }
std::string pct(const std::optional<double>& v) { return cell(v, v ? format_percent(*v) : ""); }

std::optional<double> gradient_error(const RunRecord& r) {
  if (!r.correctness || !r.correctness->gradients) return std::nullopt;
  std::optional<double> err;
  const RecordGradients& g = *r.correctness->gradients;
  for (const auto* t : {&g.dq, &g.dk, &g.dv})
    if (*t && (*t)->max_abs_err) err = err ? std::max(*err, *(*t)->max_abs_err) : (*t)->max_abs_err;
  return err;
}

// One configuration's per-rank attention time, forward against backward, as bars of one scale.
std::string rank_split(const RunView& r) {
  const RunRecord& rec = r.record;
  auto times = [](const std::optional<RecordMetrics>& m) {
    std::vector<std::optional<double>> out;
    if (m && m->per_rank)
      for (const auto& pr : *m->per_rank) out.push_back(pr.attention_time_ms);
    return out;
  };
  const auto fwd = times(rec.metrics_fwd), bwd = times(rec.metrics_bwd);
  const std::size_t ranks = std::max(fwd.size(), bwd.size());
  if (ranks == 0) return "";
  double top = 0;
  for (const auto* v : {&fwd, &bwd})
    for (const auto& x : *v) top = std::max(top, x.value_or(0));
  if (top <= 0) return "";
  auto bar = [&](const std::optional<double>& x, const char* cls) {
    if (!x) return std::string("<td class=\"na\">not measured</td>");
    return fmt::format(
        "<td><span class=\"bar {}\" style=\"display:inline-block;height:0.8em;width:{:.1f}%\"></span> "
        "{}</td>",
        cls, 100.0 * *x / top, format_number(*x, 3));
  };
  std::string s = fmt::format(
      "<details><summary>{}: attention time per rank (ms), forward and backward</summary>"
      "<table><thead><tr><th>rank</th><th>forward</th><th>backward</th></tr></thead><tbody>",
      html_escape(run_label(r, true)));
  for (std::size_t i = 0; i < ranks; ++i)
    s += fmt::format("<tr><td>{}</td>{}{}</tr>", i, bar(i < fwd.size() ? fwd[i] : std::nullopt, "c0"),
                     bar(i < bwd.size() ? bwd[i] : std::nullopt, "c3"));
  return s + "</tbody></table></details>";
}

}  // namespace

std::string section_backward(const std::vector<RunView>& runs) {
  std::vector<const RunView*> with;
  for (const RunView& r : runs)
    if (r.record.timing.bwd_median_ms || r.record.config.phase != "fwd") with.push_back(&r);
  if (with.empty()) return "";
  // One unit for the table's rates, from the runs' backend as on the console (common/flops_unit.hpp): the
  // cpu backend's read 0.00x in TFLOP/s.
  const FlopsUnit unit = flops_unit_of(with, [](const RunView* r) { return std::string_view(r->backend); });
  const auto rate = [&](std::optional<double> tflops) {
    return format_optional(tflops ? std::optional<double>(unit.of_tflops(*tflops)) : std::nullopt);
  };
  std::string s =
      "<section id=\"backward\"><h2>Forward and backward</h2><p>Passes that time the backward "
      "(<code>--phase bwd</code> or <code>fwd+bwd</code>): each part's median, its per-GPU rate (the backward "
      "counts 2.5 times the forward's FLOPs), its exposed comm and overlap over its own intervals, and the largest "
      "gradient error against the float64 reference (docs/design.md §3a).</p>"
      "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>configuration</th><th>dK/dV</th>"
      "<th>fwd ms</th><th>bwd ms</th><th>bwd / fwd</th>" +
      fmt::format("<th>fwd {0}</th><th>bwd {0}</th>", unit.name) +
      "<th>fwd exposed ms</th><th>bwd exposed ms</th><th>fwd overlap</th><th>bwd overlap</th>"
      "<th>gradient max_err</th></tr></thead><tbody>";
  std::string ranks;
  for (const RunView* r : with) {
    const RunRecord& rec = r->record;
    const auto& t = rec.timing;
    const std::optional<double> ratio = t.fwd_median_ms && t.bwd_median_ms && *t.fwd_median_ms > 0
                                            ? std::optional<double>(*t.bwd_median_ms / *t.fwd_median_ms)
                                            : std::nullopt;
    const std::string design = rec.plan.backward ? rec.plan.backward->grads : "";
    const auto part = [&](const std::optional<RecordMetrics>& m, auto field) -> std::optional<double> {
      return m ? (*m).*field : std::nullopt;
    };
    const auto gerr = gradient_error(rec);
    s += fmt::format("<tr><td>{}</td><td>{}</td>", html_escape(run_label(*r, true)),
                     html_escape(rec.config.dkv.empty() ? design : rec.config.dkv));
    s += ms(t.fwd_median_ms) + ms(t.bwd_median_ms) + cell(ratio, ratio ? format_number(*ratio, 3) : "");
    s += cell(part(rec.metrics_fwd, &RecordMetrics::attention_tflops),
              rate(part(rec.metrics_fwd, &RecordMetrics::attention_tflops)));
    s += cell(part(rec.metrics_bwd, &RecordMetrics::attention_tflops),
              rate(part(rec.metrics_bwd, &RecordMetrics::attention_tflops)));
    s += ms(part(rec.metrics_fwd, &RecordMetrics::exposed_comm_ms)) +
         ms(part(rec.metrics_bwd, &RecordMetrics::exposed_comm_ms));
    s += pct(part(rec.metrics_fwd, &RecordMetrics::overlap_fraction)) +
         pct(part(rec.metrics_bwd, &RecordMetrics::overlap_fraction));
    s += cell(gerr, gerr ? fmt::format("{:.2e}", *gerr) : "") + "</tr>";
    ranks += rank_split(*r);
  }
  return s + "</tbody></table></div>" + ranks + "</section>";
}

}  // namespace rb::reports
