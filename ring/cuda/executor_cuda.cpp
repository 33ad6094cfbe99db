// The one CUDA executor, over a transport (ring/cuda/cuda_transport.hpp): the copy transport's ranks all
// live in this process, on one device or dealt over several; the nccl transport's process hosts one
// rank and a ProcessGroup joins it to the others, as executor_cpu.cpp does over mpi. Each hosted
// rank is a CudaRank (ring/cuda/cuda_rank.hpp: its Q, step buffers, partial and accumulated O/LSE, a
// compute and a comm stream).
//
// A pass is each hosted rank's step program (ring/program/, docs/program.md) interpreted on two
// streams: lane 0's ops on the compute stream, the comm lanes' on the comm stream. enqueue() goes
// step-major over the ranks (a copy transport's waits on a peer need the peer's events recorded
// first): at step j each rank's comm ops of the step (the transfer issued during step j: the
// transport moves every lane's piece in one call) and then its compute ops (attention: step 0 writes
// the accumulators directly, later steps write the partials and merge, a step that sees no key is
// skipped: ring/plan/step_launch.hpp). Each waits, by cudaStreamWaitEvent, for the events of the ops
// of the other stream its program's dependencies name: a transfer for the step that last read the
// buffer it fills, a step for the transfers that filled its block; the same rules the CPU
// interpreter keeps, from the same program. An op kind this executor does not interpret refuses the
// configuration before anything is made (ring/executor/backend_support.hpp). Events around each transfer give its time
// in flight (comm_in_flight); a transport that sees its data move adds when it executed (comm). The same enqueue() runs
// eagerly or under stream capture; timing events become event-record nodes in the graph (cudaEventRecordExternal), so
// each replay leaves per-step times behind for the timeline.
//
// Modes (ring/cuda/cuda_options.hpp): concurrent runs every hosted rank at once from one origin stream;
// isolated (copy transport only) runs each rank's pass alone, from its own origin stream, and
// composes the ring's time from their steps (ring/cuda/isolated_ring.hpp).
#include "ring/cuda/executor_cuda.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <span>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/gpus_at_work.hpp"
#include "common/nvtx.hpp"
#include "kernels/cuda_check.hpp"
#include "ring/cuda/cuda_devices.hpp"
#include "ring/cuda/cuda_handles.hpp"
#include "ring/cuda/cuda_program.hpp"
#include "ring/cuda/cuda_rank.hpp"
#include "ring/cuda/cuda_transport.hpp"
#include "ring/cuda/cuda_transport_copy.hpp"
#include "ring/cuda/isolated_ring.hpp"
#include "ring/cuda/rank_placement.hpp"
#include "ring/cuda/sample_clock.hpp"
#include "ring/executor/backend_support.hpp"
#include "ring/executor/executor_preconditions.hpp"
#include "ring/executor/output_rows.hpp"
#include "ring/executor/pass_timeline.hpp"
#include "ring/transport/poll_backoff.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {

namespace {

// How a hosted rank's pass is forked, timed and (isolated mode) launched on its own.
struct RankPass {
  CudaEvent begin, end, fork, join, done;
  CudaStream origin;  // isolated mode: this rank's passes fork from and join into it
  SampleClock clock;  // isolated mode: the SM clock around this rank's pass, on its device
};

class CudaExecutorImpl final : public CudaExecutor {
 public:
  CudaExecutorImpl(const Plan& plan, const CudaOptions& opts, ProcessGroup* group,
                   std::unique_ptr<CudaTransport> transport)
      : plan_(plan),
        opts_(opts),
        group_(group),
        c_(plan.config.cp),
        ranks_(plan.config.cp),
        passes_(plan.config.cp),
        programs_(plan.config.cp),
        transport_(std::move(transport)) {
    check_executor_preconditions("cuda executor", plan_, group_);
    hosted_ = hosted_ring_ranks(c_, group_);
    place();
    on(opts_.device);
    origin_ = make_stream();
    pass_begin_ = make_event(true);
    pass_end_ = make_event(true);
    done_ = make_event(false);
    if (concurrent()) clock_ = SampleClock(opts_.device);
    set_nominal_clock();
    for (int r : hosted_) setup_rank(r);
    if (opts_.l2_flush)
      for (int d : devices_) flush_.at(static_cast<std::size_t>(d)) = L2Flush(d);
    synchronize_devices();  // fills done before the first pass reads or sends them
    on(opts_.device);
    transport_->connect(plan_, ranks_, hosted_);

    launch_pass(false);  // docs/design.md §7 step 1 (the caller checks it via output_rows); it
                         // also makes NCCL's connections, needed before capture
    if (opts_.launch == CudaLaunch::graph) {
      capture();
      launch_pass(true);  // one untimed replay after the upload
    }
  }

