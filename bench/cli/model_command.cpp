// `ringbench model`: the analytic model of docs/design.md §9 on the command line. Flags pick a preset shape
// (any field overridable), the parallelism, the points (lists of S and c), the device and the link;
// output is a readable table or, with --json, the report of bench/cli/model_report.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/cli/command.hpp"
#include "bench/cli/model_report.hpp"
#include "bench/cli/number_flag.hpp"
#include "bench/sweep/environment.hpp"
#include "bench/sweep/profile.hpp"
#include "common/console.hpp"
#include "common/error.hpp"
#include "common/json_output.hpp"
#include "common/scheme_table.hpp"
#include "common/strict_number.hpp"
#include "common/token_count.hpp"
#include "model/presets.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

struct ModelFlags {
  std::string preset;
  std::optional<int> layers, hidden, heads, kv_heads, head_dim;  // overrides of the preset
  int tp = 1, pp = 1, micro_batch = 1;
  std::vector<int> cp{1, 2, 4, 8, 16, 32};
  std::vector<std::int64_t> seq{131072};
  std::vector<std::string> split{"contiguous", "zigzag", "striped"};
  std::vector<std::string> variant{"ring", "allgather"};
  std::vector<int> ulysses_degree{2, 4, 8};
  std::string link = "ib-ndr", peak = "h100-sxm";  // a name or a number, read by model/presets
  std::string inner_link = "nvlink4";
  int node_size = 8;
  double efficiency = 0.45, latency_us = 0;
  std::string memory_row = "tp-sp-selective";
  std::string phase = "fwd";
  std::string documents = "none";
  std::uint64_t seed = 1;
  bool no_flash = false, no_causal = false, no_simulate = false, json = false;
};

constexpr std::int64_t kMaxInt = INT32_MAX;

// A sequence length: a whole number of tokens, optionally with a binary suffix k (x 1024), M or G
// (common/token_count.hpp), so 128k = 131072 as long-context papers count, and 1.5k = 1536.
std::int64_t parse_seq(const std::string& text) { return parse_token_count(text, "--seq", kMaxSeq); }

ModelRequest request_from(const ModelFlags& f) {
  ModelRequest req;
  auto& in = req.inputs;
  const bool all_shape = f.layers && f.hidden && f.heads && f.kv_heads && f.head_dim;
  if (!f.preset.empty())
    in.shape = model::find_model(f.preset, "--preset");
  else if (all_shape)
    in.shape.name = "custom";
  else
    throw InputError("--preset", "(none)",
                     "give a model preset (llama3-8b, llama3-70b, llama3-405b) or all of --layers --hidden --heads "
                     "--kv-heads --head-dim");
  const bool overridden = f.layers || f.hidden || f.heads || f.kv_heads || f.head_dim;
  in.shape.layers = f.layers.value_or(in.shape.layers);
  in.shape.hidden = f.hidden.value_or(in.shape.hidden);
  in.shape.heads = f.heads.value_or(in.shape.heads);
  in.shape.kv_heads = f.kv_heads.value_or(in.shape.kv_heads);
  in.shape.head_dim = f.head_dim.value_or(in.shape.head_dim);
  if (overridden && !f.preset.empty()) in.shape.name += " (modified)";
  if (overridden) in.shape.source = "given on the command line";
  in.tp = f.tp;
  in.pp = f.pp;
  in.micro_batch = f.micro_batch;
  in.memory_row = model::parse_memory_row(f.memory_row, "--memory-row");
  in.flash_attention = !f.no_flash;
  in.causal = !f.no_causal;
  in.device = model::parse_device(f.peak, "--peak");
  in.efficiency = f.efficiency;
  in.link = model::parse_link(f.link, "--link");
  in.link.latency_s = f.latency_us * 1e-6;
  in.inner_link = model::parse_link(f.inner_link, "--inner-link");
  in.inner_link.latency_s = f.latency_us * 1e-6;
  in.node_size = f.node_size;
  req.ulysses_degrees = f.ulysses_degree;
  req.seqs = f.seq;
  req.cps = f.cp;
  req.splits.clear();
  for (const auto& s : f.split) req.splits.push_back(parse_split(s, "--split"));
  req.documents = parse_document_spec(f.documents, "--documents");
  req.seed = f.seed;
  req.variants.clear();
  for (const auto& v : f.variant) req.variants.push_back(parse_variant(v, "--variant"));
  req.simulate = !f.no_simulate;
  req.phase = parse_phase(f.phase, "--phase");
  req.memory_limit_bytes = available_memory_bytes() / 10 * 9;
  return req;
}

