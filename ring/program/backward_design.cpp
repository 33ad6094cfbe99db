// What every backward design shares, and the one map from GradFlow to its class (see
// backward_design.hpp).
#include "ring/program/backward_design.hpp"

#include <utility>

#include "common/error.hpp"
#include "ring/plan/block_pairs.hpp"

namespace rb::ring {

std::unique_ptr<BackwardDesign> make_backward_reverse();
std::unique_ptr<BackwardDesign> make_backward_follow();
std::unique_ptr<BackwardDesign> make_backward_gathered();

std::unique_ptr<BackwardDesign> make_backward_design(GradFlow g) {
  switch (g) {
    case GradFlow::with_kv: return make_backward_reverse();
    case GradFlow::trailing: return make_backward_follow();
    case GradFlow::reduce_scatter: return make_backward_gathered();
  }
  throw Error("make_backward_design: unknown design");
}

void declare_backward_common(const CompileContext& cx, RankProgram& p) {
  const std::int64_t qd = cx.q / cx.rows, lse_w = cx.lse / cx.rows;
  p.buffers.push_back({Buf::d_o, cx.rows, qd});
  p.buffers.push_back({Buf::dq, cx.rows, qd});
  p.buffers.push_back({Buf::delta, cx.rows, lse_w});
  p.buffers.push_back({Buf::d_own, cx.plan.schedule.buffer_rows(), cx.row});
}

void add_delta(const CompileContext& cx, RankProgram& p) {
  Op d;
  d.kind = OpKind::delta;
  d.part = Part::backward;
  d.step = 0;
  d.name = "delta";
  d.runs = {{Buf::o_acc, 0, cx.q}, {Buf::d_o, 0, cx.q}, {Buf::delta, 0, cx.lse}, {Buf::dq, 0, cx.q}};
  p.add(std::move(d));
}

std::vector<std::vector<kernels::BlockPair>> backward_pairs(const CompileContext& cx,
                                                            const std::function<std::int64_t(int, int)>& key_row) {
  return block_pairs_on(cx.plan, cx.rank, cx.plan.backward->kv, cx.plan.ranks.at(cx.rank).backward.steps, key_row);
}

int add_attend_bwd(const CompileContext& cx, RankProgram& p, int j, Run k, Run v, std::int64_t sk, Run dk, Run dv,
                   std::vector<Run> clear, std::vector<kernels::BlockPair> pairs) {
  Op a;
  a.kind = OpKind::attend_bwd;
  a.part = Part::backward;
  a.step = j;
  // A step with no unmasked pair computes nothing; its zero partial dK/dV still travel.
  a.skip = cx.plan.ranks.at(cx.rank).backward.steps.at(j).unmasked == 0;
  a.name = a.skip ? "step_skipped" : "attention_bwd";
  a.sk = sk;
  a.runs = {{Buf::q, 0, cx.q},  k,  v, {Buf::d_o, 0, cx.q}, {Buf::lse_acc, 0, cx.lse}, {Buf::delta, 0, cx.lse},
            {Buf::dq, 0, cx.q}, dk, dv};
  for (const Run& c : clear) a.runs.push_back(c);
  a.pairs = std::move(pairs);
  return p.add(std::move(a));
}

int add_fold(RankProgram& p, int j, int lane, const std::vector<FoldRun>& runs, const char* name) {
  Op f;
  f.kind = OpKind::fold;
  f.part = Part::backward;
  f.lane = lane;
  f.step = j;
  f.name = name;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    f.runs.push_back(runs[i].dst);
    f.runs.push_back(runs[i].src);
    if (runs[i].add) f.add |= 1u << i;
  }
  return p.add(std::move(f));
}

}  // namespace rb::ring
