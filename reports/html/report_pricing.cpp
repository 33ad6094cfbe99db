// The model's price of a measured run (see report_pricing.hpp). Nothing here prices anything itself:
// the record's plan becomes model::StrategyWork, its configuration model::ModelInputs, and
// model::price_phase does the rest, as `ringbench model` does from a work matrix.
#include "reports/html/report_pricing.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"
#include "model/comm_compute.hpp"
#include "model/strategy_pricing.hpp"
#include "reports/html/html_text.hpp"

namespace rb::reports {
namespace {

bool positive(std::optional<double> x) { return x && std::isfinite(*x) && *x > 0; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// The CPUs the ranks had, where fewer than c: each rank's share of one.
double cpu_share(const std::vector<const RunView*>& runs, int cp) {
  int cpus = 0;
  for (const RunView* r : runs) cpus = std::max(cpus, r->cpus);
  return cpus > 0 && cp > cpus ? static_cast<double>(cpus) / cp : 1.0;
}

std::string rate_words(double flops_per_s) {
  return flops_per_s >= 1e12 ? fmt::format("{} TFLOP/s", format_number(flops_per_s / 1e12, 3))
                             : fmt::format("{} GFLOP/s", format_number(flops_per_s / 1e9, 3));
}

}  // namespace

PricedFigure table_link(const std::vector<const RunView*>& runs) {
  PricedFigure f;
  for (const RunView* r : runs)
    if (r->record.config.link_gbps && *r->record.config.link_gbps > 0) {
      f.value = *r->record.config.link_gbps * 1e9 / 8;
      f.brief = fmt::format("{} Gbit/s, configured", format_number(*r->record.config.link_gbps, 4));
      f.detail = fmt::format("the runs' paced link, --link-gbps {} (config.link_gbps)",
                             format_number(*r->record.config.link_gbps, 4));
      f.source = "configured: the runs' paced link (--link-gbps, config.link_gbps)";
      return f;
    }
  std::vector<double> bw;
  for (const RunView* r : runs)
    if (r->status == "ok" && positive(r->record.metrics.comm_bandwidth_gbyte_per_s))
      bw.push_back(*r->record.metrics.comm_bandwidth_gbyte_per_s * 1e9);
  if (bw.empty()) {
    f.brief = "none";
    f.source =
        "no link: the runs were not paced (config.link_gbps) and measured no copy bandwidth "
        "(metrics.comm_bandwidth_gbyte_per_s)";
    f.detail = f.source;
    return f;
  }
  f.value = median(bw);
  f.measured = true;
  f.brief = fmt::format("{} GB/s, copies measured", format_number(*f.value / 1e9, 3));
  f.detail = fmt::format(
      "measured: {} GB/s, the median over {} run{} of the bandwidth their transfers' copies "
      "reached (metrics.comm_bandwidth_gbyte_per_s; unpaced)",
      format_number(*f.value / 1e9, 3), bw.size(), bw.size() == 1 ? "" : "s");
  f.source =
      "measured: the median over a table's runs of the bandwidth their transfers' copies reached "
      "(metrics.comm_bandwidth_gbyte_per_s), the runs being unpaced";
  return f;
}

std::optional<double> measured_forward_rate(const RunView& r) {
  if (r.status != "ok" || !r.record.plan.present) return std::nullopt;
  const std::string& phase = r.record.config.phase;
  std::optional<double> flops, ms;
  if (phase == "fwd") {
    flops = r.record.plan.flops;
    ms = r.median_ms;
  } else if (phase == "fwd+bwd") {
    flops = r.record.plan.forward_flops;
    ms = r.record.timing.fwd_median_ms;
  }
  if (!positive(flops) || !positive(ms)) return std::nullopt;
  return *flops / (*ms * 1e-3);
}

PricedFigure table_peak(const std::vector<const RunView*>& runs, const std::vector<const RunView*>& c1_runs,
                        std::int64_t seq, int cp) {
  PricedFigure f;
  const double share = cpu_share(runs, cp);
  const std::string shared = share < 1
                                 ? fmt::format(", times {} for the ranks' share of the CPUs", format_number(share, 3))
                                 : "";
  const std::string shared_brief = share < 1 ? fmt::format(" \u00d7 {} (CPUs shared)", format_number(share, 3)) : "";
  // The c = 1 runs at seq, else at the S nearest it (in ratio).
  std::vector<std::pair<double, double>> rates;  // (distance, rate)
  for (const RunView* r : c1_runs)
    if (const auto rate = measured_forward_rate(*r))
      rates.emplace_back(std::fabs(std::log(static_cast<double>(r->seq) / static_cast<double>(seq))), *rate);
  if (!rates.empty()) {
    const double nearest = std::min_element(rates.begin(), rates.end())->first;
    std::vector<double> at;
    std::int64_t at_seq = seq;
    for (const auto& [d, rate] : rates)
      if (d == nearest) at.push_back(rate);
    for (const RunView* r : c1_runs)
      if (measured_forward_rate(*r) &&
          std::fabs(std::log(static_cast<double>(r->seq) / static_cast<double>(seq))) == nearest)
        at_seq = r->seq;
    const double rate = median(at);
    f.value = rate;
    f.measured = true;
    f.brief = fmt::format("{}, c = 1 run{}", rate_words(rate), shared_brief);
    f.source =
        "measured: the forward attention rate of the shape's c = 1 run (plan FLOPs of the forward / its "
        "forward median; the median of several), at the table's S or the nearest";
    f.detail = fmt::format(
        "measured: {}, the attention rate of the c = 1 run{} of this shape at S={} (plan FLOPs of the forward / "
        "its forward median){}",
        rate_words(rate), at.size() == 1 ? "" : "s (median)", format_tokens(static_cast<double>(at_seq)), shared);
    *f.value *= share;
    return f;
  }
  std::vector<double> probe_ms;
  for (const RunView* r : runs) {
    const RecordTiming& t = r->record.timing;
    if (r->backend == "cpu" && t.machine_probe_version == kMachineProbeFlopsVersion && !t.machine_probe_ms.empty())
      probe_ms.push_back(median(t.machine_probe_ms));
  }
  if (probe_ms.empty()) {
    f.brief = "none";
    f.source =
        "no FLOP rate: no c = 1 run of this shape measured a forward, and no cpu run here recorded the "
        "machine probe (version 2)";
    f.detail = f.source;
    return f;
  }
  const double ms = median(probe_ms);
  const double rate = kMachineProbeFlopsPerThread / (ms * 1e-3);
  f.value = rate * share;
  f.measured = true;
  f.brief = fmt::format("{} per thread, machine probe{}", rate_words(rate), shared_brief);
  f.detail = fmt::format(
      "measured by the machine probe: {} per thread, {} MFLOP over {} ms (median of the runs' "
      "timing.machine_probe_ms){}",
      rate_words(rate), format_number(kMachineProbeFlopsPerThread / 1e6, 4), format_number(ms, 4), shared);
  f.source = fmt::format(
      "measured by the machine probe where the shape has no c = 1 run: its {} MFLOP float32 attention block (D = "
      "64, 64 queries over 4096 keys) per hardware thread, every thread at once, over the median of the table's "
      "runs' timing.machine_probe_ms. A lower bound of the arithmetic rate (the probe's time includes a 4 MiB "
      "copy), and the probe's loop, not ringbench's kernel nor the run's dtype",
      format_number(kMachineProbeFlopsPerThread / 1e6, 4));
  return f;
}

RunPrice price_run(const RunView& r, const model::Link& link, double flops_per_s) {
  RunPrice out;
  const RecordConfig& cfg = r.record.config;
  const RecordPlan& plan = r.record.plan;
  if (!plan.present || !plan.per_rank || plan.per_rank->empty()) {
    out.why_not = "no plan in the record";
    return out;
  }
  const auto& ranks = *plan.per_rank;
  const int cp = r.cp;
  if (static_cast<int>(ranks.size()) != cp || !ranks.front().steps) {
    out.why_not = "the record has no per-step plan (c > 64)";
    return out;
  }
  const int steps = static_cast<int>(ranks.front().steps->size());
  std::vector<std::int64_t> unmasked, recv;
  std::int64_t kv_total = 0;
  for (const auto& rp : ranks) {
    if (!rp.steps || static_cast<int>(rp.steps->size()) != steps) {
      out.why_not = "the record's ranks have different step counts";
      return out;
    }
    for (const auto& st : *rp.steps) {
      unmasked.push_back(st.unmasked_pairs);
      recv.push_back(st.recv_bytes);
      kv_total += st.recv_bytes;
    }
  }
  try {
    model::ModelInputs in;
    in.shape = {.name = "run",
                .layers = 1,
                .hidden = r.heads * r.head_dim,
                .heads = r.heads,
                .kv_heads = r.kv_heads,
                .head_dim = r.head_dim,
                .source = "the run's config"};
    in.causal = r.causal;
    in.kv_dtype = parse_dtype(cfg.dtype, "dtype");
    in.device = {.name = "measured", .peak_flops = flops_per_s, .source = ""};
    in.efficiency = 1.0;  // the rate is one the machine sustained
    in.link = link;
    in.inner_link = link;  // every transfer of the run crosses the same link
    in.node_size = cp;
    const Variant variant = parse_variant(cfg.variant, "variant");
    model::StrategyWork w;
    w.ranks = cp;
    w.steps = steps;
    w.variant = variant;
    w.schedule.steps = steps;
    w.schedule.gathered = variant == Variant::allgather;
    w.schedule.lanes = {KvLane{0, ranks.front().tokens, +1}};
    if (variant == Variant::ring_bidirectional) w.schedule.lanes.push_back(KvLane{0, ranks.front().tokens, -1});
    w.schedule.lane_rows = ranks.front().tokens;
    w.exchange.groups = cp;
    w.exchange.q_heads = r.heads;
    w.exchange.kv_heads = r.kv_heads;
    if (cfg.ulysses_degree && *cfg.ulysses_degree > 1) {
      // The head exchange as the plan made it: its group from the config, its bytes from the plan's
      // totals (what the ranks received beyond the steps' K/V), Q, K, V in and O out in the ratio of
      // their heads.
      const int u = *cfg.ulysses_degree;
      HeadExchange& x = w.exchange;
      x.degree = u;
      x.groups = cp / u;
      x.q_heads = r.heads / u;
      x.kv_heads = r.kv_heads % u == 0 ? r.kv_heads / u : 1;
      x.kv_replicas = r.kv_heads % u == 0 ? 1 : u / r.kv_heads;
      if (!plan.bytes_moved) {
        out.why_not = "the record's plan has no bytes_moved";
        return out;
      }
      const double a2a = static_cast<double>(*plan.bytes_moved - kv_total) / cp;
      const double o_share = static_cast<double>(x.q_heads) / (2.0 * x.q_heads + 2.0 * x.kv_heads);
      x.o_bytes = std::llround(a2a * o_share);
      x.qkv_bytes = std::llround(a2a) - x.o_bytes;
      x.do_bytes = x.o_bytes;
      x.dqkv_bytes = x.qkv_bytes;
    }
    w.unmasked = unmasked;
    w.recv_bytes = recv;
    // The pairs within documents, as a share of the whole sequence's: the plan's forward FLOPs over
    // the closed form's.
    const std::optional<double> fwd_flops = plan.forward_flops   ? plan.forward_flops
                                            : cfg.phase == "fwd" ? plan.flops
                                                                 : std::nullopt;
    const double whole = 4.0 * r.head_dim * r.heads * model::sequence_pairs(r.seq, r.causal);
    const double share = positive(fwd_flops) && whole > 0 ? *fwd_flops / whole : 1.0;
    const Dkv dkv = cfg.dkv.empty() ? Dkv::reverse : parse_dkv(cfg.dkv, "dkv");
    const model::PhasePrice p = model::price_phase(in, r.seq, cp, w, parse_phase(cfg.phase, "phase"), dkv, share);
    out.pass_ms = p.pass_s * 1e3;
    out.compute_ms = p.compute_s * 1e3;
    out.transfer_ms = p.transfer_s * 1e3;
    out.bytes = p.bytes;
  } catch (const std::exception& e) {
    out.why_not = std::string("not priced: ") + e.what();
  }
  return out;
}

}  // namespace rb::reports