std::string fraction(const json& v) {
  return v.is_null() ? std::string("-") : fmt::format("{:.1f}%", 100 * v.get<double>());
}

std::string ms(const json& v) { return v.is_null() ? std::string("-") : fmt::format("{:.3f}", v.get<double>() * 1e3); }

// Each strategy's traffic and time at each point, then where each wins (docs/model.md, "Strategies").
void print_strategies(const json& rep) {
  const auto& in = rep["inputs"];
  print_quietly(stdout,
                fmt::format("\nstrategies (per device, per layer, forward; simulated under {}; all-to-alls "
                            "within a node of {} over {}, beyond it and every K/V ring over {})\n",
                            rep["points"][0]["strategies"]["split"].get<std::string>(), in["node_size"].get<int>(),
                            in["inner_link"]["name"].get<std::string>(), in["link"]["name"].get<std::string>()));
  std::vector<std::pair<std::string, std::string>> formulas;
  for (const auto& s : rep["points"][0]["strategies"]["list"]) {
    const auto name = s["name"].get<std::string>();
    if (std::none_of(formulas.begin(), formulas.end(), [&](const auto& f) { return f.first == name; }))
      formulas.emplace_back(name, s["formula"].get<std::string>());
  }
  for (const auto& [name, f] : formulas) print_quietly(stdout, fmt::format("  {:<12} {}\n", name, f));
  print_quietly(stdout, fmt::format("{:>10} {:>5} {:>12} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "S", "c",
                                    "strategy", "a2a MB", "K/V MB", "a2a ms", "K/V ms", "exposed", "pass"));
  for (const auto& p : rep["points"])
    for (const auto& s : p["strategies"]["list"]) {
      const auto head = fmt::format("{:>10} {:>5} {:>12}", p["seq"].get<std::int64_t>(), p["cp"].get<int>(),
                                    s["name"].get<std::string>());
      if (!s["possible"].get<bool>()) {
        print_quietly(stdout, fmt::format("{} not possible: {}\n", head, s["reason"].get<std::string>()));
        continue;
      }
      print_quietly(stdout, fmt::format("{} {:>10.2f} {:>10.2f} {:>10.3f} {:>10.3f} {:>10} {:>10}\n", head,
                                        s["alltoall"]["bytes_per_layer"].get<double>() / 1e6,
                                        s["kv"]["bytes_per_layer"].get<double>() / 1e6,
                                        s["alltoall"]["transfer_s"].get<double>() * 1e3,
                                        s["kv"]["transfer_s"].get<double>() * 1e3,
                                        ms(s.value("exposed_comm_max_s", json())), ms(s.value("pass_s", json()))));
    }
  // Where each wins: one row per S, one column per c; "fastest / fewest bytes".
  const auto& rows = rep["crossover"]["rows"];
  print_quietly(stdout, fmt::format("\nwhere each strategy wins (simulated pass / fewest bytes)\n{:>10}", "S \\ c"));
  for (const auto& c : rows[0]["cp"]) print_quietly(stdout, fmt::format(" {:>25}", c.get<int>()));
  print_quietly(stdout, "\n");
  auto name = [](const json& v) { return v.is_null() ? std::string("-") : v.get<std::string>(); };
  for (const auto& row : rows) {
    print_quietly(stdout, fmt::format("{:>10}", row["seq"].get<std::int64_t>()));
    for (std::size_t i = 0; i < row["cp"].size(); ++i)
      print_quietly(stdout, fmt::format(" {:>25}", name(row["fastest"][i]) + " / " + name(row["fewest_bytes"][i])));
    print_quietly(stdout, "\n");
  }
}

