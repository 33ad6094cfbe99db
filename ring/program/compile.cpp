// Compiling a rank's program (see compile.hpp).
#include "ring/program/compile.hpp"

#include <algorithm>

#include "ring/plan/variant_scheme.hpp"
#include "ring/program/backward_design.hpp"
#include "ring/program/fault.hpp"
#include "ring/program/forward.hpp"
#include "ring/program/head_exchange.hpp"

namespace rb::ring {

CompileContext::CompileContext(const Plan& p, int r) : plan(p), rank(r) {
  const HeadExchange& x = plan.exchange;
  const KvSchedule& sch = plan.schedule;
  const Config& cfg = plan.config;
  members = x.groups;
  member = x.group_of(r);
  rows = plan.ranks.at(static_cast<std::size_t>(r)).attention_tokens;
  row = static_cast<std::int64_t>(x.kv_heads) * cfg.head_dim;
  q = rows * x.q_heads * cfg.head_dim;
  lse = rows * x.q_heads;
  lane_rows = sch.lane_rows;
  lanes = static_cast<int>(sch.lanes.size());
  piece = 2 * lane_rows * row;
  v_offset = lane_rows * row;
  block = sch.buffer_rows() * row;
  half = rows * row;
}

int CompileContext::peer(int m) const { return plan.exchange.rank_of(m, plan.exchange.member_of(rank)); }

RankProgram program_buffers(const Plan& plan, int r) {
  const CompileContext cx(plan, r);
  RankProgram p;
  p.rank = r;
  declare_forward(cx, p);
  if (plan.backward) {
    declare_backward_common(cx, p);
    make_backward_design(plan.backward->grads)->declare(cx, p);
  }
  declare_head_exchange(cx, p);
  p.lanes = program_lanes(plan.schedule, plan.backward ? &*plan.backward : nullptr);
  return p;
}

RankProgram compile_program(const Plan& plan, int r, InjectedFault fault) {
  const CompileContext cx(plan, r);
  RankProgram p = program_buffers(plan, r);
  const int lanes = p.lanes;
  compile_forward(cx, p);
  if (plan.backward) {
    add_delta(cx, p);
    make_backward_design(plan.backward->grads)->compile(cx, p);
  }
  wrap_head_exchange(cx, p);
  apply_fault(cx, p, fault);
  // The backward starts once the forward's compute is done: the first backward op of every comm
  // lane waits for the forward's last compute op (a training step's backward follows its forward).
  const auto last_forward = std::find_if(p.ops.rbegin(), p.ops.rend(),
                                         [](const Op& o) { return o.part == Part::forward && o.lane == 0; });
  if (last_forward != p.ops.rend()) {
    const int at = static_cast<int>(p.ops.rend() - last_forward) - 1;
    std::vector<bool> started(static_cast<std::size_t>(std::max(lanes, p.lanes)), false);
    for (Op& op : p.ops)
      if (op.part == Part::backward && op.lane > 0 && !started[static_cast<std::size_t>(op.lane)]) {
        started[static_cast<std::size_t>(op.lane)] = true;
        op.deps.push_back(at);
      }
  }
  p.lanes = std::max(lanes, p.lanes);
  derive_dependencies(p);
  return p;
}

std::vector<OpKind> program_op_kinds(const Config& cfg) {
  // The kinds do not depend on the sizes: two members of two rows say whether the schedule gathers
  // and how the backward returns dK/dV.
  const auto variant = make_variant_scheme(cfg.variant);
  const KvSchedule sch = variant->schedule(2, 2);
  std::vector<OpKind> out{sch.gathered ? OpKind::gather : OpKind::exchange, OpKind::attend, OpKind::merge,
                          OpKind::mark};
  if (variant->exchanges_heads()) out.push_back(OpKind::all_to_all);
  if (times_backward(cfg.phase)) {
    for (const OpKind k : {OpKind::delta, OpKind::attend_bwd, OpKind::fold}) out.push_back(k);
    for (const OpKind k : make_backward_design(variant->backward(2, 2, cfg.dkv, cfg.dtype).grads)->op_kinds())
      out.push_back(k);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int program_lanes(const KvSchedule& forward, const BackwardSchedule* backward) {
  int comm = forward.gathered ? 1 : static_cast<int>(forward.lanes.size());
  if (backward) comm = std::max(comm, make_backward_design(backward->grads)->comm_lanes(backward->kv));
  return 1 + comm;
}

}  // namespace rb::ring
