// The local transport's rendezvous, gather barrier and link pacing.
#include "ring/transport_local.hpp"

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "common/error.hpp"
#include "ring/steady_clock.hpp"

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

void LocalTransport::paced_copy(std::byte* dst, const std::byte* src, std::size_t bytes, TransferSpan& span) const {
  span.begin_ns = steady_ns();
  std::memcpy(dst, src, bytes);
  if (link_gbps_ > 0) {
    const auto wire_ns = static_cast<std::int64_t>(static_cast<double>(bytes) * 8.0 / link_gbps_);
    const auto until = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(span.begin_ns + wire_ns));
    std::this_thread::sleep_until(until);
  }
  span.end_ns = steady_ns();
  span.bytes += static_cast<std::int64_t>(bytes);
}

// A rendezvous per (receiver, sender, tag): the sender posts its offer, the receiver copies it and
// erases it, and the sender returns once its offer is gone (its buffer may then be reused).
TransferSpan LocalTransport::exchange(int self, int tag, std::span<const std::byte> send, int dst,
                                      std::span<std::byte> recv, int src) {
  TransferSpan span;
  const OfferKey mine{dst, self, tag}, theirs{self, src, tag};
  {
    std::lock_guard lk(mu_);
    check_aborted();
    if (!offers_.emplace(mine, Offer{send.data(), send.size()}).second)
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
  paced_copy(recv.data(), offer.data, offer.bytes, span);
  std::unique_lock lk(mu_);
  offers_.erase(theirs);
  cv_.notify_all();
  cv_.wait(lk, [&] { return aborted_ || !offers_.contains(mine); });
  check_aborted();
  return span;
}

void LocalTransport::barrier() {
  std::unique_lock lk(mu_);
  check_aborted();
  const std::uint64_t gen = barrier_generation_;
  if (++barrier_arrived_ == ranks_) {
    barrier_arrived_ = 0;
    ++barrier_generation_;
    cv_.notify_all();
    return;
  }
  cv_.wait(lk, [&] { return aborted_ || barrier_generation_ != gen; });
  check_aborted();
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
  barrier();  // every rank has published its block
  TransferSpan span;
  const std::int64_t begin = steady_ns();
  for (int r = 0; r < ranks_; ++r) {
    if (r == self) continue;
    paced_copy(all.data() + block * r, gather_table_[r], block, span);
  }
  span.begin_ns = begin;
  if (ranks_ == 1) span.end_ns = begin;
  barrier();  // every rank has read every block: sources may be reused, the table republished
  return span;
}

}  // namespace rb::ring
