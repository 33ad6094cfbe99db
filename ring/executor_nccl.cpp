// The CUDA backend on the nccl transport: this process hosts one ring rank on one GPU and moves K/V
// between processes with NCCL. It keeps executor_cuda.cpp's per-rank layout (Q, own K|V, two
// receive buffers, gathered K/V, partial and accumulated O/LSE, a compute and a comm stream) and
// its step-major enqueue, with the device-to-device copies replaced by NCCL calls; a ProcessGroup
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
#include "common/size_estimate.hpp"
#include "common/nvtx.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/merge_partials.cuh"
#include "ring/cuda_handles.hpp"
#include "ring/interval_pack.hpp"
#include "ring/nccl_check.hpp"
#include "ring/sample_clock.hpp"
#include "ring/steady_clock.hpp"
#include "ring/step_launch.hpp"

namespace rb::ring {
namespace {

using bf16 = __nv_bfloat16;
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
  if (spin < 200) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(20));
}

// Timing events of one step. The transfer recorded at step j brings step j+1's block (ring).
struct StepEvents {
  CudaEvent attn_begin, attn_end, merge_end, copy_begin, copy_end;
  CudaEvent recv_done, compute_done;  // ordering only
};

class NcclExecutor final : public CudaExecutor {
 public:
  NcclExecutor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group)
      : plan_(plan), opts_(opts), group_(group), c_(plan.config.cp), r_(group.rank()), rows_(plan.ranks.at(0).tokens) {
    const Config& cfg = plan_.config;
    if (cfg.dtype != DType::bfloat16)
      throw InputError("dtype", std::string(to_string(cfg.dtype)), "the cuda backend runs bfloat16");
    if (cfg.head_dim != 64 && cfg.head_dim != 128)
      throw InputError("head_dim", std::to_string(cfg.head_dim), "the cuda backend runs D = 64 or 128");
    if (cfg.link_gbps > 0)
      throw InputError("link_gbps", fmt::format("{}", cfg.link_gbps),
                       "the nccl transport measures the real link; the link model is for the local transport");
    if (group_.size() != c_)
      throw Error(fmt::format("nccl executor: {} processes for {} ranks", group_.size(), c_));
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

  const Plan& plan() const override { return plan_; }
  const CudaOptions& options() const override { return opts_; }
  const std::vector<GraphNodeLabel>& graph_nodes() const override { return labels_; }
  std::int64_t last_raw_ns() const override { return raw_ns_; }
  std::optional<double> nominal_sm_clock_mhz() const override { return nominal_mhz_; }
  std::vector<StreamLabel> streams() const override {
    return {{compute_.get(), r_, IntervalKind::compute, "compute"}, {comm_stream_.get(), r_, IntervalKind::comm, "comm"}};
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
        host.resize(o_acc_.size());
        // Every pass waited for its end event, so the compute stream has nothing left to write.
        RB_CUDA_CHECK(cudaMemcpy(host.data(), o_acc_.get(), o_acc_.bytes(), cudaMemcpyDeviceToHost));
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
  std::int64_t row_elems() const { return static_cast<std::int64_t>(plan_.config.kv_heads) * plan_.config.head_dim; }
  // Elements of one step buffer, and of one lane's [K | V] piece in it.
  std::int64_t buffer_elems() const { return plan_.schedule.buffer_rows() * row_elems(); }
  std::int64_t piece_elems() const { return 2 * plan_.schedule.lane_rows * row_elems(); }
  int steps() const { return static_cast<int>(plan_.ranks[r_].steps.size()); }
  // Whether step j's comm work moves anything; the block attended to, and forwarded, at step j.
  bool moves(int j) const { return plan_.schedule.moves(j, c_); }
  bf16* block(int j) const { return j == 0 ? own_.get() : buf_[j % 2].get(); }

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
    const Config& cfg = plan_.config;
    const auto& segs = plan_.ranks[r_].segments;
    const std::int64_t qn = rows_ * cfg.heads * cfg.head_dim, half = kv_half();
    origin_ = make_stream();
    compute_ = make_stream();
    comm_stream_ = make_stream();
    name_stream(compute_.get(), fmt::format("rank {} compute", r_));
    name_stream(comm_stream_.get(), fmt::format("rank {} comm", r_));
    pass_begin_ = make_event(true);
    pass_end_ = make_event(true);
    clock_ = SampleClock(opts_.device);
    fork_ = make_event(false);
    join_ = make_event(false);
    const cudaStream_t s = compute_.get();
    q_ = DeviceBuffer<bf16>(static_cast<std::size_t>(qn));
    own_ = DeviceBuffer<bf16>(static_cast<std::size_t>(buffer_elems()));
    kernels::ref::FillParams fp{cfg.seed, kernels::ref::Tensor::q, cfg.heads, cfg.head_dim, DType::bfloat16};
    kernels::fill_inputs(q_.get(), segs, fp, s);
    fp.heads = cfg.kv_heads;
    for (const auto& piece : plan_.block_pieces(r_)) {
      fp.tensor = kernels::ref::Tensor::k;
      kernels::fill_inputs(own_.get() + piece.k_row * row_elems(), piece.segments, fp, s);
      fp.tensor = kernels::ref::Tensor::v;
      kernels::fill_inputs(own_.get() + piece.v_row * row_elems(), piece.segments, fp, s);
    }
    o_part_ = DeviceBuffer<float>(static_cast<std::size_t>(qn));
    o_acc_ = DeviceBuffer<float>(static_cast<std::size_t>(qn));
    lse_part_ = DeviceBuffer<float>(static_cast<std::size_t>(rows_ * cfg.heads));
    lse_acc_ = DeviceBuffer<float>(static_cast<std::size_t>(rows_ * cfg.heads));
    if (gathered()) {
      all_k_ = DeviceBuffer<bf16>(static_cast<std::size_t>(half * c_));
      all_v_ = DeviceBuffer<bf16>(static_cast<std::size_t>(half * c_));
      // Its own slot never changes, and the in-place all-gather sends from it: copied once here.
      RB_CUDA_CHECK(cudaMemcpyAsync(all_k_.get() + half * r_, own_.get(), own_.bytes() / 2,
                                    cudaMemcpyDeviceToDevice, s));
      RB_CUDA_CHECK(cudaMemcpyAsync(all_v_.get() + half * r_, own_.get() + half, own_.bytes() / 2,
                                    cudaMemcpyDeviceToDevice, s));
    } else {
      if (c_ > 1) buf_[1] = DeviceBuffer<bf16>(static_cast<std::size_t>(buffer_elems()));
      if (c_ > 2) buf_[0] = DeviceBuffer<bf16>(static_cast<std::size_t>(buffer_elems()));
    }
    launches_ = step_launches(plan_, r_);
    for (const auto& sl : launches_)
      work_.push_back(sl.action == StepAction::skip ? kernels::DeviceAttentionWork()
                                                    : kernels::DeviceAttentionWork(sl.pairs, sl.work, sl.sq, cfg.causal));
    for (int j = 0; j < steps(); ++j)
      ev_.push_back(StepEvents{make_event(true), make_event(true), make_event(true), make_event(true),
                               make_event(true), make_event(false), make_event(false)});
    if (opts_.l2_flush) {
      int l2 = 0;
      RB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, opts_.device));
      flush_ = DeviceBuffer<std::byte>(static_cast<std::size_t>(std::max(l2, 1 << 20)) * 2);
    }
    RB_CUDA_CHECK(cudaStreamSynchronize(s));  // fills done before the first pass reads or sends them
  }

  // --- enqueueing one pass -------------------------------------------------------------------

  void timing(const CudaEvent& e, cudaStream_t s) {
    record_timing(e.get(), s, capturing_);
  }
  // Names the node the last call on s added (capture only), for GraphNodeLabel. NCCL may end a
  // launch with a node of its own; then the label names that node and the tracer finds no kernel
  // under it, which loses a label but misnames nothing.
  void label(cudaStream_t s, int step, IntervalKind kind, const char* lane, const char* name) {
    if (!capturing_) return;
    if (void* node = last_captured_node(s)) labels_.push_back(GraphNodeLabel{node, r_, step, kind, lane, name});
  }

  void attend(int j) {
    const Config& cfg = plan_.config;
    const cudaStream_t s = compute_.get();
    const StepAction action = launches_[j].action;
    kernels::AttentionBlockParams ap;
    ap.q = q_.get();
    ap.k = gathered() ? all_k_.get() : block(j);
    ap.v = gathered() ? all_v_.get() : block(j) + plan_.schedule.lane_rows * row_elems();
    // Step 0 writes the accumulators directly: merging into (O = 0, L = -inf) would copy it anyway.
    ap.o = action == StepAction::write ? o_acc_.get() : o_part_.get();
    ap.lse = action == StepAction::write ? lse_acc_.get() : lse_part_.get();
    ap.sq = rows_;
    ap.sk = launches_[j].sk;
    ap.hq = cfg.heads;
    ap.hkv = cfg.kv_heads;
    ap.d = cfg.head_dim;
    ap.causal = cfg.causal;
    ap.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(cfg.head_dim)));
    work_[j].bind(ap);
    StepEvents& ev = ev_[j];
    // A skipped step keeps its events (waits and the step clock read them) and launches nothing.
    timing(ev.attn_begin, s);
    if (action != StepAction::skip) {
      kernels::attention_block(ap, s);
      label(s, j, IntervalKind::compute, "compute", "attention");
    }
    timing(ev.attn_end, s);
    if (action == StepAction::merge) {
      kernels::merge_partials(kernels::MergeParams{o_acc_.get(), lse_acc_.get(), o_part_.get(), lse_part_.get(),
                                                   rows_, cfg.heads, cfg.head_dim},
                              s);
      label(s, j, IntervalKind::compute, "compute", "merge");
    }
    timing(ev.merge_end, s);
    RB_CUDA_CHECK(cudaEventRecord(ev.compute_done.get(), s));
  }

  // The comm work issued during step j: the block for step j+1 (ring), or the whole gather.
  void transfer(int j) {
    const cudaStream_t s = comm_stream_.get();
    const std::int64_t half = kv_half();
    StepEvents& ev = ev_[j];
    if (gathered()) {
      timing(ev.copy_begin, s);
      const auto n = static_cast<std::size_t>(half);
      // In place: sendbuff is this rank's slot of recvbuff (recvbuff + rank * count).
      nccl_group("ncclAllGather of K and V", [&] {
        const ncclResult_t k = ncclAllGather(all_k_.get() + half * r_, all_k_.get(), n, ncclBfloat16, comm_, s);
        const ncclResult_t v = ncclAllGather(all_v_.get() + half * r_, all_v_.get(), n, ncclBfloat16, comm_, s);
        return k != ncclSuccess ? k : v;
      });
      label(s, 0, IntervalKind::comm, "comm", "kv_allgather");
      timing(ev.copy_end, s);
      RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
      return;
    }
    // The buffer for step j+1 was last read by step j-1 (steps >= 1 read the step buffers). The
    // pieces sent, from block(j), are own or were received by transfer(j-1) earlier on this stream.
    if (j >= 2) RB_CUDA_CHECK(cudaStreamWaitEvent(s, ev_[j - 1].compute_done.get(), 0));
    timing(ev.copy_begin, s);
    const KvSchedule& sch = plan_.schedule;
    const auto n = static_cast<std::size_t>(piece_elems());  // a lane's K and V, contiguous
    // Every lane in one group: NCCL runs the sends and receives of both directions at once.
    nccl_group("ncclSend/ncclRecv of the K|V pieces", [&] {
      ncclResult_t first = ncclSuccess;
      for (int l = 0; l < static_cast<int>(sch.lanes.size()) && first == ncclSuccess; ++l) {
        const std::int64_t at = sch.k_row(l) * row_elems();
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
    const cudaStream_t cs = compute_.get(), ms = comm_stream_.get();
    RB_CUDA_CHECK(cudaEventRecord(fork_.get(), origin));
    RB_CUDA_CHECK(cudaStreamWaitEvent(cs, fork_.get(), 0));
    RB_CUDA_CHECK(cudaStreamWaitEvent(ms, fork_.get(), 0));
    for (int j = 0; j < steps(); ++j) {
      std::optional<nvtx::ScopedRange> step;  // eager only: under capture it would mark the capture
      if (!capturing_) step.emplace(nvtx::kRangeStep, j);
      if (moves(j)) transfer(j);
      if (gathered() ? (j == 0 && c_ > 1) : j > 0)
        RB_CUDA_CHECK(cudaStreamWaitEvent(cs, ev_[gathered() ? 0 : j - 1].recv_done.get(), 0));
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
    dirty_ = true;  // until the pass is seen to finish: teardown must abort, not destroy
    if (opts_.l2_flush) RB_CUDA_CHECK(cudaMemsetAsync(flush_.get(), 0, flush_.bytes(), o));
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

  static std::int64_t ns_between(const CudaEvent& a, const CudaEvent& b) {
    float ms = 0;
    RB_CUDA_CHECK(cudaEventElapsedTime(&ms, a.get(), b.get()));
    return static_cast<std::int64_t>(std::llround(static_cast<double>(ms) * 1e6));
  }

  // This rank's intervals, relative to the pass's begin event.
  std::vector<Interval> intervals() const {
    std::vector<Interval> out;
    for (int j = 0; j < steps(); ++j) {
      const StepEvents& ev = ev_[j];
      const auto a0 = ns_between(pass_begin_, ev.attn_begin), a1 = ns_between(pass_begin_, ev.attn_end),
                 a2 = ns_between(pass_begin_, ev.merge_end);
      const StepAction action = launches_[j].action;
      if (action != StepAction::skip)
        out.push_back(Interval{r_, IntervalKind::compute, "compute", "attention", j, 0, a0, a1});
      if (action == StepAction::merge)
        out.push_back(Interval{r_, IntervalKind::compute, "compute", "merge", j, 0, a1, a2});
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

  Plan plan_;
  CudaOptions opts_;
  ProcessGroup& group_;
  int c_, r_;
  std::int64_t rows_;
  CudaStream origin_, compute_, comm_stream_;
  DeviceBuffer<bf16> q_, own_, buf_[2], all_k_, all_v_;  // own, buf: [K (rows, Hkv, D) | V (rows, Hkv, D)]
  DeviceBuffer<float> o_part_, o_acc_, lse_part_, lse_acc_;
  DeviceBuffer<std::byte> flush_;
  SampleClock clock_;       // around each pass on origin_
  double nominal_mhz_ = 0;  // the lowest cudaDevAttrClockRate over the job's devices
  std::vector<StepLaunch> launches_;                // per step: what it computes (step_launch.hpp)
  std::vector<kernels::DeviceAttentionWork> work_;  // per step; empty for a skipped one
  std::vector<StepEvents> ev_;                      // per step
  CudaEvent pass_begin_, pass_end_, fork_, join_;
  CudaGraph graph_;
  CudaGraphExec exec_;
  std::vector<GraphNodeLabel> labels_;
  std::mutex nccl_mu_;
  ncclComm_t comm_ = nullptr;  // nccl_mu_
  bool persistent_ = false;    // nccl_mu_: a capture has begun
  bool revoked_ = false;       // nccl_mu_
  std::atomic<bool> aborted_{false};
  bool capturing_ = false;
  bool dirty_ = false;  // a pass began and was not seen to finish
  std::int64_t raw_ns_ = 0, host_end_ns_ = 0;
};

}  // namespace

std::int64_t nccl_executor_bytes(const Plan& plan) {
  const Config& cfg = plan.config;
  const double c = cfg.cp, rows = plan.ranks.empty() ? 0.0 : static_cast<double>(plan.ranks[0].tokens);
  const double q = rows * cfg.heads * cfg.head_dim, kv = 2 * rows * cfg.kv_heads * cfg.head_dim;
  const double blocks = plan.schedule.gathered ? 1 + c : 3;  // own + buffers or gathered K|V
  return saturated_bytes(2 * (q + blocks * kv) + 4 * (2 * q + 2 * rows * cfg.heads));
}

std::unique_ptr<CudaExecutor> make_nccl_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup& group) {
  return std::make_unique<NcclExecutor>(plan, opts, group);
}

}  // namespace rb::ring
