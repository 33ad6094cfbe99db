// The head exchange's ops (see head_exchange.hpp).
#include "ring/program/head_exchange.hpp"

#include <algorithm>

namespace rb::ring {

const char* head_move_name(HeadMove m) {
  switch (m) {
    case HeadMove::forward_in: return "qkv_alltoall";
    case HeadMove::forward_out: return "o_alltoall";
    case HeadMove::backward_in: return "do_alltoall";
    case HeadMove::backward_out: return "dqkv_alltoall";
  }
  return "";
}

void declare_head_exchange(const CompileContext& cx, RankProgram& p) {
  const Plan& plan = cx.plan;
  const HeadExchange& x = plan.exchange;
  if (!x.active()) return;
  const Config& cfg = plan.config;
  const std::int64_t tokens = plan.ranks.at(cx.rank).tokens;
  const std::int64_t qd = static_cast<std::int64_t>(cfg.heads) * cfg.head_dim;
  const std::int64_t kvd = static_cast<std::int64_t>(cfg.kv_heads) * cfg.head_dim;
  p.buffers.push_back({Buf::q_shard, tokens, qd});
  p.buffers.push_back({Buf::k_shard, tokens, kvd});
  p.buffers.push_back({Buf::v_shard, tokens, kvd});
  p.buffers.push_back({Buf::o_shard, tokens, qd});
  // One message: the largest of Q, K, V going in and of O going out.
  const std::int64_t stage = (x.q_heads + 2LL * x.kv_heads) * cfg.head_dim;
  p.buffers.push_back({Buf::stage_send, tokens, stage});
  p.buffers.push_back({Buf::stage_recv, tokens, stage});
  if (!plan.backward) return;
  p.buffers.push_back({Buf::d_o_shard, tokens, qd});
  p.buffers.push_back({Buf::dq_shard, tokens, qd});
  p.buffers.push_back({Buf::dk_shard, tokens, kvd});
  p.buffers.push_back({Buf::dv_shard, tokens, kvd});
}

namespace {

Op all_to_all(const RankProgram& p, HeadMove move, Part part, std::vector<Buf> reads, std::vector<Buf> writes) {
  Op a;
  a.kind = OpKind::all_to_all;
  a.move = move;
  a.part = part;
  a.lane = 1;
  a.step = -1;
  a.name = head_move_name(move);
  for (const Buf b : reads) a.reads.push_back({b, 0, p.elements(b)});
  writes.push_back(Buf::stage_send);
  writes.push_back(Buf::stage_recv);
  for (const Buf b : writes) a.runs.push_back({b, 0, p.elements(b)});
  return a;
}

// Inserts `op` before the first op of `part` (at the front: `after` false) or after its last.
void insert(RankProgram& p, Op op, bool after) {
  const Part part = op.part;
  auto it = p.ops.end();
  if (after) {
    auto last = std::find_if(p.ops.rbegin(), p.ops.rend(), [&](const Op& o) { return o.part == part; });
    it = last == p.ops.rend() ? p.ops.end() : last.base();
  } else {
    it = std::find_if(p.ops.begin(), p.ops.end(), [&](const Op& o) { return o.part == part; });
  }
  p.lanes = std::max(p.lanes, op.lane + 1);
  p.ops.insert(it, std::move(op));
}

}  // namespace

void wrap_head_exchange(const CompileContext& cx, RankProgram& p) {
  if (!cx.plan.exchange.active()) return;
  insert(p,
         all_to_all(p, HeadMove::forward_in, Part::forward, {Buf::q_shard, Buf::k_shard, Buf::v_shard},
                    {Buf::q, Buf::own}),
         false);
  insert(p, all_to_all(p, HeadMove::forward_out, Part::forward, {Buf::o_acc}, {Buf::o_shard}), true);
  if (!cx.plan.backward) return;
  insert(p, all_to_all(p, HeadMove::backward_in, Part::backward, {Buf::d_o_shard}, {Buf::d_o}), false);
  insert(p,
         all_to_all(p, HeadMove::backward_out, Part::backward, {Buf::dq, Buf::d_own},
                    {Buf::dq_shard, Buf::dk_shard, Buf::dv_shard}),
         true);
}

}  // namespace rb::ring
