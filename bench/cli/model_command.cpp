// `ringbench model`: the analytic model of docs/design.md §9 on the command line. Flags pick a preset shape
// (any field overridable), the parallelism, the points (lists of S and c), the device and the link;
// output is a readable table or, with --json, the report of bench/cli/model_report.hpp.
#include <charconv>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/model_report.hpp"
#include "bench/sweep/environment.hpp"
#include "common/error.hpp"
#include "common/scheme_table.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

struct ModelFlags {
  std::string preset;
  std::string layers, hidden, heads, kv_heads, head_dim;  // overrides, parsed here for clear errors
  std::string tp = "1", pp = "1", micro_batch = "1";
  std::vector<std::string> cp{"1", "2", "4", "8", "16", "32"};
  std::vector<std::string> seq{"131072"};
  std::vector<std::string> split{"contiguous", "zigzag", "striped"};
  std::vector<std::string> variant{"ring", "allgather"};
  std::string link = "ib-ndr", peak = "h100-sxm", efficiency = "0.45", latency_us = "0";
  std::string memory_row = "tp-sp-selective";
  bool no_flash = false, non_causal = false, no_simulate = false, json = false;
};

std::int64_t parse_int(const std::string& flag, const std::string& text, std::int64_t max = INT32_MAX) {
  std::int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) throw InputError(flag, fmt::format("'{}'", text), "must be an integer");
  if (v <= 0) throw InputError(flag, text, "must be a positive integer");
  if (v > max) throw InputError(flag, text, fmt::format("must be at most {}", max));
  return v;
}

// A sequence length: an integer, optionally with a binary suffix k (x 1024) or M (x 1024^2), so
// 128k = 131072 as long-context papers count.
std::int64_t parse_seq(const std::string& text) {
  std::string digits = text;
  std::int64_t scale = 1;
  if (!digits.empty() && (digits.back() == 'k' || digits.back() == 'K'))
    scale = 1024, digits.pop_back();
  else if (!digits.empty() && digits.back() == 'M')
    scale = 1024 * 1024, digits.pop_back();
  std::int64_t v = 0;
  const char* end = digits.data() + digits.size();
  auto [p, ec] = std::from_chars(digits.data(), end, v);
  if (digits.empty() || ec != std::errc() || p != end)
    throw InputError("--seq", fmt::format("'{}'", text), "must be an integer, optionally with a k or M suffix");
  if (v <= 0) throw InputError("--seq", text, "must be a positive integer");
  if (v > (std::int64_t{1} << 40) / scale) throw InputError("--seq", text, "must be at most 2^40 tokens");
  return v * scale;
}

double parse_real(const std::string& flag, const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end) throw InputError(flag, fmt::format("'{}'", text), "must be a number");
  return v;
}

ModelRequest request_from(const ModelFlags& f) {
  ModelRequest req;
  auto& in = req.inputs;
  const bool all_shape = !f.layers.empty() && !f.hidden.empty() && !f.heads.empty() && !f.kv_heads.empty() &&
                         !f.head_dim.empty();
  if (!f.preset.empty())
    in.shape = model::find_model(f.preset, "--preset");
  else if (all_shape)
    in.shape.name = "custom";
  else
    throw InputError("--preset", "(none)",
                     "give a model preset (llama3-8b, llama3-70b, llama3-405b) or all of --layers --hidden --heads "
                     "--kv-heads --head-dim");
  const bool overridden = !f.layers.empty() || !f.hidden.empty() || !f.heads.empty() || !f.kv_heads.empty() ||
                          !f.head_dim.empty();
  if (!f.layers.empty()) in.shape.layers = static_cast<int>(parse_int("--layers", f.layers));
  if (!f.hidden.empty()) in.shape.hidden = static_cast<int>(parse_int("--hidden", f.hidden));
  if (!f.heads.empty()) in.shape.heads = static_cast<int>(parse_int("--heads", f.heads));
  if (!f.kv_heads.empty()) in.shape.kv_heads = static_cast<int>(parse_int("--kv-heads", f.kv_heads));
  if (!f.head_dim.empty()) in.shape.head_dim = static_cast<int>(parse_int("--head-dim", f.head_dim));
  if (overridden && !f.preset.empty()) in.shape.name += " (modified)";
  if (overridden) in.shape.source = "given on the command line";
  in.tp = static_cast<int>(parse_int("--tp", f.tp));
  in.pp = static_cast<int>(parse_int("--pp", f.pp));
  in.micro_batch = static_cast<int>(parse_int("--micro-batch", f.micro_batch));
  in.memory_row = model::parse_memory_row(f.memory_row, "--memory-row");
  in.flash_attention = !f.no_flash;
  in.causal = !f.non_causal;
  in.device = model::parse_device(f.peak, "--peak");
  in.efficiency = parse_real("--efficiency", f.efficiency);
  in.link = model::parse_link(f.link, "--link");
  in.link.latency_s = parse_real("--latency-us", f.latency_us) * 1e-6;
  req.seqs.clear();
  for (const auto& s : f.seq) req.seqs.push_back(parse_seq(s));
  req.cps.clear();
  for (const auto& c : f.cp) req.cps.push_back(static_cast<int>(parse_int("--cp", c, 1 << 20)));
  req.splits.clear();
  for (const auto& s : f.split) req.splits.push_back(parse_split(s, "--split"));
  req.variants.clear();
  for (const auto& v : f.variant) req.variants.push_back(parse_variant(v, "--variant"));
  req.simulate = !f.no_simulate;
  req.memory_limit_bytes = available_memory_bytes() / 10 * 9;
  return req;
}

