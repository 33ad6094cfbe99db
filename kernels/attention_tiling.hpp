// Index math of the device attention kernel, kept apart from it so the CPU can test it: how one
// step's BlockPairs become CTA work items (row tiles, each with the pairs that cover its rows), which
// key tiles of a pair a row tile visits and which of them need an element-wise mask, where a CTA
// finds its tile and head, the shared-memory swizzle, and the lane layouts of mma.m16n8k16 and
// ldmatrix. Everything here is plain C++ that nvcc also compiles for the device (RB_HD).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kernels/block_pair.hpp"
#include "kernels/host_device.hpp"

namespace rb::kernels::tiling {

inline constexpr int kBlockM = 128;           // query rows per CTA (one m16 tile per warp)
inline constexpr int kBlockN = 64;            // keys per K/V tile
inline constexpr int kWarps = kBlockM / 16;   // 8
inline constexpr int kThreads = kWarps * 32;  // 256

// One CTA's rows: a run of local query rows, all covered by the same set of pairs.
struct TileWork {
  std::int64_t row_begin = 0;   // first local row of Q/O
  std::int32_t rows = 0;        // 1..kBlockM
  std::int32_t pair_begin = 0;  // into AttentionWork::pair_index
  std::int32_t pair_count = 0;  // 0: no key reaches these rows (O = 0, L = -inf)
  std::int32_t key_tiles = 0;   // key tiles it visits over all its pairs (its work, for ordering)
};

// Pairs the kernel runs: the twin passes over empty pairs and, under a causal mask, skip pairs.
RB_HD constexpr bool pair_active(const BlockPair& p, bool causal) {
  return p.q.count > 0 && p.k.count > 0 && !(causal && p.mask == MaskClass::skip);
}
// Pairs whose tiles may need an element-wise mask.
RB_HD constexpr bool pair_masked(const BlockPair& p, bool causal) { return causal && p.mask == MaskClass::partial; }

// Key tiles [0, n) of pair p that query rows with last position q_last visit: under a mask, the
// tiles whose first key is <= q_last (the twin's early `break`); otherwise all of them.
RB_HD constexpr std::int64_t key_tile_count(const BlockPair& p, std::int64_t q_last, bool causal, int bn = kBlockN) {
  if (!pair_active(p, causal)) return 0;
  std::int64_t keys = p.k.count;
  if (pair_masked(p, causal)) {
    if (q_last < p.k.start) return 0;
    const std::int64_t reach = (q_last - p.k.start) / p.k.stride + 1;  // keys at positions <= q_last
    keys = reach < keys ? reach : keys;
  }
  return (keys + bn - 1) / bn;
}

// Keys in key tile kt of pair p (the last tile may be short).
RB_HD constexpr int key_tile_keys(const BlockPair& p, std::int64_t kt, int bn = kBlockN) {
  const std::int64_t left = p.k.count - kt * bn;
  return static_cast<int>(left < bn ? left : bn);
}

// True when no element of key tile kt needs masking for rows whose first position is q_first:
// unmasked pairs, or every key of the tile at or before the first query. A short last tile still
// masks its missing columns; the kernel handles that separately (nk < kBlockN).
RB_HD constexpr bool key_tile_full(const BlockPair& p, std::int64_t kt, std::int64_t q_first, bool causal,
                                   int bn = kBlockN) {
  if (!pair_masked(p, causal)) return true;
  const std::int64_t last = kt * bn + key_tile_keys(p, kt, bn) - 1;
  return p.k.pos(last) <= q_first;
}

// Global position of local query row `row` through pair p (row inside the pair's rows).
RB_HD constexpr std::int64_t query_position(const BlockPair& p, std::int64_t row) { return p.q.pos(row - p.q_row0); }

// CTA b of a launch over n_tiles * hq CTAs: the heads of one tile are adjacent, so the Hq/Hkv
// query heads sharing a K/V head run together and meet their K/V in L2, and tiles are visited in
// AttentionWork order (heaviest first).
struct CtaWork {
  std::int64_t tile = 0;
  int head = 0;
};
RB_HD constexpr CtaWork cta_work(std::int64_t block, int hq) {
  return CtaWork{block / hq, static_cast<int>(block % hq)};
}

// Shared memory holds rows of D bf16 as D/8 chunks of 16 bytes. Chunk c of row r is stored at chunk
// c ^ (r % 8), so the eight row addresses of one ldmatrix phase (same column, eight rows) fall in
// eight different bank groups. Returns the element offset of (row, col) in a [rows][d] tile.
RB_HD constexpr int swizzle(int row, int col, int d) { return row * d + (((col >> 3) ^ (row & 7)) << 3) + (col & 7); }

// --- mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 fragment layouts (PTX ISA, "Matrix
// Fragments for mma.m16n8k16"). g = lane / 4 (group), t = lane % 4 (thread in group).
struct RowCol {
  int row = 0, col = 0;
  friend constexpr bool operator==(const RowCol&, const RowCol&) = default;
};
// A (16x16, row-major): 4 registers of 2 bf16; element h of register r.
RB_HD constexpr RowCol mma_a(int lane, int r, int h) {
  return RowCol{lane / 4 + 8 * (r % 2), 2 * (lane % 4) + h + 8 * (r / 2)};
}
// B (16x8, "col"): 2 registers of 2 bf16; element h of register r as (k, n).
RB_HD constexpr RowCol mma_b(int lane, int r, int h) { return RowCol{2 * (lane % 4) + h + 8 * r, lane / 4}; }
// C/D (16x8, fp32): 4 floats; float i.
RB_HD constexpr RowCol mma_c(int lane, int i) { return RowCol{lane / 4 + 8 * (i / 2), 2 * (lane % 4) + (i % 2)}; }

// --- ldmatrix.sync.aligned.m8n8.x4(.trans).b16: lanes 8m..8m+7 give the row addresses of matrix m;
// lane L receives from each matrix m, in register m, the pair (row L/4, cols 2(L%4)+{0,1}), or with
// .trans the pair (rows 2(L%4)+{0,1}, col L/4).
RB_HD constexpr RowCol ldmatrix_elem(int lane, int h, bool trans) {
  return trans ? RowCol{2 * (lane % 4) + h, lane / 4} : RowCol{lane / 4, 2 * (lane % 4) + h};
}
// The row address each lane gives for the Q (A operand) load of the 16x16 block at (0, 0): matrices
// (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) = a0..a3.
RB_HD constexpr RowCol ldsm_addr_a(int lane) { return RowCol{lane % 16, (lane / 16) * 8}; }
// K rows as the B operand of S = Q K^T, non-transposed: matrices (keys 0-7, k 0-7), (keys 0-7,
// k 8-15), (keys 8-15, k 0-7), (keys 8-15, k 8-15) = b0, b1 of key tile n0, then of n0 + 8.
// Returned as (key, dim).
RB_HD constexpr RowCol ldsm_addr_k(int lane) { return RowCol{(lane / 16) * 8 + lane % 8, ((lane / 8) % 2) * 8}; }
// V rows as the B operand of O = P V, transposed: matrices (keys 0-7, d 0-7), (keys 8-15, d 0-7),
// (keys 0-7, d 8-15), (keys 8-15, d 8-15) = b0, b1 of d-tile n0, then of n0 + 8. (key, dim).
RB_HD constexpr RowCol ldsm_addr_v(int lane) { return RowCol{((lane / 8) % 2) * 8 + lane % 8, (lane / 16) * 8}; }

// --- Host side: the work of one launch.
struct AttentionWork {
  std::vector<TileWork> tiles;           // heaviest first
  std::vector<std::int32_t> pair_index;  // pairs of tile t: pair_index[pair_begin .. +pair_count)
  std::int64_t key_tiles = 0;            // sum over tiles (one head)
};

// Cuts local rows [0, sq) at every active pair's first and last row, so each run of rows is covered
// by one set of pairs, then cuts runs into tiles of at most bm rows; rows no pair covers get tiles
// with no pairs, so the kernel overwrites every row as the twin does. Throws rb::Error when a pair
// lies outside [0, sq) x [0, sk), as the twin does.
AttentionWork plan_attention_work(std::span<const BlockPair> pairs, std::int64_t sq, std::int64_t sk, bool causal,
                                  int bm = kBlockM, int bn = kBlockN);

// The launch's critical path in key tiles: its CTAs (every tile times `heads`, in launch order,
// heaviest first) dealt greedily to `slots` CTA slots (132 on an H200 at one CTA per SM), each CTA
// costing its key tiles (a tile with none still costs a little: it writes its rows). A launch of
// fewer CTAs than slots runs one wave, and its time is its heaviest CTA's, not its total work: the
// reason equal work per rank need not mean equal time on short ring steps (docs/performance.md).
double schedule_makespan(const AttentionWork& w, int heads, int slots);

// True when at least one pair gives the kernel keys to visit. A step without one (in a causal
// contiguous ring, every block that comes from a later rank) computes nothing.
bool has_active_pair(std::span<const BlockPair> pairs, bool causal);

// What plan_attention_work promises the kernel: tiles of 1..bm rows covering [0, sq) exactly once,
// each listing exactly the active pairs that cover its rows, and key_tiles that add up. Returns
// what is wrong, or an empty string. The device work checks it before uploading.
std::string check_attention_work(const AttentionWork& w, std::span<const BlockPair> pairs, std::int64_t sq, bool causal,
                                 int bm = kBlockM, int bn = kBlockN);

// The launch contract, on the host so that CPU tests reach it: which buffers a launch binds (a
// DeviceBuffer of no elements is a null pointer) and how many pair references its tiles hold.
struct LaunchBinding {
  bool q = false, k = false, v = false, o = false, lse = false;
  bool tiles = false, pairs = false, pair_index = false;
  std::int64_t num_tiles = 0;
  std::int64_t pair_refs = 0;  // length of the pair index: 0 when no tile has a pair
};
// Why such a launch must not be enqueued, or nullptr when it may (one with no tiles enqueues
// nothing). The pair arrays are needed only when some tile refers to a pair: tiles without pairs
// just write O = 0 and L = -inf.
const char* launch_refusal(const LaunchBinding& b);

}  // namespace rb::kernels::tiling
