// Building and checking step tables.
#include "model/step_table.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::model {

StepTable::StepTable(int c, int s, Variant v)
    : ranks(c),
      steps(s),
      variant(v),
      compute_s(static_cast<std::size_t>(c) * s, 0.0),
      transfer_s(static_cast<std::size_t>(c) * s, 0.0) {}

void StepTable::check() const {
  if (ranks <= 0 || steps <= 0) throw Error(fmt::format("step table: {} ranks, {} steps", ranks, steps));
  if (variant == Variant::ring && steps != ranks)
    throw Error(fmt::format("step table: the ring needs one step per rank, got {} steps for {} ranks", steps, ranks));
  if (variant == Variant::allgather && steps != 1)
    throw Error(fmt::format("step table: the all-gather runs one step, got {}", steps));
  const auto n = static_cast<std::size_t>(ranks) * steps;
  if (compute_s.size() != n || transfer_s.size() != n)
    throw Error(fmt::format("step table: {} compute and {} transfer entries for {} x {}", compute_s.size(),
                            transfer_s.size(), ranks, steps));
  for (std::size_t i = 0; i < n; ++i)
    if (!(compute_s[i] >= 0 && std::isfinite(compute_s[i]) && transfer_s[i] >= 0 && std::isfinite(transfer_s[i])))
      throw Error(fmt::format("step table: entry {} has compute {} s, transfer {} s", i, compute_s[i], transfer_s[i]));
}

StepTable make_step_table(int c, int steps, Variant v, std::span<const std::int64_t> unmasked,
                          std::span<const std::int64_t> recv_bytes, int head_dim, int heads, double flops_per_s,
                          const Link& link, int micro_batch) {
  StepTable t(c, steps, v);
  const auto n = static_cast<std::size_t>(c) * steps;
  if (unmasked.size() != n || recv_bytes.size() != n)
    throw Error(fmt::format("make_step_table: {} pair and {} byte entries for {} x {}", unmasked.size(),
                            recv_bytes.size(), c, steps));
  const double flops_per_pair = 4.0 * head_dim * heads * micro_batch;
  for (std::size_t i = 0; i < n; ++i) {
    t.compute_s[i] = flops_per_pair * static_cast<double>(unmasked[i]) / flops_per_s;
    t.transfer_s[i] =
        recv_bytes[i] > 0 ? static_cast<double>(recv_bytes[i]) * micro_batch / link.bytes_per_s + link.latency_s : 0.0;
  }
  t.check();
  return t;
}

// A transfer's time is its execution; where a recorder could only bracket it (in flight), the
// bracket stands in, as in the metrics.
StepTable step_table_from_timeline(const Timeline& tl, int c, Variant v) {
  const int steps = v == Variant::ring ? c : 1;
  StepTable t(c, steps, v);
  std::vector<double> in_flight(t.transfer_s.size(), 0.0);
  for (const auto& iv : tl.intervals) {
    if (iv.rank < 0 || iv.rank >= c || iv.step < 0 || iv.step >= steps) continue;
    const double len = static_cast<double>(iv.end_ns - iv.begin_ns) * 1e-9;
    if (iv.kind == IntervalKind::compute) t.compute(iv.rank, iv.step) += len;
    if (iv.kind == IntervalKind::comm) t.transfer(iv.rank, iv.step) += len;
    if (iv.kind == IntervalKind::comm_in_flight)
      in_flight[static_cast<std::size_t>(iv.rank) * steps + static_cast<std::size_t>(iv.step)] += len;
  }
  for (std::size_t i = 0; i < in_flight.size(); ++i)
    if (t.transfer_s[i] == 0.0) t.transfer_s[i] = in_flight[i];
  t.check();
  return t;
}

}  // namespace rb::model
