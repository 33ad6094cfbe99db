// Device attention kernel, FlashAttention-2 style on mma.sync: a CTA owns kBlockM = 128 query rows
// of one query head (one m16 tile per warp, Q fragments held in registers) and streams the K/V tiles
// of every pair that covers its rows through shared memory, double-buffered with cp.async: the next
// tile's copy is in flight while the current one is multiplied. Scores S = Q K^T and the online
// softmax stay in registers (log2 domain, exp2f); P is rounded to bf16 for O += P V. Tiles wholly
// above the diagonal are never visited (key_tile_count); tiles that straddle it, and the short last
// tile of a pair, are masked element-wise from the segments' positions.
#include "kernels/attention_block.cuh"

#include <atomic>
#include <cassert>
#include <cmath>

#include "kernels/cuda_check.hpp"
#include "kernels/ptx_primitives.cuh"

namespace rb::kernels {
namespace {

using tiling::kBlockM;
using tiling::kBlockN;
using tiling::kThreads;
using bf16 = __nv_bfloat16;
// The register rule of tests/kernels/check_resource_usage.py (one CTA per SM at <= 255 registers a
// thread) is worked out for CTAs of 256 threads; a different size needs its --threads changed too.
static_assert(kThreads == 256, "tests/kernels/CMakeLists.txt: pass the new CTA size to check_resource_usage.py");

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

// A (pair, key tile) the CTA visits; pi == pair_count once every pair is done.
struct Job {
  int pi;
  std::int64_t kt;
};

// The first job at or after (pi, kt) in the tile's pair list, passing over pairs with no key tile.
__device__ Job next_job(const AttentionBlockParams& p, const tiling::TileWork& t, int pi, std::int64_t kt) {
  for (; pi < t.pair_count; ++pi, kt = 0) {
    const BlockPair& pr = p.pairs[p.pair_index[t.pair_begin + pi]];
    const std::int64_t q_last = tiling::query_position(pr, t.row_begin + t.rows - 1);
    if (kt < tiling::key_tile_count(pr, q_last, p.causal)) return Job{pi, kt};
  }
  return Job{pi, 0};
}

// Q rows [row_begin, +rows) of head h -> sQ[kBlockM][D] (swizzled); rows past `rows` are zeros.
template <int D>
__device__ void load_q(bf16* sQ, const AttentionBlockParams& p, const tiling::TileWork& t, int h) {
  constexpr int kChunks = D / 8;
  for (int c = threadIdx.x; c < kBlockM * kChunks; c += kThreads) {
    const int r = c / kChunks, col = (c % kChunks) * 8;
    const bool valid = r < t.rows;
    const bf16* src = valid ? p.q + ((t.row_begin + r) * p.hq + h) * D + col : p.q;
    ptx::cp_async_16(sQ + tiling::swizzle(r, col, D), src, valid);
  }
}

// K and V rows of key tile `kt` of pair pr, KV head kvh -> sK, sV [kBlockN][D]; missing rows are
// zeros, so the masked columns of P (exactly 0) never meet garbage (0 * NaN) in P V.
template <int D>
__device__ void load_kv(bf16* sK, bf16* sV, const AttentionBlockParams& p, const BlockPair& pr, std::int64_t kt,
                        int kvh) {
  constexpr int kChunks = D / 8;
  const int nk = tiling::key_tile_keys(pr, kt);
  for (int c = threadIdx.x; c < kBlockN * kChunks; c += kThreads) {
    const int r = c / kChunks, col = (c % kChunks) * 8;
    const bool valid = r < nk;
    const std::int64_t off = ((pr.k_row0 + kt * kBlockN + r) * p.hkv + kvh) * D + col;
    const int s = tiling::swizzle(r, col, D);
    ptx::cp_async_16(sK + s, valid ? p.k + off : p.k, valid);
    ptx::cp_async_16(sV + s, valid ? p.v + off : p.v, valid);
  }
}

// Grid: num_tiles * hq CTAs (cta_work), kThreads threads, attention_smem_bytes(D) dynamic smem.
template <int D>
__global__ void __launch_bounds__(kThreads, 1) attention_block_kernel(const AttentionBlockParams p) {
  // Preconditions, checked by the launcher: blockDim = kThreads, p.d == D, hq % hkv == 0, the
  // pairs inside [0, sq) x [0, sk) (plan_attention_work), 16-byte aligned Q/K/V rows.
  assert(blockDim.x == kThreads && p.d == D && p.hq % p.hkv == 0);
  static_assert(D % 16 == 0 && kBlockN % 16 == 0, "mma tiles are 16 wide");

  extern __shared__ __align__(128) unsigned char smem_raw[];
  bf16* sQ = reinterpret_cast<bf16*>(smem_raw);  // [kBlockM][D]
  bf16* sK = sQ + kBlockM * D;                   // [2][kBlockN][D]
  bf16* sV = sK + 2 * kBlockN * D;               // [2][kBlockN][D]

  const tiling::CtaWork cw = tiling::cta_work(blockIdx.x, p.hq);
  const tiling::TileWork tile = p.tiles[cw.tile];
  const int h = cw.head, kvh = h / (p.hq / p.hkv);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // This thread's two rows of the warp's m16 tile (mma C layout): r_lo and r_lo + 8.
  const int r_lo = warp * 16 + lane / 4;
  const float scale_log2 = p.scale * kLog2e;

  load_q<D>(sQ, p, tile, h);
  ptx::cp_async_commit();
  Job job = next_job(p, tile, 0, 0);
  if (job.pi < tile.pair_count) load_kv<D>(sK, sV, p, p.pairs[p.pair_index[tile.pair_begin + job.pi]], job.kt, kvh);
  ptx::cp_async_commit();

  float acc[D / 8][4] = {};               // O rows r_lo, r_lo+8 (mma C layout over D/8 column tiles), unnormalised
  float m_i[2] = {-INFINITY, -INFINITY};  // running max of scaled scores, log2 units
  float l_i[2] = {0.f, 0.f};              // running sum of exp2(s - m), this thread's columns only
  std::uint32_t qf[D / 16][4];            // Q as mma A fragments, loaded once
  bool have_q = false;
  int stage = 0;

  while (job.pi < tile.pair_count) {
    const BlockPair pr = p.pairs[p.pair_index[tile.pair_begin + job.pi]];
    const Job nxt = next_job(p, tile, job.pi, job.kt + 1);
    if (nxt.pi < tile.pair_count)
      load_kv<D>(sK + (stage ^ 1) * kBlockN * D, sV + (stage ^ 1) * kBlockN * D, p,
                 p.pairs[p.pair_index[tile.pair_begin + nxt.pi]], nxt.kt, kvh);
    ptx::cp_async_commit();  // possibly empty: keeps "all but the newest group" meaning this tile
    ptx::cp_async_wait<1>();
    __syncthreads();

    if (!have_q) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        const tiling::RowCol a = tiling::ldsm_addr_a(lane);
        ptx::ldmatrix_x4(qf[kk], sQ + tiling::swizzle(warp * 16 + a.row, kk * 16 + a.col, D));
      }
      have_q = true;
    }
    const bf16* k_s = sK + stage * kBlockN * D;
    const bf16* v_s = sV + stage * kBlockN * D;

