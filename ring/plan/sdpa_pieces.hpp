// A ring step expressed as cuDNN scaled-dot-product-attention forwards (the `--kernel cudnn` path,
// ring/cudnn_step.hpp): pure arithmetic on the host, decided once from the plan, tested on the CPU
// for every split, variant and c.
//
// cuDNN's SDPA takes a rectangle of query rows against a rectangle of key rows, with no mask or a
// causal one. The plan's pairs are segments whose positions may be strided (striped), offset
// (zig-zag's halves, ring-bidirectional's half blocks) or partly visible, so each non-skip pair is
// cut into pieces that the oldest supported cuDNN accepts:
//   - a rectangle every row of which sees every key (no mask);
//   - a square whose row u sees keys 0..u (top-left causal, s_q == s_kv: the one causal alignment
//     every cuDNN 9 and frontend 1.x offers; bottom-right needs s_q <= s_kv and newer versions);
// and rows that see no key of the pair are left to other pieces. Two segments of one stride σ: key
// t of k is visible to row i of q iff k.pos(t) <= q.pos(i), i.e. t <= i + δ with
// δ = floor((q.start - k.start) / σ). Keys [0, δ) are visible to every row (a rectangle); from
// there, row r0 + u sees keys t0..t0 + u (t0 = max(δ, 0), r0 = max(-δ, 0)): a square, and below it
// the rows that see all the remaining keys (a rectangle).
//
// Each piece's O (bf16) and log-sum-exp (fp32) fold into the rank's fp32 accumulators
// (kernels/fold_piece.cuh): the first piece to reach a row of step 0 writes it, later ones merge, as
// the own kernel's one online softmax would have combined them; where step 0's pieces do not meet
// each row that way, the step clears the accumulators to (O = 0, L = -inf) first.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "kernels/block_pair.hpp"
#include "ring/plan/plan.hpp"
#include "ring/plan/step_launch.hpp"

namespace rb::ring {

enum class SdpaMask { none, causal_top_left };

struct SdpaPiece {
  std::int64_t q_row0 = 0, rows = 0;  // local Q/O rows [q_row0, q_row0 + rows)
  std::int64_t k_row0 = 0, keys = 0;  // K/V buffer rows [k_row0, k_row0 + keys)
  SdpaMask mask = SdpaMask::none;     // causal_top_left only with rows == keys
  bool writes = false;                // the first fold of its rows at step 0: written, not merged
  friend bool operator==(const SdpaPiece&, const SdpaPiece&) = default;
};

struct SdpaStep {
  int step = 0;
  StepAction action = StepAction::skip;  // as step_launches decided: skip launches nothing
  bool clear_first = false;              // step 0 only: clear the accumulators before the pieces
  std::vector<SdpaPiece> pieces;
};

// What one cuDNN graph is built for; pieces with equal keys share a graph and its plan, and differ
// only in the pointers bound at execution.
struct SdpaGraphKey {
  std::int64_t rows = 0, keys = 0;
  SdpaMask mask = SdpaMask::none;
  int hq = 1, hkv = 1, d = 128;
  friend auto operator<=>(const SdpaGraphKey&, const SdpaGraphKey&) = default;
};

// The pieces of one pair (empty for a pair that sees nothing). Throws rb::Error for two strided
// segments of different strides, which no rectangle of rows can express.
std::vector<SdpaPiece> pair_pieces(const kernels::BlockPair& pair, bool causal);

// Every step of `rank`: its pieces in order, with the write/merge decision of step 0 and whether
// it clears first. Throws rb::Error where pair_pieces does.
std::vector<SdpaStep> sdpa_steps(const Plan& plan, int rank);

SdpaGraphKey graph_key(const SdpaPiece& p, const Config& cfg);
// A graph's shape as the record names it: "rows x keys[ causal] Hq=.. Hkv=.. D=..".
std::string graph_name(const SdpaGraphKey& k);

// Element offsets of a piece in the rank's buffers: Q and O at q_row0 · Hq · D, K and V at
// k_row0 · Hkv · D (16-byte aligned: a row is H·D bf16 with D a multiple of 8), the fp32 stats at
// q_row0 · Hq, which is 16-byte aligned only where q_row0 · Hq is a multiple of 4 (always for Hq = 4
// or 16; not for Hq = 1, 2 or odd when the piece's first row is odd).
std::int64_t q_offset(const SdpaPiece& p, const Config& cfg);
std::int64_t kv_offset(const SdpaPiece& p, const Config& cfg);
std::int64_t stats_offset(const SdpaPiece& p, const Config& cfg);

// The alignment, in bytes, cuDNN's frontend declares for every tensor it is given (its
// Tensor_attributes default) and so may assume of each pointer bound at execution.
inline constexpr std::int64_t kStatsAlignment = 16;
// Whether the piece's stats pointer keeps that alignment.
bool stats_aligned(const SdpaPiece& p, const Config& cfg);

// Unmasked (query, key) pairs of a piece, one head: its rectangle, or the square's triangle.
std::int64_t piece_pairs(const SdpaPiece& p);

// Why the cudnn kernel cannot run a configuration, or "" when every rank's every step maps: two
// strides no rectangle expresses, or a piece whose stats pointer breaks the 16-byte alignment (one
// line naming the rank, step and piece).
std::string sdpa_refusal(const Plan& plan);

}  // namespace rb::ring
