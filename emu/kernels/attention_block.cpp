// The emulated attention launcher (kernels/attention_block.cuh): the device launcher's refusals
// (check_attention_launch), then the CPU twin run the way the kernel divides its work, so that a
// defect in the tiling shows here as it would on the GPU. Each CTA of the grid (tiling::cta_work:
// one row tile, one query head) is one float twin call over that tile's rows of that head, with the
// pairs the tile lists through pair_index, in its order, each at the query positions the kernel
// gives the tile's rows (tiling::query_position, so a pair listed for rows it does not cover is
// attended as the kernel would attend it) and cut to the key tiles the kernel visits
// (tiling::key_tile_count). The call writes the tile's rows of O and L, O = 0 and L = -inf where
// no key was seen, as the kernel does; a row no tile covers keeps what it held (a fresh
// allocation's poison, a NaN).
//
// Not mirrored: the kernel's log2-domain softmax and its P rounded to bf16 before P V. The twin
// keeps fp32 throughout, so O differs from the GPU's within the bound of ring/check/reference.cpp's
// bf16 branch, and from a direct float twin call on the same bf16 values by at most fp32 rounding
// (a row meets its pairs in its tile's order).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "emu/kernels/launcher_support.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/attention_block_ref.hpp"
#include "kernels/cuda_check.hpp"

