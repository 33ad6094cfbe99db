// The `mpi` transport (see transport_mpi.hpp).
#include "ring/transport/transport_mpi.hpp"

#include <climits>
#include <thread>

#include <fmt/format.h>

#include "ring/transport/mpi_check.hpp"
#include "ring/transport/steady_clock.hpp"

namespace rb::ring {
namespace {

// A K/V transfer with exchange tag t travels with MPI tag 1 + t (the failure notice and the clock
// ping-pong use tags above 30000); passes never overlap, so tags need not differ between passes.
int kv_tag(int tag) { return 1 + tag % 30000; }

int byte_count(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error(fmt::format("mpi transport: a K/V block of {} bytes exceeds one MPI message's int count", n));
  return static_cast<int>(n);
}

}  // namespace

void MpiTransport::pace(TransferSpan& span) const {
  if (link_gbps_ <= 0) return;
  const auto due = span.begin_ns + static_cast<std::int64_t>(static_cast<double>(span.bytes) * 8.0 / link_gbps_);
  while (steady_ns() < due) std::this_thread::sleep_for(std::chrono::nanoseconds(due - steady_ns()));
  span.end_ns = steady_ns();
}

TransferSpan MpiTransport::exchange(int self, int tag, std::span<const std::byte> send, int dst,
                                    std::span<std::byte> recv, int src) {
  if (self != group_.rank()) throw Error(fmt::format("mpi transport: rank {} runs in process {}", self, group_.rank()));
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  const MpiRequestKind kinds[2] = {MpiRequestKind::recv, MpiRequestKind::send};
  TransferSpan span;
  span.bytes = static_cast<std::int64_t>(recv.size());
  span.begin_ns = steady_ns();
  {
    auto lk = group_.lock();
    RB_MPI_CHECK(MPI_Irecv(recv.data(), byte_count(recv.size()), MPI_BYTE, src, kv_tag(tag), group_.comm(), &reqs[0]));
    RB_MPI_CHECK(MPI_Isend(send.data(), byte_count(send.size()), MPI_BYTE, dst, kv_tag(tag), group_.comm(), &reqs[1]));
  }
  group_.wait(reqs, kinds);
  span.end_ns = steady_ns();
  pace(span);
  return span;
}

TransferSpan MpiTransport::allgather(int self, std::span<const std::byte> mine, std::span<std::byte> all) {
  const int n = group_.size();
  if (all.size() != mine.size() * static_cast<std::size_t>(n))
    throw Error(fmt::format("mpi transport: gather buffer of {} bytes for {} ranks of {}", all.size(), n, mine.size()));
  MPI_Request req = MPI_REQUEST_NULL;
  const MpiRequestKind kind[1] = {MpiRequestKind::collective};
  TransferSpan span;
  span.bytes = static_cast<std::int64_t>(mine.size()) * (n - 1);
  span.begin_ns = steady_ns();
  (void)self;
  {
    auto lk = group_.lock();
    RB_MPI_CHECK(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), byte_count(mine.size()), MPI_BYTE,
                                group_.comm(), &req));
  }
  group_.wait(std::span(&req, 1), kind);
  span.end_ns = steady_ns();
  pace(span);
  return span;
}

}  // namespace rb::ring