void print_table(const json& rep) {
  const auto& in = rep["inputs"];
  const auto& m = in["model"];
  print_quietly(
      stdout, fmt::format("{}: L={} h={} Hq={} Hkv={} D={}; t={} p={} ({:.3f} layers/stage), b={}, Hq/t={}, Hkv/t={}\n",
                          m["name"].get<std::string>(), m["layers"].get<int>(), m["hidden"].get<int>(),
                          m["heads"].get<int>(), m["kv_heads"].get<int>(), m["head_dim"].get<int>(),
                          in["tp"].get<int>(), in["pp"].get<int>(), in["layers_per_stage"].get<double>(),
                          in["micro_batch"].get<int>(), in["local_heads"].get<int>(), in["local_kv_heads"].get<int>()));
  print_quietly(
      stdout,
      fmt::format("memory row {}{}; {} x {:.2f} = {:.1f} TFLOP/s; link {} = {:g} Gb/s per direction; {} K/V\n",
                  in["memory_row"].get<std::string>(), in["flash_attention"].get<bool>() ? ", FlashAttention" : "",
                  in["device"]["name"].get<std::string>(), in["efficiency"].get<double>(),
                  in["device"]["peak_flops"].get<double>() * in["efficiency"].get<double>() / 1e12,
                  in["link"]["name"].get<std::string>(), in["link"]["gbps_per_direction"].get<double>(),
                  in["kv_dtype"].get<std::string>()));
  print_quietly(stdout, fmt::format("per device, per layer, forward; GB = 1e9 bytes\n"));
  if (!in["documents"].is_null()) {
    // The mix once per S: its documents, and the share of the sequence's pairs they keep.
    std::int64_t last = -1;
    for (const auto& p : rep["points"]) {
      const auto s = p["seq"].get<std::int64_t>();
      if (s == last || !p.contains("documents")) continue;
      last = s;
      const auto& d = p["documents"];
      print_quietly(stdout, fmt::format("documents {} at S={}: {} documents ({}), the longest {}; {:.2f}% of the "
                                        "sequence's pairs lie within them\n",
                                        d["spec"].get<std::string>(), s, d["count"].get<std::int64_t>(),
                                        d["summary"].get<std::string>(), d["longest"].get<std::int64_t>(),
                                        100 * d["pairs_share"].get<double>()));
    }
    print_quietly(stdout, fmt::format("imbalance: the busiest rank's work within documents over the mean; doc-zigzag "
                                      "pads each document to a multiple of 2c (seed {})\n",
                                      in["seed"].get<std::uint64_t>()));
  }
  print_quietly(stdout, "\n");
  std::vector<std::string> splits;
  for (const auto& s : in["splits"]) splits.push_back(s.get<std::string>());
  print_quietly(stdout, fmt::format("{:>10} {:>5} {:>11} {:>12} {:>10} {:>10} {:>10}", "S", "c", "act GB/dev",
                                    "K/V MB/layer", "xfer ms", "attn ms", "xfer/attn"));
  for (const auto& s : splits) print_quietly(stdout, fmt::format(" {:>11}", "imb " + s.substr(0, 6)));
  print_quietly(stdout, fmt::format("\n"));
  for (const auto& p : rep["points"]) {
    const auto& ring = p["comm_compute"][0];
    // One decimal as the plate prints it; small figures keep three so they do not read as zero.
    const double gb = p["memory"]["gb_per_device"].get<double>();
    print_quietly(stdout,
                  fmt::format("{:>10} {:>5} {:>11} {:>12.2f} {:>10.3f} {:>10.3f} {:>10}", p["seq"].get<std::int64_t>(),
                              p["cp"].get<int>(), gb >= 1 ? fmt::format("{:.1f}", gb) : fmt::format("{:.3f}", gb),
                              ring["bytes_per_layer"].get<double>() / 1e6, ring["transfer_s"].get<double>() * 1e3,
                              ring["compute_s"].get<double>() * 1e3, fraction(ring["ratio"])));
    for (const auto& w : p["work"]) print_quietly(stdout, fmt::format(" {:>11.2f}", w["imbalance"].get<double>()));
    print_quietly(stdout, fmt::format("\n"));
  }
  if (!rep["points"].empty() && rep["points"][0].contains("backward")) {
    print_quietly(stdout, fmt::format("\nbackward, per device, per layer: K/V again and dK/dV home against 2.5x the "
                                      "forward's compute\n"));
    print_quietly(stdout, fmt::format("{:>10} {:>5} {:>10} {:>8} {:>14} {:>10} {:>10} {:>10}\n", "S", "c", "variant",
                                      "dkv", "K/V+dK/dV MB", "xfer ms", "attn ms", "xfer/attn"));
    for (const auto& p : rep["points"])
      for (const auto& b : p["backward"])
        print_quietly(stdout,
                      fmt::format("{:>10} {:>5} {:>10} {:>8} {:>14.2f} {:>10.3f} {:>10.3f} {:>10}\n",
                                  p["seq"].get<std::int64_t>(), p["cp"].get<int>(), b["variant"].get<std::string>(),
                                  b["dkv"].is_null() ? std::string("-") : b["dkv"].get<std::string>(),
                                  b["bytes_per_layer"].get<double>() / 1e6, b["transfer_s"].get<double>() * 1e3,
                                  b["compute_s"].get<double>() * 1e3, fraction(b["ratio"])));
  }
  if (!rep["points"].empty() && rep["points"][0].contains("strategies")) print_strategies(rep);
  if (!rep["points"].empty() && rep["points"][0].contains("simulation")) {
    print_quietly(stdout, fmt::format("\nring simulation (ms per layer; exposed comm and idle: the worst rank)\n"));
    print_quietly(stdout, fmt::format("{:>10} {:>5} {:>11} {:>10} {:>10} {:>10} {:>10} {:>9} {:>10}\n", "S", "c",
                                      "split", "variant", "pass", "no-comm", "exposed", "overlap", "idle"));
    for (const auto& p : rep["points"])
      for (const auto& s : p["simulation"])
        print_quietly(stdout,
                      fmt::format("{:>10} {:>5} {:>11} {:>10} {:>10.3f} {:>10.3f} {:>10.3f} {:>9} {:>10.3f}\n",
                                  p["seq"].get<std::int64_t>(), p["cp"].get<int>(), s["split"].get<std::string>(),
                                  strategy_label(s["variant"].get<std::string>(),
                                                 s.contains("ulysses_degree")
                                                     ? std::optional<int>(s["ulysses_degree"].get<int>())
                                                     : std::nullopt),
                                  s["pass_s"].get<double>() * 1e3, s["pass_without_comm_s"].get<double>() * 1e3,
                                  s["exposed_comm_max_s"].get<double>() * 1e3, fraction(s["overlap_fraction"]),
                                  s["idle_max_s"].get<double>() * 1e3));
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
  add_integer_flag(cmd, "--layers", f->layers, 1, kMaxInt, "Layers L (overrides the preset)");
  add_integer_flag(cmd, "--hidden", f->hidden, 1, kMaxInt, "Hidden size h (overrides the preset)");
  add_integer_flag(cmd, "--heads", f->heads, 1, kMaxInt, "Query heads Hq (overrides the preset)");
  add_integer_flag(cmd, "--kv-heads", f->kv_heads, 1, kMaxInt, "K/V heads Hkv (overrides the preset)");
  add_integer_flag(cmd, "--head-dim", f->head_dim, 1, kMaxInt, "Head dimension D (overrides the preset)");
  add_integer_flag(cmd, "--tp", f->tp, 1, kMaxInt, "Tensor parallelism t")->capture_default_str();
  add_integer_flag(cmd, "--pp", f->pp, 1, kMaxInt, "Pipeline parallelism p; a stage holds L/p layers")
      ->capture_default_str();
  add_integer_flag(cmd, "--micro-batch", f->micro_batch, 1, kMaxInt, "Sequences per micro-batch b")
      ->capture_default_str();
  add_list_flag<int>(
      cmd, "--cp", f->cp,
      [](const std::string& t) { return static_cast<int>(parse_integer(t, "--cp", 1, std::int64_t{1} << 20)); },
      "Context-parallel degrees c, comma-separated", "N")
      ->capture_default_str();
  add_list_flag<std::int64_t>(cmd, "--seq", f->seq, parse_seq,
                              "Sequence lengths S, comma-separated; k = 1024, M = 1024^2, G = 1024^3", "N[k|M|G]")
      ->capture_default_str();
  cmd->add_option("--split", f->split, "Split schemes for work and simulation: " + split_names())
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("NAME");
  cmd->add_option("--variant", f->variant,
                  "Variants to simulate: " + variant_names() +
                      "; with ulysses or hybrid, also each strategy's traffic, pass time and where each wins")
      ->capture_default_str()
      ->delimiter(',')
      ->type_name("NAME");
  add_list_flag<int>(
      cmd, "--ulysses-degree", f->ulysses_degree,
      [](const std::string& t) { return static_cast<int>(parse_integer(t, "--ulysses-degree", 1, kMaxCp)); },
      "The hybrid's all-to-all groups U to compare, comma-separated (ulysses' is c)", "N")
      ->capture_default_str();
  // Read when parsed, so a bad value is refused before any work; kept as written for the report.
  add_read_flag<std::string>(
      cmd, "--link", f->link,
      [](const std::string& t) {
        model::parse_link(t, "--link");
        return t;
      },
      "Link: ib-ndr, ib-hdr, nvlink4, pcie5, or Gbit/s per direction", "NAME|GBPS")
      ->capture_default_str();
  add_read_flag<std::string>(
      cmd, "--inner-link", f->inner_link,
      [](const std::string& t) {
        model::parse_link(t, "--inner-link");
        return t;
      },
      "Link of the all-to-alls of ulysses and the hybrid within a node: nvlink4, pcie5, ..., or Gbit/s per direction",
      "NAME|GBPS")
      ->capture_default_str();
  add_integer_flag(cmd, "--node-size", f->node_size, 1, kMaxInt,
                   "Ranks per node: an all-to-all over more ranks crosses --link instead of --inner-link")
      ->capture_default_str();
  // A second at most: beyond it the table's cells outgrow their columns, and no link is that slow.
  add_number_flag(cmd, "--latency-us", f->latency_us, NumberRange{.lo = 0, .hi = 1e6, .unit = " us"},
                  "Latency added to every transfer, microseconds", "US")
      ->capture_default_str();
  add_read_flag<std::string>(
      cmd, "--peak", f->peak,
      [](const std::string& t) {
        model::parse_device(t, "--peak");
        return t;
      },
      "Device: h100-sxm, h200-sxm, a100-sxm, or dense TFLOP/s", "NAME|TFLOPS")
      ->capture_default_str();
  // A thousandth of the peak at the least, so a compute time stays a figure the table can print.
  add_number_flag(cmd, "--efficiency", f->efficiency, NumberRange{.lo = 0.001, .hi = 1},
                  "Fraction of the peak attention reaches", "FRACTION")
      ->capture_default_str();
  cmd->add_option("--memory-row", f->memory_row,
                  "Row of Table 2 of arXiv:2205.05198: no-parallel, tp, tp-sp, tp-selective, tp-sp-selective")
      ->capture_default_str()
      ->type_name("NAME");
  add_read_flag<std::string>(
      cmd, "--phase", f->phase,
      [](const std::string& t) {
        (void)parse_phase(t, "--phase");
        return t;
      },
      "fwd, bwd or fwd+bwd: with a backward, also the backward's traffic against its compute per design", "PHASE")
      ->capture_default_str();
  add_read_flag<std::string>(
      cmd, "--documents", f->documents,
      [](const std::string& t) {
        (void)parse_document_spec(t, "--documents");
        return t;
      },
      "Packed documents (docs/design.md §3c): lengths joined by '+' that sum to every S, or uniform:MIN:MAX, "
      "lognormal:MEDIAN:SIGMA, fixed:L drawn with --seed; work, compute and simulation count only within "
      "documents, doc-zigzag (added to the default splits) pads each document to a multiple of 2c",
      "SPEC")
      ->capture_default_str();
  add_integer_flag(cmd, "--seed", f->seed, 0, std::numeric_limits<std::int64_t>::max(),
                   "Seed the document generators draw with (as run's --seed)")
      ->capture_default_str();
  cmd->add_flag("--no-flash", f->no_flash, "Count the attention score matrices (no FlashAttention)");
  // --no-causal first, as run and the docs spell it; --non-causal, model's own before, still works.
  cmd->add_flag("--no-causal,--non-causal", f->no_causal, "Full (non-causal) attention");
  cmd->add_flag("--no-simulate", f->no_simulate, "Skip the ring simulation");
  cmd->add_flag("--json", f->json, "Write the report as JSON on stdout");
  cmd->callback([f, cmd, &action] {
    // Under documents the plate's table gains the split made for them, unless the splits were chosen.
    if (f->documents != "none" && cmd->count("--split") == 0) f->split.push_back("doc-zigzag");
    action = [f] {
      const json rep = model_report(request_from(*f));
      if (f->json)
        print_quietly(stdout, fmt::format("{}\n", json_text(rep, 2)));
      else
        print_table(rep);
      return kExitOk;
    };
  });
}

}  // namespace rb::bench
