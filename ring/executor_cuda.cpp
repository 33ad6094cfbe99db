// The CUDA backend with the local transport on one or several devices. Each virtual rank is a
// CudaRank (ring/cuda_rank.hpp: its Q, step buffers, partial and accumulated O/LSE, a compute and a
// comm stream); this file is the transport between them and the pass's schedule. Copies on one
// device are stamped copy kernels, so the timeline holds each transfer twice: executing (comm, from the copies'
// %globaltimer stamps) and in flight (comm_in_flight, from the events around it); copies between devices run on the
// copy engines and are seen in flight only. A pass is enqueued step-major by enqueue(): at step j the compute stream
// waits for the block's arrival event, runs attention (step 0 writes the accumulators directly, later steps write the
// partials and merge, a step that sees no key is skipped: ring/step_launch.hpp), and records its
// done event; the comm stream meanwhile copies the block for step j+1 into the other buffer, after
// the step that last read that buffer is done (as the CPU backend's comm thread waits). The same
// enqueue() runs eagerly or under stream capture; timing events become event-record nodes in the
// graph (cudaEventRecordExternal), so each replay leaves per-step times behind for the timeline.
#include "ring/executor_cuda.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <thread>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "common/size_estimate.hpp"
#include "kernels/attention_block.cuh"
#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/fill_inputs.cuh"
#include "kernels/link_pace.cuh"
#include "kernels/merge_partials.cuh"
#include "kernels/stamped_copy.cuh"
#include "ring/backend_support.hpp"
#include "ring/cuda_devices.hpp"
#include "ring/cuda_executor_base.hpp"
#include "ring/cuda_handles.hpp"
#include "ring/cuda_rank.hpp"
#include "ring/rank_placement.hpp"
#include "ring/sample_clock.hpp"
#include "ring/step_launch.hpp"

namespace rb::ring {

bool cuda_device_available() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

namespace {

using kernels::BlockPair;
using kernels::DeviceBuffer;

// A virtual rank: what it does on its GPU (ring/cuda_rank.hpp), the stamps of its copies, and how
// its pass is forked, timed and (isolated mode) replayed on its own.
struct Rank : CudaRank {
  DeviceBuffer<kernels::ExecStamp> stamps;      // per copy: [step][copy of that step's transfer]
  std::vector<kernels::ExecStamp> host_stamps;  // read back after a recorded pass
  CudaEvent begin, end, fork, join;
  CudaStream origin;   // isolated mode: this rank's passes fork from and join into it
  SampleClock clock;   // isolated mode: the SM clock around this rank's pass, on its device
  CudaGraphExec exec;  // isolated mode: this rank's pass
};

class CudaExecutorImpl final : public CudaExecutorBase {
 public:
  CudaExecutorImpl(const Plan& plan, const CudaOptions& opts)
      : CudaExecutorBase(plan, opts), c_(plan.config.cp), rows_(plan.ranks.at(0).tokens), ranks_(plan.config.cp) {
    const Config& cfg = plan_.config;
    // What the kernel runs, by the rule the sweep checks (ring/backend_support.hpp), whatever
    // backend the caller's config names.
    Config as_cuda = cfg;
    as_cuda.backend = Backend::cuda;
    check_backend_supports(as_cuda);
    for (const auto& rp : plan_.ranks)
      if (rp.tokens != rows_) throw Error("cuda executor: ranks must hold equal token counts");
    int visible = 0;
    RB_CUDA_CHECK(cudaGetDeviceCount(&visible));
    const auto placement = place_ranks(c_, opts_.devices, visible, opts_.device);
    devices_ = devices_used(placement);
    opts_.devices = static_cast<int>(devices_.size());  // what options() reports: the devices in use
    for (int r = 0; r < c_; ++r) ranks_[r].device = placement[r];
    enable_peer_access(devices_);
    on(opts_.device);
    origin_ = make_stream();
    pass_begin_ = make_event(true);
    pass_end_ = make_event(true);
    if (opts_.mode == CudaRankMode::concurrent) clock_ = SampleClock(opts_.device);
    nominal_mhz_ = nominal_clock_mhz(devices_.front());
    for (int d : devices_) nominal_mhz_ = std::min(nominal_mhz_, nominal_clock_mhz(d));
    for (int r = 0; r < c_; ++r) setup_rank(r);
    if (opts_.l2_flush) {
      flush_.resize(static_cast<std::size_t>(visible));
      for (int d : devices_) flush_[d] = L2Flush(d);
    }
    synchronize_devices();  // fills done before the first pass reads them

    run_eager();  // docs/design.md §7 step 1: one eager pass (the caller checks it via output_rows)
    if (opts_.launch == CudaLaunch::graph) {
      capture();
      replay();  // one untimed replay after the upload
    }
  }

