// Builds the model report as JSON. The readable table of `ringbench model` is printed from this JSON
// too, so the two never disagree.
#include "bench/cli/model_report.hpp"

#include <algorithm>

#include <string>

#include <fmt/format.h>

#include "bench/cli/model_strategies.hpp"
#include "common/error.hpp"
#include "common/segment.hpp"
#include "model/activation_memory.hpp"
#include "model/comm_compute.hpp"
#include "model/ring_simulator.hpp"
#include "ring/plan/split_scheme.hpp"

namespace rb::bench {
namespace {

using nlohmann::json;

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json inputs_json(const ModelRequest& req) {
  const auto& in = req.inputs;
  json splits = json::array(), variants = json::array();
  for (auto s : req.splits) splits.push_back(to_string(s));
  for (auto v : req.variants) variants.push_back(to_string(v));
  return {
      {"model",
       {{"name", in.shape.name},
        {"layers", in.shape.layers},
        {"hidden", in.shape.hidden},
        {"heads", in.shape.heads},
        {"kv_heads", in.shape.kv_heads},
        {"head_dim", in.shape.head_dim},
        {"source", in.shape.source}}},
      {"tp", in.tp},
      {"pp", in.pp},
      {"layers_per_stage", in.layers_per_stage()},
      {"local_heads", in.local_heads()},
      {"local_kv_heads", in.local_kv_heads()},
      {"micro_batch", in.micro_batch},
      {"memory_row", to_string(in.memory_row)},
      {"flash_attention", in.flash_attention},
      {"causal", in.causal},
      {"kv_dtype", to_string(in.kv_dtype)},
      {"device", {{"name", in.device.name}, {"peak_flops", in.device.peak_flops}, {"source", in.device.source}}},
      {"efficiency", in.efficiency},
      {"link",
       {{"name", in.link.name},
        {"gbps_per_direction", in.link.gbps()},
        {"bytes_per_s", in.link.bytes_per_s},
        {"latency_s", in.link.latency_s},
        {"source", in.link.source}}},
      {"inner_link",
       {{"name", in.inner_link.name},
        {"gbps_per_direction", in.inner_link.gbps()},
        {"bytes_per_s", in.inner_link.bytes_per_s},
        {"source", in.inner_link.source}}},
      {"node_size", in.node_size},
      {"ulysses_degrees", req.ulysses_degrees},
      {"splits", splits},
      {"variants", variants},
      {"phase", to_string(req.phase)},
      {"documents", req.documents.kind == DocumentSpec::Kind::none ? json(nullptr) : json(req.documents.text)},
      {"seed", req.seed},
  };
}

}  // namespace

double within_documents_share(const ModelRequest& req, std::int64_t seq, bool causal) {
  if (req.documents.kind == DocumentSpec::Kind::none) return 1.0;
  double within = 0;
  for (const std::int64_t l : document_lengths(req.documents, seq, req.seed))
    within += static_cast<double>(unmasked_pairs(Segment{0, 1, l}, Segment{0, 1, l}, causal));
  const double all = model::sequence_pairs(seq, causal);
  return all > 0 ? within / all : 1.0;
}

namespace {

template <typename CC>
CC scaled(CC cc, double share) {
  cc.flops *= share;
  cc.compute_s *= share;
  cc.ratio = cc.compute_s > 0 ? cc.transfer_s / cc.compute_s : 0;
  return cc;
}

json documents_json(const ModelRequest& req, std::int64_t seq, bool causal) {
  const auto lengths = document_lengths(req.documents, seq, req.seed);
  std::int64_t longest = 0, tokens = 0;
  for (const std::int64_t l : lengths) {
    longest = std::max(longest, l);
    tokens += l;
  }
  return {{"spec", req.documents.text},
          {"count", lengths.size()},
          {"tokens", tokens},
          {"longest", longest},
          {"summary", documents_summary(lengths)},
          {"pairs_share", within_documents_share(req, seq, causal)}};
}

json memory_json(const model::ModelInputs& in, std::int64_t seq, int cp) {
  const auto shape = in.activation_shape(seq);
  json rows = json::object();
  for (auto row : model::kMemoryRows)
    rows[std::string(to_string(row))] = model::activation_bytes_per_device(row, shape, in.layers_per_stage(), cp);
  const double per_device = model::activation_bytes_per_device(in.memory_row, shape, in.layers_per_stage(), cp);
  return {{"row", to_string(in.memory_row)},
          {"bytes_per_layer", model::activation_bytes_per_layer(in.memory_row, shape) / cp},
          {"bytes_per_device", per_device},
          {"gb_per_device", per_device / 1e9},
          {"rows_bytes_per_device", rows}};
}

json comm_compute_json(const model::CommCompute& cc) {
  return {{"variant", to_string(cc.variant)},
          {"transfers", cc.transfers},
          {"bytes_per_layer", cc.bytes},
          {"transfer_s", cc.transfer_s},
          {"flops_per_layer", cc.flops},
          {"compute_s", cc.compute_s},
          {"ratio", cc.ratio}};
}

json backward_json(const model::BackwardCommCompute& b) {
  return {{"variant", to_string(b.variant)},
          {"dkv", b.variant == Variant::allgather ? json(nullptr) : json(to_string(b.dkv))},
          {"transfers", b.transfers},
          {"bytes_per_layer", b.bytes},
          {"transfer_s", b.transfer_s},
          {"flops_per_layer", b.flops},
          {"compute_s", b.compute_s},
          {"ratio", b.ratio}};
}

json simulation_json(const model::Simulation& sim, Split split, int degree) {
  json exposed = json::array(), idle = json::array(), overlap = json::array(), finish = json::array();
  for (const auto& r : sim.per_rank) {
    exposed.push_back(r.exposed_comm_s);
    idle.push_back(r.idle_s);
    overlap.push_back(optional_number(r.overlap_fraction));
    finish.push_back(r.finish_s);
  }
  json out{{"split", to_string(split)},
           {"variant", to_string(sim.variant)},
           {"pass_s", sim.pass_s},
           {"pass_without_comm_s", sim.pass_without_comm_s},
           {"exposed_comm_max_s", sim.exposed_comm_max_s},
           {"exposed_comm_mean_s", sim.exposed_comm_mean_s},
           {"overlap_fraction", optional_number(sim.overlap_fraction)},
           {"idle_max_s", sim.idle_max_s},
           {"idle_mean_s", sim.idle_mean_s},
           {"per_rank",
            {{"exposed_comm_s", exposed}, {"idle_s", idle}, {"overlap_fraction", overlap}, {"finish_s", finish}}}};
  // A head exchange's: its group, and its all-to-alls (the ranks above are then its groups).
  if (exchanges_heads(sim.variant)) {
    out["ulysses_degree"] = degree;
    out["exchange_s"] = sim.exchange_in_s + sim.exchange_out_s;
  }
  return out;
}

void validate(const ModelRequest& req) {
  req.inputs.validate();
  if (req.seqs.empty()) throw InputError("--seq", "''", "give at least one sequence length");
  if (req.cps.empty()) throw InputError("--cp", "''", "give at least one context-parallel degree");
  if (req.splits.empty()) throw InputError("--split", "''", "give at least one split scheme");
  if (req.variants.empty()) throw InputError("--variant", "''", "give at least one variant");
  if (req.ulysses_degrees.empty()) throw InputError("--ulysses-degree", "''", "give at least one degree");
  for (auto s : req.seqs)
    for (auto c : req.cps) model::ModelInputs::validate_point(s, c);
  // Explicit lengths must fill every S, a generator must reach it (common/documents.hpp).
  for (auto s : req.seqs) {
    Config cfg;
    cfg.seq = s;
    cfg.seed = req.seed;
    set_documents(cfg, req.documents, false);
    try {
      check_documents(cfg);
    } catch (const InputError& e) {
      throw InputError("--documents", e.value(), e.rule());
    }
  }
  for (auto c : req.cps) {
    const std::int64_t need = model_point_bytes(c, req.simulate);
    if (req.memory_limit_bytes > 0 && need > req.memory_limit_bytes)
      throw InputError(
          "--cp", std::to_string(c),
          fmt::format("the model's per-rank, per-step tables grow as c^2 and would need an estimated {:.1f} "
                      "GiB{}; {:.1f} GiB may be used",
                      static_cast<double>(need) / 1073741824.0,
                      req.simulate ? " (--no-simulate needs a third of that)" : "",
                      static_cast<double>(req.memory_limit_bytes) / 1073741824.0));
  }
}

}  // namespace

std::int64_t model_point_bytes(int cp, bool simulate) {
  const std::int64_t cells = static_cast<std::int64_t>(cp) * cp;
  return cells * (simulate ? 64 : 24) + (std::int64_t{32} << 20);
}

namespace {

// The configuration model_work_matrix counts.
Config model_work_config(const model::ModelInputs& in, std::int64_t seq, int cp, Split split, Variant variant,
                         int degree, const DocumentSpec& documents, std::uint64_t seed) {
  Config cfg;
  cfg.ulysses_degree = degree;
  cfg.seq = seq;
  cfg.cp = cp;
  cfg.split = split;
  cfg.variant = variant;
  cfg.heads = in.local_heads();
  cfg.kv_heads = in.local_kv_heads();
  cfg.head_dim = in.shape.head_dim;
  cfg.causal = in.causal;
  cfg.dtype = in.kv_dtype;
  cfg.seed = seed;
  set_documents(cfg, documents, true);
  return cfg;
}

// Runs `count` on cfg (of the sweep's S `seq`); ring/ names its own field, so a refusal is given the
// flag and the split that made the rule apply.
template <typename Count>
auto with_flag_names(const Config& cfg, std::int64_t seq, Count count) {
  try {
    return count(cfg);
  } catch (const InputError& e) {
    if (e.where() == "heads" || e.where() == "kv-heads" || e.where() == "ulysses-degree")
      throw;  // the head exchange's rules, which no split changes
    const std::string where = e.where() == "seq" ? "--seq" : e.where() == "documents" ? "--documents" : e.where();
    throw InputError(where, e.value(), fmt::format("{} (--split {}, S = {})", e.rule(), to_string(cfg.split), seq));
  }
}

// Every split's work matrix of every (S, c) held to its bound (ring::check_work_bound) before any
// is counted: a refusal after seconds of the other splits' counting helps nobody (issue 51).
void check_model_work_bounds(const ModelRequest& req) {
  if (req.documents.kind == DocumentSpec::Kind::none) return;
  for (const auto seq : req.seqs)
    for (const auto cp : req.cps)
      for (const auto split : req.splits)
        with_flag_names(model_work_config(req.inputs, seq, cp, split, Variant::ring, 1, req.documents, req.seed), seq,
                        [](const Config& cfg) {
                          ring::check_work_bound(cfg);
                          return 0;
                        });
}

}  // namespace

ring::WorkMatrix model_work_matrix(const model::ModelInputs& in, std::int64_t seq, int cp, Split split, Variant variant,
                                   int degree, const DocumentSpec& documents, std::uint64_t seed) {
  return with_flag_names(model_work_config(in, seq, cp, split, variant, degree, documents, seed), seq,
                         [](const Config& cfg) { return ring::make_work_matrix(cfg); });
}

model::StrategyWork strategy_work(const ring::WorkMatrix& wm) {
  return {.ranks = wm.ranks,
          .steps = wm.steps,
          .variant = wm.config.variant,
          .schedule = wm.schedule,
          .exchange = wm.exchange,
          .unmasked = wm.unmasked,
          .recv_bytes = wm.recv_bytes};
}

model::StepTable model_step_table(const ring::WorkMatrix& wm, const model::ModelInputs& in) {
  return model::strategy_step_table(strategy_work(wm), in);
}

nlohmann::json model_report(const ModelRequest& req) {
  validate(req);
  check_model_work_bounds(req);
  const auto& in = req.inputs;
  json points = json::array(), memory_series = json::array(), work_series = json::array();
  for (auto seq : req.seqs) {
    json mem_cp = json::array(), mem_bytes = json::array();
    for (auto cp : req.cps) {
      json point = {{"seq", seq}, {"cp", cp}, {"memory", memory_json(in, seq, cp)}};
      mem_cp.push_back(cp);
      mem_bytes.push_back(point["memory"]["bytes_per_device"]);
      // Under documents the compute is the pairs within them (docs/metrics.md): the closed forms'
      // whole-sequence compute scaled by that share; the bytes stay the sequence's.
      const double share = within_documents_share(req, seq, in.causal);
      if (req.documents.kind != DocumentSpec::Kind::none) point["documents"] = documents_json(req, seq, in.causal);
      json cc = json::array();
      for (auto v : {Variant::ring, Variant::allgather})
        cc.push_back(comm_compute_json(scaled(model::comm_compute(in, seq, cp, v), share)));
      point["comm_compute"] = cc;
      if (times_backward(req.phase)) {
        json bwd = json::array();
        for (const Dkv dkv : {Dkv::reverse, Dkv::follow})
          bwd.push_back(backward_json(scaled(model::backward_comm_compute(in, seq, cp, Variant::ring, dkv), share)));
        bwd.push_back(backward_json(scaled(model::backward_comm_compute(in, seq, cp, Variant::allgather, Dkv::reverse),
                                           share)));
        point["backward"] = bwd;
      }

      json work = json::array(), sims = json::array(), split_series = json::object();
      const double flops_per_pair = 4.0 * in.shape.head_dim * in.local_heads() * in.micro_batch;
      for (auto split : req.splits) {
        const auto wm = model_work_matrix(in, seq, cp, split, Variant::ring, 1, req.documents, req.seed);
        json flops = json::array(), relative = json::array();
        double mean = 0, mx = 0;
        for (int r = 0; r < cp; ++r) mean += static_cast<double>(wm.rank_unmasked(r)) * flops_per_pair / cp;
        for (int r = 0; r < cp; ++r) {
          const double f = static_cast<double>(wm.rank_unmasked(r)) * flops_per_pair;
          flops.push_back(f);
          relative.push_back(mean > 0 ? f / mean : 1.0);
          mx = std::max(mx, f);
        }
        work.push_back({{"split", to_string(split)},
                        {"flops_per_rank_max", mx},
                        {"flops_per_rank_mean", mean},
                        {"imbalance", wm.work_imbalance()}});
        if (wm.config.documents.given()) work.back()["padding_tokens"] = padding_tokens(wm.config);
        split_series[std::string(to_string(split))] = {{"flops_per_rank", flops},
                                                       {"relative_to_mean", relative},
                                                       {"imbalance", wm.work_imbalance()}};
        if (!req.simulate) continue;
        for (const Strategy& st : strategies_at(req, cp)) {
          // A strategy whose all-to-all the heads or c do not allow is left out here; the strategies'
          // table says why.
          if (strategy_refusal(in, seq, cp, st)) continue;
          const Variant v = st.variant;
          // The all-gather's matrix follows from the ring's without recounting pairs; others are counted.
          const auto table = model_step_table(v == Variant::ring ? wm
                                              : v == Variant::allgather
                                                  ? ring::allgather_from_ring(wm)
                                                  : model_work_matrix(in, seq, cp, split, v, st.degree, req.documents,
                                                                      req.seed),
                                              in);
          sims.push_back(simulation_json(model::simulate(table), split, st.degree));
        }
      }
      point["work"] = work;
      if (req.simulate) point["simulation"] = sims;
      if (wants_strategies(req)) point["strategies"] = strategies_json(req, seq, cp);
      points.push_back(std::move(point));
      work_series.push_back({{"seq", seq}, {"cp", cp}, {"splits", split_series}});
    }
    memory_series.push_back({{"seq", seq}, {"cp", mem_cp}, {"bytes_per_device", mem_bytes}});
  }
  json rep = {{"schema", "ringbench.model"},
              // 1.2.0: the strategies; 1.3.0: inputs.documents and seed, points[].documents, work[].padding_tokens.
              {"schema_version", "1.3.0"},
              {"units",
               {{"memory", "bytes (GB = 1e9 bytes)"},
                {"time", "seconds, per layer, forward (backward: points[].backward)"},
                {"flops",
                 "forward attention FLOPs per layer, 4 * D * heads * unmasked pairs; the backward's are 2.5 times "
                 "them"}}},
              {"inputs", inputs_json(req)},
              {"points", points},
              {"series", {{"memory_per_device", memory_series}, {"work_per_device", work_series}}}};
  if (wants_strategies(req)) rep["crossover"] = crossover_json(rep["points"]);
  return rep;
}

}  // namespace rb::bench
