// The processes that together host one configuration's c ranks (docs/design.md §1, §5). The local
// transport needs none (every rank is a thread of this process); the mpi and nccl transports run
// one rank per process and use a group to start passes together, agree on the pass time, and share
// outputs and timelines so every process reaches the same decisions. Every wait in a group can be
// ended by abort() (the watchdog, a local failure) or by a peer's failure notice, so a failing
// rank never leaves the others hanging.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace rb::ring {

// A wait ended because another process of the group failed; the reason is the peer's. The sweep
// records the peer's failure as the configuration's cause, not this one.
class PeerFailure : public Error {
 public:
  PeerFailure(int peer, const std::string& reason);
  int peer() const { return peer_; }

 private:
  int peer_;
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;  // this process, 0..size-1; it hosts ring rank rank()
  virtual int size() const = 0;
  virtual void barrier() = 0;
  virtual std::int64_t max(std::int64_t v) = 0;
  virtual std::int64_t min(std::int64_t v) = 0;
  // Elementwise sum over processes, in place; the result on every process.
  virtual void sum(std::span<double> v) = 0;
  // Every process's bytes, concatenated in rank order, on every process; `sizes` gets each part's.
  virtual std::vector<std::byte> allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& sizes) = 0;
  // This process's steady clock minus rank 0's (estimated once per job, see docs/distributed.md).
  virtual std::int64_t clock_offset_ns() const = 0;
  // Makes every current and later wait throw; safe from any thread (the watchdog's).
  virtual void abort() = 0;
  // Tells the peers this process failed, so their waits end with PeerFailure(reason).
  virtual void notify_failure(const std::string& reason) = 0;
  // True once an aborted wait left a send or a collective pending: its buffers must then outlive
  // the owner (they are kept until the process exits; see docs/distributed.md).
  virtual bool left_requests_behind() const = 0;
};

// The whole job: every process of one `ringbench run`. A fresh group per configuration keeps a
// failed configuration's stray messages away from the next one.
class World {
 public:
  virtual ~World() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual int ranks_on_this_host() const = 0;
  virtual const std::vector<std::string>& hosts() const = 0;              // per rank
  virtual const std::vector<std::int64_t>& clock_offsets_ns() const = 0;  // per rank, against rank 0
  virtual const std::vector<std::int64_t>& clock_rtt_ns() const = 0;      // the ping-pong each offset came from
  virtual std::string library() const = 0;                                // the MPI library and its thread level
  // Blocking, on every process: each process's string, in rank order.
  virtual std::vector<std::string> allgather_strings(const std::string& mine) = 0;
  virtual std::int64_t min(std::int64_t v) = 0;
  // Collective: a fresh group of all processes for one configuration.
  virtual std::unique_ptr<ProcessGroup> open_group() = 0;
};

// True when the environment shows an MPI launcher started this process (mpirun, mpiexec, srun with
// PMI or PMIx); RINGBENCH_MPI=0 or 1 overrides. Needs no MPI, so a build without it can say why.
bool launched_by_mpi();

}  // namespace rb::ring
