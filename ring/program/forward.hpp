// The forward's ops (docs/design.md §4), from the plan's K/V schedule: rotating, each step's
// attention on the block its buffer holds and, during it, each lane's piece of the next step moved
// one member on (comm lane 1 + lane), then the merge of the partial; gathered, one gather on comm
// lane 1, then the one step. A step with no unmasked pair is a marker. Timeline names: "attention",
// "merge", "step_skipped"; "kv_recv", "kv_allgather".
#pragma once

#include "ring/program/compile.hpp"

namespace rb::ring {

// The K/V block step j of a rotating schedule reads: the own block at step 0, then the two step
// buffers in turn (the one the transfer issued during step j - 1 filled).
Buf kv_step_buffer(int j);

// The forward's buffers: Q, the own block, the step buffers or the gathered K and V, O and LSE.
void declare_forward(const CompileContext& cx, RankProgram& p);
void compile_forward(const CompileContext& cx, RankProgram& p);

// Shared with the backward: the gather of every member's K and V (comm lane 1; nothing alone), and
// one exchange of lane l's run on comm lane `lane` with the peers `sch` gives the lane.
void add_kv_gather(const CompileContext& cx, RankProgram& p, Part part);
void add_kv_exchange(const CompileContext& cx, RankProgram& p, Part part, const KvSchedule& sch, int l, int lane,
                     Run send, Run recv, int tag, const char* name, int step);

}  // namespace rb::ring