  // Graphs go first: NCCL's teardown waits until every graph that captured the communicator is
  // destroyed, and a graph still in flight is freed when it finishes. Nothing is in flight when
  // the buffers go. Never throws.
  ~CudaExecutorImpl() override {
    const bool clean = !aborted_ && !dirty_;
    (void)cudaSetDevice(opts_.device);  // the transport's links live on it (nccl: the communicator)
    rank_execs_.clear();
    concurrent_exec_.reset();
    graphs_.clear();
    labels_.clear();
    if (clean) synchronize_quietly();
    transport_->close(/*abort=*/!clean);
    if (!clean) synchronize_quietly();  // an aborted transport's kernels have left
  }

  const Plan& plan() const override { return plan_; }
  const CudaOptions& options() const override { return opts_; }
  const std::vector<GraphNodeLabel>& graph_nodes() const override { return labels_; }
  std::int64_t last_raw_ns() const override { return raw_ns_; }
  std::optional<double> nominal_sm_clock_mhz() const override { return nominal_mhz_; }
  // A group's processes each drive their own GPU, always concurrently.
  std::vector<std::string> rank_devices() const override { return rank_uuids_; }

  int gpus_at_work() const override {
    return rb::gpus_at_work(c_, concurrent() && !group_, static_cast<int>(devices_.size()));
  }

  CudnnGraphsUsed cudnn_graphs() const override {
    CudnnGraphsUsed out;
    for (const auto& [device, sdpa] : cudnn_) out.merge(sdpa->used());
    return out;
  }

  std::vector<StreamLabel> streams() const override {
    std::vector<StreamLabel> out;
    for (int r : hosted_) {
      out.push_back({ranks_[r].compute.get(), ranks_[r].device, r, IntervalKind::compute, "compute"});
      out.push_back({ranks_[r].comm.get(), ranks_[r].device, r, IntervalKind::comm, "comm"});
    }
    return out;
  }

  // From any thread. The pass in progress throws at its next wait; the GPU work already queued
  // finishes, or the transport stops it (a transfer waiting on a peer that will never answer).
  void abort() override {
    aborted_ = true;
    if (group_) group_->abort();
    transport_->abort();
  }

  PassRecord run_pass(bool record) override {
    if (aborted_) throw Error("cuda executor: aborted");
    if (dirty_) throw Error("cuda executor: an earlier pass failed; the ring is out of step");
    launch_pass(opts_.launch == CudaLaunch::graph);
    return collect(record);
  }

  // Each hosted rank's output comes back from its device once, when a row of it is first needed.
  // After abort() the group is aborted too, so no peer waits in the sum for this process.
  std::vector<double> output_rows(std::span<const std::int64_t> positions) const override {
    if (aborted_) throw Error("cuda executor: aborted");
    synchronize_devices();
    std::vector<std::vector<float>> host(static_cast<std::size_t>(c_));
    return gather_output_rows(plan_, positions, group_, [&](int r) -> const float* {
      if (!hosts(r)) return nullptr;
      auto& h = host[static_cast<std::size_t>(r)];
      on(ranks_[r].device);
      h.resize(ranks_[r].o_acc.size());
      RB_CUDA_CHECK(cudaMemcpy(h.data(), ranks_[r].o_acc.get(), ranks_[r].o_acc.bytes(), cudaMemcpyDeviceToHost));
      return h.data();
    });
  }

