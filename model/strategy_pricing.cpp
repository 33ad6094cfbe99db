// Pricing a strategy from its plan's tables (see strategy_pricing.hpp). The bytes are the plan's own
// (the steps' K/V and the head exchange's all-to-alls); the compute is the closed form of
// comm_compute.hpp scaled by the pairs within documents; the pass is the ring simulator's.
#include "model/strategy_pricing.hpp"

#include <algorithm>
#include <cmath>
#include <span>

#include <fmt/format.h>

#include "common/error.hpp"
#include "model/comm_compute.hpp"

namespace rb::model {
namespace {

void check_work(const StrategyWork& w) {
  const auto n = static_cast<std::size_t>(w.ranks) * static_cast<std::size_t>(std::max(w.steps, 0));
  if (w.ranks <= 0 || w.steps <= 0 || w.unmasked.size() != n || w.recv_bytes.size() != n)
    throw Error(fmt::format("strategy pricing: {} pair and {} byte entries for {} ranks x {} steps", w.unmasked.size(),
                            w.recv_bytes.size(), w.ranks, w.steps));
  const HeadExchange& x = w.exchange;
  if (x.active() && x.degree * x.groups != w.ranks)
    throw Error(fmt::format("strategy pricing: {} groups of {} for {} ranks", x.groups, x.degree, w.ranks));
}

// The tables the step table reads: every rank's, or under a head exchange each group's first rank's
// (the members of a group run the same steps on other heads). `scale(j, bytes)` gives the bytes of
// step j's receive (the backward's are more than the forward's).
template <typename Scale>
StepTable member_table(const StrategyWork& w, const ModelInputs& in, double flops_per_s, Scale scale) {
  const HeadExchange& x = w.exchange;
  const int members = x.active() ? x.groups : w.ranks;
  std::vector<std::int64_t> unmasked, recv;
  unmasked.reserve(static_cast<std::size_t>(members) * w.steps);
  recv.reserve(unmasked.capacity());
  for (int g = 0; g < members; ++g)
    for (int j = 0; j < w.steps; ++j) {
      const int r = x.active() ? x.rank_of(g, 0) : g;
      unmasked.push_back(w.unmasked_at(r, j));
      recv.push_back(scale(j, w.recv_bytes_at(r, j)));
    }
  const int heads = x.active() ? x.q_heads : in.local_heads();
  return make_step_table(members, w.steps, w.variant, w.schedule, unmasked, recv, in.shape.head_dim, heads, flops_per_s,
                         in.link, in.micro_batch);
}

// The K/V into rank 0 over the steps, the micro-batch included.
double kv_into_rank0(const StrategyWork& w, double b) {
  double kv = 0;
  for (int j = 0; j < w.steps; ++j) kv += static_cast<double>(w.recv_bytes_at(0, j)) * b;
  return kv;
}

}  // namespace

StepTable strategy_step_table(const StrategyWork& w, const ModelInputs& in) {
  check_work(w);
  const HeadExchange& x = w.exchange;
  StepTable t = member_table(w, in, in.attention_flops_per_s(), [](int, std::int64_t b) { return b; });
  if (!x.active()) return t;
  // Each all-to-all: U − 1 transfers, one per peer, over the link the group sits on.
  const Link& link = in.exchange_link(x.degree);
  const double b = in.micro_batch;
  t.exchange_in_s = transfer_seconds(static_cast<double>(x.qkv_bytes) * b, x.degree - 1, link);
  t.exchange_out_s = transfer_seconds(static_cast<double>(x.o_bytes) * b, x.degree - 1, link);
  return t;
}

StrategyPrice price_strategy(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, double pairs_share,
                             bool simulate) {
  check_work(w);
  const HeadExchange& x = w.exchange;
  const double b = in.micro_batch;
  StrategyPrice p;
  p.kv_bytes = kv_into_rank0(w, b);
  p.kv_transfers = w.schedule.gathered ? x.groups - 1 : w.steps - 1;
  p.kv_transfer_s = transfer_seconds(p.kv_bytes, p.kv_transfers, in.link);
  p.alltoall_bytes = static_cast<double>(x.qkv_bytes + x.o_bytes) * b;
  if (x.active()) {
    const Link& link = in.exchange_link(x.degree);
    p.alltoall_transfers = 2 * (x.degree - 1);
    p.alltoall_link = link.name;
    p.alltoall_transfer_s = transfer_seconds(static_cast<double>(x.qkv_bytes) * b, x.degree - 1, link) +
                            transfer_seconds(static_cast<double>(x.o_bytes) * b, x.degree - 1, link);
  }
  // Under documents the pairs within them (as the comm/compute rows scale theirs).
  p.flops = attention_flops_per_layer(in, seq, cp) * pairs_share;
  p.compute_s = p.flops / in.attention_flops_per_s();
  if (simulate) p.simulation = model::simulate(strategy_step_table(w, in));
  return p;
}

StrategyPrice price_backward(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, Dkv dkv,
                             double pairs_share) {
  check_work(w);
  const HeadExchange& x = w.exchange;
  const double b = in.micro_batch;
  const StrategyPrice fwd = price_strategy(in, seq, cp, w, pairs_share, false);
  StrategyPrice p;
  p.flops = kBackwardFlopsFactor * fwd.flops;
  p.compute_s = p.flops / in.attention_flops_per_s();
  const double flops_per_s = in.attention_flops_per_s() / kBackwardFlopsFactor;  // each step 2.5 times the work
  // dK/dV on the wire: in the run's dtype, fused with K/V (reverse), or in fp32 (follow): g blocks.
  const double e = dtype_bytes(in.kv_dtype), g = dkv == Dkv::follow ? std::max(4.0, e) / e : 1.0;
  StepTable t;
  double tail_bytes = 0;  // after the last step, nothing under it
  if (w.schedule.gathered) {
    // The gather again, the step, then a reduce-scatter of dK/dV as large as the gather.
    t = member_table(w, in, flops_per_s, [](int, std::int64_t bytes) { return bytes; });
    tail_bytes = fwd.kv_bytes;
    p.kv_bytes = 2 * fwd.kv_bytes;
    p.kv_transfers = 2 * fwd.kv_transfers;
  } else {
    // A rotating schedule: the receive before step 1 is K/V alone; from step 2 each carries K/V and
    // the partial dK/dV of a block (g of them). After the last step the gradients still out go home:
    // reverse one block's, follow the last two steps' (the last step has no comm under it here).
    const double k = 1 + g;
    t = member_table(w, in, flops_per_s, [k](int j, std::int64_t bytes) {
      return j <= 1 ? bytes : static_cast<std::int64_t>(std::llround(static_cast<double>(bytes) * k));
    });
    const int first = x.active() ? x.rank_of(0, 0) : 0;
    const double block = w.steps > 1 ? static_cast<double>(w.recv_bytes_at(first, 1)) * b : 0.0;
    tail_bytes = dkv == Dkv::follow ? 2 * g * block : block;
    p.kv_transfers = fwd.kv_transfers > 0 ? (dkv == Dkv::follow ? 2 * w.steps - 1 : w.steps) : 0;
    double kv = 0;
    for (int j = 0; j < w.steps; ++j)
      kv += static_cast<double>(j <= 1 ? w.recv_bytes_at(first, j)
                                       : std::llround(static_cast<double>(w.recv_bytes_at(first, j)) * k)) *
            b;
    p.kv_bytes = kv + tail_bytes;
  }
  p.kv_transfer_s = transfer_seconds(p.kv_bytes, p.kv_transfers, in.link);
  if (x.active()) {
    const Link& link = in.exchange_link(x.degree);
    t.exchange_in_s = transfer_seconds(static_cast<double>(x.do_bytes) * b, x.degree - 1, link);
    t.exchange_out_s = transfer_seconds(static_cast<double>(x.dqkv_bytes) * b, x.degree - 1, link);
    p.alltoall_bytes = static_cast<double>(x.do_bytes + x.dqkv_bytes) * b;
    p.alltoall_transfers = 2 * (x.degree - 1);
    p.alltoall_link = link.name;
    p.alltoall_transfer_s = t.exchange_in_s + t.exchange_out_s;
  }
  Simulation sim = model::simulate(t);
  const double tail_s = transfer_seconds(tail_bytes, tail_bytes > 0 ? 1 : 0, in.link);
  sim.pass_s += tail_s;
  p.simulation = std::move(sim);
  return p;
}

PhasePrice price_phase(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, Phase phase, Dkv dkv,
                       double pairs_share) {
  PhasePrice out;
  auto add = [&out](const StrategyPrice& p) {
    out.bytes += p.bytes();
    out.transfer_s += p.kv_transfer_s + p.alltoall_transfer_s;
    out.flops += p.flops;
    out.compute_s += p.compute_s;
    out.pass_s += p.simulation ? p.simulation->pass_s : 0.0;
  };
  if (times_forward(phase)) add(price_strategy(in, seq, cp, w, pairs_share, true));
  if (times_backward(phase)) add(price_backward(in, seq, cp, w, dkv, pairs_share));
  return out;
}

}  // namespace rb::model
