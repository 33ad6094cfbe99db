// A head exchange wrapped around any program (docs/design.md §3b, §4), as yunchang wraps its
// all-to-all around any ring: on comm lane 1 the all-to-all of Q, K and V into the attention layout
// before the forward's first op and of O back to the shard after its last; with a backward, dO in
// before the backward's first op and dQ, dK, dV out after its last. What waits for each follows
// from the buffers they write and read. Timeline names: "qkv_alltoall", "o_alltoall",
// "do_alltoall", "dqkv_alltoall".
#pragma once

#include "ring/program/compile.hpp"

namespace rb::ring {

// The shard's tensors (every head) and the staging of one message each way; nothing without an
// exchange.
void declare_head_exchange(const CompileContext& cx, RankProgram& p);
void wrap_head_exchange(const CompileContext& cx, RankProgram& p);

// The timeline name of a move.
const char* head_move_name(HeadMove m);

}  // namespace rb::ring
