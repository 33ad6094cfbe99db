// "Which strategy, which design, here?": the report's first section (issue 55), so the page opens on
// the answer a sweep over strategies is run for. One compact table per shape group: the runs of one
// (S, c) that differ only in the strategy — the variant (the hybrid with its group U), the phase, the
// backward's dK/dV design and the split — each with its measured median pass time, the winner of
// each (S, c, phase) highlighted, and beside it the analytic model's price of the same configuration
// (report_pricing.cpp: model/strategy_pricing.hpp over the link and FLOP rate the results give) and,
// in words, where the two disagree by more than the run's noise; then the record's own simulator
// replay. "Fastest at each c" (report_best.cpp) ranks splits and variants over the whole sweep; this
// section is the per-(S, c) detail with the model set beside.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/config_label.hpp"
#include "reports/html/html_text.hpp"
#include "reports/html/report_pricing.hpp"
#include "reports/html/report_sections.hpp"

namespace rb::reports {
namespace {
// A namespace of its own: the unity build (preset ci) compiles this file in one unit with
// report_best.cpp and others whose helpers have the same names (Group, table).
namespace strategy_section {

// Enough tables to cover a nightly sweep's (S, c) without letting a 500-configuration file bury the
// summary beneath them; the rest are counted.
constexpr std::size_t kMaxTables = 24;
constexpr std::size_t kMaxUncompared = 12;  // groups named in the one line of groups that compared nothing
constexpr std::size_t kMaxReason = 90;      // bytes of a skip's or failure's reason shown in the row

struct Group {
  std::int64_t seq = 0;
  int cp = 0;
  std::string shape;                 // "Hq=8 Hkv=2 D=64 causal float32 cpu/local"
  std::vector<const RunView*> runs;  // in sweep order, aliases left out
  std::size_t aliases = 0;           // c = 1 runs recorded as another's measurement (results 2.6.0)
};

// Everything but the strategy: the shape without the variant, its group U, the phase and the dK/dV
// design (the split and S, c are not in a shape label).
std::string shape_without_strategy(const RunView& r) {
  ConfigWords w = words(r.record.config);
  w.variant = {};
  w.ulysses_degree = 0;
  w.phase = {};
  w.dkv = {};
  std::string s = shape_label(w);
  return s.substr(std::min(s.find_first_not_of(' '), s.size()));
}

const std::string& phase_of(const RunView& r) { return r.record.config.phase; }

int phase_order(const std::string& p) { return p == "fwd" ? 0 : p == "bwd" ? 1 : p == "fwd+bwd" ? 2 : 3; }

bool measured(const RunView& r) {
  return r.status == "ok" && r.median_ms && std::isfinite(*r.median_ms) && *r.median_ms > 0;
}

std::string strategy_name(const RunView& r) {
  std::string s = r.split + " " + r.variant;
  if (!r.record.config.dkv.empty()) s += " " + r.record.config.dkv;
  if (phase_of(r) != "fwd") s += " " + phase_of(r);
  return s;
}

// The console's noise figure (bench/sweep/progress.cpp: "noise ±x%"): stdev/mean of the timed passes,
// shown only where at least two passes were timed.
std::optional<double> noise_pct(const RunView& r) {
  const RecordTiming& t = r.record.timing;
  if (!r.noise_pct || !std::isfinite(*r.noise_pct) || !t.count || *t.count < 2) return std::nullopt;
  return r.noise_pct;
}

// The record's own model (runs[].model): the program simulator replaying every op of the median
// pass (2.15.0), or, in an older file, the ring simulator replaying its forward steps, so a pass
// with a backward is replayed on its forward part only, and phase bwd not at all.
struct Replay {
  std::optional<double> ms;
  bool forward_part = false;  // the replay is the forward of a longer pass
  bool not_modelled = false;  // phase bwd: it replays no step of what was timed
};

Replay replay(const RunView& r) {
  Replay m;
  if (!r.record.model || !r.record.model->pass_ms || !(*r.record.model->pass_ms > 0) ||
      !std::isfinite(*r.record.model->pass_ms))
    return m;
  m.ms = r.record.model->pass_ms;
  if (r.record.model->kind != "ring_simulator") return m;  // the whole timed pass
  if (phase_of(r) == "bwd") {
    m.ms.reset();
    m.not_modelled = true;
    return m;
  }
  m.forward_part = phase_of(r) != "fwd";
  return m;
}

// The figures one table is priced with: its link and its rate of one rank (report_pricing.hpp).
struct Basis {
  PricedFigure link, peak;
  bool usable() const { return link.value && peak.value; }
};

// "model 2.1× slower than measured" (a longer predicted time) or "model 12% faster than measured";
// "agrees within noise" when the gap is inside the run's noise, which a second sweep could close.
// flagged: the gap is larger than the noise.
std::string disagreement(double model_ms, double measured_ms, std::optional<double> noise, bool& flagged) {
  const double ratio = model_ms / measured_ms, gap = std::fabs(ratio - 1);
  flagged = false;
  if (!noise)
    return fmt::format("model {} of measured (no noise figure: fewer than 2 passes)", format_percent(ratio, 0));
  if (gap * 100 <= *noise) return fmt::format("agrees within noise (\u00b1{}%)", format_number(*noise, 2));
  flagged = true;
  const bool slower = ratio > 1;
  const double factor = slower ? ratio : 1 / ratio;
  const std::string by = factor >= 1.5 ? fmt::format("{:.1f}\u00d7", factor) : format_percent(gap, 0);
  return fmt::format("model {} {} than measured", by, slower ? "slower" : "faster");
}

std::string clip(const std::string& s, std::size_t n) {
  if (s.size() <= n) return s;
  std::size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return s.substr(0, cut) + "\u2026";
}

std::string row(const RunView& r, const RunView* fastest, bool with_dkv, bool with_phase, const Basis& basis) {
  const bool win = fastest == &r;
  std::string s = fmt::format("<tr data-phase=\"{}\" data-strategy=\"{}\"{}><td>{}</td><td>{}</td>",
                              html_escape(phase_of(r)), html_escape(strategy_name(r)), win ? " class=\"win\"" : "",
                              html_escape(r.variant), html_escape(r.split));
  if (with_dkv)
    s += r.record.config.dkv.empty() ? "<td class=\"na\">\u2014</td>"
                                     : "<td>" + html_escape(r.record.config.dkv) + "</td>";
  if (with_phase) s += "<td>" + html_escape(phase_of(r)) + "</td>";
  if (!measured(r)) {
    const std::string why = r.reason.empty() ? std::string(r.status == "ok" ? "no timing recorded" : "") : r.reason;
    return s +
           fmt::format("<td class=\"st-{0}\">{0}</td><td class=\"reason\" colspan=\"4\" title=\"{1}\">{2}</td></tr>",
                       html_escape(r.status), html_escape(why), html_escape(clip(why, kMaxReason)));
  }
  const std::optional<double> noise = noise_pct(r);
  s += fmt::format("<td class=\"n\">{}{}</td>", format_number(*r.median_ms, 4),
                   noise ? fmt::format(" <span class=\"within\">\u00b1{}%</span>", format_number(*noise, 2)) : "");
  if (win) {
    s += "<td class=\"win-mark\">fastest</td>";
  } else if (fastest) {
    const double pct = (*r.median_ms / *fastest->median_ms - 1) * 100;
    const double worst = std::max(noise.value_or(0), noise_pct(*fastest).value_or(0));
    s += fmt::format("<td class=\"n\">+{}{}</td>", format_percent(pct / 100),
                     pct < worst ? " <span class=\"within\">within noise</span>" : "");
  } else {
    s += "<td class=\"na\">\u2014</td>";
  }
  // The analytic model's price of this run's configuration, against its whole measured pass.
  if (!basis.usable()) {
    s += "<td class=\"na\">\u2014</td><td class=\"na\">not priced: see below the table</td>";
  } else if (const RunPrice p =
                 price_run(r, {.name = "measured", .bytes_per_s = *basis.link.value, .latency_s = 0, .source = ""},
                           *basis.peak.value);
             !p.pass_ms) {
    s += fmt::format("<td class=\"na\">\u2014</td><td class=\"na\">{}</td>", html_escape(p.why_not));
  } else {
    bool flagged = false;
    const std::string verdict = disagreement(*p.pass_ms, *r.median_ms, noise, flagged);
    s += fmt::format(
        "<td class=\"n model\" data-model-ms=\"{}\" title=\"compute {} ms, transfers {} ms, {} bytes per rank\">{}"
        "</td><td class=\"{}\">{}</td>",
        *p.pass_ms, format_number(*p.compute_ms, 4), format_number(*p.transfer_ms, 4), format_number(*p.bytes, 6),
        format_number(*p.pass_ms, 4), flagged ? "disagree" : "agree", verdict);
  }
  const Replay m = replay(r);
  if (m.not_modelled)
    return s + "<td class=\"na\" title=\"the record's simulator replays no backward\">\u2014</td></tr>";
  if (!m.ms) return s + "<td class=\"na\" title=\"no runs[].model.pass_ms in the record\">\u2014</td></tr>";
  return s + fmt::format("<td class=\"n replay\">{}{}</td></tr>", format_number(*m.ms, 4),
                         m.forward_part ? " <span class=\"within\">fwd</span>" : "");
}

std::string table(const Group& g, std::size_t n, const Basis& basis) {
  std::vector<const RunView*> rows = g.runs;
  std::stable_sort(rows.begin(), rows.end(), [](const RunView* a, const RunView* b) {
    const bool ma = measured(*a), mb = measured(*b);
    return std::make_tuple(phase_order(phase_of(*a)), !ma, ma ? *a->median_ms : 0.0) <
           std::make_tuple(phase_order(phase_of(*b)), !mb, mb ? *b->median_ms : 0.0);
  });
  // The winner of each phase: the fastest measured run, where two or more were measured.
  std::map<std::string, std::vector<const RunView*>> by_phase;
  for (const RunView* r : rows)
    if (measured(*r)) by_phase[phase_of(*r)].push_back(r);
  std::set<std::string> phases;
  bool with_dkv = false;
  for (const RunView* r : rows) {
    phases.insert(phase_of(*r));
    with_dkv = with_dkv || !r->record.config.dkv.empty();
  }
  const bool with_phase = phases.size() > 1;
  std::string s = fmt::format(
      "<table class=\"strat\" id=\"strat-table-{}\"{}{} data-seq=\"{}\" data-c=\"{}\"><caption>S={} c={}{} \u00b7 "
      "{}</caption><thead><tr><th>strategy</th><th>split</th>{}{}<th>measured ms</th><th>vs fastest</th>"
      "<th title=\"the analytic model's pass for this configuration (ringbench model's pricing)\">model ms</th>"
      "<th>model against measured</th><th title=\"the record's simulator replaying the median pass's own forward "
      "steps (runs[].model.pass_ms)\">replay ms</th></tr></thead><tbody>",
      n, basis.link.value ? fmt::format(" data-link-bytes-per-s=\"{}\"", *basis.link.value) : std::string(),
      basis.peak.value ? fmt::format(" data-rank-flops=\"{}\"", *basis.peak.value) : std::string(), g.seq, g.cp,
      html_escape(format_tokens(static_cast<double>(g.seq))), g.cp,
      with_phase ? "" : " \u00b7 " + html_escape(*phases.begin()), html_escape(g.shape),
      with_dkv ? "<th>dK/dV</th>" : "", with_phase ? "<th>phase</th>" : "");
  for (const RunView* r : rows) {
    const auto it = by_phase.find(phase_of(*r));
    const RunView* fastest = it != by_phase.end() && it->second.size() > 1 ? it->second.front() : nullptr;
    s += row(*r, fastest, with_dkv, with_phase, basis);
  }
  s += fmt::format(
      "</tbody></table><p class=\"note basis\">Model: link <span title=\"{}\">{}</span>, a rank's "
      "rate <span title=\"{}\">{}</span></p>",
      html_escape(basis.link.detail), html_escape(basis.link.brief), html_escape(basis.peak.detail),
      html_escape(basis.peak.brief));
  return g.aliases ? s + fmt::format("<p class=\"note\">{} more are the same computation at c = 1, measured once.</p>",
                                     g.aliases)
                   : s;
}

// Whether the group compares anything: two runs (any status) of one phase.
bool compares(const Group& g) {
  std::map<std::string, std::size_t> n;
  for (const RunView* r : g.runs)
    if (++n[phase_of(*r)] > 1) return true;
  return false;
}

// What the model columns are and where their inputs came from: each distinct source once.
std::string model_note(const std::vector<const RunView*>& shown, const std::vector<Basis>& bases) {
  std::set<std::string> links, peaks;
  for (const Basis& b : bases) {
    links.insert(b.link.source);
    peaks.insert(b.peak.source);
  }
  auto list = [](const std::set<std::string>& v) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : "; ") + html_escape(x);
    return out;
  };
  std::string s =
      "<p class=\"note\" id=\"strategies-model\"><strong>Modelled</strong>: model ms, the analytic model's pass for "
      "each row's configuration, priced as <code>ringbench model</code> prices a strategy (docs/model.md, "
      "\u201cPricing "
      "a measured run\u201d): the plan's bytes per rank over the link, the plan's pairs per step at one rank's "
      "attention rate (a backward 2.5 times the forward's FLOPs, a fwd+bwd pass both), and the ring simulator's pass "
      "over those steps. Where its two inputs came from (each table's last line says which it used; "
      "<strong>measured</strong> on this machine by the sweep, or configured): the link, ";
  s += list(links) + "; the rate, " + list(peaks) +
       ". Where a table's ranks had fewer CPUs than c, the rate is scaled by CPUs / c. ";
  std::set<std::pair<std::string, std::string>> kinds;  // (kind, basis)
  for (const RunView* r : shown)
    if (r->record.model && r->record.model->pass_ms) kinds.emplace(r->record.model->kind, r->record.model->basis);
  for (const auto& [kind, basis] : kinds) {
    if (kind == "program_simulator")
      s += "Replay ms is the record's own model (runs[].model.pass_ms): the program simulator fed with the "
           "median pass's measured time of every op of its step program, forward and backward, transfers and "
           "all-to-alls, no link or rate; a gap between it and the measurement is scheduling the simulator "
           "leaves out (thread wake-ups, copies contending with compute), one between it and model ms the link "
           "or rate. ";
    else if (kind == "ring_simulator")
      s += "Replay ms is the record's own model (runs[].model.pass_ms), from a file before 2.15.0: the ring "
           "simulator fed with the median pass's measured per-step compute and transfer times, no link or rate. "
           "It replays the forward only (fwd: the forward part of a longer pass; phase bwd none). ";
    else
      s += fmt::format(
          "Replay ms is the record's model of kind \u201c{}\u201d, which the record says is based on: "
          "{}. ",
          html_escape(kind), basis.empty() ? "nothing (no basis recorded)" : html_escape(basis));
  }
  if (kinds.empty()) s += "No run here carries a model of its own (runs[].model.pass_ms): replay ms is empty. ";
  return s + "</p>";
}

std::string render(const std::vector<RunView>& runs) {
  std::map<std::tuple<std::string, std::int64_t, int>, Group> groups;
  for (const RunView& r : runs) {
    Group& g = groups[{shape_without_strategy(r), r.seq, r.cp}];
    g.seq = r.seq;
    g.cp = r.cp;
    g.shape = shape_without_strategy(r);
    if (!r.record.alias_of.empty())
      ++g.aliases;
    else
      g.runs.push_back(&r);
  }
  std::set<std::string> shapes;
  for (const auto& [key, g] : groups) shapes.insert(g.shape);
  // The c = 1 runs of each shape, whose measured forward rate prices that shape (aliases included:
  // one of them holds the measurement).
  std::map<std::string, std::vector<const RunView*>> c1_runs;
  for (const RunView& r : runs)
    if (r.cp == 1) c1_runs[shape_without_strategy(r)].push_back(&r);
  std::string tables, none;
  std::vector<const RunView*> shown;
  std::vector<Basis> bases;
  std::size_t n = 0, left_out = 0, uncompared = 0;
  for (const auto& [key, g] : groups) {
    if (!compares(g)) {
      if (uncompared++ >= kMaxUncompared) continue;
      std::string what;
      for (const RunView* r : g.runs) what += (what.empty() ? "" : ", ") + strategy_name(*r);
      if (g.aliases) what += fmt::format("; at c = 1 the {} others are the same computation", g.aliases);
      none += fmt::format("{}<span title=\"{}\">S={} c={}{}</span> ({})", none.empty() ? "" : "; ",
                          html_escape(g.shape), html_escape(format_tokens(static_cast<double>(g.seq))), g.cp,
                          shapes.size() > 1 ? " " + html_escape(g.shape) : "", html_escape(what));
      continue;
    }
    if (n == kMaxTables) {
      ++left_out;
      continue;
    }
    shown.insert(shown.end(), g.runs.begin(), g.runs.end());
    const auto c1 = c1_runs.find(g.shape);
    bases.push_back({table_link(g.runs),
                     table_peak(g.runs, c1 == c1_runs.end() ? std::vector<const RunView*>{} : c1->second, g.seq,
                                g.cp)});
    tables += table(g, n++, bases.back());
  }
  std::string s = "<section id=\"strategies\"><h2>Which strategy here</h2>";
  if (n > 0) {
    s += "<p class=\"note\">One table per (S, c) and shape: each strategy that ran there (variant, split, the "
         "backward's dK/dV design, phase) side by side. <strong>Measured</strong>: the median pass time \u00b1 its "
         "noise (stdev/mean of the timed passes, the console's \u201cnoise \u00b1\u201d); the highlighted row is the "
         "fastest measured run of its phase, and vs fastest is how much longer the others took (within noise: a "
         "gap a second sweep may reverse). Skipped and failed runs are listed with their status and take no part. "
         "Where model and measurement differ by more than the run's noise, model against measured says so in "
         "orange.</p>";
    s += model_note(shown, bases);
    s += shared_cpus_warning(shown,
                             "The fastest there is the one that waited least for a core, which need not be the one "
                             "that would win on a CPU per rank.");
    s += "<div class=\"grid strat-grid\">" + tables + "</div>";
  }
  if (uncompared > 0)
    s += fmt::format(
        "<p class=\"note\" id=\"strategies-none\">One strategy only, so the sweep compared none here: {}{}.</p>", none,
        uncompared > kMaxUncompared ? fmt::format("; and {} more", uncompared - kMaxUncompared) : "");
  if (left_out)
    s += fmt::format("<p class=\"note\">{} more groups not tabulated (cap); the summary lists every run.</p>",
                     left_out);
  if (n == 0 && uncompared == 0) s += "<p class=\"note\">No configuration ran.</p>";
  return s + "</section>";
}

}  // namespace strategy_section
}  // namespace

std::string section_strategies(const std::vector<RunView>& runs) { return strategy_section::render(runs); }

}  // namespace rb::reports
