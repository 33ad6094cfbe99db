// Host half of the attention tiling: one step's pairs as row tiles with their pair lists.
#include "kernels/attention_tiling.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::kernels::tiling {

AttentionWork plan_attention_work(std::span<const BlockPair> pairs, std::int64_t sq, std::int64_t sk, bool causal,
                                  int bm, int bn) {
  for (const auto& pr : pairs) {
    if (pr.q.count < 0 || pr.k.count < 0 || pr.q.stride < 1 || pr.k.stride < 1 || pr.q_row0 < 0 || pr.k_row0 < 0 ||
        pr.q_row0 + pr.q.count > sq || pr.k_row0 + pr.k.count > sk)
      throw Error(fmt::format("attention_block: pair rows q[{}+{}] k[{}+{}] outside Q rows {} / K rows {}", pr.q_row0,
                              pr.q.count, pr.k_row0, pr.k.count, sq, sk));
  }
  std::vector<std::int64_t> cuts{0, sq};
  for (const auto& pr : pairs)
    if (pair_active(pr, causal)) {
      cuts.push_back(pr.q_row0);
      cuts.push_back(pr.q_row0 + pr.q.count);
    }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  AttentionWork w;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::int64_t r0 = cuts[i], r1 = cuts[i + 1];
    const auto begin = static_cast<std::int32_t>(w.pair_index.size());
    for (std::size_t p = 0; p < pairs.size(); ++p) {
      const auto& pr = pairs[p];
      if (pair_active(pr, causal) && pr.q_row0 <= r0 && r1 <= pr.q_row0 + pr.q.count)
        w.pair_index.push_back(static_cast<std::int32_t>(p));
    }
    const auto count = static_cast<std::int32_t>(w.pair_index.size()) - begin;
    for (std::int64_t t0 = r0; t0 < r1; t0 += bm) {
      TileWork t;
      t.row_begin = t0;
      t.rows = static_cast<std::int32_t>(std::min<std::int64_t>(bm, r1 - t0));
      t.pair_begin = begin;
      t.pair_count = count;
      std::int64_t kt = 0;
      for (std::int32_t k = 0; k < count; ++k) {
        const auto& pr = pairs[w.pair_index[begin + k]];
        kt += key_tile_count(pr, query_position(pr, t0 + t.rows - 1), causal, bn);
      }
      t.key_tiles = static_cast<std::int32_t>(kt);
      w.key_tiles += kt;
      w.tiles.push_back(t);
    }
  }
  // Heaviest first, so the short causal tiles fill the last wave instead of trailing it.
  std::stable_sort(w.tiles.begin(), w.tiles.end(),
                   [](const TileWork& a, const TileWork& b) { return a.key_tiles > b.key_tiles; });
  return w;
}

}  // namespace rb::kernels::tiling
