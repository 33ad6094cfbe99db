// The report's first section (issue 55): which strategy and which design won at each (S, c), from a
// hand-built results document of the ring, the all-gather and Ulysses at two c, forward and training
// passes, the ring's backward under both dK/dV designs. Asserted: the section is the first of the page
// and of its nav, the highlighted row of each (S, c, phase) is the fastest measured run, the replay
// column shows the record's own prediction (the model column, the analytic model's price, and its
// flags beyond the noise are test_report_pricing.cpp's), skipped runs are listed without a place among
// the winners, and an (S, c) with one strategy gets one line instead of a table. The first screen in
// Chromium at 1400 px is tests/reports/test_report_strategies_chromium.py.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {
// A namespace of its own: the unity build compiles this file in one unit with test_report_glance.cpp,
// whose helpers have the same names (run, render, part).
namespace strategies_test {

using nlohmann::json;

// One run: its median `ms` ± `noise`% over 6 passes and the model's `model_ms` (null: no model). A
// pass with a backward takes `fwd_ms` as its forward part, which the model is set against.
struct Spec {
  // A constructor, not an aggregate: the rows below leave the trailing fields out, which
  // -Wmissing-field-initializers (-Wextra, an error in CI) refuses of an aggregate.
  Spec(std::int64_t seq_, int cp_, std::string variant_, std::string split_, std::string phase_, std::string dkv_,
       double ms_, double noise_ = 2.0, std::optional<double> model_ms_ = std::nullopt,
       std::optional<double> fwd_ms_ = std::nullopt, std::string status_ = "ok")
      : seq(seq_),
        cp(cp_),
        variant(std::move(variant_)),
        split(std::move(split_)),
        phase(std::move(phase_)),
        dkv(std::move(dkv_)),
        ms(ms_),
        noise(noise_),
        model_ms(model_ms_),
        fwd_ms(fwd_ms_),
        status(std::move(status_)) {}
  std::int64_t seq;
  int cp;
  std::string variant, split, phase, dkv;
  double ms, noise;
  std::optional<double> model_ms, fwd_ms;
  std::string status;
};

json run(const Spec& s) {
  std::string id = fmt::format("s{}-c{}-{}-{}-h8x2-d64-causal-float32-cpu-local", s.seq, s.cp, s.split, s.variant);
  if (s.phase != "fwd") id += "-" + s.phase;
  if (!s.dkv.empty()) id += "-" + s.dkv;
  json cfg = {{"id", id},         {"seq", s.seq},         {"cp", s.cp},     {"split", s.split}, {"variant", s.variant},
              {"heads", 8},       {"kv_heads", 2},        {"head_dim", 64}, {"causal", true},   {"dtype", "float32"},
              {"backend", "cpu"}, {"transport", "local"}, {"seed", 1},      {"repeats", 6},     {"warmup", 1},
              {"link_gbps", 0.0}, {"phase", s.phase}};
  if (!s.dkv.empty()) cfg["dkv"] = s.dkv;
  if (s.variant == "ulysses") cfg["ulysses_degree"] = s.cp;
  json r = {{"config", cfg},          {"status", s.status},  {"reason", nullptr},
            {"correctness", nullptr}, {"timing", nullptr},   {"plan", nullptr},
            {"metrics", nullptr},     {"timeline", nullptr}, {"model", nullptr}};
  if (s.status != "ok") {
    r["reason"] = "seq: S % (2 c) != 0 for ring-bidirectional";
    return r;
  }
  r["correctness"] = {{"checked", true}, {"passed", true}, {"max_abs_err", 1e-7}, {"rows_checked", s.seq}};
  r["timing"] = {{"count", 6}, {"median_ms", s.ms}, {"noise_pct", s.noise}, {"samples_ms", json::array()}};
  for (int i = 0; i < 6; ++i) r["timing"]["samples_ms"].push_back(s.ms);
  if (s.fwd_ms)
    r["timing"]["phase_ms"] = {{"fwd", {{"median_ms", *s.fwd_ms}, {"samples_ms", json::array()}}},
                               {"bwd", {{"median_ms", s.ms - *s.fwd_ms}, {"samples_ms", json::array()}}}};
  if (s.model_ms)
    r["model"] = {{"kind", "ring_simulator"},
                  {"basis",
                   "the median pass's measured per-step compute and transfer times, rescheduled by the "
                   "simulator"},
                  {"pass_ms", *s.model_ms},
                  {"measured_pass_ms", s.fwd_ms.value_or(s.ms)}};
  return r;
}

std::string render(json runs) {
  json doc = {{"schema", kResultsSchema},
              {"schema_version", kResultsSchemaVersion},
              {"tool", {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}}},
              {"host", {{"hostname", "node7"}, {"os", "Linux"}, {"gpus", json::array()}}},
              {"profile", {{"name", "strategies"}}},
              {"runs", std::move(runs)}};
  ResultsFile f;
  validate_results(doc, "synthetic", &f);
  f.path = "synthetic/results.json";
  f.doc = std::move(doc);
  return render_report(f);
}

