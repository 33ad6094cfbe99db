// The `mpi` transport: one rank per process; a ring step is MPI_Irecv from the predecessor and
// MPI_Isend to the successor, waited on by the rank's comm thread while its compute thread works,
// and the allgather variant is MPI_Iallgather in place. Traffic: the blocks' bytes, as the local
// transport; what MPI adds (headers, the rendezvous handshake of large messages) is not counted.
// The recorded span runs from posting to completion, so unlike the local transport's it includes
// any wait for the peer to post its side.
#pragma once

#include "ring/transport/kv_transport.hpp"
#include "ring/transport/mpi_group.hpp"

namespace rb::ring {

class MpiTransport final : public KvTransport {
 public:
  // link_gbps > 0: a transfer that finishes early is held until bytes / link has passed, so the
  // link model means the same as on the local transport.
  MpiTransport(MpiGroup& group, double link_gbps) : group_(group), link_gbps_(link_gbps) {}
  TransferSpan exchange(int self, int tag, std::span<const std::byte> send, int dst, std::span<std::byte> recv,
                        int src) override;
  TransferSpan allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) override;
  void abort() override { group_.abort(); }

 private:
  void pace(TransferSpan& span) const;

  MpiGroup& group_;
  double link_gbps_;
};

}  // namespace rb::ring
