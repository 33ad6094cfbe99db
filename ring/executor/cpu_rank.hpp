// One rank of the CPU backend (ring/executor/executor_cpu.cpp): its buffers (the forward's set of
// ring/executor/rank_buffers.hpp and, with a backward, ring/executor/backward_buffers.hpp, sized as its
// step program declares them), its program (ring/program/program.hpp), which of the program's ops
// are done this pass (what its threads wait on), and what they recorded. The ops run in
// ring/executor/cpu_ops.cpp, which reads a CpuPass for what is shared.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "common/error.hpp"
#include "common/timeline.hpp"
#include "ring/executor/backward_buffers.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/program/program.hpp"
#include "ring/transport/kv_transport.hpp"

namespace rb::ring {

template <typename T>
struct CpuRank : RankBuffers<std::vector<T>, std::vector<T>> {
  BackwardBuffers<std::vector<T>> bwd;
  RankProgram program;
  std::int64_t forward_end_ns = 0;  // when this pass's last forward op ended (steady clock)
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> done;  // per op of the program: done this pass
  bool aborted = false;
  std::vector<Interval> log;                    // the compute thread's
  std::vector<std::vector<Interval>> comm_log;  // each comm thread's

  // The buffer a program names.
  std::vector<T>& buffer(Buf b) {
    switch (b) {
      case Buf::q: return this->q;
      case Buf::own: return this->own;
      case Buf::kv_step0: return this->buf[0];
      case Buf::kv_step1: return this->buf[1];
      case Buf::all_k: return this->all_k;
      case Buf::all_v: return this->all_v;
      case Buf::o_part: return this->o_part;
      case Buf::o_acc: return this->o_acc;
      case Buf::lse_part: return this->lse_part;
      case Buf::lse_acc: return this->lse_acc;
      case Buf::q_shard: return this->q_shard;
      case Buf::k_shard: return this->k_shard;
      case Buf::v_shard: return this->v_shard;
      case Buf::o_shard: return this->o_shard;
      case Buf::stage_send: return this->stage_send;
      case Buf::stage_recv: return this->stage_recv;
      case Buf::d_o: return bwd.d_o;
      case Buf::dq: return bwd.dq;
      case Buf::delta: return bwd.delta;
      case Buf::d_own: return bwd.d_own;
      case Buf::dkv_scratch: return bwd.scratch;
      case Buf::dkv_step0: return bwd.step[0];
      case Buf::dkv_step1: return bwd.step[1];
      case Buf::all_dk: return bwd.all_dk;
      case Buf::all_dv: return bwd.all_dv;
      case Buf::d_o_shard: return bwd.d_o_shard;
      case Buf::dq_shard: return bwd.dq_shard;
      case Buf::dk_shard: return bwd.dk_shard;
      case Buf::dv_shard: return bwd.dv_shard;
    }
    throw Error("cpu executor: a buffer the program does not know");
  }
  T* at(const Run& run) { return buffer(run.buf).data() + run.at; }
};

// What the threads of one pass share, besides their rank.
template <typename T>
struct CpuPass {
  const Plan& plan;
  KvTransport& transport;
  std::vector<CpuRank<T>>& ranks;
  const std::atomic<bool>& aborting;
  const RankBufferShape& shape;
  bool record = false;
  bool forward = true, backward = false;  // the parts this pass runs

  bool runs(Part part) const { return part == Part::forward ? forward : backward; }
};

template <typename V>
std::span<const std::byte> bytes_of(const V& v, std::int64_t at, std::int64_t n) {
  return std::as_bytes(std::span(v.data() + at, static_cast<std::size_t>(n)));
}
template <typename V>
std::span<std::byte> writable_bytes_of(V& v, std::int64_t at, std::int64_t n) {
  return std::as_writable_bytes(std::span(v.data() + at, static_cast<std::size_t>(n)));
}

}  // namespace rb::ring
