// Everything the analytic model needs besides S and c: the model shape, tensor and pipeline
// parallelism, the activation-memory row, the device and its efficiency, and the link. Holds the
// shape rules (t divides the heads, ...) in one place so the command line and the tests agree.
#pragma once

#include <cstdint>

#include "common/config.hpp"
#include "model/activation_memory.hpp"
#include "model/presets.hpp"

namespace rb::model {

struct ModelInputs {
  ModelShape shape;
  int tp = 1;           // t
  int pp = 1;           // p; a stage holds L/p layers, a fraction when p does not divide L
  int micro_batch = 1;  // b: sequences per micro-batch
  MemoryRow memory_row = MemoryRow::tp_sp_selective;
  bool flash_attention = true;
  bool causal = true;
  DType kv_dtype = DType::bfloat16;  // K/V as they travel round the ring
  Device device;
  double efficiency = 0.45;  // fraction of the peak the attention kernels reach
  Link link;
  // The links of a head exchange's all-to-alls (docs/model.md, "Strategies"): inside a node of
  // node_size ranks the inner link (NVLink), across nodes `link`.
  Link inner_link;
  int node_size = 8;

  // Throws InputError naming the flag (the CLI's spelling), the value and the rule: sizes positive,
  // Hq % Hkv == 0, t divides Hq and h, Hkv % t == 0 or t % Hkv == 0, p <= L, 0 < efficiency <= 1.
  void validate() const;
  // Checks S and c against each other (positive, c <= S); the split's divisibility is ring's rule.
  static void validate_point(std::int64_t seq, int cp);

  double layers_per_stage() const { return static_cast<double>(shape.layers) / pp; }
  // Query heads on one tensor-parallel rank: Hq / t.
  int local_heads() const { return shape.heads / tp; }
  // K/V heads on one tensor-parallel rank: Hkv / t, or 1 when t > Hkv, where Megatron-style tensor
  // parallelism replicates each K/V head over t / Hkv ranks.
  int local_kv_heads() const { return shape.kv_heads >= tp ? shape.kv_heads / tp : 1; }
  // The link an all-to-all over `degree` consecutive ranks runs on: the inner one while the group fits
  // in a node (and one is given), else the outer one.
  const Link& exchange_link(int degree) const {
    return degree <= node_size && inner_link.bytes_per_s > 0 ? inner_link : link;
  }
  // FLOP/s the attention kernels are assumed to sustain.
  double attention_flops_per_s() const { return device.peak_flops * efficiency; }
  // The Korthikanti shape of one sequence of S tokens.
  ActivationShape activation_shape(std::int64_t seq) const;
};

// The inputs of the plate (docs/design.md §9): Llama 3 405B, t = 8, p = 16, b = 1, FlashAttention, the
// sequence-parallel + selective-recompute row, BF16 K/V, 45% of an H100 SXM, InfiniBand NDR.
ModelInputs plate_inputs();

}  // namespace rb::model
