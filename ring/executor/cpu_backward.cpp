// The CPU backend's backward threads (see cpu_backward.hpp).
#include "ring/executor/cpu_backward.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/nvtx.hpp"
#include "kernels/attention_block_bwd_ref.hpp"
#include "ring/plan/block_pairs.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {
namespace {

namespace kref = kernels::ref;

// Exchange tags of the backward, apart from the forward's (step · threads + lane) so that a rank
// still in its forward and a peer already in its backward never match; within MPI's 30000.
constexpr int kFusedTag = 10000, kTrailTag = 20000, kScatterTag = 25000;

// Where lane l's dK rows start (dV: lane_rows after) in a buffer of the forward's block layout and
// in a fused one; in elements.
std::int64_t block_dk(const BackwardBufferShape& n, int l) { return 2 * l * n.lane_rows * n.row; }
std::int64_t fused_dk(const BackwardBufferShape& n, int l) { return (n.fused_lane_row(l) + 2 * n.lane_rows) * n.row; }

// dst[at_d + i] (+)= src[at_s + i] for the lane's dK and dV rows (2·lane_rows rows).
template <typename T>
void fold_lane(std::vector<T>& dst, std::int64_t at_d, const std::vector<T>& src, std::int64_t at_s,
               const BackwardBufferShape& n, bool add) {
  const std::int64_t len = 2 * n.lane_rows * n.row;
  T* d = dst.data() + at_d;
  const T* s = src.data() + at_s;
  if (add)
    for (std::int64_t i = 0; i < len; ++i) d[i] += s[i];
  else
    std::copy(s, s + len, d);
}

bool all_at_least(const std::vector<int>& v, int n) {
  return std::all_of(v.begin(), v.end(), [&](int x) { return x >= n; });
}

}  // namespace

int backward_comm_threads(const BackwardSchedule& b) {
  const int lanes = static_cast<int>(b.kv.lanes.size());
  switch (b.grads) {
    case GradFlow::with_kv: return lanes;
    case GradFlow::trailing: return 2 * lanes;
    case GradFlow::reduce_scatter: break;
  }
  return 1;
}

template <typename T>
void reset_backward(CpuRank<T>& rk, const BackwardSchedule& b) {
  const int lanes = b.kv.gathered ? 1 : static_cast<int>(b.kv.lanes.size());
  rk.bwd_recv_done.assign(lanes, 0);
  rk.grad_recv_done.assign(lanes, 0);
  rk.bwd_computed = rk.bwd_added = 0;
  rk.bwd_home = false;
  rk.bwd_exchanged = rk.bwd_threads_done = 0;
}

