// One rank of the CPU backend (ring/executor/executor_cpu.cpp): its buffers (the forward's set of
// ring/executor/rank_buffers.hpp and, with a backward, ring/executor/backward_buffers.hpp), what each of its
// steps computes, the counters its compute and comm threads hand each other work by, and what they
// recorded. The forward's threads live in executor_cpu.cpp, the backward's in cpu_backward.cpp; both
// read a CpuPass for what is shared.
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
#include "kernels/block_pair.hpp"
#include "ring/executor/backward_buffers.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/plan/step_launch.hpp"
#include "ring/transport/kv_transport.hpp"

namespace rb::ring {

template <typename T>
struct CpuRank : RankBuffers<std::vector<T>, std::vector<T>> {
  BackwardBuffers<std::vector<T>> bwd;
  std::vector<StepLaunch> launches;                                // per forward step: its pairs and what it computes
  std::vector<std::vector<kernels::BlockPair>> bwd_pairs;          // per backward step, on its design's buffers
  std::vector<std::vector<kernels::BlockPair>> bwd_pairs_forward;  // the same on the forward's layout
  std::int64_t forward_end_ns = 0;  // when this pass's forward compute ended (steady clock)
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> recv_done;  // per comm thread: forward steps whose piece has arrived (step 0's is there)
  int compute_done = 0;        // forward steps computed and merged
  // The backward's: per K/V comm lane, messages arrived; per trailing lane (follow), partials
  // arrived; steps whose kernel ran; steps whose block gradients hold the peer's partial too.
  std::vector<int> bwd_recv_done, grad_recv_done;
  int bwd_computed = 0, bwd_added = 0;
  bool bwd_home = false;  // the own block's dK/dV are final in bwd.d_own
  // A head exchange's all-to-alls done this pass, forward (1: Q, K, V in; 2: O out too) and
  // backward (1: dO in; 2: dQ, dK, dV out too); and the backward threads that have finished theirs.
  int fwd_exchanged = 0, bwd_exchanged = 0, bwd_threads_done = 0;
  bool aborted = false;
  std::vector<Interval> log;                    // the compute thread's
  std::vector<std::vector<Interval>> comm_log;  // each comm thread's
};

// What the threads of one pass share, besides their rank.
template <typename T>
struct CpuPass {
  const Plan& plan;
  KvTransport& transport;
  std::vector<CpuRank<T>>& ranks;
  const std::atomic<bool>& aborting;
  const RankBufferShape& shape;
  const BackwardBufferShape& bwd_shape;
  InjectedFault fault = InjectedFault::none;
  bool record = false;
  int phase = 0;  // what log() tags intervals with: 0 forward, 1 backward

  int c() const { return plan.config.cp; }
  // The K/V schedule's members (the ranks, or the groups of a head exchange) and rank r's peer in
  // member m (the rank of r's own member there).
  int members() const { return plan.exchange.groups; }
  int peer(int r, int m) const { return plan.exchange.rank_of(m, plan.exchange.member_of(r)); }
  int member(int r) const { return plan.exchange.group_of(r); }

  void log(std::vector<Interval>& to, int r, IntervalKind kind, const char* lane, const char* name, int step,
           std::int64_t bytes, std::int64_t b, std::int64_t e) const {
    if (record) to.push_back(Interval{r, kind, lane, name, step, bytes, b, e, 0, phase});
  }
  // Waits under the rank's lock until `ready` holds (or the executor aborts).
  template <typename Ready>
  void wait_until(CpuRank<T>& rk, Ready ready) const {
    std::unique_lock lk(rk.mu);
    rk.cv.wait(lk, [&] { return rk.aborted || ready(); });
    if (rk.aborted) throw Error("cpu executor: aborted after another thread failed");
  }
  template <typename Value>
  void publish(CpuRank<T>& rk, Value& counter, Value value) const {
    std::lock_guard lk(rk.mu);
    counter = value;
    rk.cv.notify_all();
  }
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
