// NCCL between the processes of one ring (see cuda_transport_nccl.hpp): the communicator, each
// step's send/recv or the all-gather, and stopping a hung pass.
//
// NOT verified on a GPU (written and compiled without one; each item needs a run on >= 2 GPUs):
// - NCCL 2.28 capturing send/recv and all-gather issued on a non-blocking communicator, where
//   ncclGroupEnd answers ncclInProgress and a NCCL thread issues the launches into the capturing
//   stream (settle() waits for that before anything else joins the stream);
// - abort() with a captured graph: ncclCommRevoke (where the NCCL found at configure time has it)
//   stopping a hung pass without blocking, and close()'s ncclCommAbort completing once the
//   executor has destroyed the graph;
// - the events around NCCL's kernels, the timeline's host anchoring, and the output itself.
#include "ring/cuda/cuda_transport_nccl.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include "common/error.hpp"
#include "ring/cuda/cuda_transport.hpp"
#include "ring/cuda/nccl_check.hpp"
#include "ring/cuda/nccl_teardown.hpp"
#include "ring/transport/poll_backoff.hpp"

namespace rb::ring {
namespace {

class NcclTransport final : public CudaTransport {
 public:
  explicit NcclTransport(ProcessGroup& group) : group_(group), r_(group.rank()) {}

  // Where the executor could not close it (a throw during its construction): never a clean destroy,
  // as peers may be waiting on this rank.
  ~NcclTransport() override { close(/*abort=*/true); }

  // The communicator, on the current device (this rank's); rank 0's unique id reaches the others
  // through the group.
  void connect(const Plan& plan, std::span<CudaRank> /*ranks*/, std::span<const int> /*hosted*/) override {
    plan_ = &plan;
    c_ = plan.config.cp;
    ncclUniqueId id{};
    std::span<const std::byte> mine;
    if (r_ == 0) {
      RB_NCCL_CHECK(ncclGetUniqueId(&id));
      mine = std::as_bytes(std::span(&id, 1));
    }
    std::vector<std::int64_t> sizes;
    const auto all = group_.allgather(mine, sizes);
    if (sizes.empty() || sizes[0] != static_cast<std::int64_t>(sizeof id) || all.size() < sizeof id)
      throw Error("nccl transport: rank 0 sent no NCCL unique id");
    std::memcpy(&id, all.data(), sizeof id);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // so abort() can interrupt (see there)
    ncclResult_t res = ncclSuccess;
    {
      std::lock_guard lk(mu_);
      if (aborted_) throw Error("nccl transport: aborted");
      res = ncclCommInitRankConfig(&comm_, c_, id, r_, &config);
    }
    RB_NCCL_CHECK_AS(settle(res), "ncclCommInitRankConfig(&comm_, c_, id, r_, &config)");
  }

  // Every lane in one group: NCCL runs the sends and receives of both directions at once. The
  // pieces sent, from block(j), are the rank's own or were received by the transfer of step j-1,
  // earlier on this stream; NCCL itself orders each send against its peer's receive.
  void rotate(std::span<CudaRank> ranks, int r, int j, bool /*concurrent*/, const EnqueueContext& ctx) override {
    CudaRank& rk = ranks[r];
    const cudaStream_t s = rk.comm.get();
    const KvSchedule& sch = plan_->schedule;
    const auto n = static_cast<std::size_t>(rk.piece_elems());  // a lane's K and V, contiguous
    const auto before = ctx.frontier(s);
    group("ncclSend/ncclRecv of the K|V pieces", [&] {
      ncclResult_t first = ncclSuccess;
      for (int l = 0; l < static_cast<int>(sch.lanes.size()) && first == ncclSuccess; ++l) {
        const std::int64_t at = rk.piece_offset(l);
        const ncclResult_t a = ncclSend(rk.block(j) + at, n, ncclBfloat16, sch.receiver(r_, l, c_), comm_, s);
        const ncclResult_t b = ncclRecv(rk.block(j + 1) + at, n, ncclBfloat16, sch.sender(r_, l, c_), comm_, s);
        first = a != ncclSuccess ? a : b;
      }
      return first;
    });
    label(ctx, s, before, j + 1, "kv_recv");
  }

  // In place: sendbuff is this rank's slot of recvbuff (recvbuff + rank · count).
  void gather(std::span<CudaRank> ranks, int r, const EnqueueContext& ctx) override {
    CudaRank& rk = ranks[r];
    const cudaStream_t s = rk.comm.get();
    const std::int64_t half = plan_->ranks[r].tokens * rk.row_elems();  // (S/c, Hkv, D): one rank's K or V
    const auto n = static_cast<std::size_t>(half);
    const auto before = ctx.frontier(s);
    group("ncclAllGather of K and V", [&] {
      bf16 *k_all = rk.all_k.get(), *v_all = rk.all_v.get();
      const ncclResult_t k = ncclAllGather(k_all + half * r_, k_all, n, ncclBfloat16, comm_, s);
      const ncclResult_t v = ncclAllGather(v_all + half * r_, v_all, n, ncclBfloat16, comm_, s);
      return k != ncclSuccess ? k : v;
    });
    label(ctx, s, before, 0, "kv_allgather");
  }

  void will_capture() override {
    std::lock_guard lk(mu_);
    persistent_ = true;  // from here a graph may hold the communicator (see abort())
  }

