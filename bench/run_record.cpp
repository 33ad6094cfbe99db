// Running one configuration and building its record.
#include "bench/run_record.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "bench/dump.hpp"
#include "bench/machine_probe.hpp"
#include "bench/metrics.hpp"
#ifdef RINGBENCH_HAVE_CUPTI
#include "bench/cupti_tracer.hpp"
#endif
#include "common/nvtx.hpp"
#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"
#include "reports/chrome_trace_writer.hpp"
#include "bench/stats.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "reports/config_json.hpp"
#include "ring/executor.hpp"
#include "ring/executor_cuda.hpp"
#ifdef RINGBENCH_HAVE_MPI
#include "ring/mpi_world.hpp"
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
#include "ring/executor_nccl.hpp"
#endif

namespace rb::bench {
namespace {

using nlohmann::json;

json base_record(const Config& cfg, const char* status, const std::string& reason) {
  return {{"config", reports::to_json(cfg)},
          {"status", status},
          {"reason", reason.empty() ? json(nullptr) : json(reason)},
          {"correctness", nullptr},
          {"timing", nullptr},
          {"plan", nullptr},
          {"metrics", nullptr},
          {"timeline", nullptr},
          {"model", nullptr},
          {"cupti", nullptr}};
}

// The median pass's intervals, for the report's per-rank timeline. Capped so a results file of
// hundreds of large-c configurations stays small; `truncated` says when intervals were left out.
json timeline_to_json(const Timeline& tl) {
  constexpr std::size_t kMaxIntervals = 4096;
  json ivs = json::array();
  for (std::size_t i = 0; i < tl.intervals.size() && i < kMaxIntervals; ++i) {
    const auto& iv = tl.intervals[i];
    ivs.push_back({{"rank", iv.rank},
                   {"kind", to_string(iv.kind)},
                   {"lane", iv.lane},
                   {"name", iv.name},
                   {"step", iv.step},
                   {"bytes", iv.bytes},
                   {"begin_ms", static_cast<double>(iv.begin_ns) / 1e6},
                   {"end_ms", static_cast<double>(iv.end_ns) / 1e6}});
  }
  return {{"clock", "steady_clock, relative to the pass start"},
          {"window_ms", static_cast<double>(tl.window_end_ns - tl.window_begin_ns) / 1e6},
          {"truncated", tl.intervals.size() > kMaxIntervals},
          {"intervals", ivs}};
}

// The ring simulator fed with this pass's own per-step compute and transfer times: if the executor
// schedules as the model assumes (double buffering, rendezvous, neighbour waits), the simulated
// pass matches the measured one; the ratio shows scheduling overhead (thread wake-ups, copies
// contending with compute) that the model leaves out.
json simulator_check(const ring::Plan& plan, const ring::PassRecord& pass) {
  const auto table = model::step_table_from_timeline(pass.timeline, plan.config.cp, plan.config.variant);
  const auto sim = model::simulate(table);
  const double measured_ms = static_cast<double>(pass.wall_ns) / 1e6;
  return {{"kind", "ring_simulator"},
          {"basis", "the median pass's measured per-step compute and transfer times, rescheduled by the simulator"},
          {"pass_ms", sim.pass_s * 1e3},
          {"measured_pass_ms", measured_ms},
          {"measured_over_model", sim.pass_s > 0 ? json(measured_ms / (sim.pass_s * 1e3)) : json(nullptr)},
          {"compute_critical_path_ms", sim.pass_without_comm_s * 1e3},
          {"exposed_comm_ms_mean", sim.exposed_comm_mean_s * 1e3},
          {"exposed_comm_ms_max", sim.exposed_comm_max_s * 1e3},
          {"overlap_fraction", sim.overlap_fraction ? json(*sim.overlap_fraction) : json(nullptr)},
          {"idle_ms_max", sim.idle_max_s * 1e3}};
}

#ifdef RINGBENCH_HAVE_CUPTI
// DESIGN §7 step 4: one more pass with CUPTI activity tracing on, after the timed ones so that
// tracing never touches them. Replayed graph work is classified by the executor's node labels,
// carried over to the clones instantiation made (`clones`); eager work by the executor's streams.
// A CUPTI failure becomes {"error": ...}: profiling must not fail the configuration. The pass
// itself runs even then, because a collective executor's ranks must all run it.
json cupti_traced_pass(ring::Executor& exec, const std::function<ring::PassRecord()>& run_pass,
                       const std::multimap<std::uint64_t, std::uint64_t>& clones, const std::string& clone_error,
                       const MetricsInputs& in, double clean_median_ms) {
  std::optional<CuptiTracer> tracer;
  std::string error = clone_error;
  std::set<std::uint64_t> labelled;  // CUPTI ids with a role, to count what they classified
  auto* cuda = dynamic_cast<ring::CudaExecutor*>(&exec);
  if (error.empty() && cuda == nullptr) error = "the executor is not a CUDA executor";
  if (error.empty()) {
    try {
      CuptiConversionOptions opt;
      opt.marker_domain = nvtx::kDomain;
      for (const auto& label : cuda->graph_nodes()) {
        const CuptiNodeRole role{label.rank, label.step, label.kind, label.lane, label.name};
        for (const std::uint64_t id : with_clones(cupti_graph_node_id(label.node), clones)) opt.nodes[id] = role;
      }
      for (const auto& [id, role] : opt.nodes) labelled.insert(id);
      tracer.emplace(std::move(opt));
      for (const auto& s : cuda->streams()) tracer->set_stream_role(s.stream, {s.rank, s.kind, s.lane});
    } catch (const Error& e) {
      tracer.reset();
      error = e.what();
    }
  }
  std::int64_t before = 0;
  if (tracer) {
    try {
      before = CuptiTracer::now_ns();
    } catch (const Error& e) {
      tracer.reset();
      error = e.what();
    }
  }
  const ring::PassRecord traced = run_pass();
  if (!tracer) return {{"error", error}};
  try {
    const std::int64_t after = CuptiTracer::now_ns();
    const Timeline tl = tracer->take(before, after);
    const double traced_ms = static_cast<double>(traced.wall_ns) / 1e6;
    std::size_t by_node = 0;
    for (const auto& iv : tl.intervals) by_node += iv.graph_node_id != 0 && labelled.contains(iv.graph_node_id);
    return {{"traced_pass_ms", traced_ms},
            {"clean_median_ms", clean_median_ms},
            {"overhead_pct", clean_median_ms > 0 ? json((traced_ms - clean_median_ms) / clean_median_ms * 100.0)
                                                 : json(nullptr)},
            {"window_ms", static_cast<double>(after - before) / 1e6},
            {"dropped_records", tracer->dropped_records()},
            {"ignored_records", tracer->ignored_records()},
            {"intervals", tl.intervals.size()},
            {"intervals_by_node", by_node},
            {"metrics", compute_metrics(tl, in).to_json()}};
  } catch (const Error& e) {
    return {{"error", e.what()}};
  }
}
#endif

}  // namespace

std::unique_ptr<ring::Executor> make_executor(const ring::Plan& plan, const RunOptions& opts,
                                              const ring::CpuOptions& cpu, ring::ProcessGroup* group) {
  if (plan.config.transport == Transport::mpi) {
#ifdef RINGBENCH_HAVE_MPI
    if (!group) throw Error("the mpi transport needs the MPI job's process group");
    return ring::make_cpu_executor(plan, cpu, *group, ring::make_mpi_transport(*group, plan.config.link_gbps));
#else
    throw InputError("transport", "mpi", "this build has no MPI (it was not found when ringbench was configured)");
#endif
  }
  if (plan.config.backend != Backend::cuda) return ring::make_cpu_executor(plan, cpu);
  if (plan.config.transport == Transport::nccl) {
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
    if (!group) throw Error("the nccl transport needs the MPI job's process group");
    ring::CudaOptions c;
    c.launch = opts.launch == "eager" ? ring::CudaLaunch::eager : ring::CudaLaunch::graph;
    c.l2_flush = opts.l2_flush;
    return ring::make_nccl_executor(plan, c, *group);
#else
    throw InputError("transport", "nccl", "this build has no NCCL transport (it needs CUDA, NCCL and MPI)");
#endif
  }
#ifdef RINGBENCH_HAVE_CUDA
  ring::CudaOptions c;
  c.mode = opts.rank_mode == "concurrent" ? ring::CudaRankMode::concurrent : ring::CudaRankMode::isolated;
  c.launch = opts.launch == "eager" ? ring::CudaLaunch::eager : ring::CudaLaunch::graph;
  c.l2_flush = opts.l2_flush;
  c.devices = opts.devices;
  return ring::make_cuda_executor(plan, c);
#else
  (void)opts;
  throw InputError("backend", "cuda", "this build has no CUDA backend");
#endif
}

json plan_to_json(const ring::Plan& plan) {
  json ranks = json::array();
  const bool with_steps = plan.config.cp <= 64;  // keep large-c plans readable; totals are always there
  for (const auto& rp : plan.ranks) {
    json segs = json::array();
    for (const auto& s : rp.segments) segs.push_back({s.start, s.stride, s.count});
    json r{{"rank", rp.rank},
           {"tokens", rp.tokens},
           {"segments", segs},
           {"unmasked_pairs", rp.unmasked},
           {"work", plan.work(rp.rank)},
           {"recv_bytes", rp.recv_bytes}};
    if (with_steps) {
      json steps = json::array();
      for (const auto& st : rp.steps) {
        int n[3] = {0, 0, 0};
        for (const auto& p : st.pairs) ++n[static_cast<int>(p.mask)];
        steps.push_back({{"step", st.step},
                         {"sources", st.sources},
                         {"unmasked_pairs", st.unmasked},
                         {"recv_bytes", st.recv_bytes},
                         {"send_bytes", st.send_bytes},
                         {"pairs", {{"full", n[0]}, {"partial", n[1]}, {"skip", n[2]}}}});
      }
      r["steps"] = steps;
    }
    ranks.push_back(std::move(r));
  }
  return {{"work_imbalance", plan.work_imbalance()},
          {"total_work", plan.total_work()},
          {"flops", plan.flops()},
          {"bytes_moved", plan.bytes_moved()},
          {"kv_bytes_per_token", plan.kv_bytes_per_token},
          {"per_rank", ranks}};
}

json correctness_to_json(const ring::Correctness& c) {
  return {{"checked", true},
          {"rows_checked", c.rows_checked},
          {"all_rows", c.all_rows},
          {"max_abs_err", c.max_abs_err},
          {"rel_l2_err", c.rel_l2_err},
          {"over_tolerance", c.over_tolerance},
          {"tolerance", c.tolerance},
          {"tolerance_basis", c.tolerance_basis},
          {"passed", c.passed()}};
}

json skipped_record(const Config& cfg, const std::string& reason) { return base_record(cfg, "skipped", reason); }
json failed_record(const Config& cfg, const std::string& reason) { return base_record(cfg, "failed", reason); }

std::int64_t estimated_bytes(const ring::Plan& plan, const RunOptions& opts, int processes) {
  const Config& c = plan.config;
  const std::int64_t rows = c.seq <= opts.full_check_limit ? c.seq : std::min(c.seq, opts.check_sample);
  // Reference: whole-sequence K and V in float64, and the checked rows' Q, O and the run's O.
  const std::int64_t reference = 8 * (2 * c.seq * c.kv_heads * c.head_dim + 3 * rows * c.heads * c.head_dim);
  return ring::cpu_executor_bytes(plan) / std::max(1, processes) + reference;
}

json run_configuration(const Config& cfg, const RunOptions& opts, const ReferenceProvider& reference, int index,
                       ring::ProcessGroup* group) {
  const ring::Plan plan = ring::make_plan(cfg);
  json rec = base_record(cfg, "ok", "");
  rec["plan"] = plan_to_json(plan);
  const bool faulty = opts.fault.index == index;
  if (faulty && opts.fault.kind == "fatal") throw FatalError("injected device-fatal error");
  ring::CpuOptions copts;
  if (faulty && opts.fault.kind == "throw") copts.fault = ring::InjectedFault::throw_in_pass;
  if (faulty && opts.fault.kind == "hang") copts.fault = ring::InjectedFault::hang;
  const int rounds = std::clamp(opts.rounds, 1, cfg.repeats);
  // The traced pass runs on the last executor made; CUPTI must watch that one capture and
  // instantiate its graphs to tell which clones its node labels became (cupti_tracer.hpp).
#ifdef RINGBENCH_HAVE_CUPTI
  const bool traced = cfg.backend == Backend::cuda && opts.cupti;
  std::multimap<std::uint64_t, std::uint64_t> clones;
  std::string clone_error;
#endif
  auto new_executor = [&](bool last) {
#ifdef RINGBENCH_HAVE_CUPTI
    if (last && traced && opts.launch == "graph") {
      std::optional<CuptiCloneRecorder> recorder;
      try {
        recorder.emplace();
      } catch (const Error& e) {
        clone_error = e.what();
      }
      auto made = make_executor(plan, opts, copts, group);
      try {
        if (recorder) clones = recorder->clones();
      } catch (const Error& e) {
        clone_error = e.what();
      }
      return made;
    }
#else
    (void)last;
#endif
    return make_executor(plan, opts, copts, group);
  };
  auto exec = new_executor(rounds == 1);
  std::mutex exec_mu;  // the watchdog may abort while a new round swaps the executor
  Watchdog watchdog(opts.timeout_s, [&] {
    std::lock_guard lk(exec_mu);
    exec->abort();
    if (group) group->abort();  // also ends waits outside the executor (a collective, a peer)
  });
  // An abort surfaces as an executor error; name the watchdog's reason instead.
  auto pass = [&](bool record) {
    try {
      return exec->run_pass(record);
    } catch (const std::exception& e) {
      const std::string why = watchdog.reason();
      if (!why.empty()) throw Error(why);
      throw;
    }
  };

  // 1. One checked pass.
  (void)pass(false);
  const auto rows = ring::check_rows(plan, opts.full_check_limit, opts.check_sample);
  auto out = exec->output_rows(rows.positions);
  if (faulty && opts.fault.kind == "corrupt") out[out.size() / 2] += 1.0;
  const auto corr = ring::compare_to_reference(out, reference(rows), cfg, rows);
  rec["correctness"] = correctness_to_json(corr);
  if (opts.dump_dir) dump_configuration(*opts.dump_dir, plan, *exec, opts.primary);

  // 2. Timed passes in rounds, each on a fresh executor (new buffers, new threads) after its own
  // warm-up: a single instance can sit in a fast or a slow mode for its whole life (placement,
  // alignment; 40 against 58 ms seen for one shape on this project's 2-core machine), so samples
  // from one instance understate the run-to-run spread and make A/A comparisons cry wolf. This is
  // asv's answer (several processes per benchmark) within one process. Every pass records its
  // timeline; the median pass's is kept.
  std::vector<ring::PassRecord> passes;
  std::vector<double> samples_ms;
  // The machine's own speed between the rounds (CPU backend: a GPU pass does not depend on the
  // host's cores), so that a neighbour's burst over this configuration's rounds shows in the probe
  // as well as in the samples (bench/machine_probe.hpp, docs/compare.md).
  const bool probe = cfg.backend == Backend::cpu;
  std::vector<double> probes;
  for (int round = 0; round < rounds; ++round) {
    if (probe) probes.push_back(machine_probe_ms());
    if (round > 0) {
      auto fresh = new_executor(round == rounds - 1);
      std::lock_guard lk(exec_mu);
      exec = std::move(fresh);
    }
    for (int i = 0; i < cfg.warmup; ++i) (void)pass(false);
    const int n = cfg.repeats / rounds + (round < cfg.repeats % rounds ? 1 : 0);
    for (int i = 0; i < n; ++i) {
      nvtx::ScopedRange replay(nvtx::kRangeReplay, static_cast<std::int64_t>(samples_ms.size()));
      passes.push_back(pass(true));
      samples_ms.push_back(static_cast<double>(passes.back().wall_ns) / 1e6);
    }
  }
  if (probe) probes.push_back(machine_probe_ms());
  const SampleStats st = summarize(samples_ms);
  json timing = to_json(st);
  json timing_ms;
  for (auto& [k, v] : timing.items()) timing_ms[k == "count" || k == "noise_pct" ? k : k + "_ms"] = v;
  timing_ms["samples_ms"] = samples_ms;
  timing_ms["warmup"] = cfg.warmup;
  timing_ms["rounds"] = rounds;
  if (cfg.backend == Backend::cuda) {
    timing_ms["clock"] = group ? "CUDA events around each rank's pass, from a common barrier; the slowest rank's"
                               : "CUDA events around the pass";
    timing_ms["rank_mode"] = group ? "one rank per process" : opts.rank_mode;
    timing_ms["launch"] = opts.launch;
    timing_ms["l2"] = opts.l2_flush ? "flushed (cold)" : "warm";
    if (const auto* ce = dynamic_cast<const ring::CudaExecutor*>(exec.get()); ce && !group)
      timing_ms["devices"] = ce->options().devices;
  } else if (group) {
    timing_ms["machine_probe_ms"] = probes;
    timing_ms["clock"] = "steady_clock on each rank's process, from a common barrier; the slowest rank's pass";
  } else {
    timing_ms["machine_probe_ms"] = probes;
    timing_ms["clock"] = "steady_clock, whole pass (all ranks), wall";
  }
  rec["timing"] = timing_ms;

  std::vector<std::size_t> order(passes.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return samples_ms[a] < samples_ms[b]; });
  const auto& median_pass = passes[order[order.size() / 2]];
  rec["timeline"] = timeline_to_json(median_pass.timeline);
  MetricsInputs in;
  in.flops = plan.flops();
  for (const auto& rp : plan.ranks) in.flops_per_rank.push_back(4.0 * cfg.head_dim * static_cast<double>(plan.work(rp.rank)));
  json metrics = compute_metrics(median_pass.timeline, in).to_json();
  metrics["timeline_pass_ms"] = static_cast<double>(median_pass.wall_ns) / 1e6;
  rec["metrics"] = std::move(metrics);
  rec["model"] = simulator_check(plan, median_pass);
#ifdef RINGBENCH_HAVE_CUPTI
  if (traced) rec["cupti"] = cupti_traced_pass(*exec, [&] { return pass(false); }, clones, clone_error, in, st.median);
#endif
  if (opts.trace && opts.primary) {
    const auto dir = opts.out_dir / "traces";
    std::filesystem::create_directories(dir);
    reports::write_chrome_trace(dir / (reports::config_id(cfg) + ".json"), {median_pass.timeline});
  }

  if (!corr.passed()) {
    rec["status"] = "failed";
    rec["reason"] = fmt::format("correctness: {} of {} checked elements over tolerance {:.3g} (max_abs_err {:.3g})",
                                corr.over_tolerance, corr.rows_checked * cfg.heads * cfg.head_dim, corr.tolerance,
                                corr.max_abs_err);
  }
  return rec;
}

}  // namespace rb::bench
