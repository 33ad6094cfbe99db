// Every executor's memory estimate (see executor_bytes.hpp).
#include "ring/executor/executor_bytes.hpp"

#include <algorithm>

#include "common/size_estimate.hpp"
#include "ring/program/compile.hpp"

namespace rb::ring {
namespace {

// One rank's buffers in elements, in double so that a size the user may choose at will cannot wrap
// (common/size_estimate.hpp). A block is K and V of the rank's rows.
struct RankElements {
  double q = 0;       // Q, and each O
  double lse = 0;     // each LSE
  double kv = 0;      // one K/V block
  double blocks = 0;  // the own block and two step buffers, or the own block and the gathered ones
  double shard = 0;   // a head exchange's: the shard's Q, K, V and O and two messages' staging
};

RankElements rank_elements(const Plan& plan) {
  const Config& c = plan.config;
  // Under a head exchange the attention layout: the group's rows, the rank's heads.
  const HeadExchange& x = plan.exchange;
  const bool exchange = x.active() && !plan.ranks.empty();
  const double rows = plan.ranks.empty() ? 0.0
                      : exchange         ? static_cast<double>(plan.ranks[0].attention_tokens)
                                         : static_cast<double>(plan.ranks[0].tokens);
  const double q_heads = exchange ? x.q_heads : c.heads, kv_heads = exchange ? x.kv_heads : c.kv_heads;
  RankElements e;
  e.q = rows * q_heads * c.head_dim;
  e.lse = rows * q_heads;
  e.kv = 2 * rows * kv_heads * c.head_dim;
  e.blocks = plan.schedule.gathered ? 1.0 + c.cp : 3.0;
  if (exchange) {
    const double shard = static_cast<double>(plan.ranks[0].tokens);
    e.shard = shard * c.head_dim * (2.0 * c.heads + 2.0 * c.kv_heads + 2.0 * (x.q_heads + 2.0 * x.kv_heads));
  }
  return e;
}

// One CUDA rank: bfloat16 Q and blocks, float O and LSE.
double cuda_rank_bytes(const Plan& plan) {
  const RankElements e = rank_elements(plan);
  return 2 * (e.q + e.blocks * e.kv) + 4 * (2 * e.q + 2 * e.lse);
}

}  // namespace

std::int64_t cpu_executor_bytes(const Plan& plan) {
  const Config& c = plan.config;
  if (plan.ranks.empty()) return 0;
  // What the executor allocates is what each rank's program declares (ring/program/compile.hpp), in
  // the run's dtype; every rank declares as much. A plan whose buffers int64 cannot count (the rough
  // count of rank_elements, in double) saturates without a program.
  const RankElements e = rank_elements(plan);
  const double rough = (3 * e.q + 2 * e.lse + e.blocks * e.kv + e.shard) * (plan.backward ? 3.0 : 1.0);
  if (!(rough * c.cp * dtype_bytes(c.dtype) < 0x1p62)) return saturated_bytes(rough * c.cp * dtype_bytes(c.dtype));
  const double rank = static_cast<double>(program_buffers(plan, 0).total_elements());
  return saturated_bytes(rank * c.cp * dtype_bytes(c.dtype));
}

std::int64_t cuda_executor_bytes(const Plan& plan, int devices) {
  const Config& cfg = plan.config;
  const std::int64_t n = std::max(1, std::min(devices, cfg.cp));
  // The fullest device holds ceil(c / n) ranks.
  return saturated_bytes(cuda_rank_bytes(plan) * static_cast<double>((cfg.cp + n - 1) / n));
}

std::int64_t nccl_executor_bytes(const Plan& plan) { return saturated_bytes(cuda_rank_bytes(plan)); }

}  // namespace rb::ring
