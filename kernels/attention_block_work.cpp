// The host half of the device attention launcher (kernels/attention_block.cuh): the device work's
// upload and the launch's preconditions. Compiled by the host compiler, apart from the kernel, so
// that the emulated device (emu/kernels/attention_block.cpp) refuses exactly the launches the GPU
// build refuses and uploads the same tiling, without linking the kernel.
#include <limits>
#include <string>

#include "common/error.hpp"
#include "kernels/attention_block.cuh"

namespace rb::kernels {

DeviceAttentionWork::DeviceAttentionWork(std::span<const BlockPair> step_pairs, std::int64_t sq, std::int64_t sk,
                                         bool causal)
    : DeviceAttentionWork(step_pairs, tiling::plan_attention_work(step_pairs, sq, sk, causal), sq, causal) {}

DeviceAttentionWork::DeviceAttentionWork(std::span<const BlockPair> step_pairs, const tiling::AttentionWork& w,
                                         std::int64_t sq, bool causal) {
  const std::string problem = tiling::check_attention_work(w, step_pairs, sq, causal);
  if (!problem.empty()) throw Error("attention_block (cuda): bad tiling: " + problem);
  pairs_ = DeviceBuffer<BlockPair>(step_pairs);
  tiles_ = DeviceBuffer<tiling::TileWork>(std::span<const tiling::TileWork>(w.tiles));
  index_ = DeviceBuffer<std::int32_t>(std::span<const std::int32_t>(w.pair_index));
  key_tiles_ = w.key_tiles;
}

void DeviceAttentionWork::bind(AttentionBlockParams& p) const {
  p.pairs = pairs();
  p.tiles = tiles();
  p.pair_index = pair_index();
  p.num_tiles = num_tiles();
  p.pair_refs = pair_refs();
}

void check_attention_launch(const AttentionBlockParams& p) {
  if (p.hq <= 0 || p.hkv <= 0 || p.hq % p.hkv != 0 || (p.d != 64 && p.d != 128))
    throw Error("attention_block (cuda): bad heads Hq=" + std::to_string(p.hq) + " Hkv=" + std::to_string(p.hkv) +
                " D=" + std::to_string(p.d) + " (D must be 64 or 128)");
  // A launch with no tiles enqueues nothing, so it binds nothing either: its buffers are not asked for.
  if (p.num_tiles == 0) return;
  const tiling::LaunchBinding b{p.q != nullptr,   p.k != nullptr,     p.v != nullptr,     p.o != nullptr,
                                p.lse != nullptr, p.tiles != nullptr, p.pairs != nullptr, p.pair_index != nullptr,
                                p.num_tiles,      p.pair_refs};
  if (const char* why = tiling::launch_refusal(b)) throw Error(std::string("attention_block (cuda): ") + why);
  if (p.num_tiles * p.hq > std::numeric_limits<int>::max())
    throw Error("attention_block (cuda): " + std::to_string(p.num_tiles) + " tiles x " + std::to_string(p.hq) +
                " heads exceed one grid");
}

}  // namespace rb::kernels