  ~CudaExecutorImpl() override {  // nothing in flight when buffers go; never throws
    for (int d : devices_)
      if (cudaSetDevice(d) == cudaSuccess) cudaDeviceSynchronize();
  }

  std::vector<StreamLabel> streams() const override {
    std::vector<StreamLabel> out;
    for (int r = 0; r < c_; ++r) {
      out.push_back({ranks_[r].compute.get(), r, IntervalKind::compute, "compute"});
      out.push_back({ranks_[r].comm.get(), r, IntervalKind::comm, "comm"});
    }
    return out;
  }

  // The GPU work already queued finishes; the pass in progress throws at its next wait.
  void abort() override { aborted_ = true; }

  PassRecord run_pass(bool record) override {
    if (aborted_) throw Error("cuda executor: aborted");
    if (opts_.launch == CudaLaunch::graph)
      replay();
    else
      run_eager();
    return collect(record);
  }

  std::vector<double> output_rows(std::span<const std::int64_t> positions) const override {
    const Config& cfg = plan_.config;
    const std::int64_t width = static_cast<std::int64_t>(cfg.heads) * cfg.head_dim;
    const auto where = locate_rows(plan_, positions);
    synchronize_devices();
    std::vector<std::vector<float>> host(c_);
    std::vector<double> out(positions.size() * width);
    for (std::size_t i = 0; i < positions.size(); ++i) {
      const auto [r, row] = where[i];
      if (host[r].empty()) {
        host[r].resize(ranks_[r].o_acc.size());
        RB_CUDA_CHECK(cudaMemcpy(host[r].data(), ranks_[r].o_acc.get(), ranks_[r].o_acc.bytes(),
                                 cudaMemcpyDeviceToHost));
      }
      const float* src = host[r].data() + row * width;
      std::copy(src, src + width, out.begin() + static_cast<std::int64_t>(i) * width);
    }
    return out;
  }

 private:
  std::int64_t kv_half() const { return rows_ * plan_.config.kv_heads * plan_.config.head_dim; }
  bool gathered() const { return plan_.schedule.gathered; }
  int lanes() const { return static_cast<int>(plan_.schedule.lanes.size()); }
  EnqueueContext ctx() { return EnqueueContext{capturing_, &labels_}; }
  int steps() const { return static_cast<int>(plan_.ranks[0].steps.size()); }

  // Kernel launches and stream operations go to the current device, which must be the stream's.
  static void on(int device) { use_device(device); }
  void synchronize_devices() const { ring::synchronize_devices(devices_); }

  void setup_rank(int r) {
    Rank& rk = ranks_[r];
    // Events recorded on a stream must belong to its device: the fork is recorded on the origin
    // stream, the rank's own in concurrent mode and the shared one (origin device) otherwise.
    on(opts_.device);
    if (opts_.mode == CudaRankMode::concurrent) rk.fork = make_event(false);
    on(rk.device);
    if (opts_.mode == CudaRankMode::isolated) {
      rk.origin = make_stream();
      rk.fork = make_event(false);
      rk.clock = SampleClock(rk.device);
    }
    rk.setup(plan_, r, rk.device);
    rk.stamps = DeviceBuffer<kernels::ExecStamp>(static_cast<std::size_t>(steps() * copies_per_transfer()));
    rk.host_stamps.resize(rk.stamps.size());
    rk.begin = make_event(true);
    rk.end = make_event(true);
    rk.join = make_event(false);
  }

  // --- enqueueing one pass -------------------------------------------------------------------

  void timing(const CudaEvent& e, cudaStream_t s) { ctx().timing(e, s); }
  void label(cudaStream_t s, int r, int step, IntervalKind kind, const char* lane, const char* name) {
    ctx().label(s, r, step, kind, lane, name);
  }

  // Copies per transfer, and so stamps per step: one [K | V] piece per lane (rotating), or K and V
  // from every other rank (gathered, at step 0).
  int copies_per_transfer() const { return gathered() ? std::max(2 * (c_ - 1), 1) : lanes(); }

