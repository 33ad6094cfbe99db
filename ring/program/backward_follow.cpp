// follow (GradFlow::trailing, ring-flash-attn's): K/V move exactly as in the forward, and the
// partial dK/dV of each block trail one hop behind them in fp32 (docs/design.md §3a). The steps read
// the forward's step buffers; two trailing buffers of the own block's layout carry the partials.
//
// Per step j: K/V of step j + 1 on comm lane 1 + l ("kv_recv"), the forward's buffer rule; attend_bwd
// into the scratch (the own block's layout); the fold of the scratch into the partial of that block,
// which arrived in trailing buffer j after the peer's step j - 1; then that sum goes one hop on,
// on comm lane 1 + lanes + l ("dkv_recv"); the hop after the last step takes it home, into d_own.
#include "ring/program/backward_design.hpp"
#include "ring/program/forward.hpp"

namespace rb::ring {
namespace {

class BackwardFollow final : public BackwardDesign {
 public:
  GradFlow kind() const override { return GradFlow::trailing; }
  // One lane for K/V and one for the partials, per lane of the schedule.
  int comm_lanes(const KvSchedule& kv) const override { return 2 * static_cast<int>(kv.lanes.size()); }

  void declare(const CompileContext& cx, RankProgram& p) const override {
    const std::int64_t rows = cx.plan.schedule.buffer_rows();
    p.buffers.push_back({Buf::dkv_scratch, rows, cx.row});
    if (cx.members > 1)
      for (const Buf b : {Buf::dkv_step0, Buf::dkv_step1}) p.buffers.push_back({b, rows, cx.row});
  }

  std::vector<OpKind> op_kinds() const override { return {OpKind::exchange}; }

  std::int64_t key_row(const CompileContext& cx, int, int lane) const override { return cx.plan.schedule.k_row(lane); }

  void compile(const CompileContext& cx, RankProgram& p) const override {
    const KvSchedule& sch = cx.plan.backward->kv;
    const int c = cx.members, steps = static_cast<int>(cx.plan.ranks.at(cx.rank).backward.steps.size());
    const auto pairs = backward_pairs(cx, [&](int o, int l) { return key_row(cx, o, l); });
    const std::int64_t sk = cx.plan.schedule.key_rows();
    auto trail = [](int j) { return j % 2 ? Buf::dkv_step1 : Buf::dkv_step0; };
    for (int j = 0; j < steps; ++j) {
      if (sch.moves(j, c))
        for (int l = 0; l < cx.lanes; ++l)
          add_kv_exchange(cx, p, Part::backward, sch, l, 1 + l, {kv_step_buffer(j), cx.piece_at(l), cx.piece},
                          {kv_step_buffer(j + 1), cx.piece_at(l), cx.piece}, kFusedTag + j * cx.lanes + l, "kv_recv",
                          j + 1);
      const Buf kv = kv_step_buffer(j);
      add_attend_bwd(cx, p, j, {kv, 0, sk * cx.row}, {kv, cx.v_offset, sk * cx.row}, sk,
                     {Buf::dkv_scratch, 0, sk * cx.row}, {Buf::dkv_scratch, cx.v_offset, sk * cx.row},
                     {{Buf::dkv_scratch, 0, cx.block}}, pairs.at(j));
      std::vector<FoldRun> runs;
      for (int l = 0; l < cx.lanes; ++l)
        runs.push_back({{c == 1 ? Buf::d_own : trail(j), cx.piece_at(l), cx.piece},
                        {Buf::dkv_scratch, cx.piece_at(l), cx.piece},
                        c > 1 && j > 0});
      add_fold(p, j, 0, runs);
      if (c > 1)
        for (int l = 0; l < cx.lanes; ++l)
          add_kv_exchange(cx, p, Part::backward, sch, l, 1 + cx.lanes + l, {trail(j), cx.piece_at(l), cx.piece},
                          {trail(j + 1), cx.piece_at(l), cx.piece}, kTrailTag + j * cx.lanes + l, "dkv_recv",
                          j + 1 < c ? j + 1 : -1);
    }
    // The last hop brought each lane's sum home.
    if (c > 1)
      for (int l = 0; l < cx.lanes; ++l)
        add_fold(p, steps - 1, 1 + cx.lanes + l,
                 {{{Buf::d_own, cx.piece_at(l), cx.piece}, {trail(steps), cx.piece_at(l), cx.piece}, false}}, nullptr);
  }
};

}  // namespace

std::unique_ptr<BackwardDesign> make_backward_follow() { return std::make_unique<BackwardFollow>(); }

}  // namespace rb::ring
