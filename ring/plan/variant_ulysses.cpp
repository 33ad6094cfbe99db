// ulysses (DeepSpeed-Ulysses; TransformerEngine's cp_comm_type "a2a"): an all-to-all over all c
// ranks gives each rank the whole sequence for Hq/c query heads and their K/V heads (Hkv/c each, or
// one replicated where Hkv < c and c % Hkv == 0, as prime-rl does); one step of local attention
// over the whole sequence, on the own block, then an all-to-all of O back to the sequence shards
// (docs/design.md §3b). K/V never move between steps: the schedule is one step.
//
// Traffic per rank, n = S/c, e the element bytes (ring/plan/head_exchange.cpp):
//   forward  (c − 1)·n·(Hq/c + 2·Hkv/c)·D·e in (Q, K, V) + (c − 1)·n·(Hq/c)·D·e out (O)
//            = (c − 1)/c² · S·(2·Hq + 2·Hkv)·D·e, DeepSpeed's 4·N·h/P per link in MHA
//   backward dO in as O, dQ, dK, dV out as Q, K, V: the forward's bytes again.
// Against the ring's (c − 1)/c · S·2·Hkv·D·e per rank this is smaller once c > (Hq + Hkv)/Hkv
// (Llama 3 8B's 32/8: c > 5), but no compute overlaps it (docs/model.md, "Strategies").
// The split still decides which tokens each rank fills and gets back; every rank attends over
// every token, so causal work is balanced by construction.
#include "ring/plan/variant_ulysses.hpp"

#include "ring/plan/head_exchange.hpp"

namespace rb::ring {

Variant VariantUlysses::kind() const { return Variant::ulysses; }

KvSchedule VariantUlysses::schedule(int /*c*/, std::int64_t rows) const {
  KvSchedule s;
  s.lanes = {KvLane{0, rows, +1}};
  s.lane_rows = rows;
  s.steps = 1;
  return s;
}

BackwardSchedule VariantUlysses::backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const {
  return rotating_backward(schedule(c, rows), dkv, dtype);
}

HeadExchange VariantUlysses::head_exchange(const Config& cfg, std::int64_t shard_rows) const {
  return make_head_exchange(cfg, cfg.cp, shard_rows);
}

}  // namespace rb::ring