    // S = Q K^T for this warp's 16 rows x kBlockN keys.
    float s[kBlockN / 8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int np = 0; np < kBlockN / 16; ++np) {
        const tiling::RowCol a = tiling::ldsm_addr_k(lane);
        std::uint32_t b[4];
        ptx::ldmatrix_x4(b, k_s + tiling::swizzle(np * 16 + a.row, kk * 16 + a.col, D));
        ptx::mma_bf16_16816(s[2 * np], qf[kk], b[0], b[1]);
        ptx::mma_bf16_16816(s[2 * np + 1], qf[kk], b[2], b[3]);
      }
    }

    // Scale into log2 units; mask the columns past the pair's keys and, on tiles that straddle the
    // diagonal, keys after the row's query position.
    const int nk = tiling::key_tile_keys(pr, job.kt);
    const bool full = nk == kBlockN &&
                      tiling::key_tile_full(pr, job.kt, tiling::query_position(pr, tile.row_begin), p.causal);
    const bool masked_pair = tiling::pair_masked(pr, p.causal);
    std::int64_t qpos[2] = {0, 0};
    if (!full && masked_pair) {
      qpos[0] = tiling::query_position(pr, tile.row_begin + r_lo);
      qpos[1] = tiling::query_position(pr, tile.row_begin + r_lo + 8);
    }
#pragma unroll
    for (int nt = 0; nt < kBlockN / 8; ++nt) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float x = s[nt][i] * scale_log2;
        if (!full) {
          const int col = tiling::mma_c(lane, i).col + nt * 8;
          if (col >= nk || (masked_pair && pr.k.pos(job.kt * kBlockN + col) > qpos[i / 2])) x = -INFINITY;
        }
        s[nt][i] = x;
      }
    }

    // Online softmax per row: the four lanes of a quad hold one row's kBlockN columns.
