// The device attention kernel's index math, on the CPU: ldmatrix/mma lane layouts simulated element
// by element, the shared-memory swizzle, key-tile skipping against brute force, and the row tiling of
// random pairs (every row once, with exactly the pairs that cover it).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "kernels/attention_tiling.hpp"

namespace rb::kernels::tiling {
namespace {

// What lane `lane` holds in register m, half h, after ldmatrix.x4 with the given per-lane row
// addresses: the (row, col) of the source element in the tile the addresses point into.
template <typename Addr>
RowCol ldmatrix_source(Addr addr, int lane, int m, int h, bool trans) {
  const RowCol e = ldmatrix_elem(lane, h, trans);  // (row, col) inside the 8x8 matrix m
  const RowCol a = addr(8 * m + e.row);            // row e.row of matrix m comes from lane 8m + e.row
  return RowCol{a.row, a.col + e.col};
}

TEST(AttentionTiling, QLoadGivesMmaAFragments) {
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h)
        EXPECT_EQ(ldmatrix_source(ldsm_addr_a, lane, r, h, false), mma_a(lane, r, h)) << lane << " " << r << " " << h;
}

TEST(AttentionTiling, KLoadGivesMmaBFragmentsOfTwoKeyTiles) {
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h) {
        const RowCol kn = mma_b(lane, r % 2, h);          // (k = dim, n = key) of B = K^T
        const RowCol want{kn.col + 8 * (r / 2), kn.row};  // K stored (key, dim)
        EXPECT_EQ(ldmatrix_source(ldsm_addr_k, lane, r, h, false), want) << lane << " " << r << " " << h;
      }
}

TEST(AttentionTiling, VTransposedLoadGivesMmaBFragmentsOfTwoDimTiles) {
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h) {
        const RowCol kn = mma_b(lane, r % 2, h);          // (k = key, n = dim) of B = V
        const RowCol want{kn.row, kn.col + 8 * (r / 2)};  // V stored (key, dim)
        EXPECT_EQ(ldmatrix_source(ldsm_addr_v, lane, r, h, true), want) << lane << " " << r << " " << h;
      }
}

// The kernel packs C fragments of S n-tiles 2kk, 2kk+1 as registers {c0c1, c2c3} of each into the
// A fragment of P's k-slice kk: register r takes n-tile r/2, floats 2(r%2), 2(r%2)+1.
TEST(AttentionTiling, ScoreAccumulatorsAreTheNextAFragment) {
  for (int lane = 0; lane < 32; ++lane)
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h) {
        const RowCol c = mma_c(lane, 2 * (r % 2) + h);
        EXPECT_EQ((RowCol{c.row, c.col + 8 * (r / 2)}), mma_a(lane, r, h)) << lane << " " << r << " " << h;
      }
}

// mma C layout covers the 16x8 tile once; A covers 16x16 once; B covers 16x8 once.
TEST(AttentionTiling, FragmentLayoutsAreBijections) {
  std::set<std::pair<int, int>> a, b, c;
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < 4; ++r)
      for (int h = 0; h < 2; ++h) a.insert({mma_a(lane, r, h).row, mma_a(lane, r, h).col});
    for (int r = 0; r < 2; ++r)
      for (int h = 0; h < 2; ++h) b.insert({mma_b(lane, r, h).row, mma_b(lane, r, h).col});
    for (int i = 0; i < 4; ++i) c.insert({mma_c(lane, i).row, mma_c(lane, i).col});
  }
  EXPECT_EQ(a.size(), 256u);
  EXPECT_EQ(b.size(), 128u);
  EXPECT_EQ(c.size(), 128u);
}

TEST(AttentionTiling, SwizzleIsABijectionAndLdmatrixPhasesAreConflictFree) {
  for (int d : {64, 128}) {
    std::set<int> seen;
    for (int row = 0; row < 64; ++row)
      for (int col = 0; col < d; ++col) seen.insert(swizzle(row, col, d));
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(64 * d));
    EXPECT_EQ(*seen.rbegin(), 64 * d - 1);
    // One ldmatrix phase reads eight 16-byte rows at one logical column: their 4-byte banks must
    // not overlap, i.e. the eight chunks land in eight different 16-byte bank groups (of 8).
    for (int row0 = 0; row0 < 64; row0 += 8)
      for (int col = 0; col < d; col += 8) {
        std::set<int> groups;
        for (int i = 0; i < 8; ++i) groups.insert((swizzle(row0 + i, col, d) * 2 / 16) % 8);
        EXPECT_EQ(groups.size(), 8u) << "d " << d << " row0 " << row0 << " col " << col;
      }
  }
}

TEST(AttentionTiling, CtaWorkVisitsEveryTileAndHeadOnce) {
  const int hq = 6;
  std::set<std::pair<std::int64_t, int>> seen;
  for (std::int64_t b = 0; b < 7 * hq; ++b) {
    const auto w = cta_work(b, hq);
    EXPECT_LT(w.head, hq);
    seen.insert({w.tile, w.head});
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(7 * hq));
  EXPECT_EQ(cta_work(hq, hq).tile, 1);  // heads of one tile are adjacent
}

