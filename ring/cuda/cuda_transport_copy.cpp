// Device and peer copies between the ranks of one process, paced by the link model (see
// cuda_transport_copy.hpp). Each copy stamps when it executed into a per-rank slot
// [step][copy of that step's transfer], read back after a recorded pass.
#include "ring/cuda/cuda_transport_copy.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/error.hpp"
#include "kernels/cuda_check.hpp"
#include "kernels/device_buffer.hpp"
#include "kernels/exec_stamp.hpp"
#include "kernels/link_pace.cuh"
#include "kernels/stamped_copy.cuh"
#include "ring/cuda/cuda_devices.hpp"
#include "ring/cuda/rank_placement.hpp"

namespace rb::ring {
namespace {

class CopyTransport final : public CudaTransport {
 public:
  void connect(const Plan& plan, std::span<CudaRank> ranks, std::span<const int> hosted) override {
    plan_ = &plan;
    c_ = plan.config.cp;
    ranks_ = ranks;
    std::vector<int> placement;
    for (int r : hosted) placement.push_back(ranks[r].device);
    devices_ = devices_used(placement);
    enable_peer_access(devices_);
    stamps_.resize(ranks.size());
    host_stamps_.resize(ranks.size());
    const auto slots = static_cast<std::size_t>(steps() * copies_per_transfer());
    for (int r : hosted) {
      use_device(ranks[r].device);
      stamps_[r] = kernels::DeviceBuffer<kernels::ExecStamp>(slots);
      host_stamps_[r].resize(slots);
      hosted_.push_back(r);
    }
  }

  // A true ring per lane: forward what the lane's sender holds at step j, once it has arrived
  // there, and only after the lane's receiver has finished reading our buffer that this copy
  // overwrites. Copies within one process carry no such ordering of their own.
  void await_peers(std::span<CudaRank> ranks, int r, int j) override {
    const cudaStream_t s = ranks[r].comm.get();
    const KvSchedule& sch = plan_->schedule;
    for (int l = 0; l < lanes(); ++l) {
      if (j >= 1) RB_CUDA_CHECK(cudaStreamWaitEvent(s, ranks[sch.sender(r, l, c_)].ev[j - 1].recv_done.get(), 0));
      if (j >= 2) RB_CUDA_CHECK(cudaStreamWaitEvent(s, ranks[sch.receiver(r, l, c_)].ev[j - 1].recv_done.get(), 0));
    }
  }

  void rotate(std::span<CudaRank> ranks, int r, int j, bool concurrent, const EnqueueContext& ctx) override {
    CudaRank& rk = ranks[r];
    const std::int64_t piece_bytes = rk.piece_elems() * static_cast<std::int64_t>(sizeof(bf16));
    for (int l = 0; l < lanes(); ++l) {
      const std::int64_t at = rk.piece_offset(l);
      // Concurrent: from the sender's step buffer. Alone on the GPU: the same bytes straight from
      // the piece's origin rank, whose own block never changes.
      const CudaRank& from = ranks[source(r, l, j, concurrent)];
      const bf16* src = (concurrent ? from.block(j) : from.own.get()) + at;
      copy(rk.block(j + 1) + at, src, from.device, piece_bytes, rk, j + 1, j * copies_per_transfer() + l, "kv_recv",
           ctx);
    }
  }

  void gather(std::span<CudaRank> ranks, int r, const EnqueueContext& ctx) override {
    CudaRank& rk = ranks[r];
    const std::int64_t half = plan_->ranks[r].tokens * rk.row_elems();  // (S/c, Hkv, D): one rank's K or V
    int slot = 0;
    for (int src = 0; src < c_; ++src) {
      if (src == r) continue;
      const bf16* own = ranks[src].own.get();
      const int from = ranks[src].device;
      copy(rk.all_k.get() + half * src, own, from, half * 2, rk, 0, slot++, "kv_allgather", ctx);
      copy(rk.all_v.get() + half * src, own + half, from, half * 2, rk, 0, slot++, "kv_allgather", ctx);
    }
  }

  // Every stamp back to "never ran" (exec_stamp.hpp), from the host and finished before the launch,
  // so the pass itself holds no extra node and the stamps hold its copies only.
  void before_pass() override {
    for (int r : hosted_) {
      use_device(ranks_[r].device);
      RB_CUDA_CHECK(cudaMemset(stamps_[r].get(), 0, stamps_[r].bytes()));
    }
    synchronize_devices(devices_);  // a device-memory cudaMemset may return before it has run
  }

