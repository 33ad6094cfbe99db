// The CPU backend: an interpreter of each hosted rank's step program (ring/program/program.hpp),
// compiled once from the plan. Each rank has a thread per lane of its program, kept alive across
// passes: the compute thread (lane 0) and the comm threads (one per lane of a rotating schedule, one
// to gather; a backward design may add more, e.g. follow's trailing partials). Each thread runs the
// ops of its lane in order, each op waiting for the ops its buffers depend on
// (ring/executor/cpu_ops.hpp), so lanes that run in opposite directions use both directions of the
// links at once. Intervals are taken with the steady clock on every thread. Each rank's compute
// thread is bound to a CPU unless told not to (ring/executor/cpu_binding.hpp).
// A pass runs the parts its configuration's phase times (docs/design.md §3a): the forward's ops,
// then the backward's; a backward-only phase runs one untimed forward first, whose O, log-sum-exp
// and step buffers every later backward reads.
// With the local transport this process hosts every rank; with a distributed one (mpi) it hosts
// the rank of its process, and a ProcessGroup starts passes together, takes the pass time as the
// slowest rank's, and shares timelines and output rows so every process holds the whole ring's.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "common/cancellation.hpp"
#include "common/error.hpp"
#include "common/nvtx.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "ring/executor/cpu_binding.hpp"
#include "ring/executor/cpu_ops.hpp"
#include "ring/executor/cpu_rank.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/executor_preconditions.hpp"
#include "ring/executor/output_rows.hpp"
#include "ring/executor/pass_timeline.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/program/compile.hpp"
#include "ring/transport/steady_clock.hpp"
#include "ring/transport/transport_local.hpp"

namespace rb::ring {
namespace {

namespace kref = kernels::ref;

template <typename T>
class CpuExecutor final : public Executor {
 public:
  // group == nullptr: every rank in this process, over `transport` (the local one).
  CpuExecutor(const Plan& plan, const CpuOptions& opts, ProcessGroup* group, std::unique_ptr<KvTransport> transport)
      : plan_(plan),
        opts_(opts),
        group_(group),
        c_(plan.config.cp),
        transport_(std::move(transport)),
        ranks_(plan.config.cp) {
    const Config& cfg = plan_.config;
    check_executor_preconditions("cpu executor", plan_, group_);
    hosted_ = hosted_ring_ranks(c_, group_);
    const KvSchedule& sch = plan_.schedule;
    const BackwardSchedule* backward = plan_.backward ? &*plan_.backward : nullptr;
    comm_threads_ = program_lanes(sch, backward) - 1;
    const std::int64_t threads = cpu_executor_threads(sch, static_cast<std::int64_t>(hosted_.size()), backward);
    if (threads > kMaxCpuExecutorThreads)
      throw Error(fmt::format("cpu executor: {} ranks need {} threads; at most {} per process", hosted_.size(), threads,
                              kMaxCpuExecutorThreads));
    shape_ = rank_buffer_shape(plan_, hosted_.front());
    const std::int64_t half = shape_.half;
    const auto fill = [](std::vector<T>& b, std::int64_t at, const SegmentList& segs, const kref::FillParams& fp) {
      kref::fill_inputs(b.data() + at, segs, fp);
    };
    for (const int r : hosted_) {
      throw_if_cancelled();  // thousands of ranks take seconds to set up
      Rank& rk = ranks_[r];
      rk.program = compile_program(plan_, r, opts_.fault);
      for (const BufferDecl& b : rk.program.buffers)
        rk.buffer(b.buf).assign(static_cast<std::size_t>(b.elements()), T(0));
      rk.fill_inputs(plan_, r, cfg.dtype, shape_, fill);
      if (plan_.backward) rk.bwd.fill_d_o(plan_, r, cfg.dtype, fill);
      if (sch.gathered) {
        std::copy(rk.own.begin(), rk.own.begin() + half, rk.all_k.begin() + half * r);
        std::copy(rk.own.begin() + half, rk.own.end(), rk.all_v.begin() + half * r);
      }
      rk.done.assign(rk.program.ops.size(), 0);
      rk.comm_log.resize(comm_threads_);
    }
    threads_.reserve(static_cast<std::size_t>(threads));
    const std::vector<int> cpus = allowed_cpus();
    devices_.assign(static_cast<std::size_t>(c_), std::string());
    for (const int r : hosted_)
      devices_[static_cast<std::size_t>(r)] = opts_.binding == CpuBinding::ranks
                                                  ? fmt::format("cpu {}", cpu_for_rank(r, cpus))
                                                  : "cpu";
    // Whatever fails here, the threads started must end before the members go, or their
    // destructors terminate the process.
    try {
      for (const int r : hosted_) {
        threads_.emplace_back([this, r] { worker(r, -1); });
        if (opts_.binding == CpuBinding::ranks) bind_thread(threads_.back(), cpu_for_rank(r, cpus));
        for (int l = 0; l < comm_threads_; ++l) threads_.emplace_back([this, r, l] { worker(r, l); });
      }
    } catch (const std::system_error& e) {
      // The OS ran out of threads (a pids limit).
      const std::size_t started = threads_.size();
      stop_threads();
      throw Error(fmt::format("cpu executor: could not start thread {} of {}: {}", started + 1, threads, e.what()));
    } catch (...) {
      stop_threads();
      throw;
    }
  }

