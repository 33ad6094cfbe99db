// Memory estimates against the budget, and the agreement on skipping.
#include "bench/sweep/memory_budget.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"
#include "common/size_estimate.hpp"
#include "common/timeline.hpp"
#include "common/transport.hpp"
#include "kernels/attention_tiling.hpp"
#include "ring/executor/executor.hpp"
#include "ring/plan/split_scheme.hpp"
#include "ring/plan/step_launch.hpp"
#include "ring/plan/variant_scheme.hpp"
#include "ring/program/compile.hpp"
#include "ring/program/program.hpp"

namespace rb::bench {
namespace {

// An estimate in GiB; a saturated one (common/size_estimate.hpp) says so rather than print 8e9 GiB.
std::string gib_text(std::int64_t bytes) {
  if (bytes == std::numeric_limits<std::int64_t>::max()) return "more than 8 EiB (beyond what int64 counts)";
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / 1073741824.0);
}

std::string budget_text(const MemoryBudget& budget) {
  return fmt::format("{:.2f} GiB may be used{}", static_cast<double>(budget.host_bytes) / 1073741824.0,
                     budget.holders > 1 ? " (this build's share: the other build of an A/B run by sample holds its "
                                          "buffers at the same time)"
                                        : "");
}

// A small vector's heap block: glibc's chunk header and rounding around one or a few elements.
constexpr double kHeapBlock = 48;

}  // namespace

RankScale rank_scale(const Config& cfg, const RunOptions& opts) {
  const double c = cfg.cp;
  const std::int64_t shard = cfg.seq / cfg.cp;
  // The schedules the plan will hold: over the head exchange's groups of its attention rows, and the
  // backward's where the phase has one (its design may run more lanes than the forward).
  const auto variant = ring::make_variant_scheme(cfg.variant);
  const HeadExchange x = variant->head_exchange(cfg, shard);
  const std::int64_t rows = shard * x.degree;
  const KvSchedule sch = variant->schedule(x.groups, rows);
  std::optional<BackwardSchedule> backward;
  if (times_backward(cfg.phase)) backward = variant->backward(x.groups, rows, cfg.dkv, cfg.dtype);
  const double lanes = static_cast<double>(sch.lanes.size());
  RankScale out;
  const double cells = c * sch.steps;
  // Every (query segment, key segment) of every rank and source, or under documents their
  // within-document pieces (docs/design.md §3c): rotating, per lane's piece.
  const double pairs = ring::plan_piece_bound(cfg) * (sch.gathered ? 1.0 : lanes);
  const double plan = 2.0 * (cells * (sizeof(ring::StepPlan) + 2 * kHeapBlock) + pairs * sizeof(ring::PlannedPair) +
                             c * (sizeof(ring::RankPlan) + 2 * kHeapBlock));
  const double launches = cells * (sizeof(ring::StepLaunch) + sizeof(kernels::tiling::TileWork) + 3 * kHeapBlock) +
                          pairs * (sizeof(kernels::BlockPair) + sizeof(std::int32_t));
  // Each rank's step program (ring/program/program.hpp): per step an exchange per comm lane, the
  // attention and the merge, and a backward's as many again with its fold; each op's runs and deps
  // on the heap; the pairs once per part.
  const double comm_lanes = ring::program_lanes(sch, backward ? &*backward : nullptr) - 1.0;
  const double ops = cells * (comm_lanes + 2.0) * (backward ? 2.0 : 1.0);
  const double program = ops * (sizeof(ring::Op) + 3 * kHeapBlock + 8 * sizeof(ring::Run)) +
                         pairs * sizeof(kernels::BlockPair) * (backward ? 2.0 : 1.0);
  const double intervals = sch.gathered ? 2.0 * c : cells * (2.0 + lanes);
  const double kept = (opts.stopping.adaptive() ? std::max(cfg.repeats, opts.stopping.min_samples) : cfg.repeats) + 3.0;
  const double timelines = intervals * sizeof(Interval) * kept;
  double threads = 0;
  if (cfg.backend == Backend::cpu) {
    const std::int64_t hosted = hosted_ranks(cfg);
    out.threads = ring::cpu_executor_threads(sch, hosted, backward ? &*backward : nullptr);
    // Each attention call's running max and sum per (row, head), and its tile of queries, keys and scores.
    const double group = static_cast<double>(cfg.heads) / cfg.kv_heads;
    const double scratch = (2.0 * static_cast<double>(rows) * cfg.heads + 16 * group * cfg.head_dim +
                            64.0 * cfg.head_dim + 16 * group * 64) *
                           dtype_bytes(cfg.dtype);
    threads = static_cast<double>(out.threads) * kThreadBytes + static_cast<double>(hosted) * scratch;
  }
  out.cells = static_cast<std::int64_t>(cells);  // c <= 2^20: exact
  out.bytes = saturated_bytes(plan + launches + program + timelines + threads);
  return out;
}

