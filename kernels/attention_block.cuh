// Device attention kernel for one ring step (docs/design.md §3): bf16 Q, K, V in the twin's (rows, H, D)
// layout, fp32 accumulation, D = 64 or 128, GQA. One launch runs every BlockPair of the step, so the
// key segments of one step combine in one online softmax per query row; its outputs are the
// normalised partial O and the natural-log LSE, both fp32, with O = 0 and L = -inf for rows that saw
// no key. CPU twin: kernels/attention_block_ref.hpp (same semantics, same name, namespace ref).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "kernels/attention_tiling.hpp"
#include "kernels/block_pair.hpp"
#include "kernels/device_buffer.hpp"

namespace rb::kernels {

struct AttentionBlockParams {
  const __nv_bfloat16* q = nullptr;  // (sq, hq, d)
  const __nv_bfloat16* k = nullptr;  // (sk, hkv, d)
  const __nv_bfloat16* v = nullptr;  // (sk, hkv, d)
  float* o = nullptr;                // (sq, hq, d), every row overwritten
  float* lse = nullptr;              // (sq, hq), every row overwritten
  std::int64_t sq = 0, sk = 0;
  int hq = 1, hkv = 1, d = 128;
  bool causal = true;
  float scale = 0;  // usually 1/sqrt(d)
  // Device arrays from DeviceAttentionWork: the pairs, the row tiles and each tile's pair list.
  const BlockPair* pairs = nullptr;
  const tiling::TileWork* tiles = nullptr;
  const std::int32_t* pair_index = nullptr;
  std::int64_t num_tiles = 0;
  std::int64_t pair_refs = 0;  // length of pair_index (0: no tile has a pair; pairs may be null)
};

// One step's pairs and their tiling, on the device. Built once per (rank, step) at setup, so a
// captured graph's kernel nodes point at memory that outlives every replay.
class DeviceAttentionWork {
 public:
  DeviceAttentionWork() = default;
  // Validates the pairs against the buffers (throws rb::Error as the twin does) and uploads them.
  DeviceAttentionWork(std::span<const BlockPair> step_pairs, std::int64_t sq, std::int64_t sk, bool causal);
  // Uploads a tiling already planned on the host (ring/plan/step_launch.hpp), after checking it against
  // its pairs (tiling::check_attention_work); throws rb::Error when it does not hold.
  DeviceAttentionWork(std::span<const BlockPair> step_pairs, const tiling::AttentionWork& work, std::int64_t sq,
                      bool causal);
  const BlockPair* pairs() const { return pairs_.get(); }
  const tiling::TileWork* tiles() const { return tiles_.get(); }
  const std::int32_t* pair_index() const { return index_.get(); }
  std::int64_t num_tiles() const { return static_cast<std::int64_t>(tiles_.size()); }
  std::int64_t pair_refs() const { return static_cast<std::int64_t>(index_.size()); }
  std::int64_t key_tiles() const { return key_tiles_; }  // one head; for work accounting
  // Fills the params' work fields.
  void bind(AttentionBlockParams& p) const;

 private:
  DeviceBuffer<BlockPair> pairs_;
  DeviceBuffer<tiling::TileWork> tiles_;
  DeviceBuffer<std::int32_t> index_;
  std::int64_t key_tiles_ = 0;
};

// Dynamic shared memory of one CTA: Q tile plus double-buffered K and V tiles.
constexpr std::size_t attention_smem_bytes(int d) {
  return static_cast<std::size_t>(tiling::kBlockM + 4 * tiling::kBlockN) * d * sizeof(__nv_bfloat16);
}
// The launcher opts the kernel in to this much (cudaFuncAttributeMaxDynamicSharedMemorySize), which
// Hopper allows up to 227 KiB per CTA (sharedMemPerBlockOptin, 232,448 bytes: the SM's 228 KiB less
// the 1 KiB reserved per CTA). Above it the opt-in and every launch would fail, and only on the GPU.
// Today 96 KiB at D = 128 and 48 KiB at D = 64.
static_assert(attention_smem_bytes(128) <= 227 * 1024, "attention kernel at D = 128: more shared memory than sm_90");
static_assert(attention_smem_bytes(64) <= 227 * 1024, "attention kernel at D = 64: more shared memory than sm_90");

// The launch's preconditions (kernels/attention_block_work.cpp, host code shared with the emulated
// device's launcher): throws rb::Error for bad heads or D, and, once there are tiles, for a binding
// tiling::launch_refusal refuses or more CTAs than one grid holds. A launch with no tiles passes.
void check_attention_launch(const AttentionBlockParams& p);

// Enqueues the kernel on `stream` (capturable). Throws rb::Error on bad params (the host-side
// contract of tiling::launch_refusal) and rb::ApiError when the launch fails. A launch with no tiles
// enqueues nothing.
void attention_block(const AttentionBlockParams& p, cudaStream_t stream);

}  // namespace rb::kernels
