// The CPU backend's op functions and lane loop (see cpu_ops.hpp).
#include "ring/executor/cpu_ops.hpp"

#include <algorithm>
#include <cmath>

#include "common/nvtx.hpp"
#include "kernels/attention_block_bwd_ref.hpp"
#include "kernels/attention_block_ref.hpp"
#include "kernels/merge_partials_ref.hpp"
#include "ring/executor/cpu_head_exchange.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {
namespace {

namespace kref = kernels::ref;

// What one rank's kernels share: its attention rows, heads and the kernel's scale.
struct Shape {
  std::int64_t rows;
  int hq, hkv, d;
  bool causal;
};

template <typename T>
Shape shape_of(const CpuPass<T>& p, int r) {
  const Config& cfg = p.plan.config;
  return {p.plan.ranks[r].attention_tokens, p.plan.exchange.q_heads, p.plan.exchange.kv_heads, cfg.head_dim,
          cfg.causal};
}
template <typename T>
T scale_of(int d) {
  return static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
}

template <typename T>
TransferSpan attend(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  const Shape s = shape_of(p, r);
  nvtx::ScopedRange range(nvtx::kRangeStep, op.step);
  kref::AttentionBlockParams<T> ap;
  ap.q = rk.at(op.runs[0]);
  ap.k = rk.at(op.runs[1]);
  ap.v = rk.at(op.runs[2]);
  ap.o = rk.at(op.runs[3]);
  ap.lse = rk.at(op.runs[4]);
  ap.sq = s.rows;
  ap.sk = op.sk;
  ap.hq = s.hq;
  ap.hkv = s.hkv;
  ap.d = s.d;
  ap.causal = s.causal;
  ap.scale = scale_of<T>(s.d);
  ap.pairs = op.pairs;
  ap.cancel = &p.aborting;  // one rank's step can be the whole sequence: stop inside it
  const std::int64_t t0 = steady_ns();
  kref::attention_block(ap);
  return {t0, steady_ns(), 0};
}

template <typename T>
TransferSpan merge(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  const Shape s = shape_of(p, r);
  const std::int64_t t0 = steady_ns();
  kref::merge_partials(kref::MergeParams<T>{rk.at(op.runs[0]), rk.at(op.runs[1]), rk.at(op.runs[2]), rk.at(op.runs[3]),
                                            s.rows, s.hq, s.d});
  return {t0, steady_ns(), 0};
}

template <typename T>
TransferSpan delta(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  const Shape s = shape_of(p, r);
  const std::int64_t t0 = steady_ns();
  kref::attention_delta(rk.at(op.runs[0]), rk.at(op.runs[1]), rk.at(op.runs[2]), s.rows, s.hq, s.d);
  std::fill_n(rk.at(op.runs[3]), op.runs[3].len, T(0));
  return {t0, steady_ns(), 0};
}

template <typename T>
TransferSpan attend_bwd(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  const Shape s = shape_of(p, r);
  nvtx::ScopedRange range(nvtx::kRangeStep, op.step);
  for (std::size_t i = 9; i < op.runs.size(); ++i) std::fill_n(rk.at(op.runs[i]), op.runs[i].len, T(0));
  const std::int64_t a0 = steady_ns();
  if (op.skip) return {a0, a0, 0};
  kref::AttentionBlockBwdParams<T> bp;
  bp.q = rk.at(op.runs[0]);
  bp.k = rk.at(op.runs[1]);
  bp.v = rk.at(op.runs[2]);
  bp.d_o = rk.at(op.runs[3]);
  bp.lse = rk.at(op.runs[4]);
  bp.delta = rk.at(op.runs[5]);
  bp.dq = rk.at(op.runs[6]);
  bp.dk = rk.at(op.runs[7]);
  bp.dv = rk.at(op.runs[8]);
  bp.sq = s.rows;
  bp.sk = op.sk;
  bp.hq = s.hq;
  bp.hkv = s.hkv;
  bp.d = s.d;
  bp.causal = s.causal;
  bp.scale = scale_of<T>(s.d);
  bp.pairs = op.pairs;
  bp.cancel = &p.aborting;
  kref::attention_block_backward(bp);
  return {a0, steady_ns(), 0};
}

template <typename T>
TransferSpan fold(CpuRank<T>& rk, const Op& op) {
  const std::int64_t t0 = steady_ns();
  for (std::size_t i = 0; i + 1 < op.runs.size(); i += 2) {
    T* d = rk.at(op.runs[i]);
    const T* s = rk.at(op.runs[i + 1]);
    const std::int64_t n = op.runs[i].len;
    if (op.add >> (i / 2) & 1u)
      for (std::int64_t e = 0; e < n; ++e) d[e] += s[e];
    else
      std::copy(s, s + n, d);
  }
  return {t0, steady_ns(), 0};
}

template <typename T>
TransferSpan exchange(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  nvtx::ScopedRange range(nvtx::kRangeTransfer, op.step);
  const Run& s = op.runs[0];
  const Run& d = op.runs[1];
  return p.transport.exchange(r, op.tag, bytes_of(rk.buffer(s.buf), s.at, s.len), op.to,
                              writable_bytes_of(rk.buffer(d.buf), d.at, d.len), op.from);
}

template <typename T>
TransferSpan gather(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  nvtx::ScopedRange range(nvtx::kRangeTransfer, op.step);
  auto part = [&](const Run& s, const Run& d) {
    return p.transport.allgather(r, bytes_of(rk.buffer(s.buf), s.at, s.len),
                                 writable_bytes_of(rk.buffer(d.buf), d.at, d.len));
  };
  const TransferSpan k = part(op.runs[0], op.runs[1]);
  const TransferSpan v = part(op.runs[2], op.runs[3]);
  return {k.begin_ns, v.end_ns, k.bytes + v.bytes};
}

// The own slices, then every peer's partial of the own block, added as it comes.
template <typename T>
TransferSpan reduce_scatter(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  nvtx::ScopedRange range(nvtx::kRangeTransfer, op.step);
  auto& all_dk = rk.buffer(op.runs[0].buf);
  auto& all_dv = rk.buffer(op.runs[1].buf);
  T* own = rk.at(op.runs[2]);
  auto& tmp = rk.buffer(op.runs[3].buf);
  const std::int64_t half = op.runs[2].len / 2;
  std::copy_n(all_dk.data() + op.at, half, own);
  std::copy_n(all_dv.data() + op.at, half, own + half);
  TransferSpan out{steady_ns(), 0, 0};
  bool first = true;
  for (const Op::Round& round : op.rounds) {
    const auto sk = p.transport.exchange(r, round.tag, bytes_of(all_dk, round.at, half), round.to,
                                         writable_bytes_of(tmp, op.runs[3].at, half), round.from);
    const auto sv = p.transport.exchange(r, round.tag + 1, bytes_of(all_dv, round.at, half), round.to,
                                         writable_bytes_of(tmp, op.runs[3].at + half, half), round.from);
    const T* t = tmp.data() + op.runs[3].at;
    for (std::int64_t e = 0; e < 2 * half; ++e) own[e] += t[e];
    if (first) out.begin_ns = sk.begin_ns;
    first = false;
    out.bytes += sk.bytes + sv.bytes;
  }
  out.end_ns = steady_ns();
  return out;
}

template <typename T>
TransferSpan run_op(const CpuPass<T>& p, int r, CpuRank<T>& rk, const Op& op) {
  switch (op.kind) {
    case OpKind::exchange: return exchange(p, r, rk, op);
    case OpKind::gather: return gather(p, r, rk, op);
    case OpKind::reduce_scatter: return reduce_scatter(p, r, rk, op);
    case OpKind::all_to_all: return exchange_heads(p, r, op.move);
    case OpKind::attend: return attend(p, r, rk, op);
    case OpKind::merge: return merge(p, r, rk, op);
    case OpKind::delta: return delta(p, r, rk, op);
    case OpKind::attend_bwd: return attend_bwd(p, r, rk, op);
    case OpKind::fold: return fold(rk, op);
    case OpKind::mark: {
      const std::int64_t t = steady_ns();
      return {t, t, 0};
    }
    case OpKind::fail: throw Error("cpu executor: injected fault in rank 0");
    case OpKind::hang: {
      // Waits for a message that never comes, as a lost peer would; only abort() ends it.
      std::unique_lock lk(rk.mu);
      rk.cv.wait(lk, [&] { return rk.aborted; });
      throw Error("cpu executor: injected hang ended by abort");
    }
  }
  throw Error("cpu executor: an op kind it does not run");
}

}  // namespace