 private:
  bool gathered() const { return plan_.schedule.gathered; }
  bool concurrent() const { return opts_.mode == CudaRankMode::concurrent; }
  bool hosts(int r) const { return std::find(hosted_.begin(), hosted_.end(), r) != hosted_.end(); }
  int steps() const { return static_cast<int>(plan_.ranks[0].steps.size()); }
  EnqueueContext ctx() { return EnqueueContext{capturing_, &labels_}; }
  void timing(const CudaEvent& e, cudaStream_t s) { ctx().timing(e, s); }

  // Kernel launches and stream operations go to the current device, which must be the stream's.
  static void on(int device) { use_device(device); }
  void synchronize_devices() const { ring::synchronize_devices(devices_); }
  void synchronize_quietly() const noexcept {
    for (int d : devices_)
      if (cudaSetDevice(d) == cudaSuccess) (void)cudaDeviceSynchronize();
  }

  // --- setting up ------------------------------------------------------------------------------

  // The devices of the hosted ranks. Alone: every rank, dealt over opts.devices. In a group: its
  // own rank, on the device its launcher's local rank names, every rank at once.
  void place() {
    int visible = 0;
    RB_CUDA_CHECK(cudaGetDeviceCount(&visible));
    if (group_) {
      opts_.device = process_device(launcher_local_rank(group_->rank()), visible);
      opts_.mode = CudaRankMode::concurrent;  // the ring's true dependencies cross processes
      ranks_[group_->rank()].device = opts_.device;
    } else {
      const auto placement = place_ranks(c_, opts_.devices, visible, opts_.device);
      for (int r : hosted_) ranks_[r].device = placement[r];
    }
    std::vector<int> placement;
    for (int r : hosted_) placement.push_back(ranks_[r].device);
    devices_ = devices_used(placement);
    // Each hosted rank's GPU by UUID, the name a fleet of nodes tells GPUs apart by (ordinals
    // repeat on every node and move with CUDA_VISIBLE_DEVICES).
    const std::vector<CudaDeviceInfo> infos = cuda_device_infos();
    rank_uuids_.assign(static_cast<std::size_t>(c_), std::string());
    for (int r : hosted_) {
      const int d = ranks_[r].device;
      rank_uuids_[static_cast<std::size_t>(r)] = d >= 0 && d < static_cast<int>(infos.size())
                                                     ? infos[static_cast<std::size_t>(d)].uuid
                                                     : fmt::format("cuda:{}", d);
    }
    if (!group_) opts_.devices = static_cast<int>(devices_.size());  // what options() reports: those in use
    flush_.resize(static_cast<std::size_t>(visible));
  }

  // The ring runs at its slowest GPU's pace: the lowest reference clock over the devices in use,
  // and over the group's processes.
  void set_nominal_clock() {
    nominal_mhz_ = std::numeric_limits<double>::max();
    for (int d : devices_) nominal_mhz_ = std::min(nominal_mhz_, nominal_clock_mhz(d));
    if (group_) nominal_mhz_ = static_cast<double>(group_->min(std::llround(nominal_mhz_ * 1e3))) / 1e3;
  }