  // The watchdog's path, from any thread. The host never blocks inside NCCL (the communicator is
  // non-blocking, and every wait polls), so what must be stopped is device work: NCCL kernels
  // spinning on a peer that will never answer. ncclCommAbort from another thread while a call is
  // in progress is safe only on a non-blocking communicator, which is why connect() sets
  // config.blocking = 0; mu_ keeps it from freeing the communicator under one of our calls.
  // But once a graph has captured NCCL work, ncclCommAbort waits until that graph is destroyed
  // (NCCL >= 2.26 counts the graphs holding a communicator), which only the owner's thread can
  // do, so calling it here would deadlock the watchdog: the graph case revokes instead (sets the
  // same device abort flags without freeing) and close() aborts after the executor destroyed the
  // graph. Where NCCL has no ncclCommRevoke (detected at configure time; NCCL 2.28.3 lacks it),
  // the graph case does nothing more here: the pass's wait sees the executor's abort and throws on
  // the owner's thread, whose teardown destroys the graph and then closes, which aborts the
  // communicator and raises the device abort flags. A hung NCCL kernel then keeps its SMs until
  // that teardown, not from this moment.
  void abort() noexcept override {
    aborted_ = true;
    std::lock_guard lk(mu_);
    if (comm_ == nullptr) return;
    if (!persistent_) {
      (void)ncclCommAbort(std::exchange(comm_, nullptr));
      return;
    }
#ifdef RINGBENCH_HAVE_NCCL_REVOKE
    if (!revoked_) {
      revoked_ = true;
      (void)ncclCommRevoke(comm_, NCCL_REVOKE_DEFAULT);
    }
#endif
  }

  // A peer that died or a broken link shows as the communicator's asynchronous error, so a pass
  // that can no longer finish fails instead of waiting for the watchdog.
  void check() override {
    auto lk = lock();
    ncclResult_t state = ncclSuccess;
    RB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state != ncclInProgress) RB_NCCL_CHECK_AS(state, "ncclCommGetAsyncError (a pass in flight)");
  }

  // A clean close finalizes, waits for the finalize to settle, then destroys (ring/cuda/nccl_teardown.hpp);
  // an abort raises NCCL's abort flag first, so kernels still waiting on a peer exit. A clean close
  // that fails aborts instead and says so on stderr: the measurements stand, but the node did
  // something a user should see.
  void close(bool abort) noexcept override {
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lk(mu_);
      comm = std::exchange(comm_, nullptr);
    }
    if (comm == nullptr) return;  // never made, closed, or abort() already aborted it
    if (abort) {
      (void)ncclCommAbort(comm);
      return;
    }
    struct Calls {
      ncclComm_t comm;
      ncclResult_t finalize() { return ncclCommFinalize(comm); }
      ncclResult_t async_error(ncclResult_t* state) { return ncclCommGetAsyncError(comm, state); }
      ncclResult_t destroy() { return ncclCommDestroy(comm); }
      ncclResult_t abort() { return ncclCommAbort(comm); }
      const char* error_string(ncclResult_t r) { return ncclGetErrorString(r); }
    } calls{comm};
    try {
      const NcclTeardown t = close_nccl_cleanly(calls, std::chrono::seconds(30));
      if (!t.clean) std::fprintf(stderr, "ringbench: nccl teardown of rank %d: %s\n", r_, t.failure.c_str());
    } catch (...) {  // formatting the message failed: nothing left to report it with
    }
  }

 private:
  // Every call on the communicator holds mu_, so abort() never frees it mid-call, and is refused
  // once aborted (the communicator may be gone).
  std::unique_lock<std::mutex> lock() {
    std::unique_lock lk(mu_);
    if (aborted_ || comm_ == nullptr) throw Error("nccl transport: aborted");
    return lk;
  }

  // A non-blocking communicator answers ncclInProgress while a NCCL thread finishes the call (an
  // init, a group's launch); the outcome then shows in ncclCommGetAsyncError. Polling, one lock
  // at a time, lets abort() in.
  ncclResult_t settle(ncclResult_t res) {
    for (int spin = 0; res == ncclInProgress; ++spin) {
      poll_backoff(spin);
      auto lk = lock();
      const ncclResult_t q = ncclCommGetAsyncError(comm_, &res);
      if (q != ncclSuccess) return q;
    }
    return res;
  }

  // One NCCL group on a comm stream. `ops` returns the first failure of its calls, so the group is
  // always closed (a thread left inside a group would swallow close()'s ncclCommAbort); the launch
  // is settled before anything else is enqueued behind it.
  template <typename Ops>
  void group(const char* what, Ops ops) {
    ncclResult_t issued = ncclSuccess, ended = ncclSuccess;
    {
      auto lk = lock();
      RB_NCCL_CHECK(ncclGroupStart());
      issued = ops();
      ended = ncclGroupEnd();
    }
    RB_NCCL_CHECK_AS(issued, what);
    RB_NCCL_CHECK_AS(settle(ended), "ncclGroupEnd()");
  }

  // Names every node the group added since `before` (capture only), for GraphNodeLabel: the CUPTI
  // pass leaves out what no label or stream claims, and a replayed graph's NCCL kernels are claimed
  // by their labels alone; NCCL may add nodes of its own around a launch.
  void label(const EnqueueContext& ctx, cudaStream_t s, const std::vector<void*>& before, int step,
             const char* name) const {
    ctx.label_since(s, before, r_, step, IntervalKind::comm, "comm", name);
  }

  ProcessGroup& group_;
  const Plan* plan_ = nullptr;  // the executor's
  int r_, c_ = 0;
  std::mutex mu_;
  ncclComm_t comm_ = nullptr;  // mu_
  bool persistent_ = false;    // mu_: a capture has begun
  bool revoked_ = false;       // mu_
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::unique_ptr<CudaExecutor> make_nccl_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group) {
  if (plan.config.link_gbps > 0)
    throw InputError("link_gbps", fmt::format("{}", plan.config.link_gbps),
                     "the nccl transport measures the real link; the link model is for the local transport");
  return make_cuda_executor(plan, opts, &group, std::make_unique<NcclTransport>(group));
}

}  // namespace rb::ring
