// The CUDA backend on the nccl transport: this process hosts one ring rank on one GPU and moves K/V
// between processes with NCCL. What the rank does on its GPU is ring/cuda_rank.hpp's, as for the
// local transport's virtual ranks; this file is the transport around it: the communicator, the
// NCCL send/recv and all-gather of each step, aborting a hung pass, and a ProcessGroup that
// starts passes together, takes the slowest rank's time and shares timelines and output rows, as
// executor_cpu.cpp does over mpi.
//
// Traffic per pass and rank: the ring variant sends c-1 blocks of K and V, 2 * S/c * Hkv * D * 2
// bytes each (bf16), to the next rank; the allgather variant sends c-1 blocks too (NCCL's ring
// all-gather forwards every block once round the ring).
//
// NOT verified on a GPU (written and compiled without one; each item needs a run on >= 2 GPUs):
// - NCCL 2.28 capturing send/recv and all-gather issued on a non-blocking communicator, where
//   ncclGroupEnd answers ncclInProgress and a NCCL thread issues the launches into the capturing
//   stream (settle() waits for that before anything else joins the stream);
// - abort() with a captured graph: ncclCommRevoke (where the NCCL found at configure time has it)
//   stopping a hung pass without blocking, and teardown()'s ncclCommAbort completing once the
//   graph is destroyed;
// - the events around NCCL's kernels, the timeline's host anchoring, and the output itself.
#include "ring/executor_nccl.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "common/size_estimate.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/merge_partials.cuh"
#include "ring/backend_support.hpp"
#include "ring/cuda_executor_base.hpp"
#include "ring/cuda_handles.hpp"
#include "ring/cuda_rank.hpp"
#include "ring/interval_pack.hpp"
#include "ring/nccl_check.hpp"
#include "ring/sample_clock.hpp"
#include "ring/steady_clock.hpp"
#include "ring/step_launch.hpp"

namespace rb::ring {
namespace {

using kernels::DeviceBuffer;

// The launcher's idea of this process's index on its host, so ranks sharing a node take distinct
// GPUs (NCCL refuses two ranks of one communicator on one device).
int local_rank(int fallback) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    const char* end = v + std::strlen(v);
    int n = 0;
    const auto [p, ec] = std::from_chars(v, end, n);
    if (ec == std::errc() && p == end && n >= 0) return n;
  }
  return fallback;
}

// Yield first (a step is often microseconds away), then sleep: a long wait leaves the core to
// NCCL's proxy thread.
void backoff(int spin) {
  if (spin < 200)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(20));
}