  void setup_rank(int r) {
    CudaRank& rk = ranks_[r];
    RankPass& p = passes_[r];
    // Events recorded on a stream must belong to its device: the fork is recorded on the origin
    // stream, the shared one (opts_.device) in concurrent mode and the rank's own otherwise.
    on(opts_.device);
    if (concurrent()) p.fork = make_event(false);
    on(rk.device);
    if (!concurrent()) {
      p.origin = make_stream();
      p.fork = make_event(false);
      p.clock = SampleClock(rk.device);
    }
    CudnnSdpa* sdpa = nullptr;
    if (plan_.config.kernel == Kernel::cudnn) {  // the process's graphs on the device, outside any capture
      auto& handle = cudnn_[rk.device];
      if (!handle) handle = std::make_unique<CudnnSdpa>(rk.device);
      sdpa = handle.get();
    }
    rk.setup(plan_, r, rk.device, sdpa);
    programs_[r] = CudaProgram(plan_, r);
    p.begin = make_event(true);
    p.end = make_event(true);
    p.join = make_event(false);
    p.done = make_event(false);
  }

  // --- enqueueing one pass -------------------------------------------------------------------

  // Rank r's comm work issued during step j: the pieces for step j+1 (rotating), or the whole gather.
  // Its stream has waited for what the program's dependencies name (run_slot).
  void transfer(int r, int j, bool concurrent) {
    CudaRank& rk = ranks_[r];
    on(rk.device);
    const cudaStream_t s = rk.comm.get();
    StepEvents& ev = rk.ev[j];
    if (!gathered() && concurrent) transport_->await_peers(ranks_, r, j);
    timing(ev.copy_begin, s);
    if (gathered())
      transport_->gather(ranks_, r, ctx());
    else
      transport_->rotate(ranks_, r, j, concurrent, ctx());
    timing(ev.copy_end, s);
    RB_CUDA_CHECK(cudaEventRecord(ev.recv_done.get(), s));
  }

  // Enqueues the pass of `which` ranks (all hosted, or one in isolated mode), forked from and
  // joined back into `origin`. recv_done of step j (recorded by transfer(j)) is what step j+1 waits
  // for; the gather is what step 0 waits for.
  void enqueue(std::span<const int> which, cudaStream_t origin, bool concurrent) {
    for (int r : which) {
      CudaRank& rk = ranks_[r];
      RankPass& p = passes_[r];
      on(origin_device(r));
      RB_CUDA_CHECK(cudaEventRecord(p.fork.get(), origin));
      on(rk.device);
      RB_CUDA_CHECK(cudaStreamWaitEvent(rk.compute.get(), p.fork.get(), 0));
      RB_CUDA_CHECK(cudaStreamWaitEvent(rk.comm.get(), p.fork.get(), 0));
      timing(p.begin, rk.compute.get());
    }
    for (int j = 0; j < steps(); ++j) {
      // An eager step's launches sit inside its range, so Nsight projects it onto their kernels;
      // under capture a range would mark the capture, not the replays, and is left out.
      std::optional<nvtx::ScopedRange> step;
      if (!capturing_) step.emplace(nvtx::kRangeStep, j);
      for (int r : which) run_slot(r, j, concurrent);
    }
    for (int r : which) {
      CudaRank& rk = ranks_[r];
      RankPass& p = passes_[r];
      on(rk.device);
      timing(p.end, rk.compute.get());
      // The origin waits on the rank's device's event (cross-device waits are allowed); the record
      // itself is issued with the rank's device current, the wait with the origin's.
      for (const CudaStream* st : {&rk.comm, &rk.compute}) {
        on(rk.device);
        RB_CUDA_CHECK(cudaEventRecord(p.join.get(), st->get()));
        on(origin_device(r));
        RB_CUDA_CHECK(cudaStreamWaitEvent(origin, p.join.get(), 0));
      }
    }
  }

  // Rank r's ops of step j: the comm ops issued during it, then its compute ops, after the waits
  // their dependencies name (ring/cuda/cuda_program.hpp); the transport moves every lane's piece in
  // one call, and attend(j) runs the step's attention and its merge, or nothing for a skipped step.
  void run_slot(int r, int j, bool concurrent) {
    CudaRank& rk = ranks_[r];
    on(rk.device);
    if (programs_[r].wait_for(rk, j, /*comm=*/true, rk.comm.get())) transfer(r, j, concurrent);
    on(rk.device);
    if (programs_[r].wait_for(rk, j, /*comm=*/false, rk.compute.get())) rk.attend(j, ctx());
  }