  // A copy into rank r's buffer from a buffer on `src_device`, stamped into slot `slot`: a stamped
  // copy kernel on one GPU, a peer copy on the copy engines between two (only a zero-byte stamped
  // copy marks its start then, for the link model to pace from; its stamp is not read).
  void copy(void* dst, const void* src, int src_device, std::int64_t bytes, Rank& rk, int r, int step, int slot,
            const char* name) {
    const cudaStream_t s = rk.comm.get();
    const std::int64_t pace = kernels::link_ns(bytes, plan_.config.link_gbps);
    kernels::ExecStamp* stamp = rk.stamps.get() + slot;
    if (src_device == rk.device) {
      kernels::stamped_copy(kernels::StampedCopyParams{dst, src, bytes, stamp}, s);
    } else {
      if (pace > 0) kernels::stamped_copy(kernels::StampedCopyParams{nullptr, nullptr, 0, stamp}, s);
      RB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, rk.device, src, src_device, static_cast<std::size_t>(bytes), s));
    }
    label(s, r, step, IntervalKind::comm, "comm", name);
    if (pace > 0) {
      kernels::link_pace(stamp, pace, s);
      label(s, r, step, IntervalKind::comm, "comm", "link_pace");
    }
  }
  // Whether every copy of rank r's transfers is a stamped copy (all from r's own device).
  bool stamped(int r, int j) const {
    const Rank& rk = ranks_[r];
    if (gathered()) {
      for (int src = 0; src < c_; ++src)
        if (src != r && ranks_[src].device != rk.device) return false;
      return true;
    }
    const KvSchedule& sch = plan_.schedule;
    for (int l = 0; l < lanes(); ++l) {
      const int from = opts_.mode == CudaRankMode::concurrent ? sch.sender(r, l, c_) : sch.origin(r, l, j + 1, c_);
      if (ranks_[from].device != rk.device) return false;
    }
    return true;
  }

  void attend(int r, int j) {
    on(ranks_[r].device);
    ranks_[r].attend(j, ctx());
  }

  // Rank r's comm work issued during step j: the block for step j+1 (ring), or the whole gather.
  void transfer(int r, int j, bool concurrent) {
    Rank& rk = ranks_[r];
    on(rk.device);
    const cudaStream_t s = rk.comm.get();
    const std::int64_t half = kv_half();
    StepEvents& ev = rk.ev[j];
    if (gathered()) {
      timing(ev.copy_begin, s);
      int slot = j * copies_per_transfer();
      for (int src = 0; src < c_; ++src) {
        if (src == r) continue;
        const bf16* own = ranks_[src].own.get();
        const int from = ranks_[src].device;
        copy(rk.all_k.get() + half * src, own, from, half * 2, rk, r, j, slot++, "kv_allgather");
        copy(rk.all_v.get() + half * src, own + half, from, half * 2, rk, r, j, slot++, "kv_allgather");
      }
      timing(ev.copy_end, s);
      RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
      return;
    }
    // The buffer for step j+1 was last read by step j-1 (steps >= 1 read the step buffers).
    if (j >= 2) RB_CUDA_CHECK(cudaStreamWaitEvent(s, rk.ev[j - 1].compute_done.get(), 0));
    const KvSchedule& sch = plan_.schedule;
    const std::int64_t piece_bytes = rk.piece_elems() * static_cast<std::int64_t>(sizeof(bf16));
    if (concurrent)
      for (int l = 0; l < lanes(); ++l) {
        // A true ring per lane: forward what the lane's sender holds at step j, once it has arrived
        // there, and only after the lane's receiver has finished reading our buffer that this copy
        // overwrites.
        const Rank& from = ranks_[sch.sender(r, l, c_)];
        if (j >= 1) RB_CUDA_CHECK(cudaStreamWaitEvent(s, from.ev[j - 1].recv_done.get(), 0));
        if (j >= 2) RB_CUDA_CHECK(cudaStreamWaitEvent(s, ranks_[sch.receiver(r, l, c_)].ev[j - 1].recv_done.get(), 0));
      }
    timing(ev.copy_begin, s);
    for (int l = 0; l < lanes(); ++l) {
      const std::int64_t at = rk.piece_offset(l);
      // Concurrent: from the sender's step buffer. Alone on the GPU: the same bytes straight from
      // the piece's origin rank, whose own block never changes.
      const Rank& from = concurrent ? ranks_[sch.sender(r, l, c_)] : ranks_[sch.origin(r, l, j + 1, c_)];
      const bf16* src = (concurrent ? from.block(j) : from.own.get()) + at;
      copy(rk.block(j + 1) + at, src, from.device, piece_bytes, rk, r, j + 1, j * copies_per_transfer() + l, "kv_recv");
    }
    timing(ev.copy_end, s);
    RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
  }

