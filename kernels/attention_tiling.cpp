// Host half of the attention tiling: one step's pairs as row tiles with their pair lists.
#include "kernels/attention_tiling.hpp"

#include <algorithm>
#include <functional>
#include <queue>

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

  // Each run of rows between two cuts lists the active pairs that cover it, in pair order. A pair
  // covers the runs from its first row's cut to its last row's, so it is added to those alone: the
  // work is the lists' total (one or two entries per pair under documents), not runs x pairs, which
  // made a step of 200k documents take a minute (issue 51).
  const std::size_t runs = cuts.size() - 1;
  auto cut_at = [&](std::int64_t row) {
    return static_cast<std::size_t>(std::lower_bound(cuts.begin(), cuts.end(), row) - cuts.begin());
  };
  std::vector<std::int32_t> start(runs + 1, 0);  // the runs' lists, back to back in pair_index
  for (const auto& pr : pairs)
    if (pair_active(pr, causal))
      for (std::size_t i = cut_at(pr.q_row0), e = cut_at(pr.q_row0 + pr.q.count); i < e; ++i) ++start[i + 1];
  for (std::size_t i = 0; i < runs; ++i) start[i + 1] += start[i];
  AttentionWork w;
  w.pair_index.resize(static_cast<std::size_t>(start[runs]));
  std::vector<std::int32_t> fill(start.begin(), start.end() - 1);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const auto& pr = pairs[p];
    if (pair_active(pr, causal))
      for (std::size_t i = cut_at(pr.q_row0), e = cut_at(pr.q_row0 + pr.q.count); i < e; ++i)
        w.pair_index[static_cast<std::size_t>(fill[i]++)] = static_cast<std::int32_t>(p);
  }
  for (std::size_t i = 0; i < runs; ++i) {
    const std::int64_t r0 = cuts[i], r1 = cuts[i + 1];
    const std::int32_t begin = start[i], count = start[i + 1] - start[i];
    for (std::int64_t t0 = r0; t0 < r1; t0 += bm) {
      TileWork t;
      t.row_begin = t0;
      t.rows = static_cast<std::int32_t>(std::min<std::int64_t>(bm, r1 - t0));
      t.pair_begin = begin;
      t.pair_count = count;
      std::int64_t kt = 0;
      for (std::int32_t k = 0; k < count; ++k) {
        const auto& pr = pairs[static_cast<std::size_t>(w.pair_index[static_cast<std::size_t>(begin + k)])];
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

double schedule_makespan(const AttentionWork& w, int heads, int slots) {
  if (slots < 1 || heads < 1) throw Error(fmt::format("schedule_makespan: {} heads on {} slots", heads, slots));
  constexpr double kEmptyTile = 0.05;  // a tile with no key tile still loads Q and writes its rows
  std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
  for (int i = 0; i < slots; ++i) free_at.push(0.0);
  double makespan = 0.0;
  for (const auto& t : w.tiles)
    for (int h = 0; h < heads; ++h) {
      const double start = free_at.top();
      free_at.pop();
      const double end = start + std::max<double>(t.key_tiles, kEmptyTile);
      makespan = std::max(makespan, end);
      free_at.push(end);
    }
  return makespan;
}

bool has_active_pair(std::span<const BlockPair> pairs, bool causal) {
  return std::any_of(pairs.begin(), pairs.end(), [&](const BlockPair& p) { return pair_active(p, causal); });
}

std::string check_attention_work(const AttentionWork& w, std::span<const BlockPair> pairs, std::int64_t sq, bool causal,
                                 int bm, int bn) {
  std::vector<const TileWork*> order;
  for (const auto& t : w.tiles) order.push_back(&t);
  std::sort(order.begin(), order.end(),
            [](const TileWork* a, const TileWork* b) { return a->row_begin < b->row_begin; });
  // The active pairs that cover a tile's rows [r0, r1): those that start at or before r0 and end at
  // or after r1. The tiles go forward in r0, the pairs are added in order of their start and their
  // ends counted in a Fenwick tree, so the check costs (pairs + tiles) log pairs, not their product.
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  for (const auto& pr : pairs)
    if (pair_active(pr, causal)) rows.emplace_back(pr.q_row0, pr.q_row0 + pr.q.count);
  std::sort(rows.begin(), rows.end());
  std::vector<std::int64_t> ends;
  for (const auto& r : rows) ends.push_back(r.second);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  std::vector<std::size_t> fenwick(ends.size() + 1, 0);
  std::size_t added = 0;
  auto slot = [&](std::int64_t row) {  // ends below row
    return static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), row) - ends.begin());
  };
  auto add_end = [&](std::int64_t end) {
    for (std::size_t i = slot(end) + 1; i <= ends.size(); i += i & (~i + 1)) ++fenwick[i];
  };
  auto ending_before = [&](std::int64_t row) {  // added pairs whose end < row
    std::size_t n = 0;
    for (std::size_t i = slot(row); i > 0; i &= i - 1) n += fenwick[i];
    return n;
  };
  std::int64_t next_row = 0, key_tiles = 0;
  for (const TileWork* t : order) {
    if (t->row_begin != next_row)
      return fmt::format("tile at row {} where row {} was expected (rows covered twice or not at all)", t->row_begin,
                         next_row);
    if (t->rows < 1 || t->rows > bm)
      return fmt::format("tile at row {} has {} rows (1..{})", t->row_begin, t->rows, bm);
    next_row += t->rows;
    if (t->pair_begin < 0 || t->pair_count < 0 ||
        static_cast<std::size_t>(t->pair_begin) + static_cast<std::size_t>(t->pair_count) > w.pair_index.size())
      return fmt::format("tile at row {} lists pairs [{}, +{}) of an index of {}", t->row_begin, t->pair_begin,
                         t->pair_count, w.pair_index.size());
    const std::int64_t r0 = t->row_begin, r1 = t->row_begin + t->rows;
    for (; added < rows.size() && rows[added].first <= r0; ++added) add_end(rows[added].second);
    const std::size_t covering = added - ending_before(r1);
    std::int64_t kt = 0;
    for (std::int32_t k = 0; k < t->pair_count; ++k) {
      const std::int32_t i = w.pair_index[static_cast<std::size_t>(t->pair_begin + k)];
      if (i < 0 || static_cast<std::size_t>(i) >= pairs.size())
        return fmt::format("tile at row {} refers to pair {} of {}", r0, i, pairs.size());
      const BlockPair& pr = pairs[static_cast<std::size_t>(i)];
      if (!pair_active(pr, causal) || pr.q_row0 > r0 || r1 > pr.q_row0 + pr.q.count)
        return fmt::format("tile rows [{}, {}) list pair {}, which is inactive or does not cover them", r0, r1, i);
      kt += key_tile_count(pr, query_position(pr, r1 - 1), causal, bn);
    }
    if (static_cast<std::size_t>(t->pair_count) != covering)
      return fmt::format("tile rows [{}, {}) list {} pairs, {} cover them", r0, r1, t->pair_count, covering);
    if (kt != t->key_tiles)
      return fmt::format("tile at row {} counts {} key tiles, its pairs {}", r0, t->key_tiles, kt);
    key_tiles += kt;
  }
  if (next_row != sq) return fmt::format("tiles cover rows [0, {}) of {}", next_row, sq);
  if (key_tiles != w.key_tiles) return fmt::format("work counts {} key tiles, its tiles {}", w.key_tiles, key_tiles);
  return {};
}

const char* launch_refusal(const LaunchBinding& b) {
  if (!b.q || !b.k || !b.v || !b.o || !b.lse || !b.tiles) return "null buffer (Q, K, V, O, LSE or tiles)";
  if (b.pair_refs > 0 && (!b.pairs || !b.pair_index))
    return "null buffer (pairs or pair index, with tiles that refer to pairs)";
  return nullptr;
}

}  // namespace rb::kernels::tiling
