// Building the parts of a result record, the executor for a configuration, and its memory estimate.
#include "bench/sweep/run_record.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/size_estimate.hpp"
#include "reports/results/config_json.hpp"
#include "ring/executor.hpp"
#include "ring/executor_cuda.hpp"
#ifdef RINGBENCH_HAVE_MPI
#include "ring/mpi_world.hpp"
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
#include "ring/executor_nccl.hpp"
#endif

namespace rb::bench {

using nlohmann::json;

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
    c.launch = opts.launch;
    c.l2_flush = opts.l2_flush;
    return ring::make_nccl_executor(plan, c, *group);
#else
    throw InputError("transport", "nccl", "this build has no NCCL transport (it needs CUDA, NCCL and MPI)");
#endif
  }
#ifdef RINGBENCH_HAVE_CUDA
  ring::CudaOptions c;
  c.mode = opts.rank_mode;
  c.launch = opts.launch;
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

json result_record(const Config& cfg, const char* status, const std::string& reason) {
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
json skipped_record(const Config& cfg, const std::string& reason) { return result_record(cfg, "skipped", reason); }
json failed_record(const Config& cfg, const std::string& reason) { return result_record(cfg, "failed", reason); }

std::int64_t estimated_bytes(const ring::Plan& plan, const RunOptions& opts, int processes) {
  const Config& c = plan.config;
  const std::int64_t rows = c.seq <= opts.full_check_limit ? c.seq : std::min(c.seq, opts.check_sample);
  // Reference: whole-sequence K and V in float64, and the checked rows' Q, O and the run's O.
  const double reference = 8.0 * (2.0 * static_cast<double>(c.seq) * c.kv_heads * c.head_dim +
                                  3.0 * static_cast<double>(rows) * c.heads * c.head_dim);
  return saturated_bytes(static_cast<double>(ring::cpu_executor_bytes(plan)) / std::max(1, processes) + reference);
}

}  // namespace rb::bench