template <typename T>
void backward_compute(const CpuPass<T>& p, int r) {
  CpuRank<T>& rk = p.ranks[r];
  const Config& cfg = p.plan.config;
  const BackwardSchedule& b = *p.plan.backward;
  const BackwardBufferShape& n = p.bwd_shape;
  const HeadExchange& x = p.plan.exchange;
  const int c = p.members(), steps = static_cast<int>(rk.bwd_pairs.size());
  const std::int64_t rows = p.plan.ranks[r].attention_tokens;
  const int lanes = n.lanes;

  // Under a head exchange dO reaches the attention layout by the all-to-all first.
  if (x.active()) p.wait_until(rk, [&] { return rk.bwd_exchanged >= 1; });
  const std::int64_t t0 = steady_ns();
  kref::attention_delta(rk.o_acc.data(), rk.bwd.d_o.data(), rk.bwd.delta.data(), rows, x.q_heads, cfg.head_dim);
  std::fill(rk.bwd.dq.begin(), rk.bwd.dq.end(), T(0));
  p.log(rk.log, r, IntervalKind::compute, "compute", "delta", 0, 0, t0, steady_ns());

  for (int j = 0; j < steps; ++j) {
    if (p.aborting) throw Error("cpu executor: aborted");
    // The step's K/V: rotating, from the message or transfer of step j - 1; gathered, the gather.
    if (b.kv.gathered) {
      if (c > 1) p.wait_until(rk, [&] { return rk.bwd_recv_done[0] >= 1; });
    } else if (j > 0) {
      p.wait_until(rk, [&] { return all_at_least(rk.bwd_recv_done, j); });
    }
    nvtx::ScopedRange range(nvtx::kRangeStep, j);
    // Which buffer the step reads and in which layout: the forward's (its step buffers, or the own
    // block under the wrong-block fault) or a fused one (reverse, from step 1).
    const bool fault = p.fault == InjectedFault::wrong_kv_block && j > 0 && !b.kv.gathered;
    const bool fused = b.grads == GradFlow::with_kv && j > 0 && !fault;
    kref::AttentionBlockBwdParams<T> bp;
    std::int64_t scratch_len = 0;
    if (b.kv.gathered) {
      bp.k = rk.all_k.data();
      bp.v = rk.all_v.data();
      bp.sk = rows * c;
      bp.dk = rk.bwd.all_dk.data();
      bp.dv = rk.bwd.all_dv.data();
      std::fill(rk.bwd.all_dk.begin(), rk.bwd.all_dk.end(), T(0));
      std::fill(rk.bwd.all_dv.begin(), rk.bwd.all_dv.end(), T(0));
    } else if (fused) {
      bp.k = rk.bwd.step_buffer(j).data();
      bp.v = bp.k + n.lane_rows * n.row;
      bp.sk = backward_key_rows(p.plan);
      bp.dk = rk.bwd.scratch.data() + 2 * n.lane_rows * n.row;
      bp.dv = rk.bwd.scratch.data() + 3 * n.lane_rows * n.row;
      scratch_len = n.fused;
    } else {
      // Reverse's step 0 reads the forward's last step buffer; follow reads the forward's buffers. The
      // wrong-block fault reads step 0's block at every step, as the defect of diffusers #14265 did.
      const bool reverse = b.grads == GradFlow::with_kv;
      const auto& kv = reverse ? rk.step_buffer(c - 1) : fault ? rk.own : rk.step_buffer(j);
      bp.k = kv.data();
      bp.v = bp.k + p.shape.v_offset;
      bp.sk = p.plan.schedule.key_rows();
      bp.dk = rk.bwd.scratch.data();
      bp.dv = rk.bwd.scratch.data() + p.shape.v_offset;
      scratch_len = n.block;
    }
    if (scratch_len > 0) std::fill(rk.bwd.scratch.begin(), rk.bwd.scratch.begin() + scratch_len, T(0));
    bp.q = rk.q.data();
    bp.d_o = rk.bwd.d_o.data();
    bp.lse = rk.lse_acc.data();
    bp.delta = rk.bwd.delta.data();
    bp.dq = rk.bwd.dq.data();
    bp.sq = rows;
    bp.hq = x.q_heads;
    bp.hkv = x.kv_heads;
    bp.d = cfg.head_dim;
    bp.causal = cfg.causal;
    bp.scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(cfg.head_dim)));
    bp.pairs = (fault || (b.grads == GradFlow::with_kv && j == 0)) ? rk.bwd_pairs_forward[j] : rk.bwd_pairs[j];
    bp.cancel = &p.aborting;
    const std::int64_t a0 = steady_ns();
    // A step with no unmasked pair computes nothing; its zero partial dK/dV still travel (below),
    // and the timeline marks the step skipped.
    const bool idle = p.plan.ranks[r].backward.steps[j].unmasked == 0 && !fault;
    if (!idle) kref::attention_block_backward(bp);
    const std::int64_t a1 = steady_ns();
    p.log(rk.log, r, idle ? IntervalKind::other : IntervalKind::compute, "compute",
          idle ? "step_skipped" : "attention_bwd", j, 0, a0, idle ? a0 : a1);
    p.publish(rk, rk.bwd_computed, j + 1);

    // Fold the block's gradients into the sum that travels on (or lands home).
    auto scratch_dk = [&](int l) { return fused ? fused_dk(n, l) : block_dk(n, l); };
    if (b.kv.gathered) {
      if (c == 1)
        for (std::int64_t i = 0; i < n.block / 2; ++i) {
          rk.bwd.d_own[i] = rk.bwd.all_dk[i];
          rk.bwd.d_own[n.block / 2 + i] = rk.bwd.all_dv[i];
        }
    } else if (c == 1) {
      for (int l = 0; l < lanes; ++l) fold_lane(rk.bwd.d_own, block_dk(n, l), rk.bwd.scratch, scratch_dk(l), n, false);
    } else if (b.grads == GradFlow::with_kv) {
      // The partial of this step's block arrives with the message of step j, in the next fused
      // buffer; step 0 starts the sum there.
      if (j > 0) p.wait_until(rk, [&] { return all_at_least(rk.bwd_recv_done, j + 1); });
      auto& next = rk.bwd.step_buffer(j + 1);
      for (int l = 0; l < lanes; ++l) fold_lane(next, fused_dk(n, l), rk.bwd.scratch, scratch_dk(l), n, j > 0);
      if (j == c - 1)  // the own block's sum is complete
        for (int l = 0; l < lanes; ++l) fold_lane(rk.bwd.d_own, block_dk(n, l), next, fused_dk(n, l), n, false);
    } else {
      // follow: the partial of this step's block came through the trailing ring.
      if (j > 0) p.wait_until(rk, [&] { return all_at_least(rk.grad_recv_done, j); });
      auto& trail = rk.bwd.step_buffer(j);
      for (int l = 0; l < lanes; ++l) fold_lane(trail, block_dk(n, l), rk.bwd.scratch, scratch_dk(l), n, j > 0);
    }
    p.log(rk.log, r, IntervalKind::compute, "compute", "grad_add", j, 0, a1, steady_ns());
    p.publish(rk, rk.bwd_added, j + 1);
  }
}