  void after_pass(bool record) override {
    if (!record) return;
    for (int r : hosted_) {
      use_device(ranks_[r].device);
      RB_CUDA_CHECK(cudaMemcpy(host_stamps_[r].data(), stamps_[r].get(), stamps_[r].bytes(), cudaMemcpyDeviceToHost));
    }
  }

  void executed(int r, int j, bool concurrent, const Interval& in_flight, std::vector<Interval>& out) const override {
    if (!stamped(r, j, concurrent)) return;
    const auto n = static_cast<std::size_t>(copies_per_transfer());
    const auto stamps = std::span(host_stamps_[r]).subspan(static_cast<std::size_t>(j) * n, n);
    const auto windows = kernels::place_exec_windows(stamps, in_flight.begin_ns, in_flight.end_ns);
    if (!windows) throw Error(fmt::format("cuda executor: rank {} step {}: a copy left no stamp", r, j));
    const std::int64_t per_copy = in_flight.bytes / static_cast<std::int64_t>(n);
    for (const auto& w : *windows)
      out.push_back(Interval{r, IntervalKind::comm, "comm", in_flight.name, in_flight.step, per_copy, w.begin_ns,
                             w.end_ns});
  }

  // Copies run to completion once enqueued: the executor's wait is what abort() ends.
  void abort() noexcept override {}

 private:
  int lanes() const { return static_cast<int>(plan_->schedule.lanes.size()); }
  int steps() const { return static_cast<int>(plan_->ranks.at(0).steps.size()); }
  // Copies per transfer, and so stamps per step: one [K | V] piece per lane (rotating), or K and V
  // from every other rank (gathered, at step 0).
  int copies_per_transfer() const { return plan_->schedule.gathered ? std::max(2 * (c_ - 1), 1) : lanes(); }
  // The rank whose buffer lane l's piece for step j+1 is copied from.
  int source(int r, int l, int j, bool concurrent) const {
    const KvSchedule& sch = plan_->schedule;
    return concurrent ? sch.sender(r, l, c_) : sch.origin(r, l, j + 1, c_);
  }

  // A copy into rank rk's buffer from a buffer on `src_device`, stamped into slot `slot`: a stamped
  // copy kernel on one GPU, a peer copy on the copy engines between two (only a zero-byte stamped
  // copy marks its start then, for the link model to pace from; its stamp is not read).
  void copy(void* dst, const void* src, int src_device, std::int64_t bytes, CudaRank& rk, int step, int slot,
            const char* name, const EnqueueContext& ctx) {
    const cudaStream_t s = rk.comm.get();
    const std::int64_t pace = kernels::link_ns(bytes, plan_->config.link_gbps);
    kernels::ExecStamp* stamp = stamps_[rk.rank].get() + slot;
    if (src_device == rk.device) {
      kernels::stamped_copy(kernels::StampedCopyParams{dst, src, bytes, stamp}, s);
    } else {
      if (pace > 0) kernels::stamped_copy(kernels::StampedCopyParams{nullptr, nullptr, 0, stamp}, s);
      // A plain copy between unified addresses, which stream capture records as a memcpy node; the
      // runtime sees both devices from the pointers (peer access is enabled in connect()).
      RB_CUDA_CHECK(cudaMemcpyAsync(dst, src, static_cast<std::size_t>(bytes), cudaMemcpyDefault, s));
    }
    ctx.label(s, rk.rank, step, IntervalKind::comm, "comm", name);
    if (pace > 0) {
      kernels::link_pace(stamp, pace, s);
      ctx.label(s, rk.rank, step, IntervalKind::comm, "comm", "link_pace");
    }
  }

  // Whether every copy of rank r's transfer at step j is a stamped copy (all from r's own device).
  bool stamped(int r, int j, bool concurrent) const {
    const int device = ranks_[r].device;
    if (plan_->schedule.gathered) {
      for (int src = 0; src < c_; ++src)
        if (src != r && ranks_[src].device != device) return false;
      return true;
    }
    for (int l = 0; l < lanes(); ++l)
      if (ranks_[source(r, l, j, concurrent)].device != device) return false;
    return true;
  }

  const Plan* plan_ = nullptr;
  int c_ = 0;
  std::span<CudaRank> ranks_;
  std::vector<int> hosted_, devices_;
  std::vector<kernels::DeviceBuffer<kernels::ExecStamp>> stamps_;  // by rank; on its device
  std::vector<std::vector<kernels::ExecStamp>> host_stamps_;       // read back after a recorded pass
};

}  // namespace

std::unique_ptr<CudaTransport> make_copy_transport() { return std::make_unique<CopyTransport>(); }

}  // namespace rb::ring
