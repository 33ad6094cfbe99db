// reverse (GradFlow::with_kv, TransformerEngine's): the K/V ring turned round, starting where the
// forward's last step left it, and each lane's message carrying [K | V | dK | dV] at once
// (docs/design.md §3a). Two fused buffers hold each lane's run [K | V | dK | dV] side by side
// (lane-major), so one contiguous run is a lane's message: its K/V for the receiver's next step and
// the partial dK/dV of the block before. Step 0 reads the forward's last step buffer, which the
// backward never writes, so a backward can be timed again and again after one forward.
//
// Per step j: the message of step j on each lane (comm lane 1 + l, "kv_dkv_recv"): the first K/V
// only, the last dK/dV only; attend_bwd on step j's block into the scratch (laid out as a fused
// buffer from step 1); the fold of the scratch's dK/dV into the dK/dV part of the next fused buffer,
// which the message of step j brought; after the last step that sum is the own block's.
#include "ring/program/backward_design.hpp"
#include "ring/program/forward.hpp"

namespace rb::ring {
namespace {

class BackwardReverse final : public BackwardDesign {
 public:
  GradFlow kind() const override { return GradFlow::with_kv; }
  int comm_lanes(const KvSchedule& kv) const override { return static_cast<int>(kv.lanes.size()); }

  void declare(const CompileContext& cx, RankProgram& p) const override {
    p.buffers.push_back({Buf::dkv_scratch, fused_rows(cx), cx.row});
    if (cx.members > 1)
      for (const Buf b : {Buf::dkv_step0, Buf::dkv_step1}) p.buffers.push_back({b, fused_rows(cx), cx.row});
  }

  std::vector<OpKind> op_kinds() const override { return {OpKind::exchange}; }

  std::int64_t key_row(const CompileContext& cx, int, int lane) const override { return 4 * lane * cx.lane_rows; }

  void compile(const CompileContext& cx, RankProgram& p) const override {
    const KvSchedule& sch = cx.plan.backward->kv;
    const int c = cx.members, steps = static_cast<int>(cx.plan.ranks.at(cx.rank).backward.steps.size());
    const std::int64_t lr = cx.lane_rows * cx.row;  // one lane's K (or V, dK, dV) rows, in elements
    // Step 0 reads the forward's layout, later steps the fused one.
    const auto on_forward = backward_pairs(cx, [&](int, int l) { return cx.plan.schedule.k_row(l); });
    const auto on_fused = backward_pairs(cx, [&](int o, int l) { return key_row(cx, o, l); });
    const std::int64_t sk_forward = cx.plan.schedule.key_rows(), sk_fused = fused_rows(cx) - 3 * cx.lane_rows;
    const std::int64_t fused = fused_rows(cx) * cx.row;
    for (int j = 0; j < steps; ++j) {
      if (c > 1)
        for (int l = 0; l < cx.lanes; ++l) {
          const std::int64_t run = 4 * l * lr;  // the lane's [K | V | dK | dV]
          Run send{dkv_step_buffer(j), run, cx.piece}, recv{dkv_step_buffer(j + 1), run, cx.piece};
          if (j == 0)
            send = {kv_step_buffer(c - 1), cx.piece_at(l), cx.piece};
          else if (j < c - 1)
            send.len = recv.len = 2 * cx.piece;
          else
            send.at = recv.at = run + cx.piece;
          add_kv_exchange(cx, p, Part::backward, sch, l, 1 + l, send, recv, kFusedTag + j * cx.lanes + l, "kv_dkv_recv",
                          std::min(j + 1, c - 1));
        }
      const bool fused_step = j > 0;
      if (!fused_step) {
        const Buf kv = kv_step_buffer(c - 1);
        add_attend_bwd(cx, p, j, {kv, 0, sk_forward * cx.row}, {kv, cx.v_offset, sk_forward * cx.row}, sk_forward,
                       {Buf::dkv_scratch, 0, sk_forward * cx.row}, {Buf::dkv_scratch, cx.v_offset, sk_forward * cx.row},
                       {{Buf::dkv_scratch, 0, cx.block}}, on_forward.at(j));
      } else {
        const Buf kv = dkv_step_buffer(j);
        add_attend_bwd(cx, p, j, {kv, 0, sk_fused * cx.row}, {kv, lr, sk_fused * cx.row}, sk_fused,
                       {Buf::dkv_scratch, 2 * lr, sk_fused * cx.row}, {Buf::dkv_scratch, 3 * lr, sk_fused * cx.row},
                       {{Buf::dkv_scratch, 0, fused}}, on_fused.at(j));
      }
      // The scratch's [dK | dV] of lane l: fused from step 1, the forward's layout at step 0.
      auto scratch = [&](int l) {
        return Run{Buf::dkv_scratch, fused_step ? (4 * l + 2) * lr : cx.piece_at(l), cx.piece};
      };
      std::vector<FoldRun> runs;
      for (int l = 0; l < cx.lanes; ++l) {
        if (c == 1)
          runs.push_back({{Buf::d_own, cx.piece_at(l), cx.piece}, scratch(l), false});
        else
          runs.push_back({{dkv_step_buffer(j + 1), (4 * l + 2) * lr, cx.piece}, scratch(l), j > 0});
      }
      if (c > 1 && j == c - 1)  // the own block's sum is complete
        for (int l = 0; l < cx.lanes; ++l)
          runs.push_back({{Buf::d_own, cx.piece_at(l), cx.piece},
                          {dkv_step_buffer(j + 1), (4 * l + 2) * lr, cx.piece},
                          false});
      add_fold(p, j, 0, runs);
    }
  }

 private:
  static std::int64_t fused_rows(const CompileContext& cx) { return 4 * cx.lanes * cx.lane_rows; }
  static Buf dkv_step_buffer(int j) { return j % 2 ? Buf::dkv_step1 : Buf::dkv_step0; }
};

}  // namespace

std::unique_ptr<BackwardDesign> make_backward_reverse() { return std::make_unique<BackwardReverse>(); }

}  // namespace rb::ring