  // Enqueues the pass of `which` ranks (all, or one in isolated mode), forked from and joined back
  // into `origin`. recv_done of step j (recorded by transfer(j)) is what step j+1 waits for.
  void enqueue(std::span<const int> which, cudaStream_t origin, bool concurrent) {
    for (int r : which) {
      Rank& rk = ranks_[r];
      on(origin_device(rk));
      RB_CUDA_CHECK(cudaEventRecord(rk.fork.get(), origin));
      on(rk.device);
      RB_CUDA_CHECK(cudaStreamWaitEvent(rk.compute.get(), rk.fork.get(), 0));
      RB_CUDA_CHECK(cudaStreamWaitEvent(rk.comm.get(), rk.fork.get(), 0));
      timing(rk.begin, rk.compute.get());
    }
    const int n = steps();
    for (int j = 0; j < n; ++j) {
      // An eager step's launches sit inside its range, so Nsight projects it onto their kernels;
      // under capture a range would mark the capture, not the replays, and is left out.
      std::optional<nvtx::ScopedRange> step;
      if (!capturing_) step.emplace(nvtx::kRangeStep, j);
      for (int r : which) {
        if (plan_.schedule.moves(j, c_)) transfer(r, j, concurrent);
        Rank& rk = ranks_[r];
        if (gathered() ? (j == 0 && c_ > 1) : j > 0) {
          const int arrived = gathered() ? 0 : j - 1;
          RB_CUDA_CHECK(cudaStreamWaitEvent(rk.compute.get(), rk.ev[arrived].recv_done.get(), 0));
        }
        attend(r, j);
      }
    }
    for (int r : which) {
      Rank& rk = ranks_[r];
      on(rk.device);
      timing(rk.end, rk.compute.get());
      // The origin waits on the rank's device's event (cross-device waits are allowed); the record
      // itself is issued with the rank's device current, the wait with the origin's.
      for (const CudaStream* st : {&rk.comm, &rk.compute}) {
        on(rk.device);
        RB_CUDA_CHECK(cudaEventRecord(rk.join.get(), st->get()));
        on(origin_device(rk));
        RB_CUDA_CHECK(cudaStreamWaitEvent(origin, rk.join.get(), 0));
      }
    }
  }

