// hybrid (TransformerEngine's cp_comm_type "a2a+p2p", USP/yunchang's ulysses × ring): an all-to-all
// of heads inside groups of U = --ulysses-degree consecutive ranks (the inner, fast links), then the
// K/V ring across the G = c/U groups (the outer links), then O back by all-to-all (docs/design.md
// §3b). Rank r = g·U + u holds, after the exchange, its group's tokens for Hq/U query heads; its
// ring peers are the ranks of member u in groups g − 1 and g + 1, as TE lays a2a+p2p out (the a2a
// group is the inner, contiguous dimension). The ring part is the ring's schedule over G members
// and U·S/c rows, with every split and either backward design (--dkv).
//
// Traffic per rank, n = S/c, e the element bytes:
//   all-to-alls (inner links), as ulysses' over U ranks (ring/plan/head_exchange.cpp):
//     forward (U − 1)·n·(2·Hq/U + 2·kv_heads)·D·e, backward the same again
//   ring (outer links): (G − 1)·U·n·2·kv_heads·D·e, the ring's over G groups of Hkv/U heads
//     (backward: reverse 2×, follow (G − 1) blocks + G fp32 blocks, as variant_ring.cpp)
// U = 1 is the ring and U = c is ulysses: the tests hold both equalities bit for bit.
#include "ring/plan/variant_hybrid.hpp"

#include "ring/plan/head_exchange.hpp"
#include "ring/plan/variant_ring.hpp"

namespace rb::ring {

Variant VariantHybrid::kind() const { return Variant::hybrid; }

KvSchedule VariantHybrid::schedule(int c, std::int64_t rows) const { return VariantRing().schedule(c, rows); }

BackwardSchedule VariantHybrid::backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const {
  return rotating_backward(schedule(c, rows), dkv, dtype);
}

HeadExchange VariantHybrid::head_exchange(const Config& cfg, std::int64_t shard_rows) const {
  return make_head_exchange(cfg, cfg.ulysses_degree, shard_rows);
}

}  // namespace rb::ring
