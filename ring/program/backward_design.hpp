// How the backward returns dK/dV (docs/design.md §3a, §4): one class per design, in its own file,
// that declares the buffers it carries dK/dV in and compiles the backward's ops. The plan's
// GradFlow picks the class here, and nowhere else.
//
// Every design starts with Δ = rowsum(dO ∘ O) (compute lane, "delta"), runs one attend_bwd per step
// ("attention_bwd": dQ += and the step block's dK/dV into a cleared run; "step_skipped" where the
// step has no unmasked pair) and one fold per step ("grad_add": the block's dK/dV into the sum
// that travels on or lands home), and ends with the own block's dK/dV final in d_own.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "kernels/block_pair.hpp"
#include "ring/program/compile.hpp"

namespace rb::ring {

class BackwardDesign {
 public:
  virtual ~BackwardDesign() = default;
  virtual GradFlow kind() const = 0;
  // The comm lanes its backward uses under the backward's K/V schedule.
  virtual int comm_lanes(const KvSchedule& kv) const = 0;
  // The buffers it adds to dO, dQ, Δ and d_own.
  virtual void declare(const CompileContext& cx, RankProgram& p) const = 0;
  // Its ops, after the delta.
  virtual void compile(const CompileContext& cx, RankProgram& p) const = 0;
  // The op kinds its backward uses besides the delta, attend_bwd and fold every design runs.
  virtual std::vector<OpKind> op_kinds() const = 0;
  // Where the keys of member `origin`'s lane `lane` start, in rows of the buffer a step reads.
  virtual std::int64_t key_row(const CompileContext& cx, int origin, int lane) const = 0;
};

// The class of design `g` (the one switch over GradFlow).
std::unique_ptr<BackwardDesign> make_backward_design(GradFlow g);

// What every design shares.
// dO, dQ (rows, q_heads, D), Δ (rows, q_heads) and d_own (the own block's layout).
void declare_backward_common(const CompileContext& cx, RankProgram& p);
void add_delta(const CompileContext& cx, RankProgram& p);
// Every backward step's pairs with their keys at key_row(origin, lane) (rows of the buffer read).
std::vector<std::vector<kernels::BlockPair>> backward_pairs(const CompileContext& cx,
                                                            const std::function<std::int64_t(int, int)>& key_row);
// Step j's attend_bwd: keys `k`, values `v` (sk key rows), its block gradients written at `dk`, `dv`
// after `clear` is zeroed. The plan's unmasked pairs decide whether it is skipped.
int add_attend_bwd(const CompileContext& cx, RankProgram& p, int j, Run k, Run v, std::int64_t sk, Run dk, Run dv,
                   std::vector<Run> clear, std::vector<kernels::BlockPair> pairs);
// Step j's fold on `lane`: each {dst, src} pair copied, or added where `add`; name nullptr: not in
// the timeline.
struct FoldRun {
  Run dst, src;
  bool add = false;
};
int add_fold(RankProgram& p, int j, int lane, const std::vector<FoldRun>& runs, const char* name = "grad_add");

// Exchange tags of the backward, apart from the forward's (step · lanes + lane) so that a rank
// still in its forward and a peer already in its backward never match; within MPI's 30000.
inline constexpr int kFusedTag = 10000, kTrailTag = 20000, kScatterTag = 25000;

}  // namespace rb::ring
