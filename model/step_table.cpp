// Building and checking step tables.
#include "model/step_table.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::model {
namespace {

// The length of the union of [begin, end) spans, in seconds.
double union_seconds(std::vector<std::pair<std::int64_t, std::int64_t>> spans) {
  std::sort(spans.begin(), spans.end());
  std::int64_t total = 0, end = std::numeric_limits<std::int64_t>::min();
  for (const auto& [b, e] : spans) {
    if (e <= end) continue;
    total += e - std::max(b, end);
    end = e;
  }
  return static_cast<double>(total) * 1e-9;
}

}  // namespace

StepTable::StepTable(int c, int s, Variant v, KvSchedule sch)
    : ranks(c),
      steps(s),
      variant(v),
      schedule(std::move(sch)),
      compute_s(static_cast<std::size_t>(c) * s, 0.0),
      transfer_s(static_cast<std::size_t>(c) * s, 0.0) {}

void StepTable::check() const {
  if (ranks <= 0 || steps <= 0) throw Error(fmt::format("step table: {} ranks, {} steps", ranks, steps));
  if (!schedule.gathered && (steps != ranks || schedule.lanes.empty()))
    throw Error(
        fmt::format("step table: blocks that rotate need one step per rank and a lane, got {} steps for {} "
                    "ranks and {} lanes",
                    steps, ranks, schedule.lanes.size()));
  if (schedule.gathered && steps != 1)
    throw Error(fmt::format("step table: the all-gather runs one step, got {}", steps));
  if (!(exchange_in_s >= 0 && std::isfinite(exchange_in_s) && exchange_out_s >= 0 && std::isfinite(exchange_out_s)))
    throw Error(fmt::format("step table: all-to-alls of {} s and {} s", exchange_in_s, exchange_out_s));
  const auto n = static_cast<std::size_t>(ranks) * steps;
  if (compute_s.size() != n || transfer_s.size() != n)
    throw Error(fmt::format("step table: {} compute and {} transfer entries for {} x {}", compute_s.size(),
                            transfer_s.size(), ranks, steps));
  for (std::size_t i = 0; i < n; ++i)
    if (!(compute_s[i] >= 0 && std::isfinite(compute_s[i]) && transfer_s[i] >= 0 && std::isfinite(transfer_s[i])))
      throw Error(fmt::format("step table: entry {} has compute {} s, transfer {} s", i, compute_s[i], transfer_s[i]));
}

StepTable make_step_table(int c, int steps, Variant v, const KvSchedule& schedule,
                          std::span<const std::int64_t> unmasked, std::span<const std::int64_t> recv_bytes,
                          int head_dim, int heads, double flops_per_s, const Link& link, int micro_batch) {
  StepTable t(c, steps, v, schedule);
  // The share of a step's bytes on its busiest link: lanes from one sender share its link.
  double busiest_share = 1.0;
  if (!schedule.gathered && !schedule.lanes.empty()) {
    std::map<int, int> per_sender;
    int most = 0;
    for (int l = 0; l < static_cast<int>(schedule.lanes.size()); ++l)
      most = std::max(most, ++per_sender[schedule.sender(0, l, c)]);
    busiest_share = static_cast<double>(most) / static_cast<double>(schedule.lanes.size());
  }
  const auto n = static_cast<std::size_t>(c) * steps;
  if (unmasked.size() != n || recv_bytes.size() != n)
    throw Error(fmt::format("make_step_table: {} pair and {} byte entries for {} x {}", unmasked.size(),
                            recv_bytes.size(), c, steps));
  const double flops_per_pair = 4.0 * head_dim * heads * micro_batch;
  for (std::size_t i = 0; i < n; ++i) {
    t.compute_s[i] = flops_per_pair * static_cast<double>(unmasked[i]) / flops_per_s;
    t.transfer_s[i] = recv_bytes[i] > 0
                          ? static_cast<double>(recv_bytes[i]) * busiest_share * micro_batch / link.bytes_per_s +
                                link.latency_s
                          : 0.0;
  }
  t.check();
  return t;
}

// A transfer's time is its execution; where a recorder could only bracket it (in flight), the
// bracket stands in, as in the metrics.
StepTable step_table_from_timeline(const Timeline& tl, int c, Variant v, const KvSchedule& schedule) {
  const int steps = schedule.gathered ? 1 : c;
  StepTable t(c, steps, v, schedule);
  const auto n = t.transfer_s.size();
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> comm(n), in_flight(n);
  for (const auto& iv : tl.intervals) {
    if (iv.rank < 0 || iv.rank >= c || iv.step < 0 || iv.step >= steps) continue;
    const auto i = static_cast<std::size_t>(iv.rank) * steps + static_cast<std::size_t>(iv.step);
    if (iv.kind == IntervalKind::compute)
      t.compute(iv.rank, iv.step) += static_cast<double>(iv.end_ns - iv.begin_ns) * 1e-9;
    if (iv.kind == IntervalKind::comm) comm[i].emplace_back(iv.begin_ns, iv.end_ns);
    if (iv.kind == IntervalKind::comm_in_flight) in_flight[i].emplace_back(iv.begin_ns, iv.end_ns);
  }
  for (std::size_t i = 0; i < n; ++i) {
    t.transfer_s[i] = union_seconds(comm[i]);
    if (t.transfer_s[i] == 0.0) t.transfer_s[i] = union_seconds(in_flight[i]);
  }
  t.check();
  return t;
}

StepTable step_table_from_timeline(const Timeline& tl, const HeadExchange& x, Variant v, const KvSchedule& schedule) {
  const int c = x.degree * x.groups;
  // Every rank's numbers first (its steps are the members' first G of c; the rest stay empty).
  const StepTable ranks = step_table_from_timeline(tl, c, v, schedule);
  const int steps = schedule.gathered ? 1 : x.groups;
  StepTable t(x.groups, steps, v, schedule);
  for (int r = 0; r < c; ++r)
    for (int j = 0; j < steps; ++j) {
      const int g = x.group_of(r);
      t.compute(g, j) = std::max(t.compute(g, j), ranks.compute(r, j));
      t.transfer(g, j) = std::max(t.transfer(g, j), ranks.transfer(r, j));
    }
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> in(c), out(c);
  for (const auto& iv : tl.intervals) {
    if (iv.rank < 0 || iv.rank >= c || iv.kind != IntervalKind::comm) continue;
    if (iv.name == "qkv_alltoall") in[iv.rank].emplace_back(iv.begin_ns, iv.end_ns);
    if (iv.name == "o_alltoall") out[iv.rank].emplace_back(iv.begin_ns, iv.end_ns);
  }
  for (int r = 0; r < c; ++r) {
    t.exchange_in_s = std::max(t.exchange_in_s, union_seconds(in[r]));
    t.exchange_out_s = std::max(t.exchange_out_s, union_seconds(out[r]));
  }
  t.check();
  return t;
}

}  // namespace rb::model