std::string fraction(const json& v) {
  return v.is_null() ? std::string("-") : fmt::format("{:.1f}%", 100 * v.get<double>());
}

void print_table(const json& rep) {
  const auto& in = rep["inputs"];
  const auto& m = in["model"];
  fmt::print("{}: L={} h={} Hq={} Hkv={} D={}; t={} p={} ({:.3f} layers/stage), b={}, Hq/t={}, Hkv/t={}\n",
             m["name"].get<std::string>(), m["layers"].get<int>(), m["hidden"].get<int>(), m["heads"].get<int>(),
             m["kv_heads"].get<int>(), m["head_dim"].get<int>(), in["tp"].get<int>(), in["pp"].get<int>(),
             in["layers_per_stage"].get<double>(), in["micro_batch"].get<int>(), in["local_heads"].get<int>(),
             in["local_kv_heads"].get<int>());
  fmt::print("memory row {}{}; {} x {:.2f} = {:.1f} TFLOP/s; link {} = {:g} Gb/s per direction; {} K/V\n",
             in["memory_row"].get<std::string>(), in["flash_attention"].get<bool>() ? ", FlashAttention" : "",
             in["device"]["name"].get<std::string>(), in["efficiency"].get<double>(),
             in["device"]["peak_flops"].get<double>() * in["efficiency"].get<double>() / 1e12,
             in["link"]["name"].get<std::string>(), in["link"]["gbps_per_direction"].get<double>(),
             in["kv_dtype"].get<std::string>());
  fmt::print("per device, per layer, forward; GB = 1e9 bytes\n\n");
  std::vector<std::string> splits;
  for (const auto& s : in["splits"]) splits.push_back(s.get<std::string>());
  fmt::print("{:>10} {:>5} {:>11} {:>12} {:>10} {:>10} {:>10}", "S", "c", "act GB/dev", "K/V MB/layer", "xfer ms",
             "attn ms", "xfer/attn");
  for (const auto& s : splits) fmt::print(" {:>11}", "imb " + s.substr(0, 6));
  fmt::print("\n");
  for (const auto& p : rep["points"]) {
    const auto& ring = p["comm_compute"][0];
    // One decimal as the plate prints it; small figures keep three so they do not read as zero.
    const double gb = p["memory"]["gb_per_device"].get<double>();
    fmt::print("{:>10} {:>5} {:>11} {:>12.2f} {:>10.3f} {:>10.3f} {:>10}", p["seq"].get<std::int64_t>(),
               p["cp"].get<int>(), gb >= 1 ? fmt::format("{:.1f}", gb) : fmt::format("{:.3f}", gb),
               ring["bytes_per_layer"].get<double>() / 1e6, ring["transfer_s"].get<double>() * 1e3,
               ring["compute_s"].get<double>() * 1e3, fraction(ring["ratio"]));
    for (const auto& w : p["work"]) fmt::print(" {:>11.2f}", w["imbalance"].get<double>());
    fmt::print("\n");
  }
  if (!rep["points"].empty() && rep["points"][0].contains("simulation")) {
    fmt::print("\nring simulation (ms per layer; exposed comm and idle: the worst rank)\n");
    fmt::print("{:>10} {:>5} {:>11} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10}\n", "S", "c", "split", "variant", "pass",
               "no-comm", "exposed", "overlap", "idle");
    for (const auto& p : rep["points"])
      for (const auto& s : p["simulation"])
        fmt::print("{:>10} {:>5} {:>11} {:>10} {:>10.3f} {:>10.3f} {:>10.3f} {:>9} {:>10.3f}\n",
                   p["seq"].get<std::int64_t>(), p["cp"].get<int>(), s["split"].get<std::string>(),
                   s["variant"].get<std::string>(), s["pass_s"].get<double>() * 1e3,
                   s["pass_without_comm_s"].get<double>() * 1e3, s["exposed_comm_max_s"].get<double>() * 1e3,
                   fraction(s["overlap_fraction"]), s["idle_max_s"].get<double>() * 1e3);
  }
}

}  // namespace