  // cudaStreamSynchronize, but abort() from another thread ends the wait with an Error.
  void wait(cudaStream_t s) {
    while (true) {
      const cudaError_t e = cudaStreamQuery(s);
      if (e == cudaSuccess) return;
      if (e != cudaErrorNotReady) RB_CUDA_CHECK(e);
      if (aborted_) throw Error("cuda executor: aborted while a pass was running");
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }

  // Ordered before the pass on `s`, a stream of `device`.
  void flush_l2(cudaStream_t s, int device) {
    if (opts_.l2_flush) flush_[device].enqueue(s);
  }
  // Every stamp back to "never ran" (exec_stamp.hpp) before a pass, from the host and finished
  // before the launch, so the pass itself holds no extra node and the stamps hold its copies only.
  void reset_stamps() {
    for (auto& rk : ranks_) {
      on(rk.device);
      RB_CUDA_CHECK(cudaMemset(rk.stamps.get(), 0, rk.stamps.bytes()));
    }
    synchronize_devices();  // a device-memory cudaMemset may return before it has run
  }
  // Every device's L2, finished before the host launches the pass (the concurrent pass's streams
  // span devices, so no single stream orders them).
  void flush_l2_all() {
    if (!opts_.l2_flush) return;
    for (int d : devices_) flush_[d].now();
  }
  // The device of the stream rank r's pass forks from.
  int origin_device(const Rank& rk) const { return opts_.mode == CudaRankMode::concurrent ? opts_.device : rk.device; }

  std::vector<int> all_ranks() const {
    std::vector<int> v(c_);
    for (int r = 0; r < c_; ++r) v[r] = r;
    return v;
  }

  // One pass, eager or replayed. Concurrent mode: every rank at once from the origin stream.
  // Isolated mode: each rank's pass forks from its own origin stream, on its own device, and runs
  // alone (the next starts when it has finished). The clock probes bracket each launch, outside
  // the timing events.
  void launch_pass(bool graph) {
    reset_stamps();
    if (opts_.mode == CudaRankMode::concurrent) {
      const cudaStream_t o = origin_.get();
      flush_l2_all();
      on(opts_.device);
      clock_.before(o);
      if (graph) {
        RB_CUDA_CHECK(cudaGraphLaunch(concurrent_exec_.get(), o));
      } else {
        timing(pass_begin_, o);
        enqueue(all_ranks(), o, true);
        on(opts_.device);
        timing(pass_end_, o);
      }
      clock_.after(o);
      wait(o);
      return;
    }
    for (int r = 0; r < c_; ++r) {
      nvtx::ScopedRange pass(nvtx::kRangeRankPass, r);
      Rank& rk = ranks_[r];
      const cudaStream_t o = rk.origin.get();
      flush_l2(o, rk.device);
      on(rk.device);
      rk.clock.before(o);
      if (graph) {
        RB_CUDA_CHECK(cudaGraphLaunch(rk.exec.get(), o));
      } else {
        const int one[1] = {r};
        enqueue(one, o, false);
        on(rk.device);
      }
      rk.clock.after(o);
      wait(o);
    }
  }
  void run_eager() { launch_pass(false); }
  void replay() { launch_pass(true); }

  // docs/design.md §7 step 2: capture on the origin stream (thread-local mode, so another thread's CUDA
  // calls cannot invalidate it), instantiate, upload.
  // With several devices the concurrent graph spans all of them (the fork and join events carry
  // the dependencies across); each isolated graph stays on its rank's device but for the peer
  // reads of its copies.
  void capture() {
    auto one_graph = [&](std::span<const int> which, cudaStream_t o, int device, bool concurrent) {
      nvtx::ScopedRange range(nvtx::kRangeCapture, concurrent ? -1 : which.front());
      on(device);
      auto [graph, exec] = capture_graph(o, capturing_, [&] {
        if (concurrent) timing(pass_begin_, o);
        enqueue(which, o, concurrent);
        on(device);
        if (concurrent) timing(pass_end_, o);
      });
      graphs_.push_back(std::move(graph));  // kept: labels_ point at its nodes
      RB_CUDA_CHECK(cudaStreamSynchronize(o));
      return std::move(exec);
    };
    if (opts_.mode == CudaRankMode::concurrent) {
      const auto all = all_ranks();
      concurrent_exec_ = one_graph(all, origin_.get(), opts_.device, true);
    } else {
      for (int r = 0; r < c_; ++r) {
        const int one[1] = {r};
        ranks_[r].exec = one_graph(one, ranks_[r].origin.get(), ranks_[r].device, false);
      }
    }
  }

  // --- reading the events back ----------------------------------------------------------------

  // Intervals of rank r relative to `ref`, each tagged with the step during which it ran (its
  // epoch) so isolated mode can place it on the composed ring's clock.
  struct Tagged {
    Interval iv;
    int epoch;
  };
  std::vector<Tagged> rank_intervals(int r, const CudaEvent& ref) const {
    const Rank& rk = ranks_[r];
    std::vector<Tagged> out;
    for (int j = 0; j < steps(); ++j) {
      const StepEvents& ev = rk.ev[j];
      std::vector<Interval> compute;
      rk.compute_intervals(j, ref, compute);
      for (auto& iv : compute) out.push_back({std::move(iv), j});
      const bool moved = plan_.schedule.moves(j, c_);
      if (!moved) continue;
      const int step = gathered() ? 0 : j + 1;
      const char* name = gathered() ? "kv_allgather" : "kv_recv";
      const std::int64_t bytes = plan_.ranks[r].steps[step].recv_bytes;
      const std::int64_t b = ns_between(ref, ev.copy_begin), e = ns_between(ref, ev.copy_end);
      out.push_back({Interval{r, IntervalKind::comm_in_flight, "comm in flight", name, step, bytes, b, e}, j});
      if (!stamped(r, j)) continue;
      const auto n = static_cast<std::size_t>(copies_per_transfer());
      const auto stamps = std::span(rk.host_stamps).subspan(static_cast<std::size_t>(j) * n, n);
      const auto windows = kernels::place_exec_windows(stamps, b, e);
      if (!windows) throw Error(fmt::format("cuda executor: rank {} step {}: a copy left no stamp", r, j));
      const std::int64_t per_copy = bytes / static_cast<std::int64_t>(n);
      for (const auto& w : *windows)
        out.push_back({Interval{r, IntervalKind::comm, "comm", name, step, per_copy, w.begin_ns, w.end_ns}, j});
    }
    return out;
  }

  // Concurrent mode reads the origin device's clock only: the other devices' work is not bracketed
  // by a stream of theirs that the probes could share.
  std::optional<double> sample_clock() const {
    if (opts_.mode == CudaRankMode::concurrent) return kernels::clock_mhz(std::vector{clock_.read()});
    std::vector<kernels::ClockSpan> spans;
    std::vector<int> device_of;
    for (const Rank& rk : ranks_) {
      spans.push_back(rk.clock.read());
      device_of.push_back(rk.device);
    }
    return kernels::slowest_clock_mhz(spans, device_of);
  }

  PassRecord collect(bool record) {
    if (record)
      for (auto& rk : ranks_) {
        on(rk.device);
        RB_CUDA_CHECK(cudaMemcpy(rk.host_stamps.data(), rk.stamps.get(), rk.stamps.bytes(), cudaMemcpyDeviceToHost));
      }
    PassRecord rec;
    rec.sm_clock_mhz = sample_clock();
    if (opts_.mode == CudaRankMode::concurrent) {
      rec.wall_ns = ns_between(pass_begin_, pass_end_);
      raw_ns_ = rec.wall_ns;
      // Events of two devices cannot be compared: a rank on another device is placed from its own
      // begin, recorded as the fork reaches it (the fork's cross-device latency is not shown).
      if (record)
        for (int r = 0; r < c_; ++r)
          for (auto& t : rank_intervals(r, ranks_[r].device == opts_.device ? pass_begin_ : ranks_[r].begin))
            rec.timeline.intervals.push_back(std::move(t.iv));
    } else {
      // Step j of rank r lasts from the end of its step j-1 (or its start) to the end of step j;
      // the ring's step j lasts the longest of these, and the pass their sum.
      const int n = steps();
      std::vector<std::vector<std::int64_t>> ends(c_, std::vector<std::int64_t>(n));
      std::vector<std::int64_t> step_max(n, 0);
      raw_ns_ = 0;
      for (int r = 0; r < c_; ++r) {
        for (int j = 0; j < n; ++j) {
          ends[r][j] = ns_between(ranks_[r].begin, ranks_[r].ev[j].merge_end);
          step_max[j] = std::max(step_max[j], ends[r][j] - (j ? ends[r][j - 1] : 0));
        }
        raw_ns_ += ns_between(ranks_[r].begin, ranks_[r].end);
      }
      std::vector<std::int64_t> start(n + 1, 0);
      for (int j = 0; j < n; ++j) start[j + 1] = start[j] + step_max[j];
      rec.wall_ns = start[n];
      if (record)
        for (int r = 0; r < c_; ++r)
          for (auto& t : rank_intervals(r, ranks_[r].begin)) {
            const std::int64_t shift = start[t.epoch] - (t.epoch ? ends[r][t.epoch - 1] : 0);
            t.iv.begin_ns += shift;
            t.iv.end_ns += shift;
            rec.timeline.intervals.push_back(std::move(t.iv));
          }
    }
    if (record) {
      rec.timeline.window_begin_ns = 0;
      rec.timeline.window_end_ns = rec.wall_ns;
    }
    return rec;
  }

  int c_;
  std::int64_t rows_;
  std::vector<Rank> ranks_;
  std::vector<int> devices_;  // the devices the ranks live on (one, or a node's)
  CudaStream origin_;         // concurrent mode; on opts_.device
  CudaEvent pass_begin_, pass_end_;
  SampleClock clock_;           // concurrent mode; on opts_.device
  std::vector<L2Flush> flush_;  // by device id
  std::vector<CudaGraph> graphs_;
  CudaGraphExec concurrent_exec_;
  bool capturing_ = false;
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::int64_t cuda_free_memory_bytes(int device) {
  RB_CUDA_CHECK(cudaSetDevice(device));
  std::size_t free_bytes = 0, total_bytes = 0;
  RB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::int64_t cuda_executor_bytes(const Plan& plan, int devices) {
  const Config& cfg = plan.config;
  const std::int64_t n = std::max(1, std::min(devices, cfg.cp));
  // The fullest device holds ceil(c / n) ranks.
  return saturated_bytes(cuda_rank_bytes(plan) * static_cast<double>((cfg.cp + n - 1) / n));
}

std::unique_ptr<CudaExecutor> make_cuda_executor(const Plan& plan, const CudaOptions& opts) {
  return std::make_unique<CudaExecutorImpl>(plan, opts);
}

}  // namespace rb::ring
