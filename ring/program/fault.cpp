// Injected faults as rewrites of ops (see fault.hpp).
#include "ring/program/fault.hpp"

#include <algorithm>

#include "ring/program/backward_design.hpp"

namespace rb::ring {
namespace {

void put_first(RankProgram& p, OpKind kind, int lane) {
  Op f;
  f.kind = kind;
  f.lane = lane;
  p.lanes = std::max(p.lanes, lane + 1);
  p.ops.insert(p.ops.begin(), std::move(f));
}

void wrong_kv_block(const CompileContext& cx, RankProgram& p) {
  const auto first = std::find_if(p.ops.begin(), p.ops.end(), [](const Op& o) { return o.kind == OpKind::attend_bwd; });
  if (first == p.ops.end()) return;
  const Op step0 = *first;
  const auto on_forward = backward_pairs(cx, [&](int, int l) { return cx.plan.schedule.k_row(l); });
  for (Op& op : p.ops) {
    if (op.part != Part::backward || op.step <= 0) continue;
    if (op.kind == OpKind::attend_bwd) {
      // K, V and where the gradients go: step 0's; its pairs on that layout.
      op.runs.resize(7);
      op.runs[1] = step0.runs[1];
      op.runs[2] = step0.runs[2];
      op.runs.insert(op.runs.end(), step0.runs.begin() + 7, step0.runs.end());
      op.sk = step0.sk;
      op.pairs = on_forward.at(static_cast<std::size_t>(op.step));
      op.skip = false;
      op.name = "attention_bwd";
    } else if (op.kind == OpKind::fold && op.lane == 0) {
      // The block gradients sit in the scratch as step 0 leaves them: lane l's at its piece.
      for (std::size_t i = 0; i + 1 < op.runs.size(); i += 2)
        if (op.runs[i + 1].buf == Buf::dkv_scratch) op.runs[i + 1].at = cx.piece_at(static_cast<int>(i / 2));
    }
  }
}

}  // namespace

bool fault_can_act(const RankProgram& clean, InjectedFault fault) {
  if (fault != InjectedFault::wrong_kv_block) return fault != InjectedFault::none;
  return std::any_of(clean.ops.begin(), clean.ops.end(), [](const Op& op) {
    return op.kind == OpKind::attend_bwd && op.part == Part::backward && op.step > 0 && !op.skip;
  });
}

void apply_fault(const CompileContext& cx, RankProgram& p, InjectedFault fault) {
  switch (fault) {
    case InjectedFault::none: return;
    case InjectedFault::throw_in_pass:
      if (cx.rank == 0) put_first(p, OpKind::fail, 0);
      return;
    case InjectedFault::hang:
      if (cx.rank == cx.plan.config.cp - 1) put_first(p, OpKind::hang, 1);
      return;
    case InjectedFault::wrong_kv_block: wrong_kv_block(cx, p); return;
  }
}

}  // namespace rb::ring
