// The CPU backend's all-to-alls of a head exchange (see cpu_head_exchange.hpp).
#include "ring/executor/cpu_head_exchange.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/nvtx.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {
namespace {

// Exchange tags of the all-to-alls, apart from the ring's (step · lanes + lane) and the backward's
// (ring/program/backward_design.hpp); one per move: a pair of ranks exchanges at most one message of each move per
// pass, one after the other, so rounds need no tags of their own.
constexpr int kExchangeTag = 26000;

// One tensor the exchange moves: its shard, (shard rows, shard_heads, D) with every head, and its
// attention layout, the group's rows with the rank's local_heads (K and V: in the own block's lane
// layout, so row R sits at own_block_key_row(R)).
template <typename T>
struct Moved {
  T* shard = nullptr;
  int shard_heads = 0;
  T* att = nullptr;
  int local_heads = 0;
  bool kv = false;   // heads begin at kv_head_begin (else q_head_begin); rows in the block layout
  bool sum = false;  // out: added into the (zeroed) shard, as replicated dK/dV are
};

template <typename T>
struct Move {
  std::array<Moved<T>, 3> parts{};
  int count = 0;
  bool in = true;  // shard → attention layout (else back)
  const char* name = "";
  std::int64_t bytes = 0;  // the plan's: what each rank sends and receives
};

template <typename T>
Move<T> move_of(const CpuPass<T>& p, CpuRank<T>& rk, HeadMove m) {
  const Config& cfg = p.plan.config;
  const HeadExchange& x = p.plan.exchange;
  const std::int64_t v_off = p.shape.v_offset;
  Move<T> out;
  auto q_like = [&](T* shard, T* att) { return Moved<T>{shard, cfg.heads, att, x.q_heads, false, false}; };
  auto kv_like = [&](T* shard, T* att, bool sum) { return Moved<T>{shard, cfg.kv_heads, att, x.kv_heads, true, sum}; };
  switch (m) {
    case HeadMove::forward_in:
      out.parts = {q_like(rk.q_shard.data(), rk.q.data()), kv_like(rk.k_shard.data(), rk.own.data(), false),
                   kv_like(rk.v_shard.data(), rk.own.data() + v_off, false)};
      out.count = 3;
      out.name = "qkv_alltoall";
      out.bytes = x.qkv_bytes;
      break;
    case HeadMove::forward_out:
      out.parts[0] = q_like(rk.o_shard.data(), rk.o_acc.data());
      out.count = 1;
      out.in = false;
      out.name = "o_alltoall";
      out.bytes = x.o_bytes;
      break;
    case HeadMove::backward_in:
      out.parts[0] = q_like(rk.bwd.d_o_shard.data(), rk.bwd.d_o.data());
      out.count = 1;
      out.name = "do_alltoall";
      out.bytes = x.do_bytes;
      break;
    case HeadMove::backward_out: {
      const bool sum = x.kv_replicas > 1;
      out.parts = {q_like(rk.bwd.dq_shard.data(), rk.bwd.dq.data()),
                   kv_like(rk.bwd.dk_shard.data(), rk.bwd.d_own.data(), sum),
                   kv_like(rk.bwd.dv_shard.data(), rk.bwd.d_own.data() + v_off, sum)};
      out.count = 3;
      out.in = false;
      out.name = "dqkv_alltoall";
      out.bytes = x.dqkv_bytes;
      break;
    }
  }
  return out;
}

}  // namespace

template <typename T>
TransferSpan exchange_heads(const CpuPass<T>& p, int r, HeadMove m) {
  CpuRank<T>& rk = p.ranks[r];
  const Plan& plan = p.plan;
  const HeadExchange& x = plan.exchange;
  const KvSchedule& sch = plan.schedule;
  const std::int64_t d = plan.config.head_dim;
  const std::int64_t n = plan.ranks[r].tokens;  // the shard's rows; member v's attention rows start at v·n
  const int g = x.group_of(r), u = x.member_of(r), U = x.degree;
  const Move<T> mv = move_of(p, rk, m);

  // Where attention row R of a part starts, and where member v's heads start in a shard row.
  auto att_row = [&](const Moved<T>& pt, std::int64_t row) {
    const std::int64_t at = pt.kv ? own_block_key_row(sch, row) : row;
    return pt.att + at * pt.local_heads * d;
  };
  auto shard_row = [&](const Moved<T>& pt, std::int64_t i, int v) {
    return pt.shard + (i * pt.shard_heads + (pt.kv ? x.kv_head_begin(v) : x.q_head_begin(v))) * d;
  };
  // Member `to`'s part of this rank's data, into `buf` (or, for this rank itself, into place).
  auto pack = [&](int to, T* buf) {
    for (int k = 0; k < mv.count; ++k) {
      const Moved<T>& pt = mv.parts[k];
      const std::int64_t w = pt.local_heads * d;
      for (std::int64_t i = 0; i < n; ++i, buf += w) {
        const T* src = mv.in ? shard_row(pt, i, to) : att_row(pt, to * n + i);
        std::copy(src, src + w, buf);
      }
    }
  };
  // Member `from`'s message (in `buf`), into this rank's layout.
  auto unpack = [&](int from, const T* buf) {
    for (int k = 0; k < mv.count; ++k) {
      const Moved<T>& pt = mv.parts[k];
      const std::int64_t w = pt.local_heads * d;
      for (std::int64_t i = 0; i < n; ++i, buf += w) {
        T* dst = mv.in ? att_row(pt, from * n + i) : shard_row(pt, i, from);
        if (pt.sum)
          for (std::int64_t e = 0; e < w; ++e) dst[e] += buf[e];
        else
          std::copy(buf, buf + w, dst);
      }
    }
  };
  std::int64_t message = 0;
  for (int k = 0; k < mv.count; ++k) message += n * mv.parts[k].local_heads * d;

  nvtx::ScopedRange range(nvtx::kRangeTransfer, -1);
  const std::int64_t begin = steady_ns();
  if (!mv.in)
    for (int k = 0; k < mv.count; ++k)
      if (mv.parts[k].sum) std::fill(mv.parts[k].shard, mv.parts[k].shard + n * mv.parts[k].shard_heads * d, T(0));
  // The rank's own heads of its own rows, then one round per peer.
  pack(u, rk.stage_send.data());
  unpack(u, rk.stage_send.data());
  std::int64_t bytes = 0;
  for (int i = 1; i < U; ++i) {
    if (p.aborting) throw Error("cpu executor: aborted");
    const int to = (u + i) % U, from = (u - i + U) % U;
    pack(to, rk.stage_send.data());
    const auto span = p.transport.exchange(r, kExchangeTag + static_cast<int>(m), bytes_of(rk.stage_send, 0, message),
                                           x.rank_of(g, to), writable_bytes_of(rk.stage_recv, 0, message),
                                           x.rank_of(g, from));
    unpack(from, rk.stage_recv.data());
    bytes += span.bytes;
  }
  if (bytes != mv.bytes)
    throw Error(fmt::format("cpu executor: rank {}'s {} moved {} bytes; the plan says {}", r, mv.name, bytes,
                            mv.bytes));
  return TransferSpan{begin, steady_ns(), bytes};
}

template TransferSpan exchange_heads<float>(const CpuPass<float>&, int, HeadMove);
template TransferSpan exchange_heads<double>(const CpuPass<double>&, int, HeadMove);

}  // namespace rb::ring
