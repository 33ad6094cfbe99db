// The cuDNN SDPA backward of one piece (Graph::sdpa_backward, issue 54): the shape a graph is built
// for, the refusals ringbench makes before cuDNN sees a shape, and what cuDNN's frontend answers on
// the host for a GPU generation without a device (validate(), and the workspace the frontend itself
// reserves). The pieces are the forward's (ring/plan/sdpa_pieces.hpp: sdpa_steps), so a backward key
// is a forward key and the backward's own choices. No executor builds or runs these graphs yet; the
// graph itself is cudnn_sdpa_backward_graphs.hpp's. This header needs no cuDNN header.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

#include "common/config.hpp"
#include "ring/plan/sdpa_pieces.hpp"

namespace rb::ring {

// The layout of a backward graph's Stats input (the forward's natural-log log-sum-exp), dims
// [1, Hq, rows, 1] in fp32: packed BHSD (strides {Hq·rows, rows, 1, 1}: a piece's LSE rows copied
// out first), or the forward's own (rows, Hq) rows (strides {rows·Hq, 1, Hq, 1}, read in place at
// stats_offset), which frontend 1.32 refuses below cuDNN 9.26 ("a non-ragged Stats input of
// sdpa_backward must be a packed BHSD tensor", node/scaled_dot_product_flash_attention.h:1570-1587).
enum class SdpaStatsLayout { packed_bhsd, forward_rows };

// What one backward graph is built for. Q, K, V, O and dO are bf16 in the forward's (rows, H, D)
// layout; dQ, dK and dV are written in `gradients` (bfloat16 or float32) in Q's and K/V's layout.
// `deterministic` asks cuDNN for its deterministic algorithm, which on Hopper below cuDNN 9.25 is the
// dP-workspace path (sdpa_backward_dp_bytes): opt-in, never the default.
struct SdpaBackwardGraphKey {
  std::int64_t rows = 0, keys = 0;
  SdpaMask mask = SdpaMask::none;  // causal_top_left only with rows == keys, as the forward's pieces
  int hq = 1, hkv = 1, d = 128;
  SdpaStatsLayout stats = SdpaStatsLayout::packed_bhsd;
  DType gradients = DType::bfloat16;
  bool deterministic = false;
  friend auto operator<=>(const SdpaBackwardGraphKey&, const SdpaBackwardGraphKey&) = default;
};

// The backward key of the piece whose forward graph is `forward`: packed Stats, bf16 gradients, not
// deterministic (the defaults above).
SdpaBackwardGraphKey backward_graph_key(const SdpaGraphKey& forward);

// A backward graph's shape as a message names it: graph_name's words and the backward's choices,
// "rows x keys[ causal] Hq=.. Hkv=.. D=.. stats=packed|forward-rows grads=bf16|fp32[ deterministic]".
std::string backward_graph_name(const SdpaBackwardGraphKey& k);

// Throws rb::InputError, naming the shape, for a key that no backward graph is built for: a 1x1
// piece (s_q = s_kv = 1, which the frontend's backward node refuses: such a piece needs another
// kernel), rows or keys below 1, a causal piece that is not square, Hq not a positive multiple of
// Hkv, D not a positive multiple of 8 up to 256, gradients neither bfloat16 nor float32.
void check_backward_graph_key(const SdpaBackwardGraphKey& k);

// The dP buffer (bytes) that cuDNN's deterministic Hopper backward keeps for one piece: one bf16 per
// query head, query row and key, the rows rounded up to 64 and the keys to 128, as the frontend 1.32
// sizes it (node/scaled_dot_product_flash_attention.h:1823-1832); 0 for a key that is not
// deterministic. It lives in the engine's own workspace, which only a plan built on a device names.
std::int64_t sdpa_backward_dp_bytes(const SdpaBackwardGraphKey& k);

// The frontend's validate() of the backward graph of `key` for GPUs of `sm_version` (90: Hopper):
// "" when it accepts it, else its message. Where `padding_workaround` is given, it is set to whether
// the frontend added its own padding mask (cuDNN <= 9.15 with keys % 128 != 0: seq_len tensors
// copied into the workspace at every execute), read from the validated graph. Throws rb::InputError
// where check_backward_graph_key does, before cuDNN sees the key. Host only: needs the library
// (kernels/cudnn_library.hpp), no device or handle.
std::string validate_sdpa_backward_graph(const SdpaBackwardGraphKey& key, int sm_version,
                                         bool* padding_workaround = nullptr);

// The workspace one execution of the backward graph of `key` asks for, as far as the host can ask.
struct SdpaBackwardWorkspace {
  // Bytes the frontend reserves ahead of the engine's part, for its own tensors (the fp32 dQ
  // accumulator, Δ = rowsum(dO∘O), the workaround padding mask's seq_len tensors): the graph lowered
  // by the frontend for `sm_version`, its non-virtual intermediate tensors summed.
  std::int64_t frontend = 0;
  // Bytes of the dP buffer of a deterministic key (sdpa_backward_dp_bytes), held in the engine's part.
  std::int64_t dp = 0;
  // The lower bound a rank's workspace must hold for this piece; the engine adds its own part on
  // top (get_workspace_size on a device, CudnnSdpa::prepare's way).
  std::int64_t at_least() const { return frontend + dp; }
};

// Lowers the backward graph of `key` through the frontend for `sm_version` without a device and
// reads the workspace it reserves. Throws rb::InputError where check_backward_graph_key does, and
// rb::Error with cuDNN's message where the frontend refuses the graph or the library does not open.
SdpaBackwardWorkspace sdpa_backward_workspace(const SdpaBackwardGraphKey& key, int sm_version);

}  // namespace rb::ring
