// gathered (GradFlow::reduce_scatter, the all-gather's): K/V gathered again, one step computes dK/dV
// of every block into the gathered dK and dV, and each block's partials are summed at its owner
// (docs/design.md §3a): the own slice first, then round i sends member g + i its slice and adds the
// slice member g - i sent, through one staging buffer. Comm lane 1: "kv_allgather", then
// "dkv_reduce_scatter".
#include "ring/program/backward_design.hpp"
#include "ring/program/forward.hpp"

namespace rb::ring {
namespace {

class BackwardGathered final : public BackwardDesign {
 public:
  GradFlow kind() const override { return GradFlow::reduce_scatter; }
  int comm_lanes(const KvSchedule&) const override { return 1; }

  void declare(const CompileContext& cx, RankProgram& p) const override {
    for (const Buf b : {Buf::all_dk, Buf::all_dv}) p.buffers.push_back({b, cx.rows * cx.members, cx.row});
    if (cx.members > 1) p.buffers.push_back({Buf::dkv_step0, cx.plan.schedule.buffer_rows(), cx.row});
  }

  std::vector<OpKind> op_kinds() const override { return {OpKind::gather, OpKind::reduce_scatter}; }

  std::int64_t key_row(const CompileContext& cx, int origin, int) const override { return cx.rows * origin; }

  void compile(const CompileContext& cx, RankProgram& p) const override {
    const int c = cx.members;
    const std::int64_t all = cx.half * c;
    add_kv_gather(cx, p, Part::backward);
    const auto pairs = backward_pairs(cx, [&](int o, int l) { return key_row(cx, o, l); });
    add_attend_bwd(cx, p, 0, {Buf::all_k, 0, all}, {Buf::all_v, 0, all}, cx.rows * c, {Buf::all_dk, 0, all},
                   {Buf::all_dv, 0, all}, {{Buf::all_dk, 0, all}, {Buf::all_dv, 0, all}}, pairs.at(0));
    if (c == 1) {
      add_fold(p, 0, 0,
               {{{Buf::d_own, 0, cx.half}, {Buf::all_dk, 0, cx.half}, false},
                {{Buf::d_own, cx.half, cx.half}, {Buf::all_dv, 0, cx.half}, false}});
      return;
    }
    add_fold(p, 0, 0, {});  // nothing to fold here: the reduce-scatter sums at the owners
    Op rs;
    rs.kind = OpKind::reduce_scatter;
    rs.part = Part::backward;
    rs.lane = 1;
    rs.step = -1;
    rs.name = "dkv_reduce_scatter";
    rs.runs = {{Buf::all_dk, 0, all},
               {Buf::all_dv, 0, all},
               {Buf::d_own, 0, 2 * cx.half},
               {Buf::dkv_step0, 0, 2 * cx.half}};
    rs.at = cx.member * cx.half;
    for (int i = 1; i < c; ++i) {
      const int to = (cx.member + i) % c, from = (cx.member - i + c) % c;
      rs.rounds.push_back({cx.peer(to), cx.peer(from), kScatterTag + 2 * i, to * cx.half});
    }
    p.add(std::move(rs));
  }
};

}  // namespace

std::unique_ptr<BackwardDesign> make_backward_gathered() { return std::make_unique<BackwardGathered>(); }

}  // namespace rb::ring