#pragma unroll
    for (int rh = 0; rh < 2; ++rh) {
      float mx = -INFINITY;
#pragma unroll
      for (int nt = 0; nt < kBlockN / 8; ++nt) mx = fmaxf(mx, fmaxf(s[nt][2 * rh], s[nt][2 * rh + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      const float m_new = fmaxf(m_i[rh], mx);
      // A row with every key masked so far keeps m = -inf; subtracting 0 instead keeps exp2 at 0
      // rather than NaN (-inf - -inf), exactly as the twin leaves such rows untouched.
      const float m_use = m_new == -INFINITY ? 0.f : m_new;
      const float alpha = exp2f(m_i[rh] - m_use);
      m_i[rh] = m_new;
      float sum = 0.f;
#pragma unroll
      for (int nt = 0; nt < kBlockN / 8; ++nt) {
        s[nt][2 * rh] = exp2f(s[nt][2 * rh] - m_use);
        s[nt][2 * rh + 1] = exp2f(s[nt][2 * rh + 1] - m_use);
        sum += s[nt][2 * rh] + s[nt][2 * rh + 1];
      }
      l_i[rh] = l_i[rh] * alpha + sum;
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt) {
        acc[dt][2 * rh] *= alpha;
        acc[dt][2 * rh + 1] *= alpha;
      }
    }

    // O += P V: the C fragments of two adjacent 8-key column tiles of S are the A fragment of one
    // 16-key slice (mma_c of n-tiles 2kk, 2kk+1 == mma_a of k-slice kk; tested on the CPU).
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      const std::uint32_t a[4] = {ptx::pack_bf16(s[2 * kk][0], s[2 * kk][1]),
                                  ptx::pack_bf16(s[2 * kk][2], s[2 * kk][3]),
                                  ptx::pack_bf16(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                                  ptx::pack_bf16(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        const tiling::RowCol vv = tiling::ldsm_addr_v(lane);
        std::uint32_t b[4];
        ptx::ldmatrix_x4_trans(b, v_s + tiling::swizzle(kk * 16 + vv.row, dp * 16 + vv.col, D));
        ptx::mma_bf16_16816(acc[2 * dp], a, b[0], b[1]);
        ptx::mma_bf16_16816(acc[2 * dp + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // the next iteration's prefetch overwrites this stage
    job = nxt;
    stage ^= 1;
  }
  ptx::cp_async_wait<0>();

  // Normalise and write this thread's two rows: O = acc / l, L = m ln2 + ln l; rows that saw no
  // key (l == 0) get O = 0 and L = -inf.
#pragma unroll
  for (int rh = 0; rh < 2; ++rh) {
    float l = l_i[rh];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    const int r = r_lo + 8 * rh;
    if (r >= tile.rows) continue;
    const std::int64_t row = (tile.row_begin + r) * p.hq + h;
    const float inv = l > 0.f ? 1.f / l : 0.f;
    float* o = p.o + row * D;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      const int col = dt * 8 + tiling::mma_c(lane, 2 * rh).col;
      *reinterpret_cast<float2*>(o + col) = make_float2(acc[dt][2 * rh] * inv, acc[dt][2 * rh + 1] * inv);
    }
    if (lane % 4 == 0) p.lse[row] = l > 0.f ? m_i[rh] * kLn2 + logf(l) : -INFINITY;
  }
}

template <int D>
void launch(const AttentionBlockParams& p, cudaStream_t stream) {
  const auto smem = attention_smem_bytes(D);
  // Above 48 KiB a kernel must opt in, once per device. Done on the first (eager) launch on each
  // device, so a later launch under stream capture makes no call beyond the launch itself.
  static std::atomic<std::uint64_t> opted_in{0};
  int dev = 0;
  RB_CUDA_CHECK(cudaGetDevice(&dev));
  const std::uint64_t bit = std::uint64_t{1} << (dev % 64);
  if ((opted_in.load() & bit) == 0) {
    RB_CUDA_CHECK(cudaFuncSetAttribute(attention_block_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    opted_in.fetch_or(bit);
  }
  const auto blocks = static_cast<unsigned>(p.num_tiles * p.hq);
  attention_block_kernel<D><<<blocks, kThreads, smem, stream>>>(p);
  RB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void attention_block(const AttentionBlockParams& p, cudaStream_t stream) {
  check_attention_launch(p);  // kernels/attention_block_work.cpp
  if (p.num_tiles == 0) return;
  if (p.d == 64)
    launch<64>(p, stream);
  else
    launch<128>(p, stream);
}

}  // namespace rb::kernels