  ~CpuExecutor() override {
    stop_threads();
    // An aborted wait may have left a send or collective pending on these buffers (mpi); MPI may
    // still read or write them, so they are kept until the process exits.
    if (group_ && group_->left_requests_behind()) {
      static std::mutex mu;
      static auto* kept = new std::vector<std::vector<T>>();
      std::lock_guard lk(mu);
      for (auto& rk : ranks_)
        for (auto* v : {&rk.own, &rk.buf[0], &rk.buf[1], &rk.all_k, &rk.all_v, &rk.stage_send, &rk.stage_recv})
          kept->push_back(std::move(*v));
    }
  }

  const Plan& plan() const override { return plan_; }
  std::vector<std::string> rank_devices() const override { return devices_; }
  std::int64_t buffer_bytes() const override {
    std::int64_t n = 0;
    for (const int r : hosted_)
      for (int b = 0; b < kBufCount; ++b)
        n += static_cast<std::int64_t>(const_cast<Rank&>(ranks_[r]).buffer(static_cast<Buf>(b)).size());
    return n * static_cast<std::int64_t>(sizeof(T));
  }

  void abort() override {
    aborting_ = true;
    transport_->abort();
    if (group_) group_->abort();
    for (auto& rk : ranks_) {
      std::lock_guard rl(rk.mu);
      rk.aborted = true;
      rk.cv.notify_all();
    }
  }

  // The parts the phase times; a backward-only phase first runs its one untimed forward.
  PassRecord run_pass(bool record) override {
    const Phase phase = plan_.config.phase;
    if (phase == Phase::bwd && !forward_ran_) (void)run_parts(true, false, false);
    PassRecord rec = run_parts(times_forward(phase), times_backward(phase), record);
    forward_ran_ = forward_ran_ || times_forward(phase);
    return rec;
  }

