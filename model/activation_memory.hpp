// Activation memory of a transformer layer: the five rows of Table 2 of Korthikanti et al.,
// "Reducing Activation Recomputation in Large Transformer Models" (arXiv:2205.05198), and the per
// device figure after pipeline and context parallelism. The formulas count bytes with 16-bit
// activations and 1-byte dropout masks, as the paper does.
#pragma once

#include <array>
#include <string_view>

namespace rb::model {

// Which row of Table 2 (per layer, s = sequence, b = micro-batch, h = hidden, a = heads, t = TP):
enum class MemoryRow {
  no_parallel,      // sbh (34 + 5as/h)
  tp,               // sbh (10 + 24/t + 5as/(ht))
  tp_sp,            // sbh (34/t + 5as/(ht))
  tp_selective,     // sbh (10 + 24/t)
  tp_sp_selective,  // sbh (34/t)
};
inline constexpr std::array<MemoryRow, 5> kMemoryRows{MemoryRow::no_parallel, MemoryRow::tp, MemoryRow::tp_sp,
                                                      MemoryRow::tp_selective, MemoryRow::tp_sp_selective};

std::string_view to_string(MemoryRow r);
// Throws InputError naming `where` and the row names.
MemoryRow parse_memory_row(std::string_view s, std::string_view where);

struct ActivationShape {
  double seq = 0;          // s, tokens of the whole sequence
  double micro_batch = 1;  // b
  double hidden = 0;       // h
  double heads = 0;        // a
  double tp = 1;           // t (ignored by the no_parallel row)
  // FlashAttention keeps no s x s score matrix, so the 5as/h terms (softmax input and output,
  // dropout mask and output) vanish; its per-row softmax statistics are O(s) and are not counted.
  bool flash_attention = true;
};

// Bytes of activations one layer keeps for the backward pass, on one tensor-parallel rank.
double activation_bytes_per_layer(MemoryRow row, const ActivationShape& a);

// The per-layer figure times the layers one pipeline stage holds (L/p, fractions allowed) divided by
// the context-parallel degree c: each rank keeps the activations of its S/c tokens. Without
// FlashAttention this also divides the score term by c, as if each rank kept the scores of its S/c
// queries against all S keys.
double activation_bytes_per_device(MemoryRow row, const ActivationShape& a, double layers_per_stage, int cp);

}  // namespace rb::model