template <typename T>
void run_cpu_lane(const CpuPass<T>& p, int r, int lane) {
  CpuRank<T>& rk = p.ranks[r];
  const std::vector<Op>& ops = rk.program.ops;
  std::vector<Interval>& log = lane == 0 ? rk.log : rk.comm_log.at(static_cast<std::size_t>(lane - 1));
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.lane != lane || !p.runs(op.part)) continue;
    if (p.aborting) throw Error("cpu executor: aborted");
    if (!op.deps.empty()) {
      std::unique_lock lk(rk.mu);
      rk.cv.wait(lk, [&] {
        return rk.aborted || std::all_of(op.deps.begin(), op.deps.end(), [&](int d) {
                 return rk.done[static_cast<std::size_t>(d)] || !p.runs(ops[static_cast<std::size_t>(d)].part);
               });
      });
      if (rk.aborted) throw Error("cpu executor: aborted after another thread failed");
    }
    const TransferSpan span = run_op(p, r, rk, op);
    if (p.record && op.name)
      log.push_back(Interval{r, timeline_kind(op), lane == 0 ? "compute" : "comm", op.name, op.step, span.bytes,
                             span.begin_ns, span.end_ns, 0, op.part == Part::backward ? 1 : 0});
    std::lock_guard lk(rk.mu);
    rk.done[i] = 1;
    if (op.part == Part::forward) rk.forward_end_ns = std::max(rk.forward_end_ns, span.end_ns);
    rk.cv.notify_all();
  }
}

template void run_cpu_lane<float>(const CpuPass<float>&, int, int);
template void run_cpu_lane<double>(const CpuPass<double>&, int, int);

}  // namespace rb::ring