BlockPair random_pair(std::mt19937_64& g, std::int64_t& q_row0, std::int64_t& k_row0) {
  std::uniform_int_distribution<std::int64_t> start(0, 400), stride(1, 5), count(1, 300);
  const Segment q{start(g), stride(g), count(g)}, k{start(g), stride(g), count(g)};
  BlockPair p{q, q_row0, k, k_row0, classify(q, k, true)};
  q_row0 += q.count;
  k_row0 += k.count;
  return p;
}

TEST(AttentionTiling, KeyTilesMatchBruteForce) {
  std::mt19937_64 g(7);
  for (int it = 0; it < 2000; ++it) {
    std::int64_t qr = 0, kr = 0;
    BlockPair p = random_pair(g, qr, kr);
    for (bool causal : {true, false}) {
      p.mask = classify(p.q, p.k, causal);
      std::uniform_int_distribution<std::int64_t> pick(0, p.q.count - 1);
      std::int64_t i0 = pick(g), i1 = pick(g);
      if (i0 > i1) std::swap(i0, i1);
      const std::int64_t q_first = p.q.pos(i0), q_last = p.q.pos(i1);
      // Brute force: the twin visits tile j0 unless (masked and first key > q_last).
      std::int64_t want = 0;
      if (pair_active(p, causal))
        for (std::int64_t j0 = 0; j0 < p.k.count; j0 += kBlockN) {
          if (pair_masked(p, causal) && p.k.pos(j0) > q_last) break;
          ++want;
        }
      ASSERT_EQ(key_tile_count(p, q_last, causal), want) << "it " << it;
      for (std::int64_t kt = 0; kt < want; ++kt) {
        const int nk = key_tile_keys(p, kt);
        ASSERT_EQ(nk, std::min<std::int64_t>(kBlockN, p.k.count - kt * kBlockN));
        bool all_visible = true;
        for (int n = 0; n < nk; ++n) {
          for (std::int64_t i = i0; i <= i1; ++i) {
            if (pair_masked(p, causal) && p.k.pos(kt * kBlockN + n) > p.q.pos(i)) all_visible = false;
          }
        }
        ASSERT_EQ(key_tile_full(p, kt, q_first, causal), all_visible) << "it " << it << " kt " << kt;
      }
    }
  }
}

TEST(AttentionTiling, WorkCoversEveryRowOnceWithItsPairs) {
  std::mt19937_64 g(11);
  for (int it = 0; it < 300; ++it) {
    std::int64_t qr = 0, kr = 0;
    std::vector<BlockPair> pairs;
    const int n = std::uniform_int_distribution<int>(1, 5)(g);
    for (int i = 0; i < n; ++i) pairs.push_back(random_pair(g, qr, kr));
    // Some pairs share query rows (as zigzag's two key segments do), some rows have no pair.
    if (n > 1) {
      pairs[1].q_row0 = pairs[0].q_row0;
      pairs[1].q = pairs[0].q;
    }
    if (n > 2) pairs[2].q.count = 0;
    const std::int64_t sq = qr + 37, sk = kr;
    const bool causal = it % 3 != 0;
    for (auto& p : pairs) p.mask = classify(p.q, p.k, causal);
    const auto w = plan_attention_work(pairs, sq, sk, causal);
    std::vector<int> hits(sq, 0);
    std::int64_t key_tiles = 0;
    for (std::size_t t = 0; t < w.tiles.size(); ++t) {
      const auto& tw = w.tiles[t];
      ASSERT_GE(tw.rows, 1);
      ASSERT_LE(tw.rows, kBlockM);
      if (t > 0) {
        ASSERT_GE(w.tiles[t - 1].key_tiles, tw.key_tiles);  // heaviest first
      }
      key_tiles += tw.key_tiles;
      for (std::int64_t r = tw.row_begin; r < tw.row_begin + tw.rows; ++r) {
        ++hits[r];
        std::set<int> want, got;
        for (std::size_t p = 0; p < pairs.size(); ++p)
          if (pair_active(pairs[p], causal) && pairs[p].q_row0 <= r && r < pairs[p].q_row0 + pairs[p].q.count)
            want.insert(static_cast<int>(p));
        for (int k = 0; k < tw.pair_count; ++k) got.insert(w.pair_index[tw.pair_begin + k]);
        ASSERT_EQ(got, want) << "row " << r;
      }
    }
    EXPECT_EQ(key_tiles, w.key_tiles);
    for (std::int64_t r = 0; r < sq; ++r) ASSERT_EQ(hits[r], 1) << "row " << r;
  }
}

