// Building and summarising plans.
#include "ring/plan/plan.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "common/documents.hpp"
#include "common/error.hpp"

#include "ring/plan/split_scheme.hpp"
#include "ring/plan/variant_scheme.hpp"

namespace rb::ring {

void validate_plan_inputs(const Config& cfg) {
  cfg.validate_shape();
  check_documents(cfg);
  check_divisible(*make_split_scheme(cfg), cfg.seq, cfg.cp);
  check_piece_bound(cfg);
  const auto variant = make_variant_scheme(cfg.variant);
  const std::int64_t shard = cfg.seq / cfg.cp;
  const HeadExchange x = variant->head_exchange(cfg, shard);
  (void)variant->schedule(x.groups, shard * x.degree);
  if (times_backward(cfg.phase)) (void)variant->backward(x.groups, shard * x.degree, cfg.dkv, cfg.dtype);
}

Plan make_plan(const Config& cfg) {
  validate_plan_inputs(cfg);
  auto scheme = make_split_scheme(cfg);
  auto variant = make_variant_scheme(cfg.variant);

  Plan plan;
  plan.config = cfg;
  plan.documents = DocumentMask::of(cfg);
  std::vector<SegmentList> segs(cfg.cp);
  for (int r = 0; r < cfg.cp; ++r) segs[r] = scheme->segments(cfg.seq, cfg.cp, r);
  plan.exchange = variant->head_exchange(cfg, total_count(segs[0]));
  const HeadExchange& x = plan.exchange;
  // Each member of the schedule attends over its group's shards, in member order (one shard each
  // without an exchange).
  std::vector<SegmentList> rows(x.groups);
  for (int g = 0; g < x.groups; ++g)
    for (int u = 0; u < x.degree; ++u) {
      const SegmentList& shard = segs[x.rank_of(g, u)];
      rows[g].insert(rows[g].end(), shard.begin(), shard.end());
    }
  const std::int64_t attention_tokens = total_count(rows[0]);
  plan.kv_bytes_per_token = 2LL * x.kv_heads * cfg.head_dim * dtype_bytes(cfg.dtype);
  plan.schedule = variant->schedule(x.groups, attention_tokens);
  if (times_backward(cfg.phase)) {
    plan.backward = variant->backward(x.groups, attention_tokens, cfg.dkv, cfg.dtype);
    plan.grad_bytes_per_token = 2LL * x.kv_heads * cfg.head_dim * plan.backward->grad_element_bytes;
  }
  // The members of a group run the same steps, on their own heads.
  std::vector<std::vector<StepPlan>> steps(x.groups);
  std::vector<BackwardRankPlan> backward(x.groups);
  // The keys of every (member, lane) and their documents, found once for all members' steps.
  const StepKeys keys(plan.schedule, rows, plan.documents);
  std::optional<StepKeys> backward_keys;
  if (plan.backward) backward_keys.emplace(plan.backward->kv, rows, plan.documents);
  for (int g = 0; g < x.groups; ++g) {
    steps[g] = schedule_steps(plan.schedule, g, rows, cfg.causal, plan.kv_bytes_per_token, plan.documents, &keys);
    if (plan.backward)
      backward[g] = backward_steps(*plan.backward, g, rows, cfg.causal, plan.kv_bytes_per_token,
                                   plan.grad_bytes_per_token, plan.documents, &*backward_keys);
  }
  plan.ranks.resize(cfg.cp);
  for (int r = 0; r < cfg.cp; ++r) {
    RankPlan& rp = plan.ranks[r];
    const int g = x.group_of(r);
    rp.rank = r;
    rp.segments = segs[r];
    rp.tokens = total_count(segs[r]);
    // A group of one rank hands its steps over; the members of a larger group each keep a copy.
    const bool alone = x.degree == 1;
    rp.attention = alone ? std::move(rows[g]) : rows[g];
    rp.attention_tokens = attention_tokens;
    rp.steps = alone ? std::move(steps[g]) : steps[g];
    for (const auto& s : rp.steps) {
      rp.unmasked += s.unmasked;
      rp.recv_bytes += s.recv_bytes;
    }
    if (plan.backward) rp.backward = alone ? std::move(backward[g]) : backward[g];
  }
  return plan;
}

SegmentList Plan::lane_segments(int origin, int lane) const {
  const KvLane& l = schedule.lanes.at(lane);
  return slice_rows(member_rows(origin), l.row_begin, l.row_end);
}

std::vector<BlockPiece> Plan::block_pieces(int rank) const {
  std::vector<BlockPiece> out;
  for (int l = 0; l < static_cast<int>(schedule.lanes.size()); ++l)
    out.push_back(BlockPiece{lane_segments(exchange.group_of(rank), l), schedule.k_row(l), schedule.v_row(l)});
  return out;
}

std::vector<RowLocation> locate_rows(const Plan& plan, std::span<const std::int64_t> positions) {
  std::unordered_map<std::int64_t, RowLocation> where;
  where.reserve(positions.size() * 2);
  for (auto p : positions) where.emplace(p, RowLocation{});
  for (const auto& rp : plan.ranks) {
    std::int64_t row = 0;
    for (const auto& s : rp.segments)
      for (std::int64_t i = 0; i < s.count; ++i, ++row) {
        auto it = where.find(s.pos(i));
        if (it != where.end()) it->second = {rp.rank, row};
      }
  }
  std::vector<RowLocation> out;
  out.reserve(positions.size());
  for (auto p : positions) {
    const RowLocation loc = where.at(p);
    if (loc.rank < 0) throw Error(fmt::format("position {} is held by no rank", p));
    out.push_back(loc);
  }
  return out;
}

std::int64_t Plan::work(int rank) const { return ranks.at(rank).unmasked * exchange.q_heads; }

std::int64_t Plan::total_work() const {
  std::int64_t w = 0;
  for (const auto& r : ranks) w += r.unmasked * exchange.q_heads;
  return w;
}

double Plan::work_imbalance() const {
  if (ranks.empty()) return 1.0;
  std::int64_t mx = 0, total = 0;
  for (const auto& r : ranks) {
    mx = std::max(mx, r.unmasked);
    total += r.unmasked;
  }
  const double mean = static_cast<double>(total) / static_cast<double>(ranks.size());
  return mean > 0 ? static_cast<double>(mx) / mean : 1.0;
}

double Plan::flops() const { return 4.0 * config.head_dim * static_cast<double>(total_work()); }

std::int64_t Plan::forward_recv_bytes(int rank) const {
  return ranks.at(rank).recv_bytes + exchange.qkv_bytes + exchange.o_bytes;
}

std::int64_t Plan::backward_recv_bytes(int rank) const {
  if (!backward) return 0;
  return ranks.at(rank).backward.recv_bytes + exchange.do_bytes + exchange.dqkv_bytes;
}

std::int64_t Plan::bytes_moved() const {
  std::int64_t b = 0;
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) b += forward_recv_bytes(r);
  return b;
}

std::int64_t Plan::backward_bytes_moved() const {
  std::int64_t b = 0;
  for (int r = 0; r < static_cast<int>(ranks.size()); ++r) b += backward_recv_bytes(r);
  return b;
}

}  // namespace rb::ring