std::string part(const std::string& html, const std::string& open, const std::string& close) {
  const auto a = html.find(open);
  if (a == std::string::npos) return {};
  const auto b = html.find(close, a);
  return html.substr(a, b == std::string::npos ? std::string::npos : b + close.size() - a);
}

// The ring (both designs), the all-gather and Ulysses at S = 4k, c = 2 and 4, forward and fwd+bwd;
// a skipped ring-bidirectional at c = 4; one lone ring at S = 2k.
std::vector<Spec> specs() {
  return {
      // c = 2, fwd: the all-gather wins. The ring's model is half its time (2.0x, flagged); the
      // all-gather's within its 5% noise; Ulysses has no model.
      {4096, 2, "ring", "zigzag", "fwd", "", 5.0, 2.0, 2.5},
      {4096, 2, "allgather", "zigzag", "fwd", "", 4.0, 5.0, 4.1},
      {4096, 2, "ulysses", "zigzag", "fwd", "", 6.0, 2.0},
      // c = 2, fwd+bwd: the ring under follow wins; the model replays the forward part.
      {4096, 2, "ring", "zigzag", "fwd+bwd", "reverse", 12.0, 2.0, 3.95, 4.0},
      {4096, 2, "ring", "zigzag", "fwd+bwd", "follow", 11.0, 2.0, 8.4, 4.0},
      {4096, 2, "allgather", "zigzag", "fwd+bwd", "", 13.0, 2.0, 3.0, 3.0},
      {4096, 2, "ulysses", "zigzag", "fwd+bwd", "", 14.0, 2.0},
      // c = 4: Ulysses wins both phases; the ring-bidirectional was skipped.
      {4096, 4, "ring", "zigzag", "fwd", "", 3.0, 2.0, 3.0},
      {4096, 4, "allgather", "zigzag", "fwd", "", 3.5},
      {4096, 4, "ulysses", "zigzag", "fwd", "", 2.0, 2.0, 2.01},
      {4096, 4, "ring-bidirectional", "zigzag", "fwd", "", 0, 2.0, std::nullopt, std::nullopt, "skipped"},
      {4096, 4, "ring", "zigzag", "fwd+bwd", "reverse", 8.0, 2.0, 2.0, 2.0},
      {4096, 4, "ring", "zigzag", "fwd+bwd", "follow", 7.5},
      {4096, 4, "allgather", "zigzag", "fwd+bwd", "", 9.0},
      {4096, 4, "ulysses", "zigzag", "fwd+bwd", "", 6.0},
      // S = 2k: one strategy alone.
      {2048, 2, "ring", "zigzag", "fwd", "", 1.0},
  };
}

json runs_of(const std::vector<Spec>& ss) {
  json out = json::array();
  for (const Spec& s : ss) out.push_back(run(s));
  return out;
}

std::string name(const Spec& s) {
  std::string n = s.split + " " + s.variant;
  if (!s.dkv.empty()) n += " " + s.dkv;
  return s.phase == "fwd" ? n : n + " " + s.phase;
}

std::string row_of(const std::string& table, const Spec& s) {
  return part(table, fmt::format("<tr data-phase=\"{}\" data-strategy=\"{}\"", s.phase, name(s)), "</tr>");
}

std::string table_of(const std::string& section, std::int64_t seq, int cp) {
  return part(section, fmt::format("data-seq=\"{}\" data-c=\"{}\">", seq, cp), "</table>");
}

