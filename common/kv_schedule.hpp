// How K/V reach every rank, as plain data: the variant in ring/ describes its schedule once
// (ring/plan/variant_scheme.hpp), and the executors, the work matrix, the model and the simulator all
// read it instead of asking which variant runs (docs/design.md §1).
#pragma once

#include <cstdint>
#include <vector>

namespace rb {

// One piece of every rank's K/V block that travels round the ring on its own: local rows
// [row_begin, row_end) of the block (rows in segment order), passed one rank in `direction` each step.
struct KvLane {
  std::int64_t row_begin = 0, row_end = 0;
  int direction = 1;  // +1: received from rank r-1 and forwarded to r+1; -1: the reverse
};

// How K/V reach every rank, as the variant describes it once (ring/plan/variant_scheme.hpp); the
// executors, the work matrix and the model read it instead of asking which variant runs. Either
// one gather before a single step over every block, or c steps over lanes that rotate.
//
// A step buffer of a rotating schedule holds every lane's piece, lane l's K rows at
// [2l·lane_rows, (2l+1)·lane_rows) and its V rows right after, so that one attention launch with V
// at K + lane_rows rows reads every lane; with one lane that is the block [K (rows) | V (rows)].
struct KvSchedule {
  bool gathered = false;
  // Rotating: the pieces that travel. Gathered: one lane of the whole block, which only lays out
  // the rank's own block (K then V) that the gather sends.
  std::vector<KvLane> lanes;
  std::int64_t lane_rows = 0;  // rows reserved per lane: its largest piece
  int steps = 1;
  // Rotating: the step at which the pieces would have been their own rank's. 0 in a forward (step
  // 0 attends to the rank's own block); 1 in a reversed backward, whose step 0 attends to the piece
  // the forward's last step held (docs/design.md §3a).
  int start = 0;

  // The rank whose piece lane l holds on rank r at step j: (r - direction·(j + start)) mod c.
  int origin(int r, int lane, int j, int c) const;
  // Where lane l's pieces come from and go to, from rank r, at every step: one rank against and
  // one rank along the lane's direction.
  int sender(int r, int lane, int c) const;
  int receiver(int r, int lane, int c) const;
  // Whether step j's comm moves anything: the gather (at step 0, when there is a peer), or the
  // pieces step j+1 attends to (never after the last step).
  bool moves(int j, int c) const { return gathered ? j == 0 && c > 1 : j + 1 < steps; }
  std::int64_t k_row(int lane) const { return 2 * lane * lane_rows; }
  std::int64_t v_row(int lane) const { return k_row(lane) + lane_rows; }
  // Rows of K and V together in one step buffer, and the key rows a kernel may index in it.
  std::int64_t buffer_rows() const { return 2 * static_cast<std::int64_t>(lanes.size()) * lane_rows; }
  std::int64_t key_rows() const { return buffer_rows() - lane_rows; }
};

// How the backward of a variant returns the partial dK/dV of every block to the rank that owns it
// (docs/design.md §3a); the variant describes it once beside its forward schedule
// (ring/plan/variant_scheme.hpp), and the executor, the work matrix and the model read it.
enum class GradFlow {
  // reverse (TransformerEngine): the K/V ring reversed; the message a rank sends during step j
  // carries each lane's K/V for the receiver's step j + 1 (none from the last step) and the partial
  // dK/dV of the block it computed at step j - 1 (none from step 0), which the receiver adds to its
  // own at step j. c messages per lane: the first K/V only, the last dK/dV only.
  with_kv,
  // follow (ring-flash-attn): K/V move as in the forward; after each step the rank sends the
  // partial dK/dV of the block it holds one hop further in the lane's direction, where the next
  // holder adds its own; the hop after the last step takes them home. c messages per lane.
  trailing,
  // gathered: K/V are gathered again, one step computes dK/dV of every block, and each block's
  // partials are summed at its owner (a reduce-scatter, c - 1 receives per rank).
  reduce_scatter,
};

// How the heads are exchanged around the attention (docs/design.md §3b), as the variant describes it
// once (ring/plan/variant_ulysses.cpp, variant_hybrid.cpp): an all-to-all inside groups of `degree`
// consecutive ranks. Rank r = g·degree + u is member u of group g. Before the steps each member
// sends every other member that member's heads of its own shard, so each rank then holds its
// group's tokens (every member's shard, in member order: the plan's attention rows) for q_heads
// query heads and kv_heads K/V heads; after the last merge O goes back to the shards the same way.
// The K/V schedule then runs over the `groups` groups: a rank's ring peers are the ranks of the same
// member u in the neighbouring groups. degree 1 is no exchange (the ring variants): every rank holds
// its shard for every head, and the groups are the ranks. Executors, the work matrix and the model
// read this instead of asking which variant runs.
struct HeadExchange {
  int degree = 1;       // U
  int groups = 1;       // G = c / U: the members of the K/V schedule
  int q_heads = 0;      // query heads a rank attends with after the exchange: Hq / U
  int kv_heads = 0;     // K/V heads it holds then: Hkv / U, or 1 where they are replicated
  int kv_replicas = 1;  // members holding each K/V head: U / Hkv where Hkv < U (replicated), else 1
  // Bytes one rank sends to the other members of its group in each all-to-all, and receives from
  // them (the same: shards are equal): forward in (Q, K, V) and out (O); backward in (dO) and out
  // (dQ, dK, dV; a replicated head's dK/dV are summed at the shard's owner).
  std::int64_t qkv_bytes = 0, o_bytes = 0, do_bytes = 0, dqkv_bytes = 0;

  bool active() const { return degree > 1; }
  int group_of(int r) const { return r / degree; }
  int member_of(int r) const { return r % degree; }
  int rank_of(int group, int member) const { return group * degree + member; }
  // The first global query head, and K/V head, member u holds after the exchange.
  int q_head_begin(int u) const { return u * q_heads; }
  int kv_head_begin(int u) const { return u / kv_replicas * kv_heads; }
};

// The name results.json gives a design (plan.backward.grads).
constexpr const char* to_string(GradFlow g) {
  switch (g) {
    case GradFlow::with_kv: return "with_kv";
    case GradFlow::trailing: return "trailing";
    case GradFlow::reduce_scatter: return "reduce_scatter";
  }
  return "";
}

struct BackwardSchedule {
  KvSchedule kv;  // how K/V reach each backward step
  GradFlow grads = GradFlow::with_kv;
  int grad_element_bytes = 4;  // one dK or dV element on the wire
  // After the last step the own block's summed dK/dV take one more hop home (follow's trailing
  // ring; the plan counts it as the tail, with a peer).
  bool grads_hop_home = false;
};

}  // namespace rb
