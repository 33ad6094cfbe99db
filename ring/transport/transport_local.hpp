// The `local` transport: ranks are threads of one process and a transfer is a copy from the
// sender's buffer into the receiver's, handed over by rendezvous (like a synchronous send). An
// optional link model paces every receive to a stated bandwidth, so comm-bound regimes can be made
// on purpose: a paced transfer is on the link from its issue (the later of the two sides' posts;
// for a gather, the last rank's) for bytes / bandwidth, and ends then or when its copy ends if that
// is later. So a comm thread that the OS runs late after the issue does not lengthen the transfer.
// Traffic: exactly the bytes of the blocks, nothing on top.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "ring/transport/kv_transport.hpp"

namespace rb::ring {

class LocalTransport final : public KvTransport {
 public:
  // link_gbps = 0: copies run at memory speed.
  LocalTransport(int ranks, double link_gbps);
  TransferSpan exchange(int self, int tag, std::span<const std::byte> send, int dst, std::span<std::byte> recv,
                        int src) override;
  TransferSpan allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) override;
  void abort() override;

 private:
  // A block offered to a receiver, until the receiver has copied it (then it is erased).
  struct Offer {
    const std::byte* data = nullptr;
    std::size_t bytes = 0;
    std::int64_t posted_ns = 0;  // steady clock, when the sender posted it
  };
  using OfferKey = std::tuple<int, int, int>;  // receiver, sender, tag
  // Copies; paced, returns no earlier than issued_ns + the bytes' wire time. Returns the end.
  std::int64_t paced_copy(std::byte* dst, const std::byte* src, std::size_t bytes, std::int64_t issued_ns) const;
  void check_aborted() const;
  std::int64_t barrier();  // returns when the last rank arrived (steady clock)

  int ranks_;
  double link_gbps_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool aborted_ = false;
  std::map<OfferKey, Offer> offers_;
  std::vector<const std::byte*> gather_table_;
  int barrier_arrived_ = 0;
  std::uint64_t barrier_generation_ = 0;
  std::int64_t barrier_released_ns_ = 0;
};

}  // namespace rb::ring
