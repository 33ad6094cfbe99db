// K/V traffic of one attention layer against its compute, per device, for the ring and the
// all-gather variants (docs/design.md §9). Closed forms over equal shards: the ring simulator
// (ring_simulator.hpp) is what sees per-rank, per-step differences and overlap.
#pragma once

#include <cstdint>

#include "common/config.hpp"
#include "model/model_inputs.hpp"

namespace rb::model {

// Bytes of K and V of one token for this device's K/V heads: 2 * local_kv_heads * D * bytes.
double kv_bytes_per_token(const ModelInputs& in);

// Bytes one device receives per layer: the K/V of every token it does not hold, (c-1)/c of the
// sequence, times the micro-batch. Both variants move the same bytes; they differ in when.
double kv_bytes_per_layer(const ModelInputs& in, std::int64_t seq, int cp);

// Seconds to move `bytes` over the link as `transfers` back-to-back transfers (each pays the
// link's latency once). The ring and a ring all-gather both take c-1 transfers.
double transfer_seconds(double bytes, int transfers, const Link& link);

// Unmasked (query, key) pairs of one whole sequence: S(S+1)/2 causal, S^2 otherwise.
double sequence_pairs(std::int64_t seq, bool causal);

// Forward attention FLOPs of one layer on one device: 4 * D * (Hq/t) * pairs / c * b (docs/design.md §3),
// i.e. the average device's share of the whole sequence.
double attention_flops_per_layer(const ModelInputs& in, std::int64_t seq, int cp);

struct CommCompute {
  Variant variant = Variant::ring;
  int transfers = 0;      // c-1 for both variants
  double bytes = 0;       // received per layer per device
  double transfer_s = 0;  // bytes over the link
  double flops = 0;       // forward attention per layer per device
  double compute_s = 0;   // flops at efficiency * peak
  double ratio = 0;       // transfer_s / compute_s; 0 when there is nothing to compute
};

CommCompute comm_compute(const ModelInputs& in, std::int64_t seq, int cp, Variant variant);

// The backward of one layer per device (docs/model.md, "The backward"), with B = one device's K/V
// block (kv_bytes_per_layer / (c-1)) and e the K/V element's bytes:
// - rotating variants, reverse (TransformerEngine): K/V and dK/dV in the run's dtype, fused in c
//   messages: 2(c-1)·B;
// - rotating variants, follow (ring-flash-attn): K/V as in the forward and c hops of fp32 dK/dV:
//   (c-1)·B + c·B·max(4, e)/e, in 2c-1 messages;
// - allgather: the gather again and a reduce-scatter of dK/dV in the run's dtype: 2(c-1)·B in
//   2(c-1) transfers, none of it hidden.
// Compute is the forward's times Plan::kBackwardFlopsFactor (2.5, FlashAttention's convention).
struct BackwardCommCompute {
  Variant variant = Variant::ring;
  Dkv dkv = Dkv::reverse;  // the design; allgather has one
  int transfers = 0;
  double bytes = 0, transfer_s = 0, flops = 0, compute_s = 0, ratio = 0;
};
inline constexpr double kBackwardFlopsFactor = 2.5;
BackwardCommCompute backward_comm_compute(const ModelInputs& in, std::int64_t seq, int cp, Variant variant, Dkv dkv);

}  // namespace rb::model
