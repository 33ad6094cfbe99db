// How K/V blocks move between ranks (docs/design.md §1). Each transport implements this small interface in
// its own file; the executor's comm threads call it, so transfers overlap compute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rb::ring {

struct TransferSpan {
  std::int64_t begin_ns = 0;  // steady clock
  std::int64_t end_ns = 0;
  std::int64_t bytes = 0;
};

class KvTransport {
 public:
  virtual ~KvTransport() = default;
  // One transfer of a ring step for rank `self`: send `send` to `dst` and receive `recv` from `src`;
  // returns when both are complete. `tag` tells apart the transfers of one pass (a step moves one
  // piece per lane of the schedule: tag = step · lanes + lane), so several may be between the same
  // two ranks. The span is the receive's data movement (not the wait for the peer).
  virtual TransferSpan exchange(int self, int tag, std::span<const std::byte> send, int dst, std::span<std::byte> recv,
                                int src) = 0;
  // Gather: `all` holds one block per rank, in rank order, each the size of `mine`; block `self`
  // is already in place. Returns the span of this rank's receives.
  virtual TransferSpan allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) = 0;
  // Wakes every waiting rank with an error, after one rank failed.
  virtual void abort() = 0;
};

}  // namespace rb::ring
