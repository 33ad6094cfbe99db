// Memory estimates against the budget, and the agreement on skipping.
#include "bench/sweep/memory_budget.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/distributed.hpp"
#include "bench/sweep/environment.hpp"

namespace rb::bench {
namespace {

// An estimate in GiB; a saturated one (common/size_estimate.hpp) says so rather than print 8e9 GiB.
std::string gib_text(std::int64_t bytes) {
  if (bytes == std::numeric_limits<std::int64_t>::max()) return "more than 8 EiB (beyond what int64 counts)";
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / 1073741824.0);
}

}  // namespace

MemoryBudget memory_budget(const RunOptions& opts) {
  ring::World* w = world();
  const int on_host = w ? w->ranks_on_this_host() : 1;
  MemoryBudget b;
  b.host_bytes = opts.memory_limit_bytes > 0 ? opts.memory_limit_bytes : available_memory_bytes() / 10 * 9 / on_host;
  if (w) b.host_bytes = w->min(b.host_bytes);  // every rank skips the same configurations
  b.local_devices = local_cuda_devices(opts);
  return b;
}

std::string memory_skip_reason(const ring::Plan& plan, const RunOptions& opts, const MemoryBudget& budget) {
  const Config& cfg = plan.config;
  const bool distributed = cfg.transport != Transport::local;
  if (budget.host_bytes > 0) {
    const auto need = estimated_host_bytes(plan, opts, distributed ? cfg.cp : 1);
    if (need > budget.host_bytes)
      return fmt::format("needs an estimated {} of host memory; {:.2f} GiB may be used", gib_text(need),
                         static_cast<double>(budget.host_bytes) / 1073741824.0);
  }
  if (const auto device = device_memory(plan, budget.local_devices);
      device && device->needed_bytes > device->free_bytes / 10 * 9)
    return fmt::format("needs an estimated {} of device memory; {:.2f} GiB are free", gib_text(device->needed_bytes),
                       static_cast<double>(device->free_bytes) / 1073741824.0);
  return "";
}

std::string agree_on_skip(const Config& cfg, std::string skip) {
  ring::World* w = world();
  if (!w || cfg.transport == Transport::local) return skip;
  const auto reasons = w->allgather_strings(skip);
  for (std::size_t k = 0; k < reasons.size() && skip.empty(); ++k)
    if (!reasons[k].empty()) skip = fmt::format("rank {}: {}", k, reasons[k]);
  return skip;
}

}  // namespace rb::bench