TEST(ReportStrategies, ComesFirstInThePageAndItsNav) {
  const std::string html = render(runs_of(specs()));
  const auto at = html.find("<section id=\"strategies\">");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(html.find("<section"), at) << "another section comes before it";
  EXPECT_LT(at, html.find("<section id=\"summary\">"));
  EXPECT_NE(html.find("<nav><a href=\"#strategies\">strategies</a><a href=\"#summary\">"), std::string::npos);
  const std::string sec = part(html, "<section id=\"strategies\">", "</section>");
  // It says which figures are measured and which modelled, and what the model takes as input.
  for (const char* want : {"<strong>Measured</strong>", "<strong>Modelled</strong>", "runs[].model.pass_ms",
                           "Pricing a measured run", "Replay ms is the record's own model", "no link or rate"})
    EXPECT_NE(sec.find(want), std::string::npos) << want;
}

TEST(ReportStrategies, MarksTheFastestMeasuredRunOfEachSCAndPhase) {
  const std::vector<Spec> ss = specs();
  const std::string sec = part(render(runs_of(ss)), "<section id=\"strategies\">", "</section>");
  // The fastest ok run of each (S, c, phase), where two or more ran.
  std::map<std::tuple<std::int64_t, int, std::string>, std::vector<const Spec*>> ok;
  for (const Spec& s : ss)
    if (s.status == "ok") ok[{s.seq, s.cp, s.phase}].push_back(&s);
  std::size_t compared = 0;
  for (const auto& [key, cands] : ok) {
    if (cands.size() < 2) continue;
    ++compared;
    const auto& [seq, cp, phase] = key;
    const Spec* best = cands.front();
    for (const Spec* s : cands)
      if (s->ms < best->ms) best = s;
    const std::string table = table_of(sec, seq, cp);
    ASSERT_FALSE(table.empty()) << seq << " " << cp;
    for (const Spec* s : cands) {
      const std::string row = row_of(table, *s);
      ASSERT_FALSE(row.empty()) << name(*s);
      EXPECT_EQ(row.find("class=\"win\"") != std::string::npos, s == best) << name(*s) << ": " << row;
    }
  }
  EXPECT_EQ(compared, 4u);  // two c by two phases
  const std::string c2 = table_of(sec, 4096, 2), c4 = table_of(sec, 4096, 4);
  EXPECT_NE(row_of(c2, ss[1]).find("<td class=\"win-mark\">fastest</td>"), std::string::npos);
  EXPECT_NE(row_of(c2, ss[4]).find("class=\"win\""), std::string::npos);   // follow beats reverse at c = 2
  EXPECT_NE(row_of(c4, ss[14]).find("class=\"win\""), std::string::npos);  // Ulysses's fwd+bwd at c = 4
  // How much longer the others took: the ring's 5 ms against the all-gather's 4 ms.
  EXPECT_NE(row_of(c2, ss[0]).find("+25.0%"), std::string::npos) << row_of(c2, ss[0]);
  // The designs and phases are columns, since the table holds several.
  EXPECT_NE(c2.find("<th>dK/dV</th>"), std::string::npos);
  EXPECT_NE(c2.find("<th>phase</th>"), std::string::npos);
  // The skipped run is listed with its status and reason, and is never the winner.
  const std::string skipped = row_of(c4, ss[10]);
  ASSERT_FALSE(skipped.empty()) << c4;
  EXPECT_NE(skipped.find("<td class=\"st-skipped\">skipped</td>"), std::string::npos) << skipped;
  EXPECT_NE(skipped.find("S % (2 c) != 0"), std::string::npos);
  EXPECT_EQ(skipped.find("class=\"win\""), std::string::npos);
}