  // The device of the stream rank r's pass forks from.
  int origin_device(int r) const { return concurrent() ? opts_.device : ranks_[r].device; }

  // cudaEventSynchronize, but abort() or a transport that knows the pass cannot finish ends the
  // wait with an error.
  void wait(const CudaEvent& e) {
    for (int spin = 0;; ++spin) {
      const cudaError_t q = cudaEventQuery(e.get());
      if (q == cudaSuccess) return;
      if (q != cudaErrorNotReady) RB_CUDA_CHECK(q);
      if (aborted_) throw Error("cuda executor: aborted while a pass was running");
      if (spin % 256 == 255) transport_->check();
      poll_backoff(spin);
    }
  }

  // After a pass launched on `o`: its end seen from the host (host_end_ns_ anchors a group's
  // timeline), then the clock probe behind it.
  void finish(cudaStream_t o, const CudaEvent& done, SampleClock& clock) {
    RB_CUDA_CHECK(cudaEventRecord(done.get(), o));
    clock.after(o);
    wait(done);
    host_end_ns_ = steady_ns();
    RB_CUDA_CHECK(cudaStreamSynchronize(o));  // the probe, microseconds behind
    dirty_ = false;
  }

  // Every device's L2, finished before the host launches the pass (the concurrent pass's streams
  // span devices, so no single stream orders them).
  void flush_l2(std::span<const int> devices) {
    if (!opts_.l2_flush) return;
    for (int d : devices) flush_[d].now();
  }

  // One pass, eager or replayed. Concurrent mode: every hosted rank at once from the origin
  // stream, the group's processes starting together. Isolated mode: each rank's pass forks from
  // its own origin stream, on its own device, and runs alone (the next starts when it has
  // finished). The clock probes bracket each launch, outside the timing events.
  void launch_pass(bool graph) {
    transport_->before_pass();
    if (concurrent()) {
      const cudaStream_t o = origin_.get();
      flush_l2(devices_);
      if (group_) group_->barrier();  // a failed peer's notice ends it
      std::optional<nvtx::ScopedRange> range;
      if (group_) range.emplace(nvtx::kRangeRankPass, group_->rank());
      on(opts_.device);
      dirty_ = true;  // until the pass is seen to finish: teardown must abort, not close cleanly
      clock_.before(o);
      if (graph) {
        RB_CUDA_CHECK(cudaGraphLaunch(concurrent_exec_.get(), o));
      } else {
        timing(pass_begin_, o);
        enqueue(hosted_, o, true);
        on(opts_.device);
        timing(pass_end_, o);
      }
      finish(o, done_, clock_);
      return;
    }
    for (int r : hosted_) {
      nvtx::ScopedRange range(nvtx::kRangeRankPass, r);
      RankPass& p = passes_[r];
      const cudaStream_t o = p.origin.get();
      const int one[1] = {r};
      flush_l2(std::span<const int>(&ranks_[r].device, 1));
      on(ranks_[r].device);
      dirty_ = true;
      p.clock.before(o);
      if (graph)
        RB_CUDA_CHECK(cudaGraphLaunch(rank_execs_[static_cast<std::size_t>(r)].get(), o));
      else
        enqueue(one, o, false);
      on(ranks_[r].device);
      finish(o, p.done, p.clock);
    }
  }