void add_model_command(CLI::App& app, CommandAction& action) {
  auto f = std::make_shared<ModelFlags>();
  auto* cmd = app.add_subcommand(
      "model",
      "Analytic model (docs/design.md §9): activation memory, K/V traffic against attention compute, work per rank "
      "and a ring simulation, per device and per layer");
  cmd->add_option("--preset", f->preset, "Model shape: llama3-8b, llama3-70b, llama3-405b")->type_name("NAME");
  cmd->add_option("--layers", f->layers, "Layers L (overrides the preset)")->type_name("INT");
  cmd->add_option("--hidden", f->hidden, "Hidden size h (overrides the preset)")->type_name("INT");
  cmd->add_option("--heads", f->heads, "Query heads Hq (overrides the preset)")->type_name("INT");
  cmd->add_option("--kv-heads", f->kv_heads, "K/V heads Hkv (overrides the preset)")->type_name("INT");
  cmd->add_option("--head-dim", f->head_dim, "Head dimension D (overrides the preset)")->type_name("INT");
  cmd->add_option("--tp", f->tp, "Tensor parallelism t")->capture_default_str()->type_name("INT");
  cmd->add_option("--pp", f->pp, "Pipeline parallelism p; a stage holds L/p layers")
      ->capture_default_str()
      ->type_name("INT");
  cmd->add_option("--micro-batch", f->micro_batch, "Sequences per micro-batch b")
      ->capture_default_str()
      ->type_name("INT");
  cmd->add_option("--cp", f->cp, "Context-parallel degrees c, comma-separated")
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("INT");
  cmd->add_option("--seq", f->seq, "Sequence lengths S, comma-separated; k = 1024, M = 1024^2")
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("INT[k|M]");
  cmd->add_option("--split", f->split, "Split schemes for work and simulation: " + split_names())
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("NAME");
  cmd->add_option("--variant", f->variant, "Variants to simulate: " + variant_names())
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("NAME");
  cmd->add_option("--link", f->link, "Link: ib-ndr, ib-hdr, nvlink4, pcie5, or Gbit/s per direction")
      ->capture_default_str()
      ->type_name("NAME|GBPS");
  cmd->add_option("--latency-us", f->latency_us, "Latency added to every transfer, microseconds")
      ->capture_default_str()
      ->type_name("US");
  cmd->add_option("--peak", f->peak, "Device: h100-sxm, h200-sxm, a100-sxm, or dense TFLOP/s")
      ->capture_default_str()
      ->type_name("NAME|TFLOPS");
  cmd->add_option("--efficiency", f->efficiency, "Fraction of the peak attention reaches")
      ->capture_default_str()
      ->type_name("FRACTION");
  cmd->add_option("--memory-row", f->memory_row,
                  "Row of Table 2 of arXiv:2205.05198: no-parallel, tp, tp-sp, tp-selective, tp-sp-selective")
      ->capture_default_str()
      ->type_name("NAME");
  cmd->add_flag("--no-flash", f->no_flash, "Count the attention score matrices (no FlashAttention)");
  cmd->add_flag("--non-causal", f->non_causal, "Full (non-causal) attention");
  cmd->add_flag("--no-simulate", f->no_simulate, "Skip the ring simulation");
  cmd->add_flag("--json", f->json, "Write the report as JSON on stdout");
  cmd->callback([f, &action] {
    action = [f] {
      const json rep = model_report(request_from(*f));
      if (f->json)
        fmt::print("{}\n", rep.dump(2));
      else
        print_table(rep);
      return kExitOk;
    };
  });
}

}  // namespace rb::bench
