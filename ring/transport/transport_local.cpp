// The local transport's rendezvous, gather barrier and link pacing.
#include "ring/transport/transport_local.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {

LocalTransport::LocalTransport(int ranks, double link_gbps)
    : ranks_(ranks), link_gbps_(link_gbps), gather_table_(ranks, nullptr) {}

void LocalTransport::check_aborted() const {
  if (aborted_) throw Error("local transport: aborted after another rank failed");
}

void LocalTransport::abort() {
  std::lock_guard lk(mu_);
  aborted_ = true;
  cv_.notify_all();
}

std::int64_t LocalTransport::paced_copy(std::byte* dst, const std::byte* src, std::size_t bytes,
                                        std::int64_t issued_ns) const {
  std::memcpy(dst, src, bytes);
  const std::int64_t copied = steady_ns();
  if (link_gbps_ <= 0) return copied;
  const std::int64_t due = issued_ns + static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 / link_gbps_);
  if (copied < due) std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(due)));
  return std::max(copied, due);
}

// A rendezvous per (receiver, sender, tag): the sender posts its offer, the receiver copies it and
// erases it, and the sender returns once its offer is gone (its buffer may then be reused).
TransferSpan LocalTransport::exchange(int self, int tag, std::span<const std::byte> send, int dst,
                                      std::span<std::byte> recv, int src) {
  TransferSpan span;
  const OfferKey mine{dst, self, tag}, theirs{self, src, tag};
  std::int64_t posted = 0;
  {
    std::lock_guard lk(mu_);
    check_aborted();
    posted = steady_ns();  // under the lock: when the offer becomes visible
    if (!offers_.emplace(mine, Offer{send.data(), send.size(), posted}).second)
      throw Error(fmt::format("local transport: rank {} offered tag {} to rank {} twice", self, tag, dst));
    cv_.notify_all();
  }
  Offer offer;
  {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return aborted_ || offers_.contains(theirs); });
    check_aborted();
    offer = offers_.at(theirs);
  }
  if (offer.bytes != recv.size())
    throw Error(fmt::format("local transport: rank {} tag {} expected {} bytes from rank {}, got {}", self, tag,
                            recv.size(), src, offer.bytes));
  // Paced: the transfer is on the link from its issue, when both sides had posted, not from when
  // this thread got to copy it; unpaced, it is the copy.
  const std::int64_t issued = std::max(posted, offer.posted_ns);
  span.begin_ns = link_gbps_ > 0 ? issued : steady_ns();
  span.end_ns = paced_copy(recv.data(), offer.data, offer.bytes, issued);
  span.bytes = static_cast<std::int64_t>(offer.bytes);
  std::unique_lock lk(mu_);
  offers_.erase(theirs);
  cv_.notify_all();
  cv_.wait(lk, [&] { return aborted_ || !offers_.contains(mine); });
  check_aborted();
  return span;
}

std::int64_t LocalTransport::barrier() {
  std::unique_lock lk(mu_);
  check_aborted();
  const std::uint64_t gen = barrier_generation_;
  if (++barrier_arrived_ == ranks_) {
    barrier_arrived_ = 0;
    ++barrier_generation_;
    barrier_released_ns_ = steady_ns();
    cv_.notify_all();
    return barrier_released_ns_;
  }
  cv_.wait(lk, [&] { return aborted_ || barrier_generation_ != gen; });
  check_aborted();
  // Still this barrier's: no later one can complete before this rank arrives at it.
  return barrier_released_ns_;
}

TransferSpan LocalTransport::allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) {
  const std::size_t block = mine.size();
  if (all.size() != block * static_cast<std::size_t>(ranks_))
    throw Error(fmt::format("local transport: allgather buffer of {} bytes for {} blocks of {}", all.size(), ranks_,
                            block));
  {
    std::lock_guard lk(mu_);
    gather_table_[self] = mine.data();
  }
  // Every rank has published its block; paced, the blocks follow one another on the link from the
  // moment the last rank published (the gather's issue).
  const std::int64_t issued = barrier();
  TransferSpan span;
  span.begin_ns = link_gbps_ > 0 ? issued : steady_ns();
  span.end_ns = span.begin_ns;
  for (int r = 0; r < ranks_; ++r) {
    if (r == self) continue;
    span.end_ns = paced_copy(all.data() + block * r, gather_table_[r], block, span.end_ns);
    span.bytes += static_cast<std::int64_t>(block);
  }
  (void)barrier();  // every rank has read every block: sources may be reused, the table republished
  return span;
}

}  // namespace rb::ring
