// The strategies section's model column (issue 55): each row's configuration priced by the analytic
// model (reports/html/report_pricing.cpp over model/strategy_pricing) from the run's recorded plan,
// over the link and at the FLOP rate the results give. A hand-built sweep of a contiguous causal ring
// and all-gather at S = 8, c = 2 (n = 4 tokens a rank, Hq = 8, Hkv = 2, D = 64, float32), whose
// plans are written out here: rank 0 computes its diagonal (10 pairs) then nothing, rank 1 its
// diagonal then rank 0's whole block (16), each step after the first receiving one block of K/V
// (4 · 2 · 2 · 64 · 4 = 4096 bytes). Expected passes are worked out from those tables: with a link
// too fast to matter, the ring's pass is the slowest rank's pairs at each step (10 + 16) at the rate.
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/html/html_report.hpp"
#include "reports/results/record_timing.hpp"
#include "reports/results/results_reader.hpp"
#include "reports/results/results_writer.hpp"

namespace rb::reports {
namespace {
namespace pricing_test {

using nlohmann::json;

constexpr double kFlopsPerPair = 4.0 * 64 * 8;         // 4 · D · Hq
constexpr double kSequenceFlops = kFlopsPerPair * 36;  // S(S+1)/2 = 36 pairs
constexpr std::int64_t kBlock = 4 * 2 * 2 * 64 * 4;

json step(int j, std::int64_t pairs, std::int64_t recv) {
  return {{"step", j},          {"sources", json::array()}, {"unmasked_pairs", pairs},
          {"recv_bytes", recv}, {"send_bytes", recv},       {"pairs", {{"full", 0}, {"partial", 0}, {"skip", 0}}}};
}

// The plan of `variant` at c (1 or 2) as its record holds it.
json plan(const std::string& variant, int cp, const std::string& phase) {
  json ranks = json::array();
  if (cp == 1) {
    ranks.push_back({{"rank", 0},
                     {"tokens", 8},
                     {"segments", json::array()},
                     {"unmasked_pairs", 36},
                     {"work", 288},
                     {"recv_bytes", 0},
                     {"steps", json::array({step(0, 36, 0)})}});
  } else if (variant == "allgather") {
    ranks.push_back({{"rank", 0},
                     {"tokens", 4},
                     {"segments", json::array()},
                     {"unmasked_pairs", 10},
                     {"work", 80},
                     {"recv_bytes", kBlock},
                     {"steps", json::array({step(0, 10, kBlock)})}});
    ranks.push_back({{"rank", 1},
                     {"tokens", 4},
                     {"segments", json::array()},
                     {"unmasked_pairs", 26},
                     {"work", 208},
                     {"recv_bytes", kBlock},
                     {"steps", json::array({step(0, 26, kBlock)})}});
  } else {
    ranks.push_back({{"rank", 0},
                     {"tokens", 4},
                     {"segments", json::array()},
                     {"unmasked_pairs", 10},
                     {"work", 80},
                     {"recv_bytes", kBlock},
                     {"steps", json::array({step(0, 10, 0), step(1, 0, kBlock)})}});
    ranks.push_back({{"rank", 1},
                     {"tokens", 4},
                     {"segments", json::array()},
                     {"unmasked_pairs", 26},
                     {"work", 208},
                     {"recv_bytes", kBlock},
                     {"steps", json::array({step(0, 10, 0), step(1, 16, kBlock)})}});
  }
  const double factor = phase == "fwd" ? 1.0 : phase == "bwd" ? 2.5 : 3.5;
  json p = {{"work_imbalance", cp == 1 ? 1.0 : 208.0 / 144.0},
            {"total_work", 288},
            {"flops", factor * kSequenceFlops},
            {"bytes_moved", cp == 1 ? 0 : 2 * kBlock},
            {"kv_bytes_per_token", 1024},
            {"per_rank", ranks}};
  if (phase != "fwd") p["forward_flops"] = kSequenceFlops;
  return p;
}

// One run: median `ms` ± 2% over 6 passes; `fwd_ms` its forward part under fwd+bwd; a paced link of
// `link_gbps`, or the copies' measured `bandwidth` GB/s; the machine probe's times where given.
json run(const std::string& variant, int cp, const std::string& phase, double ms, std::optional<double> fwd_ms,
         double link_gbps, std::optional<double> bandwidth = std::nullopt,
         std::optional<std::vector<double>> probe_ms = std::nullopt) {
  std::string id = fmt::format("s8-c{}-contiguous-{}-h8x2-d64-causal-float32-cpu-local", cp, variant);
  const bool rotating = phase != "fwd" && variant == "ring";
  if (phase != "fwd") id += "-" + phase;
  if (rotating) id += "-reverse";
  json cfg = {{"id", id},           {"seq", 8},           {"cp", cp},         {"split", "contiguous"},
              {"variant", variant}, {"heads", 8},         {"kv_heads", 2},    {"head_dim", 64},
              {"causal", true},     {"dtype", "float32"}, {"backend", "cpu"}, {"transport", "local"},
              {"seed", 1},          {"repeats", 6},       {"warmup", 1},      {"link_gbps", link_gbps},
              {"phase", phase}};
  if (rotating) cfg["dkv"] = "reverse";
  json timing = {{"count", 6}, {"median_ms", ms}, {"noise_pct", 2.0}, {"samples_ms", json::array()}};
  for (int i = 0; i < 6; ++i) timing["samples_ms"].push_back(ms);
  if (fwd_ms)
    timing["phase_ms"] = {{"fwd", {{"median_ms", *fwd_ms}, {"samples_ms", json::array()}}},
                          {"bwd", {{"median_ms", ms - *fwd_ms}, {"samples_ms", json::array()}}}};
  if (probe_ms) {
    timing["machine_probe_version"] = kMachineProbeFlopsVersion;
    timing["machine_probe_ms"] = *probe_ms;
    timing["machine_probe_core_spread"] = json::array();
    for (std::size_t i = 0; i < probe_ms->size(); ++i) timing["machine_probe_core_spread"].push_back(0.0);
  }
  json metrics = nullptr;
  if (bandwidth) metrics = {{"comm_bandwidth_gbyte_per_s", *bandwidth}, {"per_rank", json::array()}};
  return {{"config", cfg},          {"status", "ok"},      {"reason", nullptr},
          {"correctness", nullptr}, {"timing", timing},    {"plan", plan(variant, cp, phase)},
          {"metrics", metrics},     {"timeline", nullptr}, {"model", nullptr}};
}

std::string section(json runs) {
  json doc = {{"schema", kResultsSchema},
              {"schema_version", kResultsSchemaVersion},
              {"tool", {{"name", "ringbench"}, {"version", "0.1.0"}, {"git_sha", "abc123"}}},
              {"host", {{"hostname", "node7"}, {"os", "Linux"}, {"gpus", json::array()}}},
              {"profile", {{"name", "pricing"}}},
              {"runs", std::move(runs)}};
  ResultsFile f;
  validate_results(doc, "synthetic", &f);
  f.path = "synthetic/results.json";
  f.doc = std::move(doc);
  const std::string html = render_report(f);
  const auto a = html.find("<section id=\"strategies\">");
  return a == std::string::npos ? std::string() : html.substr(a, html.find("</section>", a) - a);
}

// The number after `attr="` in the first row whose data-strategy is `name`, or in the table.
std::optional<double> attr_in(const std::string& html, const std::string& from, const std::string& attr) {
  const auto a = html.find(from);
  if (a == std::string::npos) return std::nullopt;
  const auto b = html.find(attr + "=\"", a);
  if (b == std::string::npos || html.find("</tr>", a) < b) return std::nullopt;
  return std::stod(html.substr(b + attr.size() + 2));
}
std::optional<double> model_ms(const std::string& sec, const std::string& strategy) {
  return attr_in(sec, "data-strategy=\"" + strategy + "\"", "data-model-ms");
}

TEST(ReportPricing, EachRowIsPricedAtTheC1RunsRateOverThePacedLink) {
  // The c = 1 run's forward: the sequence's FLOPs in 0.073728 ms, 1 GFLOP/s. The link, 1e6 Gbit/s,
  // moves a block in 33 ps: nothing to see beside the compute.
  const double rate = kSequenceFlops / 0.073728e-3, fwd_ms = 26 * kFlopsPerPair / rate * 1e3;
  ASSERT_NEAR(rate, 1e9, 1e-3);
  const json runs = json::array({run("ring", 1, "fwd", 0.073728, std::nullopt, 1e6),
                                 run("ring", 2, "fwd", 2 * fwd_ms, std::nullopt, 1e6),
                                 run("allgather", 2, "fwd", fwd_ms, std::nullopt, 1e6),
                                 run("ring", 2, "fwd+bwd", 3.5 * fwd_ms, fwd_ms, 1e6),
                                 run("allgather", 2, "fwd+bwd", 3.6 * fwd_ms, fwd_ms, 1e6),
                                 run("ring", 2, "bwd", 2.5 * fwd_ms, std::nullopt, 1e6),
                                 run("allgather", 2, "bwd", 2.5 * fwd_ms, std::nullopt, 1e6)});
  const std::string sec = section(runs);
  ASSERT_FALSE(sec.empty());
  EXPECT_NEAR(*attr_in(sec, "<table class=\"strat\"", "data-rank-flops"), rate, rate * 1e-9);
  EXPECT_NEAR(*attr_in(sec, "<table class=\"strat\"", "data-link-bytes-per-s"), 1e6 * 1e9 / 8, 1);
  // Forward: the slowest rank's pairs at each step, 10 then 16; the all-gather's one step, 26.
  EXPECT_NEAR(*model_ms(sec, "contiguous ring"), fwd_ms, fwd_ms * 1e-6);
  const double gather_ms = kBlock / (1e6 * 1e9 / 8) * 1e3;  // nothing hides the all-gather's transfers
  EXPECT_NEAR(*model_ms(sec, "contiguous allgather"), fwd_ms + gather_ms, fwd_ms * 1e-9);
  // The backward is modelled: 2.5 times the forward's FLOPs, and fwd+bwd both one after the other.
  EXPECT_NEAR(*model_ms(sec, "contiguous ring reverse bwd"), 2.5 * fwd_ms, fwd_ms * 1e-6);
  EXPECT_NEAR(*model_ms(sec, "contiguous ring reverse fwd+bwd"), 3.5 * fwd_ms, fwd_ms * 1e-6);
  // The all-gather's: the forward's gather, the backward's again and its reduce-scatter.
  EXPECT_NEAR(*model_ms(sec, "contiguous allgather fwd+bwd"), 3.5 * fwd_ms + 3 * gather_ms, fwd_ms * 1e-9);
  // The ring's forward took twice the model's time (± 2%): flagged. The rest agree within the noise.
  const auto ring = sec.find("data-strategy=\"contiguous ring\"");
  const std::string ring_row = sec.substr(ring, sec.find("</tr>", ring) - ring);
  EXPECT_NE(ring_row.find("<td class=\"disagree\">model 2.0\u00d7 faster than measured</td>"), std::string::npos)
      << ring_row;
  const auto bwd = sec.find("data-strategy=\"contiguous ring reverse bwd\"");
  EXPECT_NE(sec.substr(bwd, sec.find("</tr>", bwd) - bwd).find("agrees within noise"), std::string::npos);
  // Where the inputs came from, and that both are measured or configured, not presets.
  EXPECT_NE(sec.find("paced link, --link-gbps 1000000 (config.link_gbps)"), std::string::npos) << sec;
  EXPECT_NE(sec.find("1 GFLOP/s, c = 1 run"), std::string::npos);
  EXPECT_NE(sec.find("the attention rate of the c = 1 run of this shape at S=8"), std::string::npos);
  EXPECT_NE(sec.find("configured: the runs&#39; paced link"), std::string::npos);
}

TEST(ReportPricing, WithoutAC1RunTheRateIsTheMachineProbesAndTheLinkTheCopiesMeasured) {
  // No c = 1 run: the probe's 67.1 MFLOP per thread in a median of 5 ms. No paced link: the
  // copies' 10 GB/s.
  const std::vector<double> probe{4.0, 5.0, 6.0};
  const json runs = json::array({run("ring", 2, "fwd", 1.0, std::nullopt, 0.0, 10.0, probe),
                                 run("allgather", 2, "fwd", 1.0, std::nullopt, 0.0, 10.0, probe)});
  const std::string sec = section(runs);
  const double rate = 4.0 * 64 * 64 * 4096 / 5e-3;
  EXPECT_NEAR(*attr_in(sec, "<table class=\"strat\"", "data-rank-flops"), rate, rate * 1e-9);
  EXPECT_NEAR(*attr_in(sec, "<table class=\"strat\"", "data-link-bytes-per-s"), 1e10, 1);
  // The ring: step 0's 10 pairs while the block (4096 B at 10 GB/s: 0.41 µs, less than the step's
  // 1.5 µs) arrives, then 16.
  const double want = 26 * kFlopsPerPair / rate * 1e3;
  EXPECT_NEAR(*model_ms(sec, "contiguous ring"), want, want * 1e-6);
  // The all-gather: the gather, nothing under it, then rank 1's 26 pairs.
  const double gather = 26 * kFlopsPerPair / rate * 1e3 + kBlock / 1e10 * 1e3;
  EXPECT_NEAR(*model_ms(sec, "contiguous allgather"), gather, gather * 1e-6);
  EXPECT_NE(sec.find("machine probe"), std::string::npos);
  EXPECT_NE(sec.find("A lower bound of the arithmetic rate"), std::string::npos);
  EXPECT_NE(sec.find("copies measured"), std::string::npos);
}

TEST(ReportPricing, ARunWithoutAPlanOrALinkIsNotPricedAndSaysWhy) {
  json runs = json::array({run("ring", 2, "fwd", 1.0, std::nullopt, 0.0),
                           run("allgather", 2, "fwd", 1.0, std::nullopt, 0.0)});
  const std::string sec = section(runs);
  EXPECT_EQ(sec.find("data-model-ms"), std::string::npos);
  EXPECT_NE(sec.find("not priced"), std::string::npos);
  EXPECT_NE(sec.find("no link: the runs were not paced"), std::string::npos);
  EXPECT_NE(sec.find("no FLOP rate"), std::string::npos);
}

}  // namespace pricing_test
}  // namespace
}  // namespace rb::reports
