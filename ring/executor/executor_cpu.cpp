// The CPU backend. Each hosted rank has a compute thread and a comm thread, kept alive across
// passes. The plan's schedule (ring/plan/plan.hpp) says how K/V move, and each rank holds the buffer set
// every backend does (ring/executor/rank_buffers.hpp). Rotating: step buffers are double buffered; while
// the compute thread attends to step j's buffer, one comm thread per lane receives that lane's
// piece of step j+1 into the other buffer, after step j-1 released it (ring/executor/step_order.hpp), so
// lanes that run in opposite directions use both directions of the links at once. Gathered: one
// comm thread gathers every block before the one step. Intervals are taken with the steady clock
// on both threads. Each rank's compute thread is bound to a CPU unless told not to
// (ring/executor/cpu_binding.hpp).
// A pass runs the parts its configuration's phase times (docs/design.md §3a): the forward, then the
// backward (ring/executor/cpu_backward.hpp) on the same threads, each comm thread starting its
// backward once its rank's forward compute is done; a backward-only phase runs one untimed
// forward first, whose O, log-sum-exp and last step buffer every later backward reads.
// Under a head exchange (docs/design.md §3b) comm thread 0 runs the all-to-alls
// (ring/executor/cpu_head_exchange.hpp): Q, K, V into the attention layout before its ring transfers
// (the compute thread's step 0 and the other lanes wait for it), O back to the shard once the
// rank's last merge is done; with a backward, dO in before the backward's transfers (its compute
// waits for it) and dQ, dK, dV back once every backward thread of the rank has finished.
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
#include "kernels/attention_block_ref.hpp"
#include "kernels/fill_inputs_ref.hpp"
#include "kernels/merge_partials_ref.hpp"
#include "ring/executor/cpu_backward.hpp"
#include "ring/executor/cpu_binding.hpp"
#include "ring/executor/cpu_head_exchange.hpp"
#include "ring/executor/cpu_rank.hpp"
#include "ring/executor/executor.hpp"
#include "ring/executor/executor_preconditions.hpp"
#include "ring/executor/output_rows.hpp"
#include "ring/executor/pass_timeline.hpp"
#include "ring/executor/rank_buffers.hpp"
#include "ring/executor/step_order.hpp"
#include "ring/plan/block_pairs.hpp"
#include "ring/plan/step_launch.hpp"
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
        members_(plan.exchange.groups),
        rows_(plan.ranks.at(0).attention_tokens),
        transport_(std::move(transport)),
        ranks_(plan.config.cp) {
    const Config& cfg = plan_.config;
    check_executor_preconditions("cpu executor", plan_, group_);
    hosted_ = hosted_ring_ranks(c_, group_);
    const KvSchedule& sch = plan_.schedule;
    fwd_comm_threads_ = sch.gathered ? 1 : static_cast<int>(sch.lanes.size());
    bwd_comm_threads_ = plan_.backward ? backward_comm_threads(*plan_.backward) : 0;
    comm_threads_ = std::max(fwd_comm_threads_, bwd_comm_threads_);
    const std::int64_t threads = cpu_executor_threads(sch, static_cast<std::int64_t>(hosted_.size()),
                                                      plan_.backward ? &*plan_.backward : nullptr);
    if (threads > kMaxCpuExecutorThreads)
      throw Error(fmt::format("cpu executor: {} ranks need {} threads; at most {} per process", hosted_.size(), threads,
                              kMaxCpuExecutorThreads));
    shape_ = rank_buffer_shape(plan_, hosted_.front());
    if (plan_.backward) bwd_shape_ = backward_buffer_shape(plan_, hosted_.front());
    const std::int64_t half = shape_.half;
    const auto fill = [](std::vector<T>& b, std::int64_t at, const SegmentList& segs, const kref::FillParams& fp) {
      kref::fill_inputs(b.data() + at, segs, fp);
    };
    for (const int r : hosted_) {
      throw_if_cancelled();  // thousands of ranks take seconds to set up
      Rank& rk = ranks_[r];
      rk.allocate_inputs(shape_);
      rk.fill_inputs(plan_, r, cfg.dtype, shape_, fill);
      rk.allocate_working(shape_);
      if (plan_.backward) {
        rk.bwd.allocate(bwd_shape_);
        rk.bwd.fill_d_o(plan_, r, cfg.dtype, fill);
        rk.bwd_pairs = backward_block_pairs(plan_, r);
        rk.bwd_pairs_forward = backward_block_pairs(plan_, r, /*forward_layout=*/true);
      }
      if (sch.gathered) {
        std::copy(rk.own.begin(), rk.own.begin() + half, rk.all_k.begin() + half * r);
        std::copy(rk.own.begin() + half, rk.own.end(), rk.all_v.begin() + half * r);
      }
      rk.launches = step_launches(plan_, r);
      rk.recv_done.assign(fwd_comm_threads_, 0);  // the forward's comm threads publish here
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
      std::fill(rk.recv_done.begin(), rk.recv_done.end(), 0);
      rk.compute_done = 0;
      rk.forward_end_ns = 0;
      rk.fwd_exchanged = 0;
      if (plan_.backward) reset_backward(rk, *plan_.backward);
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
        if (run_forward_) {
          if (!comm)
            compute_pass(r);
          else if (lane < fwd_comm_threads_)
            comm_pass(r, lane);
        }
        if (run_backward_) {
          const CpuPass<T> p = pass_context(1);
          Rank& rk = ranks_[r];
          const bool exchange = plan_.exchange.active();
          if (!comm) {
            backward_compute(p, r);
          } else if (lane < bwd_comm_threads_) {
            // The backward's transfers may write buffers the forward's steps read.
            if (run_forward_) p.wait_until(rk, [&] { return rk.compute_done == forward_steps(); });
            if (exchange && lane == 0) {
              exchange_heads(p, r, HeadMove::backward_in, rk.comm_log[0]);
              p.publish(rk, rk.bwd_exchanged, 1);
            }
            backward_comm(p, r, lane);
          }
          if (exchange && (!comm || lane < bwd_comm_threads_)) {
            // dQ and the own block's dK/dV are final once every backward thread of the rank is done.
            {
              std::lock_guard lk(rk.mu);
              ++rk.bwd_threads_done;
              rk.cv.notify_all();
            }
            if (comm && lane == 0) {
              p.wait_until(rk, [&] { return rk.bwd_threads_done == 1 + bwd_comm_threads_; });
              exchange_heads(p, r, HeadMove::backward_out, rk.comm_log[0]);
              p.publish(rk, rk.bwd_exchanged, 2);
            }
          }
        }
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

  CpuPass<T> pass_context(int phase) {
    return CpuPass<T>{plan_, *transport_, ranks_, aborting_, shape_, bwd_shape_, opts_.fault, record_, phase};
  }
  int forward_steps() const { return static_cast<int>(plan_.ranks[0].steps.size()); }

  void log_interval(std::vector<Interval>& log, int r, IntervalKind kind, const char* lane, const char* name, int step,
                    std::int64_t bytes, std::int64_t b, std::int64_t e) {
    if (record_) log.push_back(Interval{r, kind, lane, name, step, bytes, b, e});
  }
  template <typename Ready>
  void wait_until(Rank& rk, Ready ready) {
    pass_context(0).wait_until(rk, ready);
  }
  void publish(Rank& rk, int& counter, int value) { pass_context(0).publish(rk, counter, value); }

  void comm_pass(int r, int l) {
    Rank& rk = ranks_[r];
    if (opts_.fault == InjectedFault::hang && r == c_ - 1 && l == 0) {
      // Waits for a message that never comes, as a lost peer would; only abort() ends it.
      std::unique_lock lk(rk.mu);
      rk.cv.wait(lk, [&] { return rk.aborted; });
      throw Error("cpu executor: injected hang ended by abort");
    }
    const HeadExchange& x = plan_.exchange;
    if (x.active()) {
      // The exchange fills Q and the own block, which the steps and every lane's transfers read.
      if (l == 0) {
        exchange_heads(pass_context(0), r, HeadMove::forward_in, rk.comm_log[0]);
        publish(rk, rk.fwd_exchanged, 1);
      } else {
        wait_until(rk, [&] { return rk.fwd_exchanged >= 1; });
      }
    }
    ring_pass(r, l);
    if (x.active() && l == 0) {
      wait_until(rk, [&] { return rk.compute_done == forward_steps(); });
      exchange_heads(pass_context(0), r, HeadMove::forward_out, rk.comm_log[0]);
      rk.forward_end_ns = steady_ns();  // the forward ends with O back in the shards
      publish(rk, rk.fwd_exchanged, 2);
    }
  }

  // The schedule's transfers of lane l: a gather, or the pieces that rotate among the schedule's
  // members (the ranks, or under a head exchange the ranks of this rank's member in each group).
  void ring_pass(int r, int l) {
    Rank& rk = ranks_[r];
    if (members_ == 1) return;
    const KvSchedule& sch = plan_.schedule;
    const HeadExchange& x = plan_.exchange;
    const int g = x.group_of(r);
    auto peer = [&](int m) { return x.rank_of(m, x.member_of(r)); };
    if (sch.gathered) {
      const std::int64_t half = static_cast<std::int64_t>(rk.own.size() / 2);
      auto own = std::span<const T>(rk.own);
      nvtx::ScopedRange range(nvtx::kRangeTransfer, 0);
      auto k = transport_->allgather(r, std::as_bytes(own.first(half)), std::as_writable_bytes(std::span(rk.all_k)));
      auto v = transport_->allgather(r, std::as_bytes(own.last(half)), std::as_writable_bytes(std::span(rk.all_v)));
      log_interval(rk.comm_log[0], r, IntervalKind::comm, "comm", "kv_allgather", 0, k.bytes + v.bytes, k.begin_ns,
                   v.end_ns);
      publish(rk, rk.recv_done[0], 1);
      return;
    }
    // This lane's piece is one [K | V] run of a step buffer.
    const std::int64_t at = shape_.piece_offset(l), piece = shape_.piece;
    for (int j = 0; sch.moves(j, members_); ++j) {
      if (const auto reader = last_reader_of_next_buffer(j)) wait_until(rk, [&] { return rk.compute_done > *reader; });
      nvtx::ScopedRange range(nvtx::kRangeTransfer, j + 1);
      auto send = std::as_bytes(std::span<const T>(rk.step_buffer(j).data() + at, piece));
      auto recv = std::as_writable_bytes(std::span<T>(rk.step_buffer(j + 1).data() + at, piece));
      auto span = transport_->exchange(r, j * fwd_comm_threads_ + l, send, peer(sch.receiver(g, l, members_)), recv,
                                       peer(sch.sender(g, l, members_)));
      log_interval(rk.comm_log[l], r, IntervalKind::comm, "comm", "kv_recv", j + 1, span.bytes, span.begin_ns,
                   span.end_ns);
      publish(rk, rk.recv_done[l], j + 1);
    }
  }

  // Step 0 writes the accumulators (every row: the twin overwrites rows no key reaches with O = 0,
  // L = -inf), later steps merge into them, and a step with no active pair is skipped
  // (step_launch.hpp).
  void compute_pass(int r) {
    Rank& rk = ranks_[r];
    const Config& cfg = plan_.config;
    if (opts_.fault == InjectedFault::throw_in_pass && r == 0) throw Error("cpu executor: injected fault in rank 0");
    const int steps = static_cast<int>(rk.launches.size());
    for (int j = 0; j < steps; ++j) {
      if (aborting_) throw Error("cpu executor: aborted");
      const bool gathered = plan_.schedule.gathered;
      // recv_done counts the transfers arrived: the one issued during step t is the (t+1)-th.
      const auto arrival = transfer_read_by_step(plan_.schedule, j, members_);
      const int need = arrival ? *arrival + 1 : 0;
      // Under a head exchange step 0 reads what the all-to-all brought.
      const int exchanged = plan_.exchange.active() ? 1 : 0;
      wait_until(rk, [&] {
        return rk.fwd_exchanged >= exchanged &&
               std::all_of(rk.recv_done.begin(), rk.recv_done.end(), [&](int n) { return n >= need; });
      });
      const StepLaunch& sl = rk.launches[j];
      if (sl.action == StepAction::skip) {
        // No unmasked pair (a causal contiguous ring's later blocks, documents the block does not
        // reach): its block still arrived and travels on; its compute is a marker in the timeline.
        const std::int64_t t = steady_ns();
        log_interval(rk.log, r, IntervalKind::other, "compute", "step_skipped", j, 0, t, t);
        publish(rk, rk.compute_done, j + 1);
        continue;
      }
      nvtx::ScopedRange range(nvtx::kRangeStep, j);
      kref::AttentionBlockParams<T> ap;
      ap.q = rk.q.data();
      if (gathered) {
        ap.k = rk.all_k.data();
        ap.v = rk.all_v.data();
        ap.sk = rows_ * members_;
      } else {
        ap.k = rk.step_buffer(j).data();
        ap.v = ap.k + shape_.v_offset;
        ap.sk = plan_.schedule.key_rows();
      }
      const bool first = sl.action == StepAction::write;
      ap.o = first ? rk.o_acc.data() : rk.o_part.data();
      ap.lse = first ? rk.lse_acc.data() : rk.lse_part.data();
      ap.sq = rows_;
      ap.hq = plan_.exchange.q_heads;
      ap.hkv = plan_.exchange.kv_heads;
      ap.d = cfg.head_dim;
      ap.causal = cfg.causal;
      ap.scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(cfg.head_dim)));
      ap.pairs = sl.pairs;
      ap.cancel = &aborting_;  // one rank's step can be the whole sequence: stop inside it
      const std::int64_t a0 = steady_ns();
      kref::attention_block(ap);
      const std::int64_t a1 = steady_ns();
      log_interval(rk.log, r, IntervalKind::compute, "compute", "attention", j, 0, a0, a1);
      if (!first) {
        kref::merge_partials(kref::MergeParams<T>{rk.o_acc.data(), rk.lse_acc.data(), rk.o_part.data(),
                                                  rk.lse_part.data(), rows_, plan_.exchange.q_heads, cfg.head_dim});
        log_interval(rk.log, r, IntervalKind::compute, "compute", "merge", j, 0, a1, steady_ns());
      }
      publish(rk, rk.compute_done, j + 1);
    }
    // Under a head exchange the forward ends with the all-to-all of O (comm_pass).
    if (!plan_.exchange.active()) rk.forward_end_ns = steady_ns();
  }

  Plan plan_;
  CpuOptions opts_;
  ProcessGroup* group_;
  std::atomic<bool> aborting_{false};
  int c_;
  int members_;                    // the schedule's: c, or the groups of a head exchange
  std::int64_t rows_;              // the attention rows each rank holds
  RankBufferShape shape_;          // every hosted rank's, as all hold equal token counts
  BackwardBufferShape bwd_shape_;  // the same for the backward's buffers, with a backward
  int fwd_comm_threads_ = 1;       // per hosted rank: one per lane of a rotating schedule, one to gather
  int bwd_comm_threads_ = 0;       // per hosted rank, the backward's (cpu_backward.hpp)
  int comm_threads_ = 1;           // the threads each rank starts: the larger of the two
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
  std::int64_t comm = sch.gathered ? 1 : static_cast<std::int64_t>(sch.lanes.size());
  if (backward) comm = std::max<std::int64_t>(comm, backward_comm_threads(*backward));
  return hosted * (1 + comm);
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