// The tiling as it was before issue 51 (every run of rows scanned every pair): the reference the
// linear one must match tile for tile and index for index, since the kernel folds a tile's pairs in
// its index's order.
AttentionWork quadratic_work(std::span<const BlockPair> pairs, std::int64_t sq, bool causal) {
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
    for (std::size_t p = 0; p < pairs.size(); ++p)
      if (pair_active(pairs[p], causal) && pairs[p].q_row0 <= r0 && r1 <= pairs[p].q_row0 + pairs[p].q.count)
        w.pair_index.push_back(static_cast<std::int32_t>(p));
    const auto count = static_cast<std::int32_t>(w.pair_index.size()) - begin;
    for (std::int64_t t0 = r0; t0 < r1; t0 += kBlockM) {
      TileWork t{t0, static_cast<std::int32_t>(std::min<std::int64_t>(kBlockM, r1 - t0)), begin, count, 0};
      std::int64_t kt = 0;
      for (std::int32_t k = 0; k < count; ++k) {
        const auto& pr = pairs[static_cast<std::size_t>(w.pair_index[static_cast<std::size_t>(begin + k)])];
        kt += key_tile_count(pr, query_position(pr, t0 + t.rows - 1), causal, kBlockN);
      }
      t.key_tiles = static_cast<std::int32_t>(kt);
      w.key_tiles += kt;
      w.tiles.push_back(t);
    }
  }
  std::stable_sort(w.tiles.begin(), w.tiles.end(),
                   [](const TileWork& a, const TileWork& b) { return a.key_tiles > b.key_tiles; });
  return w;
}

TEST(AttentionTiling, WorkIsTheQuadraticTilingsTileForTile) {
  std::mt19937_64 g(51);
  for (int it = 0; it < 300; ++it) {
    std::int64_t qr = 0, kr = 0;
    std::vector<BlockPair> pairs;
    const int n = std::uniform_int_distribution<int>(1, 12)(g);
    for (int i = 0; i < n; ++i) pairs.push_back(random_pair(g, qr, kr));
    // Pairs that share or nest query rows, and an empty one.
    for (int i = 1; i < n; i += 3) {
      pairs[i].q_row0 = pairs[i - 1].q_row0;
      pairs[i].q = pairs[i - 1].q;
    }
    if (n > 4) pairs[4].q.count = 0;
    const bool causal = it % 3 != 0;
    for (auto& p : pairs) p.mask = classify(p.q, p.k, causal);
    const auto w = plan_attention_work(pairs, qr + 37, kr, causal), want = quadratic_work(pairs, qr + 37, causal);
    ASSERT_EQ(w.pair_index, want.pair_index) << it;
    ASSERT_EQ(w.key_tiles, want.key_tiles) << it;
    ASSERT_EQ(w.tiles.size(), want.tiles.size()) << it;
    for (std::size_t t = 0; t < w.tiles.size(); ++t) {
      const TileWork &a = w.tiles[t], &b = want.tiles[t];
      ASSERT_EQ(std::tie(a.row_begin, a.rows, a.pair_begin, a.pair_count, a.key_tiles),
                std::tie(b.row_begin, b.rows, b.pair_begin, b.pair_count, b.key_tiles))
          << it << " tile " << t;
    }
  }
}

// Issue 51: one step of n within-document pieces (fixed:1 documents, each its own causal square)
// cost n^2, a minute at 200k, in the tiling and again in the device's check of it. Four times the
// pieces must cost about four times as long, not sixteen: the best of five runs at 4k and 16k
// pieces (milliseconds each; the quadratic tiling took 0.2 s at 16k).
TEST(AttentionTiling, WorkGrowsLinearlyInThePieces) {
  auto step = [](std::int64_t n) {
    std::vector<BlockPair> pairs;
    for (std::int64_t d = 0; d < n; ++d)
      pairs.push_back({Segment{d, 1, 1}, d, Segment{d, 1, 1}, d, MaskClass::partial});
    return pairs;
  };
  auto best = [](const std::vector<BlockPair>& pairs) {
    double t = 1e9;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto n = static_cast<std::int64_t>(pairs.size());
      const auto w = plan_attention_work(pairs, n, n, true);
      const std::string problem = check_attention_work(w, pairs, n, true);  // the device's check, as linear
      t = std::min(t, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      EXPECT_EQ(w.pair_index.size(), pairs.size());
      EXPECT_EQ(problem, "");
    }
    return t;
  };
  const auto small = step(4096), large = step(16384);
  const double ratio = best(large) / std::max(best(small), 1e-6);
  EXPECT_LT(ratio, 8.0) << "4x the pieces took " << ratio << "x as long";
}

TEST(AttentionTiling, RejectsPairsOutsideTheBuffers) {
  const BlockPair p{Segment{0, 1, 10}, 5, Segment{0, 1, 10}, 0, MaskClass::partial};
  EXPECT_THROW(plan_attention_work(std::span(&p, 1), 12, 10, true), Error);
  EXPECT_NO_THROW(plan_attention_work(std::span(&p, 1), 15, 10, true));
}

}  // namespace
}  // namespace rb::kernels::tiling