class NcclExecutor final : public CudaExecutorBase {
 public:
  NcclExecutor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group)
      : CudaExecutorBase(plan, opts),
        group_(group),
        c_(plan.config.cp),
        r_(group.rank()),
        rows_(plan.ranks.at(0).tokens) {
    const Config& cfg = plan_.config;
    // What the kernel runs, by the rule the sweep checks (ring/backend_support.hpp), whatever
    // backend the caller's config names.
    Config as_cuda = cfg;
    as_cuda.backend = Backend::cuda;
    check_backend_supports(as_cuda);
    if (cfg.link_gbps > 0)
      throw InputError("link_gbps", fmt::format("{}", cfg.link_gbps),
                       "the nccl transport measures the real link; the link model is for the local transport");
    if (group_.size() != c_) throw Error(fmt::format("nccl executor: {} processes for {} ranks", group_.size(), c_));
    for (const auto& rp : plan_.ranks)
      if (rp.tokens != rows_) throw Error("nccl executor: ranks must hold equal token counts");
    int count = 0;
    RB_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (count < 1) throw Error("nccl executor: no CUDA device");
    opts_.device = local_rank(r_) % count;
    opts_.mode = CudaRankMode::concurrent;  // what runs: every rank at once, with the ring's true dependencies
    RB_CUDA_CHECK(cudaSetDevice(opts_.device));
    try {
      init_comm();
      setup();
      // The ring runs at its slowest GPU's pace, so the lowest reference clock of the job.
      nominal_mhz_ = static_cast<double>(group_.min(std::llround(nominal_clock_mhz(opts_.device) * 1e3))) / 1e3;
      (void)launch_and_wait();  // docs/design.md §7 step 1; it also makes NCCL's connections, needed before capture
      if (opts_.launch == CudaLaunch::graph) {
        capture();
        (void)launch_and_wait();  // one untimed replay after the upload
      }
    } catch (...) {
      teardown(/*abort_comm=*/true);  // peers may be waiting on this rank: never a clean destroy here
      throw;
    }
  }

  ~NcclExecutor() override { teardown(aborted_ || dirty_); }

  std::vector<StreamLabel> streams() const override {
    return {{rank_.compute.get(), r_, IntervalKind::compute, "compute"},
            {rank_.comm.get(), r_, IntervalKind::comm, "comm"}};
  }

  // The watchdog's path, from any thread. The host never blocks inside NCCL (the communicator is
  // non-blocking, and every wait here polls aborted_), so what must be stopped is device work: NCCL
  // kernels spinning on a peer that will never answer. ncclCommAbort from another thread while a
  // call is in progress is safe only on a non-blocking communicator, which is why init_comm sets
  // config.blocking = 0; nccl_mu_ keeps it from freeing the communicator under one of our calls.
  // But once a graph has captured NCCL work, ncclCommAbort waits until that graph is destroyed
  // (NCCL >= 2.26 counts the graphs holding a communicator), which only the owner's thread can
  // do, so calling it here would deadlock the watchdog: the graph case revokes instead (sets the
  // same device abort flags without freeing) and teardown() aborts after destroying the graph.
  // Where NCCL has no ncclCommRevoke (detected at configure time; NCCL 2.28.3 lacks it), the graph
  // case does nothing more here: the pass's wait() sees aborted_ and throws on the owner's thread,
  // whose teardown() destroys the graph and then aborts the communicator, which raises the device
  // abort flags. A hung NCCL kernel then keeps its SMs until that teardown, not from this moment.
  void abort() override {
    aborted_ = true;
    group_.abort();
    std::lock_guard lk(nccl_mu_);
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

  PassRecord run_pass(bool record) override {
    if (aborted_) throw Error("nccl executor: aborted");
    if (dirty_) throw Error("nccl executor: an earlier pass failed; the ring is out of step");
    RB_CUDA_CHECK(cudaSetDevice(opts_.device));
    const std::int64_t local = launch_and_wait();
    raw_ns_ = local;
    PassRecord rec;
    rec.wall_ns = group_.max(local);  // each rank on its own clock, so no offset error enters it
    // The slowest process's SM clock, in kHz (an unusable reading takes no part).
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
    const auto mine = kernels::clock_mhz(std::vector{clock_.read()});
    const std::int64_t khz = group_.min(mine ? std::llround(*mine * 1e3) : kNone);
    if (khz != kNone) rec.sm_clock_mhz = static_cast<double>(khz) / 1e3;
    if (record) rec.timeline = timeline(local);
    return rec;
  }

  std::vector<double> output_rows(std::span<const std::int64_t> positions) const override {
    if (aborted_) throw Error("nccl executor: aborted");
    const Config& cfg = plan_.config;
    const std::int64_t width = static_cast<std::int64_t>(cfg.heads) * cfg.head_dim;
    const auto where = locate_rows(plan_, positions);
    std::vector<double> out(positions.size() * width, 0.0);
    std::vector<float> host;
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const auto [r, row] = where[i];
      if (r != r_) continue;  // another process's row: its owner adds it
      if (host.empty()) {
        RB_CUDA_CHECK(cudaSetDevice(opts_.device));
        host.resize(rank_.o_acc.size());
        // Every pass waited for its end event, so the compute stream has nothing left to write.
        RB_CUDA_CHECK(cudaMemcpy(host.data(), rank_.o_acc.get(), rank_.o_acc.bytes(), cudaMemcpyDeviceToHost));
      }
      const float* src = host.data() + row * width;
      std::copy(src, src + width, out.begin() + static_cast<std::int64_t>(i) * width);
    }
    // Each row is non-zero on its owner only, so the sum is exact: every process gets the rows.
    group_.sum(out);
    return out;
  }

 private:
  std::int64_t kv_half() const { return rows_ * plan_.config.kv_heads * plan_.config.head_dim; }
  bool gathered() const { return plan_.schedule.gathered; }
  int steps() const { return static_cast<int>(plan_.ranks[r_].steps.size()); }
  // Whether step j's comm work moves anything; the block attended to, and forwarded, at step j.
  bool moves(int j) const { return plan_.schedule.moves(j, c_); }
  bf16* block(int j) const { return rank_.block(j); }
  EnqueueContext ctx() { return EnqueueContext{capturing_, &labels_}; }

  // --- the communicator ----------------------------------------------------------------------

  void init_comm() {
    ncclUniqueId id{};
    std::span<const std::byte> mine;
    if (r_ == 0) {
      RB_NCCL_CHECK(ncclGetUniqueId(&id));
      mine = std::as_bytes(std::span(&id, 1));
    }
    std::vector<std::int64_t> sizes;
    const auto all = group_.allgather(mine, sizes);
    if (sizes.empty() || sizes[0] != static_cast<std::int64_t>(sizeof id) || all.size() < sizeof id)
      throw Error("nccl executor: rank 0 sent no NCCL unique id");
    std::memcpy(&id, all.data(), sizeof id);
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;  // so abort() can interrupt (see there)
    ncclResult_t res = ncclSuccess;
    {
      std::lock_guard lk(nccl_mu_);
      if (aborted_) throw Error("nccl executor: aborted");
      res = ncclCommInitRankConfig(&comm_, c_, id, r_, &config);
    }
    RB_NCCL_CHECK_AS(settle(res), "ncclCommInitRankConfig(&comm_, c_, id, r_, &config)");
  }

  // Every call on the communicator holds nccl_mu_, so abort() never frees it mid-call, and is
  // refused once aborted (the communicator may be gone).
  std::unique_lock<std::mutex> comm_lock() {
    std::unique_lock lk(nccl_mu_);
    if (aborted_ || comm_ == nullptr) throw Error("nccl executor: aborted");
    return lk;
  }

  // A non-blocking communicator answers ncclInProgress while a NCCL thread finishes the call (an
  // init, a group's launch); the outcome then shows in ncclCommGetAsyncError. Polling, one lock
  // at a time, lets abort() in.
  ncclResult_t settle(ncclResult_t res) {
    for (int spin = 0; res == ncclInProgress; ++spin) {
      backoff(spin);
      auto lk = comm_lock();
      const ncclResult_t q = ncclCommGetAsyncError(comm_, &res);
      if (q != ncclSuccess) return q;
    }
    return res;
  }

  // One NCCL group on the comm stream. `ops` returns the first failure of its calls, so the group
  // is always closed (a thread left inside a group would swallow teardown's ncclCommAbort); the
  // launch is settled before anything else is enqueued behind it.
  template <typename Ops>
  void nccl_group(const char* what, Ops ops) {
    ncclResult_t issued = ncclSuccess, ended = ncclSuccess;
    {
      auto lk = comm_lock();
      RB_NCCL_CHECK(ncclGroupStart());
      issued = ops();
      ended = ncclGroupEnd();
    }
    RB_NCCL_CHECK_AS(issued, what);
    RB_NCCL_CHECK_AS(settle(ended), "ncclGroupEnd()");
  }

  // A peer that died or a broken link shows as the communicator's asynchronous error, so a pass
  // that can no longer finish fails instead of waiting for the watchdog.
  void check_async() {
    auto lk = comm_lock();
    ncclResult_t state = ncclSuccess;
    RB_NCCL_CHECK(ncclCommGetAsyncError(comm_, &state));
    if (state != ncclInProgress) RB_NCCL_CHECK_AS(state, "ncclCommGetAsyncError (a pass in flight)");
  }

  // Never throws. Graphs go first: NCCL's teardown waits until every graph that captured the
  // communicator is destroyed, and a graph still in flight is freed when it finishes.
  void teardown(bool abort_comm) noexcept {
    (void)cudaSetDevice(opts_.device);
    exec_.reset();
    graph_.reset();
    labels_.clear();
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lk(nccl_mu_);
      comm = std::exchange(comm_, nullptr);
    }
    if (comm == nullptr) return;  // never made, or abort() already aborted it
    if (abort_comm) {
      // Raises NCCL's abort flag before anything else, so kernels still waiting on a peer exit.
      (void)ncclCommAbort(comm);
      return;
    }
    (void)cudaStreamSynchronize(origin_.get());  // a clean pass left nothing in flight; cheap
    (void)ncclCommDestroy(comm);                 // local: no peer needs to take part
  }

  // --- buffers -------------------------------------------------------------------------------

  void setup() {
    origin_ = make_stream();
    pass_begin_ = make_event(true);
    pass_end_ = make_event(true);
    clock_ = SampleClock(opts_.device);
    fork_ = make_event(false);
    join_ = make_event(false);
    rank_.setup(plan_, r_, opts_.device);
    if (opts_.l2_flush) flush_ = L2Flush(opts_.device);
    // Fills done before the first pass reads or sends them.
    RB_CUDA_CHECK(cudaStreamSynchronize(rank_.compute.get()));
  }

  // --- enqueueing one pass -------------------------------------------------------------------

  void timing(const CudaEvent& e, cudaStream_t s) { ctx().timing(e, s); }
  // Names the node the last call on s added (capture only), for GraphNodeLabel. NCCL may end a
  // launch with a node of its own; then the label names that node and the tracer finds no kernel
  // under it, which loses a label but misnames nothing.
  void label(cudaStream_t s, int step, IntervalKind kind, const char* lane, const char* name) {
    ctx().label(s, r_, step, kind, lane, name);
  }

  void attend(int j) { rank_.attend(j, ctx()); }

  // The comm work issued during step j: the block for step j+1 (ring), or the whole gather.
  void transfer(int j) {
    const cudaStream_t s = rank_.comm.get();
    const std::int64_t half = kv_half();
    StepEvents& ev = rank_.ev[j];
    if (gathered()) {
      timing(ev.copy_begin, s);
      const auto n = static_cast<std::size_t>(half);
      // In place: sendbuff is this rank's slot of recvbuff (recvbuff + rank * count).
      nccl_group("ncclAllGather of K and V", [&] {
        bf16 *k_all = rank_.all_k.get(), *v_all = rank_.all_v.get();
        const ncclResult_t k = ncclAllGather(k_all + half * r_, k_all, n, ncclBfloat16, comm_, s);
        const ncclResult_t v = ncclAllGather(v_all + half * r_, v_all, n, ncclBfloat16, comm_, s);
        return k != ncclSuccess ? k : v;
      });
      label(s, 0, IntervalKind::comm, "comm", "kv_allgather");
      timing(ev.copy_end, s);
      RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
      return;
    }
    // The buffer for step j+1 was last read by step j-1 (steps >= 1 read the step buffers). The
    // pieces sent, from block(j), are own or were received by transfer(j-1) earlier on this stream.
    if (j >= 2) RB_CUDA_CHECK(cudaStreamWaitEvent(s, rank_.ev[j - 1].compute_done.get(), 0));
    timing(ev.copy_begin, s);
    const KvSchedule& sch = plan_.schedule;
    const auto n = static_cast<std::size_t>(rank_.piece_elems());  // a lane's K and V, contiguous
    // Every lane in one group: NCCL runs the sends and receives of both directions at once.
    nccl_group("ncclSend/ncclRecv of the K|V pieces", [&] {
      ncclResult_t first = ncclSuccess;
      for (int l = 0; l < static_cast<int>(sch.lanes.size()) && first == ncclSuccess; ++l) {
        const std::int64_t at = rank_.piece_offset(l);
        const ncclResult_t a = ncclSend(block(j) + at, n, ncclBfloat16, sch.receiver(r_, l, c_), comm_, s);
        const ncclResult_t b = ncclRecv(block(j + 1) + at, n, ncclBfloat16, sch.sender(r_, l, c_), comm_, s);
        first = a != ncclSuccess ? a : b;
      }
      return first;
    });
    label(s, j + 1, IntervalKind::comm, "comm", "kv_recv");
    timing(ev.copy_end, s);
    RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
  }

  // The pass, forked from and joined back into `origin`: recv_done of step j (recorded by
  // transfer(j)) is what step j+1 waits for; the gather is what step 0 waits for.
  void enqueue(cudaStream_t origin) {
    const cudaStream_t cs = rank_.compute.get(), ms = rank_.comm.get();
    RB_CUDA_CHECK(cudaEventRecord(fork_.get(), origin));
    RB_CUDA_CHECK(cudaStreamWaitEvent(cs, fork_.get(), 0));
    RB_CUDA_CHECK(cudaStreamWaitEvent(ms, fork_.get(), 0));
    for (int j = 0; j < steps(); ++j) {
      std::optional<nvtx::ScopedRange> step;  // eager only: under capture it would mark the capture
      if (!capturing_) step.emplace(nvtx::kRangeStep, j);
      if (moves(j)) transfer(j);
      if (gathered() ? (j == 0 && c_ > 1) : j > 0)
        RB_CUDA_CHECK(cudaStreamWaitEvent(cs, rank_.ev[gathered() ? 0 : j - 1].recv_done.get(), 0));
      attend(j);
    }
    RB_CUDA_CHECK(cudaEventRecord(join_.get(), ms));
    RB_CUDA_CHECK(cudaStreamWaitEvent(origin, join_.get(), 0));
    RB_CUDA_CHECK(cudaEventRecord(join_.get(), cs));
    RB_CUDA_CHECK(cudaStreamWaitEvent(origin, join_.get(), 0));
  }

  // docs/design.md §7 step 2. Thread-local capture: NCCL's own thread (non-blocking launches) may make
  // calls that global mode would forbid during our capture. Every rank captures the same NCCL
  // calls in the same order, as the plan is the same on every process.
  void capture() {
    const cudaStream_t o = origin_.get();
    {
      std::lock_guard lk(nccl_mu_);
      persistent_ = true;  // from here a graph may hold the communicator (see abort())
    }
    nvtx::ScopedRange range(nvtx::kRangeCapture, r_);
    auto [graph, exec] = capture_graph(o, capturing_, [&] { enqueue(o); });
    graph_ = std::move(graph);  // kept: labels_ point at its nodes
    exec_ = std::move(exec);
  }

  // cudaEventSynchronize, but abort() or a failed communicator ends the wait with an error.
  void wait(const CudaEvent& e) {
    for (int spin = 0;; ++spin) {
      const cudaError_t q = cudaEventQuery(e.get());
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) RB_CUDA_CHECK(q);
      if (aborted_) throw Error("nccl executor: aborted while a pass was running");
      if (spin % 256 == 255) check_async();
      backoff(spin);
    }
  }

  // One pass from the host: the ranks start together (a failed peer's notice ends the barrier),
  // events bracket the launch on the origin stream. Returns the pass's device time.
  std::int64_t launch_and_wait() {
    group_.barrier();
    nvtx::ScopedRange pass(nvtx::kRangeRankPass, r_);
    const cudaStream_t o = origin_.get();
    dirty_ = true;      // until the pass is seen to finish: teardown must abort, not destroy
    flush_.enqueue(o);  // a no-op without --l2-flush
    clock_.before(o);
    RB_CUDA_CHECK(cudaEventRecord(pass_begin_.get(), o));
    if (exec_.get() != nullptr)
      RB_CUDA_CHECK(cudaGraphLaunch(exec_.get(), o));
    else
      enqueue(o);
    RB_CUDA_CHECK(cudaEventRecord(pass_end_.get(), o));
    clock_.after(o);
    wait(pass_end_);
    host_end_ns_ = steady_ns();
    RB_CUDA_CHECK(cudaStreamSynchronize(o));  // the clock probe after the end event, microseconds behind it
    dirty_ = false;
    return ns_between(pass_begin_, pass_end_);
  }

  // --- reading the events back ---------------------------------------------------------------

  // This rank's intervals, relative to the pass's begin event.
  std::vector<Interval> intervals() const {
    std::vector<Interval> out;
    for (int j = 0; j < steps(); ++j) {
      const StepEvents& ev = rank_.ev[j];
      rank_.compute_intervals(j, pass_begin_, out);
      if (moves(j)) {
        const int step = gathered() ? 0 : j + 1;
        // In flight only: a NCCL kernel's execution is not visible to the timed passes (the CUPTI
        // pass records it), so the events around the call are all this timeline has.
        out.push_back(Interval{r_, IntervalKind::comm_in_flight, "comm in flight",
                               gathered() ? "kv_allgather" : "kv_recv", step, plan_.ranks[r_].steps[step].recv_bytes,
                               ns_between(pass_begin_, ev.copy_begin), ns_between(pass_begin_, ev.copy_end)});
      }
    }
    return out;
  }

  // The whole ring's timeline, on every process: this rank's events placed on its steady clock
  // (the end event completed at about host_end_ns_, polling adds microseconds, and the begin
  // event lies `local` before it), moved to rank 0's clock, gathered, and made relative to the
  // earliest rank's start.
  Timeline timeline(std::int64_t local) {
    const std::int64_t t0 = host_end_ns_ - local - group_.clock_offset_ns();
    std::vector<Interval> mine = intervals();
    for (auto& iv : mine) {
      iv.begin_ns += t0;
      iv.end_ns += t0;
    }
    const std::int64_t begin = group_.min(t0), end = group_.max(t0 + local);
    std::vector<std::int64_t> sizes;
    const auto all = group_.allgather(pack_intervals(mine), sizes);
    Timeline tl;
    unpack_intervals(all, tl.intervals);
    for (auto& iv : tl.intervals) {
      iv.begin_ns -= begin;
      iv.end_ns -= begin;
    }
    std::stable_sort(tl.intervals.begin(), tl.intervals.end(),
                     [](const Interval& a, const Interval& b) { return a.rank < b.rank; });
    tl.window_begin_ns = 0;
    tl.window_end_ns = end - begin;
    return tl;
  }

  ProcessGroup& group_;
  int c_, r_;
  std::int64_t rows_;
  CudaStream origin_;
  CudaRank rank_;      // what this process's rank does on its GPU
  L2Flush flush_;      // empty without --l2-flush
  SampleClock clock_;  // around each pass on origin_
  CudaEvent pass_begin_, pass_end_, fork_, join_;
  CudaGraph graph_;
  CudaGraphExec exec_;
  std::mutex nccl_mu_;
  ncclComm_t comm_ = nullptr;  // nccl_mu_
  bool persistent_ = false;    // nccl_mu_: a capture has begun
  bool revoked_ = false;       // nccl_mu_
  std::atomic<bool> aborted_{false};
  bool capturing_ = false;
  bool dirty_ = false;  // a pass began and was not seen to finish
  std::int64_t host_end_ns_ = 0;
};

}  // namespace

std::int64_t nccl_executor_bytes(const Plan& plan) { return saturated_bytes(cuda_rank_bytes(plan)); }

std::unique_ptr<CudaExecutor> make_nccl_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group) {
  return std::make_unique<NcclExecutor>(plan, opts, group);
}

}  // namespace rb::ring
