// ProcessGroup over MPI: a communicator duplicated from the job's for one configuration, with a
// receive posted for peers' failure notices. Every wait polls its requests (MPI_Testall) together
// with the notice and the local abort flag, backing off from yields to short sleeps so polling
// ranks leave the cores to computing ones on an oversubscribed node.
#pragma once

#include <atomic>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <mpi.h>

#include "ring/transport/process_group.hpp"

namespace rb::ring {

// What a pending request is, for what an aborted wait may do with it.
enum class MpiRequestKind { recv, send, collective };

class MpiGroup final : public ProcessGroup {
 public:
  // Collective over `parent`.
  MpiGroup(MPI_Comm parent, std::int64_t clock_offset_ns);
  ~MpiGroup() override;
  MpiGroup(const MpiGroup&) = delete;
  MpiGroup& operator=(const MpiGroup&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override;
  std::int64_t max(std::int64_t v) override;
  std::int64_t min(std::int64_t v) override;
  void sum(std::span<double> v) override;
  std::vector<std::byte> allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& sizes) override;
  std::int64_t clock_offset_ns() const override { return clock_offset_ns_; }
  void abort() override { aborted_ = true; }
  void notify_failure(const std::string& reason) override;
  bool left_requests_behind() const override { return left_behind_; }

  // For the transport: post requests on comm() while holding lock(), then wait for all of them.
  // On abort, receives are cancelled, sends freed and collectives left pending (MPI allows no more).
  MPI_Comm comm() const { return comm_; }
  std::unique_lock<std::mutex> lock() { return std::unique_lock(mu_); }
  void wait(std::span<MPI_Request> reqs, std::span<const MpiRequestKind> kinds);

 private:
  // Posts one non-blocking collective under the lock and waits for it; if the wait is abandoned,
  // `buffers` (everything the collective reads or writes) are kept until the process exits.
  void collective(const std::function<int(MPI_Request*)>& post, std::initializer_list<std::shared_ptr<void>> buffers,
                  const char* call);
  std::int64_t reduce_i64(std::int64_t v, MPI_Op op);
  void check_stop();  // throws PeerFailure or Error; caller holds mu_
  void abandon(std::span<MPI_Request> reqs, std::span<const MpiRequestKind> kinds);

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::int64_t clock_offset_ns_ = 0;
  std::mutex mu_;  // one thread in MPI at a time for this group
  std::atomic<bool> aborted_{false};
  bool left_behind_ = false;
  bool notified_ = false;
  MPI_Request notice_req_ = MPI_REQUEST_NULL;
  std::vector<char> notice_;
};

}  // namespace rb::ring
