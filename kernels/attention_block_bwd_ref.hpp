// CPU twin of the attention backward of one step: the gradients of a block of query segments against
// a block of key segments (docs/design.md §3a), from the forward's FINAL output and log-sum-exp, as
// ring-flash-attn, TransformerEngine and FlashAttention-2's backward all do: every step of a ring
// backward reuses them, so no step recomputes or re-merges the forward.
//
// For every unmasked (query row i, key row t) of a pair and head h (K/V head h / (Hq/Hkv)):
//   P_it  = exp(scale · q_i·k_t − L_i)             (L: the final log-sum-exp, natural log)
//   dV_t += P_it · dO_i
//   dP_it = dO_i · v_t
//   dS_it = P_it · (dP_it − Δ_i)                     (Δ_i = Σ_x dO_ix · O_ix, attention_delta)
//   dQ_i += scale · dS_it · k_t
//   dK_t += scale · dS_it · q_i
// Five products of two FLOPs per multiply-add: 2.5 times the forward's four (docs/metrics.md). The
// float32 path accumulates in float32 and is tiled like the forward (keys outer, so a key tile's dK
// and dV stay in a small buffer across the query tiles); the float64 path is the reference arithmetic.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "kernels/block_pair.hpp"

namespace rb::kernels::ref {

template <typename T>
struct AttentionBlockBwdParams {
  const T* q = nullptr;      // (Sq, Hq, D)
  const T* k = nullptr;      // (Sk, Hkv, D)
  const T* v = nullptr;      // (Sk, Hkv, D)
  const T* d_o = nullptr;    // (Sq, Hq, D): the gradient of the output
  const T* lse = nullptr;    // (Sq, Hq): the forward's final log-sum-exp; -inf where no key was seen
  const T* delta = nullptr;  // (Sq, Hq): attention_delta of the final O and dO
  T* dq = nullptr;           // (Sq, Hq, D): accumulated into
  T* dk = nullptr;           // (Sk, Hkv, D): accumulated into
  T* dv = nullptr;           // (Sk, Hkv, D): accumulated into
  std::int64_t sq = 0;       // rows of Q, dO, dQ
  std::int64_t sk = 0;       // rows of K, V, dK, dV
  int hq = 1, hkv = 1, d = 1;
  bool causal = true;
  T scale = 1;  // the forward's, usually 1/sqrt(D)
  std::span<const BlockPair> pairs;
  const std::atomic<bool>* cancel = nullptr;  // polled once per tile where set
};

// Adds the step's gradients into dq, dk and dv (the caller clears what must start at zero). Pairs
// of class skip under a causal mask, and empty pairs, add nothing. Throws rb::Error when a pair
// points outside the buffers or the heads do not group, and rb::Cancelled once *cancel is set.
template <typename T>
void attention_block_backward(const AttentionBlockBwdParams<T>& p);

// Δ = rowsum(dO ∘ O) per (row, head), the term every step's dS subtracts: (rows, Hq) from two
// (rows, Hq, D) tensors.
template <typename T>
void attention_delta(const T* o, const T* d_o, T* delta, std::int64_t rows, int hq, int d);

}  // namespace rb::kernels::ref