  // docs/design.md §7 step 2: capture on the origin stream (thread-local mode, so another thread's
  // CUDA calls, NCCL's own among them, cannot invalidate it), instantiate, upload. With several
  // devices the concurrent graph spans all of them (the fork and join events carry the
  // dependencies across); each isolated graph stays on its rank's device but for the peer reads of
  // its copies. Every process of a group captures the same transport calls in the same order, as
  // the plan is the same on every process.
  void capture() {
    transport_->will_capture();
    auto one_graph = [&](std::span<const int> which, cudaStream_t o, int device, bool concurrent) {
      nvtx::ScopedRange range(nvtx::kRangeCapture, which.size() == 1 ? which.front() : -1);
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
    if (concurrent()) {
      concurrent_exec_ = one_graph(hosted_, origin_.get(), opts_.device, true);
      return;
    }
    rank_execs_.resize(static_cast<std::size_t>(c_));
    for (int r : hosted_) {
      const int one[1] = {r};
      rank_execs_[static_cast<std::size_t>(r)] = one_graph(one, passes_[r].origin.get(), ranks_[r].device, false);
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
    const CudaRank& rk = ranks_[r];
    std::vector<Tagged> out;
    std::vector<Interval> ivs;
    for (int j = 0; j < steps(); ++j) {
      ivs.clear();
      rk.compute_intervals(j, ref, ivs);
      if (plan_.schedule.moves(j, c_)) {
        const StepEvents& ev = rk.ev[j];
        const int step = gathered() ? 0 : j + 1;
        const Interval in_flight{r,
                                 IntervalKind::comm_in_flight,
                                 "comm in flight",
                                 gathered() ? "kv_allgather" : "kv_recv",
                                 step,
                                 plan_.ranks[r].steps[step].recv_bytes,
                                 ns_between(ref, ev.copy_begin),
                                 ns_between(ref, ev.copy_end)};
        ivs.push_back(in_flight);
        transport_->executed(r, j, concurrent(), in_flight, ivs);
      }
      for (auto& iv : ivs) out.push_back({std::move(iv), j});
    }
    return out;
  }

  // Concurrent mode reads the origin device's clock only: the other devices' work is not bracketed
  // by a stream of theirs that the probes could share. A group takes its slowest process's.
  std::optional<double> sample_clock() const {
    if (!concurrent()) {
      std::vector<kernels::ClockSpan> spans;
      std::vector<int> device_of;
      for (int r : hosted_) {
        spans.push_back(passes_[r].clock.read());
        device_of.push_back(ranks_[r].device);
      }
      return kernels::slowest_clock_mhz(spans, device_of);
    }
    const auto mine = kernels::clock_mhz(std::vector{clock_.read()});
    if (!group_) return mine;
    constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();  // takes no part in the min
    const std::int64_t khz = group_->min(mine ? std::llround(*mine * 1e3) : kNone);
    if (khz == kNone) return std::nullopt;
    return static_cast<double>(khz) / 1e3;
  }

  PassRecord collect(bool record) {
    transport_->after_pass(record);
    PassRecord rec;
    if (concurrent()) {
      const std::int64_t local = ns_between(pass_begin_, pass_end_);
      raw_ns_ = local;
      rec.wall_ns = group_ ? group_->max(local) : local;  // each process on its own clock: no offset error
      rec.sm_clock_mhz = sample_clock();
      if (!record) return rec;
      // Events of two devices cannot be compared: a rank on another device is placed from its own
      // begin, recorded as the fork reaches it (the fork's cross-device latency is not shown).
      // In a group, on the steady clock: the pass's end was seen at about host_end_ns_ (polling
      // adds microseconds), and its begin event lies `local` before it.
      const std::int64_t begin = group_ ? host_end_ns_ - local : 0;
      std::vector<Interval> mine;
      for (int r : hosted_)
        for (auto& t : rank_intervals(r, ranks_[r].device == opts_.device ? pass_begin_ : passes_[r].begin)) {
          t.iv.begin_ns += begin;
          t.iv.end_ns += begin;
          mine.push_back(std::move(t.iv));
        }
      rec.timeline = pass_timeline(std::move(mine), begin, begin + local, group_);
      return rec;
    }
    rec.sm_clock_mhz = sample_clock();
    // Each rank ran alone: the ring is composed from their steps (ring/cuda/isolated_ring.hpp).
    std::vector<std::vector<std::int64_t>> ends;
    raw_ns_ = 0;
    for (int r : hosted_) {
      auto& e = ends.emplace_back();
      for (int j = 0; j < steps(); ++j) e.push_back(ns_between(passes_[r].begin, ranks_[r].ev[j].merge_end));
      raw_ns_ += ns_between(passes_[r].begin, passes_[r].end);
    }
    const IsolatedRing ring(std::move(ends));
    rec.wall_ns = ring.wall_ns();
    if (!record) return rec;
    for (std::size_t i = 0; i < hosted_.size(); ++i)
      for (auto& t : rank_intervals(hosted_[i], passes_[hosted_[i]].begin)) {
        const std::int64_t shift = ring.shift_ns(static_cast<int>(i), t.epoch);
        t.iv.begin_ns += shift;
        t.iv.end_ns += shift;
        rec.timeline.intervals.push_back(std::move(t.iv));
      }
    rec.timeline.window_end_ns = rec.wall_ns;
    return rec;
  }

  // Declared in teardown's reverse order: graphs, then the transport, then the buffers.
  Plan plan_;
  CudaOptions opts_;
  ProcessGroup* group_;
  int c_;
  std::vector<int> hosted_;                          // the ring ranks this process runs
  std::vector<int> devices_;                         // the devices they live on, in order of first use
  std::vector<std::string> rank_uuids_;              // rank_devices(): each hosted rank's GPU UUID
  std::map<int, std::unique_ptr<CudnnSdpa>> cudnn_;  // by device, with the cudnn kernel: views of the
                                                     // process's graphs (cudnn_graph_cache.hpp)
  std::vector<CudaRank> ranks_;                      // by ring rank; only the hosted ones are set up
  std::vector<RankPass> passes_;                     // by ring rank, as ranks_
  std::vector<CudaProgram> programs_;                // by ring rank, as ranks_: its step program
  CudaStream origin_;                                // concurrent mode; on opts_.device
  CudaEvent pass_begin_, pass_end_, done_;
  SampleClock clock_;           // concurrent mode; on opts_.device
  std::vector<L2Flush> flush_;  // by device id; empty ones without --l2-flush
  std::unique_ptr<CudaTransport> transport_;
  std::vector<GraphNodeLabel> labels_;  // every captured node the CUPTI tracer can classify
  std::vector<CudaGraph> graphs_;
  CudaGraphExec concurrent_exec_;
  std::vector<CudaGraphExec> rank_execs_;  // isolated mode: each rank's pass, by ring rank
  double nominal_mhz_ = 0;
  std::int64_t raw_ns_ = 0;       // see last_raw_ns()
  std::int64_t host_end_ns_ = 0;  // steady clock, when the last pass's end was seen
  bool capturing_ = false;
  bool dirty_ = false;  // a pass began and was not seen to finish
  std::atomic<bool> aborted_{false};
};

}  // namespace

std::unique_ptr<CudaExecutor> make_cuda_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup* group,
                                                 std::unique_ptr<CudaTransport> transport) {
  return std::make_unique<CudaExecutorImpl>(plan, opts, group, std::move(transport));
}

std::unique_ptr<CudaExecutor> make_cuda_executor_prechecked(const Plan& plan, const CudaOptions& opts) {
  return make_cuda_executor(plan, opts, nullptr, make_copy_transport());
}

std::unique_ptr<CudaExecutor> make_cuda_executor(const Plan& plan, const CudaOptions& opts) {
  // What the kernel runs, by the rule the sweep checks (ring/executor/backend_support.hpp), whatever
  // backend the caller's config names.
  Config as_cuda = plan.config;
  as_cuda.backend = Backend::cuda;
  check_backend_supports(as_cuda);
  return make_cuda_executor_prechecked(plan, opts);
}

}  // namespace rb::ring
