// The all-to-alls of a head exchange on the CPU backend (docs/design.md §3b), over the transport's
// pairwise exchange: U − 1 rounds, round i sending to member u + i and receiving from member u − i
// of the rank's group, so the local and MPI transports need nothing more. Each round packs the
// peer's heads of the shard (in) or the peer's rows of the attention layout (out) into one message,
// and unpacks the message that arrives; the rank's own part is copied without the transport.
//
//   forward_in   Q, K, V: shard (every head) → Q and the own block (the group's rows, own heads)
//   forward_out  O: o_acc → o_shard
//   backward_in  dO: d_o_shard → d_o
//   backward_out dQ, dK, dV: dq and d_own → the shard's (a replicated K/V head's dK/dV, which
//                several members computed, summed at the shard's owner)
//
// Each returns what it received, when it began and ended; the interpreter records it under the op's
// name (ring/program/head_exchange.hpp).
#pragma once

#include "ring/executor/cpu_rank.hpp"
#include "ring/program/program.hpp"

namespace rb::ring {

// One all-to-all (its direction and tensors: ring/program/program.hpp's HeadMove). Throws rb::Error
// on abort or a transport failure.
template <typename T>
TransferSpan exchange_heads(const CpuPass<T>& p, int r, HeadMove move);

}  // namespace rb::ring