template <typename T>
void backward_comm(const CpuPass<T>& p, int r, int thread) {
  CpuRank<T>& rk = p.ranks[r];
  const BackwardSchedule& b = *p.plan.backward;
  const BackwardBufferShape& n = p.bwd_shape;
  const int c = p.members();
  if (c == 1) return;
  // The ring's peers: the ranks of this rank's member in the groups before and after (the ranks
  // themselves without a head exchange).
  const int g = p.member(r);
  auto receiver = [&](int l) { return p.peer(r, b.kv.receiver(g, l, c)); };
  auto sender = [&](int l) { return p.peer(r, b.kv.sender(g, l, c)); };
  const int lanes = n.lanes;
  const std::int64_t piece = p.shape.piece;  // one lane's [K | V], and its [dK | dV]

  if (b.kv.gathered) {
    // Gather K/V again, as the forward did.
    const std::int64_t half = static_cast<std::int64_t>(rk.own.size() / 2);
    {
      nvtx::ScopedRange range(nvtx::kRangeTransfer, 0);
      auto k = p.transport.allgather(r, bytes_of(rk.own, 0, half), writable_bytes_of(rk.all_k, 0, rk.all_k.size()));
      auto v = p.transport.allgather(r, bytes_of(rk.own, half, half), writable_bytes_of(rk.all_v, 0, rk.all_v.size()));
      p.log(rk.comm_log[0], r, IntervalKind::comm, "comm", "kv_allgather", 0, k.bytes + v.bytes, k.begin_ns, v.end_ns);
      p.publish(rk, rk.bwd_recv_done[0], 1);
    }
    // Reduce-scatter: the own slices, then every peer's partial of the own block, added as it comes.
    p.wait_until(rk, [&] { return rk.bwd_added >= 1; });
    nvtx::ScopedRange range(nvtx::kRangeTransfer, -1);
    const std::int64_t at = r * half;
    std::copy(rk.bwd.all_dk.begin() + at, rk.bwd.all_dk.begin() + at + half, rk.bwd.d_own.begin());
    std::copy(rk.bwd.all_dv.begin() + at, rk.bwd.all_dv.begin() + at + half, rk.bwd.d_own.begin() + half);
    std::int64_t begin = 0, end = 0, bytes = 0;
    auto& tmp = rk.bwd.step[0];
    for (int i = 1; i < c; ++i) {
      const int dst = (r + i) % c, src = (r - i + c) % c;
      const auto sk = p.transport.exchange(r, kScatterTag + 2 * i, bytes_of(rk.bwd.all_dk, dst * half, half), dst,
                                           writable_bytes_of(tmp, 0, half), src);
      const auto sv = p.transport.exchange(r, kScatterTag + 2 * i + 1, bytes_of(rk.bwd.all_dv, dst * half, half), dst,
                                           writable_bytes_of(tmp, half, half), src);
      for (std::int64_t e = 0; e < 2 * half; ++e) rk.bwd.d_own[e] += tmp[e];
      if (i == 1) begin = sk.begin_ns;
      end = steady_ns();
      bytes += sk.bytes + sv.bytes;
    }
    p.log(rk.comm_log[0], r, IntervalKind::comm, "comm", "dkv_reduce_scatter", -1, bytes, begin, end);
    p.publish(rk, rk.bwd_home, true);
    return;
  }

  const KvSchedule& sch = b.kv;
  if (b.grads == GradFlow::with_kv) {
    // Message m of lane l: K/V for the receiver's step m + 1 and the partial of step m - 1.
    const int l = thread;
    const std::int64_t run = n.fused_lane_row(l) * n.row;  // the lane's [K | V | dK | dV] in a fused buffer
    for (int m = 0; m < c; ++m) {
      if (m > 0) p.wait_until(rk, [&] { return rk.bwd_added >= m; });
      nvtx::ScopedRange range(nvtx::kRangeTransfer, m + 1);
      std::span<const std::byte> send;
      std::span<std::byte> recv;
      auto& to = rk.bwd.step_buffer(m + 1);
      if (m == 0) {
        send = bytes_of(rk.step_buffer(c - 1), p.shape.piece_offset(l), piece);
        recv = writable_bytes_of(to, run, piece);
      } else if (m < c - 1) {
        send = bytes_of(rk.bwd.step_buffer(m), run, 2 * piece);
        recv = writable_bytes_of(to, run, 2 * piece);
      } else {
        send = bytes_of(rk.bwd.step_buffer(m), run + piece, piece);
        recv = writable_bytes_of(to, run + piece, piece);
      }
      const auto span = p.transport.exchange(r, kFusedTag + m * lanes + l, send, receiver(l), recv, sender(l));
      p.log(rk.comm_log[l], r, IntervalKind::comm, "comm", "kv_dkv_recv", std::min(m + 1, c - 1), span.bytes,
            span.begin_ns, span.end_ns);
      p.publish(rk, rk.bwd_recv_done[l], m + 1);
    }
    return;
  }

  // follow
  if (thread < lanes) {
    // K/V exactly as the forward moves them, the buffer rule the forward's (a transfer waits for
    // the step that read its buffer last).
    const int l = thread;
    const std::int64_t at = p.shape.piece_offset(l);
    for (int j = 0; sch.moves(j, c); ++j) {
      if (j >= 2) p.wait_until(rk, [&] { return rk.bwd_computed >= j; });
      nvtx::ScopedRange range(nvtx::kRangeTransfer, j + 1);
      const auto span = p.transport.exchange(r, kFusedTag + j * lanes + l, bytes_of(rk.step_buffer(j), at, piece),
                                             receiver(l), writable_bytes_of(rk.step_buffer(j + 1), at, piece),
                                             sender(l));
      p.log(rk.comm_log[l], r, IntervalKind::comm, "comm", "kv_recv", j + 1, span.bytes, span.begin_ns, span.end_ns);
      p.publish(rk, rk.bwd_recv_done[l], j + 1);
    }
    return;
  }
  // The trailing partials of lane l: after step m the sum of its block goes one hop on; after the
  // last step it reaches the block's owner, this rank's d_own.
  const int l = thread - lanes;
  const std::int64_t at = block_dk(n, l);
  for (int m = 0; m < c; ++m) {
    p.wait_until(rk, [&] { return rk.bwd_added >= m + 1; });
    nvtx::ScopedRange range(nvtx::kRangeTransfer, m + 1);
    const auto span = p.transport.exchange(r, kTrailTag + m * lanes + l, bytes_of(rk.bwd.step_buffer(m), at, piece),
                                           receiver(l), writable_bytes_of(rk.bwd.step_buffer(m + 1), at, piece),
                                           sender(l));
    p.log(rk.comm_log[thread], r, IntervalKind::comm, "comm", "dkv_recv", m + 1 < c ? m + 1 : -1, span.bytes,
          span.begin_ns, span.end_ns);
    p.publish(rk, rk.grad_recv_done[l], m + 1);
  }
  fold_lane(rk.bwd.d_own, at, rk.bwd.step_buffer(c), at, n, false);
}

template void reset_backward<float>(CpuRank<float>&, const BackwardSchedule&);
template void reset_backward<double>(CpuRank<double>&, const BackwardSchedule&);
template void backward_compute<float>(const CpuPass<float>&, int);
template void backward_compute<double>(const CpuPass<double>&, int);
template void backward_comm<float>(const CpuPass<float>&, int, int);
template void backward_comm<double>(const CpuPass<double>&, int, int);

}  // namespace rb::ring
