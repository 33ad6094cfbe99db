// How K/V reach a rank's step buffers on the CUDA backend (docs/design.md §1, §7). There is one
// CUDA executor (ring/cuda/executor_cuda.cpp): it owns the ranks this process hosts (ring/cuda/cuda_rank.hpp),
// enqueues each step's attention and merge on a rank's compute stream, records the events around
// each transfer and orders the streams. What moves the bytes on the comm stream is a transport,
// each in its own file with its traffic formula, as KvTransport is for the CPU backend:
// - ring/cuda/cuda_transport_copy.hpp: every rank in this process, device-to-device copies on one GPU,
//   peer copies between GPUs, and the paced link model;
// - ring/cuda/cuda_transport_nccl.hpp: one rank per process, NCCL send/recv round the ring or an
//   all-gather.
// Built only with RINGBENCH_HAVE_CUDA.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "common/timeline.hpp"
#include "ring/cuda/cuda_rank.hpp"
#include "ring/cuda/executor_cuda.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

// `ranks` holds an entry per ring rank, in rank order; only the hosted ones are set up (the others
// live in other processes). Every enqueue goes to the current device, which the executor has made
// rank r's.
class CudaTransport {
 public:
  virtual ~CudaTransport() = default;

  // Once the hosted ranks are set up and before the first pass: whatever links the transport needs
  // (peer access, a communicator). Collective where the transport spans processes. The plan and the
  // ranks are the executor's, and outlive the transport's use of them.
  virtual void connect(const Plan& plan, std::span<CudaRank> ranks, std::span<const int> hosted) = 0;

  // Rotating schedules, every rank's pass at once: whatever ordering against other ranks the
  // transfer of step j needs and the transport does not carry itself, enqueued on rank r's comm
  // stream before the event that marks the transfer's start (copies within one process wait for
  // the sender to hold the piece and the receiver to be done with the buffer they overwrite).
  virtual void await_peers(std::span<CudaRank> /*ranks*/, int /*r*/, int /*j*/) {}
  // Rotating schedules: enqueues on rank r's comm stream every lane's piece of step j+1 into
  // ranks[r].block(j + 1), the buffer step j-1 has finished reading. `concurrent`: every rank's
  // pass runs at once, so the pieces come from the lane's sender as the ring forwards them;
  // otherwise rank r runs alone and the same bytes may come from the pieces' origin ranks.
  virtual void rotate(std::span<CudaRank> ranks, int r, int j, bool concurrent, const EnqueueContext& ctx) = 0;
  // Gathered schedules: enqueues on rank r's comm stream every other rank's K and V into its
  // all_k and all_v (at step 0; its own slot is already in place).
  virtual void gather(std::span<CudaRank> ranks, int r, const EnqueueContext& ctx) = 0;

  // Around each launched pass: before it is enqueued or launched, and once it has finished, when
  // `record` says its timeline will be read.
  virtual void before_pass() {}
  virtual void after_pass(bool /*record*/) {}
  // The intervals in which transfer (r, j) moved data, appended to `out`, where the transport sees
  // them; `in_flight` is the executor's interval between the events around it, relative to the
  // same reference. Transports that cannot see the data move append nothing.
  virtual void executed(int /*r*/, int /*j*/, bool /*concurrent*/, const Interval& /*in_flight*/,
                        std::vector<Interval>& /*out*/) const {}

  // A capture is about to record the transport's work into a graph that outlives this call.
  virtual void will_capture() {}
  // From any thread (the watchdog's): transfers waiting on a peer stop, or fail soon.
  virtual void abort() noexcept = 0;
  // Polled while the host waits for a pass: throws when the transport knows that the pass cannot
  // finish (a peer died, a link broke).
  virtual void check() {}
  // Releases the links, after every graph that captured the transport's work has been destroyed;
  // `abort` when a pass may still be in flight, so nothing waits on a peer. Never throws.
  virtual void close(bool /*abort*/) noexcept {}
};

// The one CUDA executor over `transport`. group == nullptr: this process hosts every rank (the copy
// transport). Otherwise it hosts ring rank group->rank() on its launcher-assigned device
// (ring/cuda/rank_placement.hpp), every rank runs at once (opts.mode is concurrent), and run_pass and
// output_rows are collective, as for make_cpu_executor over mpi. The group must outlive the executor.
// The configuration is not checked against ring/executor/backend_support.hpp here: make_cuda_executor checks
// it for its callers, and the sweep has checked it before make_nccl_executor.
std::unique_ptr<CudaExecutor> make_cuda_executor(const Plan& plan, const CudaOptions& opts, ProcessGroup* group,
                                                 std::unique_ptr<CudaTransport> transport);

}  // namespace rb::ring