namespace rb::kernels {
namespace {

using bf16 = __nv_bfloat16;
namespace launchers = emu::launchers;

// Entries [lo, hi] of the pairs array that the tiles refer to through pair_index: the launch
// declares that read, the params carrying no count of pairs.
struct PairSpan {
  std::int64_t lo = 0, hi = -1;
};

// Keys of pair pr that the CTAs of tile t visit: the key tiles up to the tile's last query
// position (tiling::key_tile_count), the last one cut to the pair's keys.
std::int64_t visited_keys(const AttentionBlockParams& p, const tiling::TileWork& t, const BlockPair& pr) {
  const std::int64_t q_last = tiling::query_position(pr, t.row_begin + t.rows - 1);
  return std::min(pr.k.count, tiling::key_tile_count(pr, q_last, p.causal) * tiling::kBlockN);
}

// One CTA's rows, and the key rows its pairs bring, must lie in the buffers the launch declared:
// beyond them the emulated device's memory is the host's. On the GPU such a tiling reads or writes
// past the tensors; here the kernel fails (the emulator reports what the twin threw).
[[noreturn]] void refuse(const std::string& what) { throw Error("attention_block (emulated): " + what); }

// The inputs of one CTA's twin call: the tile's rows of Q for one query head, and the K and V rows
// of its KV head that the tile's pairs visit, one pair after another, as floats.
struct CtaInputs {
  std::vector<float> q, k, v;
  std::vector<BlockPair> pairs;  // rebased: query rows from 0 (the tile's), key rows into k and v
};

void gather(const AttentionBlockParams& p, const tiling::TileWork& t, int h, int kvh, PairSpan span, CtaInputs& in) {
  const auto d = static_cast<std::size_t>(p.d);
  if (t.rows < 1 || t.row_begin < 0 || t.row_begin + t.rows > p.sq)
    refuse("a tile's rows [" + std::to_string(t.row_begin) + ", +" + std::to_string(t.rows) + ") outside Q's " +
           std::to_string(p.sq));
  in.q.resize(static_cast<std::size_t>(t.rows) * d);
  for (std::int32_t r = 0; r < t.rows; ++r)
    launchers::bf16_to_float(p.q + ((t.row_begin + r) * p.hq + h) * p.d, d, in.q.data() + r * d);

  in.k.clear();
  in.v.clear();
  in.pairs.clear();
  for (std::int32_t j = 0; j < t.pair_count; ++j) {
    const std::int64_t slot = static_cast<std::int64_t>(t.pair_begin) + j;
    if (slot < 0 || slot >= p.pair_refs)
      refuse("a tile's pair list [" + std::to_string(t.pair_begin) + ", +" + std::to_string(t.pair_count) +
             ") outside the pair index's " + std::to_string(p.pair_refs));
    const std::int32_t index = p.pair_index[slot];
    if (index < span.lo || index > span.hi) refuse("pair index " + std::to_string(index) + " changed after launch");
    const BlockPair& pr = p.pairs[index];
    const std::int64_t keys = visited_keys(p, t, pr);
    if (keys <= 0) continue;  // no key tile: the kernel's next_job passes over the pair
    if (pr.k_row0 < 0 || pr.k_row0 + keys > p.sk)
      refuse("pair " + std::to_string(index) + " reads K rows [" + std::to_string(pr.k_row0) + ", +" +
             std::to_string(keys) + ") of " + std::to_string(p.sk));
    const std::size_t at = in.k.size();
    in.k.resize(at + static_cast<std::size_t>(keys) * d);
    in.v.resize(in.k.size());
    for (std::int64_t n = 0; n < keys; ++n) {
      const std::int64_t src = ((pr.k_row0 + n) * p.hkv + kvh) * p.d;
      const std::size_t dst = at + static_cast<std::size_t>(n) * d;
      launchers::bf16_to_float(p.k + src, d, in.k.data() + dst);
      launchers::bf16_to_float(p.v + src, d, in.v.data() + dst);
    }
    const Segment q{tiling::query_position(pr, t.row_begin), pr.q.stride, t.rows};
    in.pairs.push_back(BlockPair{q, 0, Segment{pr.k.start, pr.k.stride, keys}, static_cast<std::int64_t>(at / d),
                                 pr.mask});
  }
}

// The grid: CTA b runs tile cta_work(b).tile for query head cta_work(b).head, heads of one tile
// adjacent, as the kernel's blockIdx.x does.
void run_grid(const AttentionBlockParams& p, PairSpan span) {
  const int group = p.hq / p.hkv;
  const auto d = static_cast<std::size_t>(p.d);
  CtaInputs in;
  std::vector<float> o, lse;
  for (std::int64_t b = 0; b < p.num_tiles * p.hq; ++b) {
    const tiling::CtaWork cw = tiling::cta_work(b, p.hq);
    const tiling::TileWork t = p.tiles[cw.tile];
    gather(p, t, cw.head, cw.head / group, span, in);
    const auto rows = static_cast<std::size_t>(t.rows);
    o.assign(rows * d, 0.f);
    lse.assign(rows, 0.f);

    ref::AttentionBlockParams<float> rp;
    rp.q = in.q.data();
    rp.k = in.k.data();
    rp.v = in.v.data();
    rp.o = o.data();
    rp.lse = lse.data();
    rp.sq = t.rows;
    rp.sk = static_cast<std::int64_t>(in.k.size() / d);
    rp.hq = 1;
    rp.hkv = 1;
    rp.d = p.d;
    rp.causal = p.causal;
    rp.scale = p.scale;
    rp.pairs = in.pairs;
    ref::attention_block(rp);

    for (std::size_t r = 0; r < rows; ++r) {
      const std::int64_t line = (t.row_begin + static_cast<std::int64_t>(r)) * p.hq + cw.head;
      std::copy_n(o.data() + r * d, d, p.o + line * p.d);
      p.lse[line] = lse[r];
    }
  }
}

}  // namespace

void attention_block(const AttentionBlockParams& p, cudaStream_t stream) {
  check_attention_launch(p);  // the GPU build's refusals, word for word
  if (p.num_tiles == 0) return;
  // The pairs the tiles refer to, read off pair_index now: a setup-time array (DeviceAttentionWork
  // uploads it synchronously), so it holds now what the kernel will read.
  PairSpan span;
  if (p.pair_refs > 0) {
    const auto [lo, hi] = std::minmax_element(p.pair_index, p.pair_index + p.pair_refs);
    span = PairSpan{*lo, *hi};
  }
  const std::int64_t q_elems = p.sq * p.hq * p.d, k_elems = p.sk * p.hkv * p.d;
  std::vector<emu::Access> acc = launchers::accesses({
      emu::reads(p.q, launchers::bytes_of<bf16>(q_elems)),
      emu::reads(p.k, launchers::bytes_of<bf16>(k_elems)),
      emu::reads(p.v, launchers::bytes_of<bf16>(k_elems)),
      emu::writes(p.o, launchers::bytes_of<float>(q_elems)),
      emu::writes(p.lse, launchers::bytes_of<float>(p.sq * p.hq)),
      emu::reads(p.tiles, launchers::bytes_of<tiling::TileWork>(p.num_tiles)),
      emu::reads(p.pair_index, launchers::bytes_of<std::int32_t>(p.pair_refs)),
      emu::reads(p.pairs + span.lo, launchers::bytes_of<BlockPair>(span.hi - span.lo + 1)),
  });
  RB_CUDA_CHECK(emu::launch(stream, "attention_block", std::move(acc), [p, span] { run_grid(p, span); }));
}

}  // namespace rb::kernels
