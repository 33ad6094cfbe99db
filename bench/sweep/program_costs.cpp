// The step program as the program simulator's ops (program_costs.hpp).
#include "bench/sweep/program_costs.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "ring/program/compile.hpp"

namespace rb::bench {
namespace {

// Who a collective meets: a gather's or reduce-scatter's K/V schedule members (the ranks, or this
// rank's place in each group), an all-to-all's head-exchange group.
std::vector<int> group_of(const ring::Plan& plan, const ring::CompileContext& ctx, const ring::Op& op) {
  std::vector<int> g;
  if (op.kind == ring::OpKind::all_to_all) {
    const HeadExchange& x = plan.exchange;
    for (int m = 0; m < x.degree; ++m) g.push_back(x.rank_of(x.group_of(ctx.rank), m));
  } else {
    for (int m = 0; m < ctx.members; ++m) g.push_back(ctx.peer(m));
  }
  std::sort(g.begin(), g.end());
  return g;
}

model::SimOp sim_op(const ring::Plan& plan, const ring::CompileContext& ctx, const ring::Op& op) {
  model::SimOp s;
  s.lane = op.lane;
  s.kind = ring::timeline_kind(op);
  s.name = op.name ? op.name : "";
  s.step = op.step;
  s.phase = op.part == ring::Part::backward ? 1 : 0;
  switch (op.kind) {
    case ring::OpKind::exchange:
      s.from = op.from;
      s.to = op.to;
      break;
    case ring::OpKind::gather:
    case ring::OpKind::reduce_scatter:
    case ring::OpKind::all_to_all: s.group = group_of(plan, ctx, op); break;
    default: break;
  }
  return s;
}

}  // namespace

std::vector<model::RankOps> program_sim_ops(const ring::Plan& plan) {
  const Phase phase = plan.config.phase;
  auto timed = [phase](const ring::Op& op) {
    return op.part == ring::Part::forward ? times_forward(phase) : times_backward(phase);
  };
  std::vector<model::RankOps> out;
  for (int r = 0; r < plan.config.cp; ++r) {
    const ring::RankProgram p = ring::compile_program(plan, r);
    const ring::CompileContext ctx(plan, r);
    model::RankOps ro;
    ro.lanes = p.lanes;
    std::vector<int> index(p.ops.size(), -1);  // program op -> simulated op
    for (std::size_t i = 0; i < p.ops.size(); ++i) {
      const ring::Op& op = p.ops[i];
      if (!timed(op)) continue;
      model::SimOp s = sim_op(plan, ctx, op);
      for (const int d : op.deps)
        if (index[static_cast<std::size_t>(d)] >= 0) s.deps.push_back(index[static_cast<std::size_t>(d)]);
      index[i] = static_cast<int>(ro.ops.size());
      ro.ops.push_back(std::move(s));
    }
    out.push_back(std::move(ro));
  }
  return out;
}

int cost_from_timeline(std::vector<model::RankOps>& ranks, const Timeline& tl) {
  // Per (rank, comm?, name, step, phase): the recorded lengths in order, and their union.
  using Key = std::tuple<int, bool, std::string, int, int>;
  struct Recorded {
    std::vector<double> seconds;
    std::vector<std::int64_t> bytes;
    std::vector<std::pair<std::int64_t, std::int64_t>> spans;
  };
  std::map<Key, Recorded> comm, in_flight, compute;
  for (const Interval& iv : tl.intervals) {
    auto* table = iv.kind == IntervalKind::comm             ? &comm
                  : iv.kind == IntervalKind::comm_in_flight ? &in_flight
                  : iv.kind == IntervalKind::compute        ? &compute
                                                            : nullptr;
    if (!table) continue;
    Recorded& rec = (*table)[Key{iv.rank, table != &compute, iv.name, iv.step, iv.phase}];
    rec.seconds.push_back(static_cast<double>(iv.end_ns - iv.begin_ns) / 1e9);
    rec.bytes.push_back(iv.bytes);
    rec.spans.emplace_back(iv.begin_ns, iv.end_ns);
  }
  std::vector<bool> copies(ranks.size(), false);  // a rank that recorded its copies executing
  for (const auto& [key, rec] : comm) copies.at(static_cast<std::size_t>(std::get<0>(key))) = true;

  // Per key, the ops that carry it, in order.
  std::map<Key, std::vector<model::SimOp*>> ops;
  for (std::size_t r = 0; r < ranks.size(); ++r)
    for (model::SimOp& op : ranks[r].ops) {
      op.seconds = 0;
      op.bytes = 0;
      if (op.name.empty() || op.kind == IntervalKind::other) continue;
      ops[Key{static_cast<int>(r), op.kind == IntervalKind::comm, op.name, op.step, op.phase}].push_back(&op);
    }
  int missing = 0;
  for (auto& [key, list] : ops) {
    const bool is_comm = std::get<1>(key);
    const auto& table = !is_comm ? compute : copies.at(static_cast<std::size_t>(std::get<0>(key))) ? comm : in_flight;
    const auto it = table.find(key);
    if (it == table.end()) {
      missing += static_cast<int>(list.size());
      continue;
    }
    const Recorded& rec = it->second;
    if (rec.seconds.size() == list.size()) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        list[i]->seconds = rec.seconds[i];
        list[i]->bytes = rec.bytes[i];
      }
      continue;
    }
    // Several copies for one op (a transfer the cuda backend makes piece by piece), or one
    // interval for several: their union, shared.
    auto spans = rec.spans;
    std::sort(spans.begin(), spans.end());
    std::int64_t total = 0, reach = spans.front().first;
    for (const auto& [b, e] : spans) {
      total += std::max<std::int64_t>(0, e - std::max(b, reach));
      reach = std::max(reach, e);
    }
    std::int64_t moved = 0;
    for (const std::int64_t b : rec.bytes) moved += b;
    for (model::SimOp* op : list) {
      op->seconds = static_cast<double>(total) / 1e9 / static_cast<double>(list.size());
      op->bytes = moved / static_cast<std::int64_t>(list.size());
    }
  }
  return missing;
}

}  // namespace rb::bench