  std::vector<double> gradient_rows(GradTensor which, std::span<const std::int64_t> positions) const override {
    if (!plan_.backward || !backward_ran_) throw Error("cpu executor: no backward has run");
    const Config& cfg = plan_.config;
    if (plan_.exchange.active()) {
      // The all-to-all after the backward left them in the shard's layout, every head.
      const bool q = which == GradTensor::dq;
      return gather_rank_rows(
          plan_, positions, group_, static_cast<std::int64_t>(q ? cfg.heads : cfg.kv_heads) * cfg.head_dim,
          [&](int r) -> const T* {
            if (group_ && r != group_->rank()) return nullptr;
            const auto& b = ranks_[r].bwd;
            return (q ? b.dq_shard : which == GradTensor::dk ? b.dk_shard : b.dv_shard).data();
          },
          [](std::int64_t row) { return row; });
    }
    if (which == GradTensor::dq)
      return gather_rank_rows(
          plan_, positions, group_, static_cast<std::int64_t>(cfg.heads) * cfg.head_dim,
          [&](int r) -> const T* { return group_ && r != group_->rank() ? nullptr : ranks_[r].bwd.dq.data(); },
          [](std::int64_t row) { return row; });
    // dK and dV of a row sit in its lane's [dK | dV] piece of the own block's layout.
    const std::int64_t lane_rows = plan_.schedule.lane_rows;
    const std::int64_t shift = which == GradTensor::dv ? lane_rows : 0;
    return gather_rank_rows(
        plan_, positions, group_, static_cast<std::int64_t>(cfg.kv_heads) * cfg.head_dim,
        [&](int r) -> const T* { return group_ && r != group_->rank() ? nullptr : ranks_[r].bwd.d_own.data(); },
        [&](std::int64_t row) { return own_block_key_row(plan_.schedule, row) + shift; });
  }

 private:
  PassRecord run_parts(bool forward, bool backward, bool record) {
    for (auto& rk : ranks_) {
      std::fill(rk.done.begin(), rk.done.end(), 0);
      rk.forward_end_ns = 0;
      rk.log.clear();
      for (auto& log : rk.comm_log) log.clear();
    }
    record_ = record;
    run_forward_ = forward;
    run_backward_ = backward;
    if (error_) std::rethrow_exception(error_);
    // An abort that came while the executor was being made (the watchdog repeats it) or a
    // cancellation: no pass starts.
    if (aborting_ || cancellation_requested()) throw Error("cpu executor: aborted");
    if (group_) group_->barrier();  // every rank starts the pass together
    const std::int64_t t0 = steady_ns();
    {
      std::unique_lock lk(gate_mu_);
      finished_ = 0;
      ++generation_;
      gate_cv_.notify_all();
      gate_cv_.wait(lk, [&] { return finished_ == (1 + comm_threads_) * static_cast<int>(hosted_.size()); });
    }
    const std::int64_t t1 = steady_ns();
    if (error_) std::rethrow_exception(error_);  // the executor stays failed
    if (aborting_) throw Error("cpu executor: aborted");
    PassRecord rec;
    rec.wall_ns = t1 - t0;
    // The forward part ends with the last rank's last forward step (the slowest process's, in a group).
    std::int64_t fwd_end = t0;
    for (const int r : hosted_) fwd_end = std::max(fwd_end, ranks_[r].forward_end_ns);
    const std::int64_t fwd_local = forward ? fwd_end - t0 : 0;
    std::vector<Interval> mine;
    if (record)
      for (const int r : hosted_) {
        mine.insert(mine.end(), ranks_[r].log.begin(), ranks_[r].log.end());
        for (const auto& log : ranks_[r].comm_log) mine.insert(mine.end(), log.begin(), log.end());
      }
    // The slowest rank's pass is the ring's; each on its own clock, so no offset error enters it.
    if (group_) rec.wall_ns = group_->max(t1 - t0);
    rec.fwd_ns = !backward ? rec.wall_ns : group_ ? group_->max(fwd_local) : fwd_local;
    rec.bwd_ns = rec.wall_ns - rec.fwd_ns;
    if (record) rec.timeline = pass_timeline(std::move(mine), t0, t1, group_);
    backward_ran_ = backward_ran_ || backward;
    return rec;
  }

  std::vector<double> output_rows(std::span<const std::int64_t> positions) const override {
    // Under a head exchange the all-to-all after the last merge left O in the shard's layout.
    const bool shard = plan_.exchange.active();
    return gather_output_rows(plan_, positions, group_, [&](int r) -> const T* {
      if (group_ && r != group_->rank()) return nullptr;
      return shard ? ranks_[r].o_shard.data() : ranks_[r].o_acc.data();
    });
  }