std::string scale_skip_reason(const Config& cfg, const RunOptions& opts, const MemoryBudget& budget) {
  const RankScale scale = rank_scale(cfg, opts);
  if (scale.threads > ring::kMaxCpuExecutorThreads)
    return fmt::format(
        "the cpu backend would start {} threads for {} ranks (a thread per lane of each rank's step "
        "program: compute, and comm per K/V lane or as its dK/dV design needs); at most {} per process",
        scale.threads, cfg.cp, ring::kMaxCpuExecutorThreads);
  if (budget.host_bytes > 0 && scale.bytes > budget.host_bytes)
    return fmt::format(
        "needs an estimated {} of host memory for the state of its {} ranks alone ({} rank steps, {} "
        "threads); {}",
        gib_text(scale.bytes), cfg.cp, scale.cells, scale.threads, budget_text(budget));
  return "";
}

MemoryBudget memory_budget(const RunOptions& opts) {
  ring::World* w = world();
  const int on_host = w ? w->ranks_on_this_host() : 1;
  MemoryBudget b;
  b.holders = opts.pace_fd >= 0 && opts.pace_unit == PaceUnit::sample ? 2 : 1;
  b.host_bytes = opts.memory_limit_bytes > 0 ? opts.memory_limit_bytes
                                             : available_memory_bytes() / 10 * 9 / on_host / b.holders;
  if (w) b.host_bytes = w->min(b.host_bytes);  // every rank skips the same configurations
  b.local_devices = local_cuda_devices(opts);
  return b;
}

std::string memory_skip_reason(const ring::Plan& plan, const RunOptions& opts, const MemoryBudget& budget) {
  const Config& cfg = plan.config;
  if (budget.host_bytes > 0) {
    const std::int64_t scale = rank_scale(cfg, opts).bytes;
    const std::int64_t need = saturated_bytes(static_cast<double>(estimated_host_bytes(plan, opts, processes(cfg))) +
                                              static_cast<double>(scale));
    if (need > budget.host_bytes)
      return fmt::format("needs an estimated {} of host memory ({} for the state of its {} ranks); {}", gib_text(need),
                         gib_text(scale), cfg.cp, budget_text(budget));
  }
  // By sample, the other build may hold its buffers of the same configuration already, or may still
  // make them: each build asks for room for both, so that neither runs out half-way through a round.
  // Near the limit the build that plans second sees the first's buffers gone from the free memory
  // and may skip what the first ran; compare then leaves the configuration out.
  if (const auto device = device_memory(plan, budget.local_devices);
      device && device->needed_bytes * budget.holders > device->free_bytes / 10 * 9)
    return fmt::format("needs an estimated {} of device memory{}; {:.2f} GiB are free", gib_text(device->needed_bytes),
                       budget.holders > 1 ? ", twice over for the two builds of an A/B run by sample" : "",
                       static_cast<double>(device->free_bytes) / 1073741824.0);
  return "";
}

std::string agree_on_skip(const Config& cfg, std::string skip) {
  ring::World* w = world();
  if (!w || !is_distributed(cfg.transport)) return skip;
  const auto reasons = w->allgather_strings(skip);
  for (std::size_t k = 0; k < reasons.size() && skip.empty(); ++k)
    if (!reasons[k].empty()) skip = fmt::format("rank {}: {}", k, reasons[k]);
  return skip;
}

}  // namespace rb::bench
