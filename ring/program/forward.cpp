// The forward's ops (see forward.hpp).
#include "ring/program/forward.hpp"

#include "ring/plan/step_launch.hpp"

namespace rb::ring {

Buf kv_step_buffer(int j) {
  if (j == 0) return Buf::own;
  return j % 2 ? Buf::kv_step1 : Buf::kv_step0;
}

void declare_forward(const CompileContext& cx, RankProgram& p) {
  const KvSchedule& sch = cx.plan.schedule;
  const std::int64_t qd = cx.q / cx.rows, lse_w = cx.lse / cx.rows;  // q_heads · D and q_heads
  p.buffers.push_back({Buf::q, cx.rows, qd});
  p.buffers.push_back({Buf::own, sch.buffer_rows(), cx.row});
  if (sch.gathered) {
    p.buffers.push_back({Buf::all_k, cx.rows * cx.members, cx.row});
    p.buffers.push_back({Buf::all_v, cx.rows * cx.members, cx.row});
  } else {
    // Steps 1, 2, ... read kv_step1, kv_step0 in turn: one with two members, both from three.
    if (cx.members > 1) p.buffers.push_back({Buf::kv_step1, sch.buffer_rows(), cx.row});
    if (cx.members > 2) p.buffers.push_back({Buf::kv_step0, sch.buffer_rows(), cx.row});
  }
  for (const Buf b : {Buf::o_part, Buf::o_acc}) p.buffers.push_back({b, cx.rows, qd});
  for (const Buf b : {Buf::lse_part, Buf::lse_acc}) p.buffers.push_back({b, cx.rows, lse_w});
}

void add_kv_gather(const CompileContext& cx, RankProgram& p, Part part) {
  if (cx.members == 1) return;
  Op g;
  g.kind = OpKind::gather;
  g.part = part;
  g.lane = 1;
  g.step = 0;
  g.name = "kv_allgather";
  const std::int64_t all = cx.half * cx.members;
  g.runs = {{Buf::own, 0, cx.half}, {Buf::all_k, 0, all}, {Buf::own, cx.half, cx.half}, {Buf::all_v, 0, all}};
  p.add(std::move(g));
}

void add_kv_exchange(const CompileContext& cx, RankProgram& p, Part part, const KvSchedule& sch, int l, int lane,
                     Run send, Run recv, int tag, const char* name, int step) {
  Op x;
  x.kind = OpKind::exchange;
  x.part = part;
  x.lane = lane;
  x.step = step;
  x.name = name;
  x.runs = {send, recv};
  x.to = cx.peer(sch.receiver(cx.member, l, cx.members));
  x.from = cx.peer(sch.sender(cx.member, l, cx.members));
  x.tag = tag;
  p.add(std::move(x));
}

void compile_forward(const CompileContext& cx, RankProgram& p) {
  const Plan& plan = cx.plan;
  const KvSchedule& sch = plan.schedule;
  const std::vector<StepLaunch> launches = step_launches(plan, cx.rank);
  const int steps = static_cast<int>(launches.size());
  if (sch.gathered) add_kv_gather(cx, p, Part::forward);
  const std::int64_t all = cx.half * cx.members;
  for (int j = 0; j < steps; ++j) {
    // The pieces of step j + 1, moved during step j: each lane's run of the buffer step j reads
    // into the buffer step j + 1 reads (the double buffer: a transfer writes what step j - 1 read).
    if (!sch.gathered && sch.moves(j, cx.members))
      for (int l = 0; l < cx.lanes; ++l)
        add_kv_exchange(cx, p, Part::forward, sch, l, 1 + l, {kv_step_buffer(j), cx.piece_at(l), cx.piece},
                        {kv_step_buffer(j + 1), cx.piece_at(l), cx.piece}, j * cx.lanes + l, "kv_recv", j + 1);
    const StepLaunch& sl = launches[static_cast<std::size_t>(j)];
    if (sl.action == StepAction::skip) {
      // No unmasked pair: its block still arrives and travels on; a marker in the timeline.
      Op m;
      m.kind = OpKind::mark;
      m.step = j;
      m.name = "step_skipped";
      p.add(std::move(m));
      continue;
    }
    Op a;
    a.kind = OpKind::attend;
    a.step = j;
    a.name = "attention";
    a.first = sl.action == StepAction::write;
    a.sk = sl.sk;
    const Run k = sch.gathered ? Run{Buf::all_k, 0, all} : Run{kv_step_buffer(j), 0, sl.sk * cx.row};
    const Run v = sch.gathered ? Run{Buf::all_v, 0, all} : Run{kv_step_buffer(j), cx.v_offset, sl.sk * cx.row};
    a.runs = {{Buf::q, 0, cx.q},
              k,
              v,
              {a.first ? Buf::o_acc : Buf::o_part, 0, cx.q},
              {a.first ? Buf::lse_acc : Buf::lse_part, 0, cx.lse}};
    a.pairs = sl.pairs;
    p.add(std::move(a));
    if (sl.action == StepAction::write) continue;
    Op m;
    m.kind = OpKind::merge;
    m.step = j;
    m.name = "merge";
    m.runs = {{Buf::o_acc, 0, cx.q}, {Buf::lse_acc, 0, cx.lse}, {Buf::o_part, 0, cx.q}, {Buf::lse_part, 0, cx.lse}};
    p.add(std::move(m));
  }
}

}  // namespace rb::ring