 private:
  void stop_threads() {
    {
      std::lock_guard lk(gate_mu_);
      stopping_ = true;
      gate_cv_.notify_all();
    }
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

  using Rank = CpuRank<T>;

  // lane < 0: the rank's compute thread; else the comm thread of that lane (gathered: lane 0).
  void worker(int r, int lane) {
    const bool comm = lane >= 0;
    nvtx::name_current_thread(comm_threads_ > 1 && comm ? fmt::format("rank {} comm {}", r, lane)
                                                        : fmt::format("rank {} {}", r, comm ? "comm" : "compute"));
    std::uint64_t seen = 0;
    while (true) {
      {
        std::unique_lock lk(gate_mu_);
        gate_cv_.wait(lk, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) return;
        seen = generation_;
      }
      try {
        // The compute thread is lane 0 of the program, comm thread l lane l + 1.
        run_cpu_lane(CpuPass<T>{plan_, *transport_, ranks_, aborting_, shape_, record_, run_forward_, run_backward_}, r,
                     lane + 1);
      } catch (...) {
        {
          std::lock_guard lk(gate_mu_);
          if (!error_) error_ = std::current_exception();
        }
        abort();
      }
      std::lock_guard lk(gate_mu_);
      ++finished_;
      gate_cv_.notify_all();
    }
  }

  Plan plan_;
  CpuOptions opts_;
  ProcessGroup* group_;
  std::atomic<bool> aborting_{false};
  int c_;
  RankBufferShape shape_;  // every hosted rank's, as all hold equal token counts
  int comm_threads_ = 1;   // per hosted rank: its program's comm lanes
  std::unique_ptr<KvTransport> transport_;
  std::vector<Rank> ranks_;  // indexed by ring rank; only hosted_ ones hold buffers
  std::vector<int> hosted_;
  std::vector<std::string> devices_;  // rank_devices()
  std::vector<std::thread> threads_;
  std::mutex gate_mu_;
  std::condition_variable gate_cv_;
  std::uint64_t generation_ = 0;
  int finished_ = 0;
  bool stopping_ = false;
  bool record_ = false;
  bool run_forward_ = true, run_backward_ = false;  // the parts of the pass the threads run next
  bool forward_ran_ = false, backward_ran_ = false;
  std::exception_ptr error_;
};

}  // namespace

std::int64_t cpu_executor_threads(const KvSchedule& sch, std::int64_t hosted, const BackwardSchedule* backward) {
  return hosted * program_lanes(sch, backward);
}

namespace {

std::unique_ptr<Executor> make(const Plan& plan, const CpuOptions& opts, ProcessGroup* group,
                               std::unique_ptr<KvTransport> transport) {
  switch (plan.config.dtype) {
    case DType::float64: return std::make_unique<CpuExecutor<double>>(plan, opts, group, std::move(transport));
    case DType::float32: return std::make_unique<CpuExecutor<float>>(plan, opts, group, std::move(transport));
    case DType::bfloat16: break;
  }
  throw InputError("dtype", std::string(to_string(plan.config.dtype)),
                   "the cpu backend runs float64 or float32; bfloat16 needs --backend cuda");
}

}  // namespace

std::unique_ptr<Executor> make_cpu_executor(const Plan& plan, const CpuOptions& opts) {
  return make(plan, opts, nullptr, std::make_unique<LocalTransport>(plan.config.cp, plan.config.link_gbps));
}

std::unique_ptr<Executor> make_cpu_executor(const Plan& plan, const CpuOptions& opts, ProcessGroup& group,
                                            std::unique_ptr<KvTransport> transport) {
  return make(plan, opts, &group, std::move(transport));
}

}  // namespace rb::ring