// The model column is the analytic model's (test_report_pricing.cpp): these runs carry no plan and
// no link, so it says why it is empty; the record's own simulator is the replay column beside it.
TEST(ReportStrategies, ShowsTheRecordsReplayBesideTheModel) {
  const std::vector<Spec> ss = specs();
  const std::string sec = part(render(runs_of(ss)), "<section id=\"strategies\">", "</section>");
  const std::string c2 = table_of(sec, 4096, 2), c4 = table_of(sec, 4096, 4);
  EXPECT_NE(c2.find("<th>model against measured</th>"), std::string::npos) << c2;
  const std::string ring = row_of(c2, ss[0]);
  EXPECT_NE(ring.find("<td class=\"n replay\">2.5</td>"), std::string::npos) << ring;
  EXPECT_NE(ring.find("not priced"), std::string::npos) << ring;
  EXPECT_EQ(ring.find("disagree"), std::string::npos) << ring;
  EXPECT_NE(row_of(c2, ss[1]).find("<td class=\"n replay\">4.1</td>"), std::string::npos);
  // A pass with a backward is replayed on its forward part.
  const std::string follow = row_of(c2, ss[4]);
  EXPECT_NE(follow.find("<td class=\"n replay\">8.4 <span class=\"within\">fwd</span></td>"), std::string::npos)
      << follow;
  // A run without a model of its own has an empty replay cell.
  EXPECT_EQ(row_of(c2, ss[2]).find("class=\"n replay\""), std::string::npos);
  // Below each table, where its link and rate would come from: here, nowhere.
  EXPECT_NE(sec.find("no link: the runs were not paced"), std::string::npos) << sec;
  EXPECT_NE(sec.find("no FLOP rate"), std::string::npos);
  EXPECT_FALSE(c4.empty());
}

// A 2.15.0 record's model is the program simulator over every op of the timed pass: a fwd+bwd row's
// replay is the whole pass (no fwd mark), a bwd row has one, and the note says what it replays.
TEST(ReportStrategies, AProgramSimulatorReplaysTheWholePass) {
  std::vector<Spec> ss = specs();
  json runs = runs_of(ss);
  for (json& r : runs)
    if (r["model"].is_object()) {
      r["model"]["kind"] = "program_simulator";
      r["model"]["basis"] = "the median pass's measured op times, rescheduled as its step program orders them";
    }
  const std::string sec = part(render(runs), "<section id=\"strategies\">", "</section>");
  const std::string follow = row_of(table_of(sec, 4096, 2), ss[4]);
  EXPECT_NE(follow.find("<td class=\"n replay\">8.4</td>"), std::string::npos) << follow;
  EXPECT_EQ(follow.find("<span class=\"within\">fwd</span>"), std::string::npos) << follow;
  EXPECT_NE(sec.find("the program simulator fed with the median pass's measured time of every op"), std::string::npos)
      << sec;
  EXPECT_EQ(sec.find("It replays the forward only"), std::string::npos);
  Spec bwd = ss[4], other = ss[5];
  bwd.phase = other.phase = "bwd";
  bwd.fwd_ms = other.fwd_ms = std::nullopt;  // a bwd record has no forward part
  json only = runs_of({bwd, other});
  for (json& r : only)
    if (r["model"].is_object()) r["model"]["kind"] = "program_simulator";
  const std::string b = part(render(only), "<section id=\"strategies\">", "</section>");
  EXPECT_NE(row_of(table_of(b, 4096, 2), bwd).find("<td class=\"n replay\">8.4</td>"), std::string::npos) << b;
}

TEST(ReportStrategies, AGroupOfOneStrategyGetsOneLine) {
  const std::string sec = part(render(runs_of(specs())), "<section id=\"strategies\">", "</section>");
  EXPECT_TRUE(table_of(sec, 2048, 2).empty()) << "a table of one strategy";
  const std::string line = part(sec, "<p class=\"note\" id=\"strategies-none\">", "</p>");
  EXPECT_NE(line.find("One strategy only, so the sweep compared none here: "), std::string::npos) << sec;
  EXPECT_NE(line.find("S=2k c=2</span> (zigzag ring)"), std::string::npos) << line;
  EXPECT_EQ(line.find("S=4k"), std::string::npos);
  // A sweep of one strategy: the section is that line alone, so the summary is still near the top.
  const std::string lone = part(render(runs_of({{2048, 2, "ring", "zigzag", "fwd", "", 1.0}})),
                                "<section id=\"strategies\">", "</section>");
  EXPECT_EQ(lone.find("<table"), std::string::npos);
  EXPECT_EQ(lone.find("Modelled"), std::string::npos);
  EXPECT_NE(lone.find("id=\"strategies-none\""), std::string::npos);
}

}  // namespace strategies_test
}  // namespace
}  // namespace rb::reports
