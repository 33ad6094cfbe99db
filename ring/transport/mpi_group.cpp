// MpiGroup: collectives as non-blocking MPI calls waited on by polling, so that a peer's failure
// notice or the watchdog can end any wait. What an aborted wait leaves pending is dealt with as MPI
// allows: receives are cancelled; sends are freed (MPI_Request_free) and collectives left, with
// their buffers kept alive until the process exits, since MPI may still touch them.
#include "ring/transport/mpi_group.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "ring/transport/mpi_check.hpp"
#include "ring/transport/poll_backoff.hpp"

namespace rb::ring {
namespace {

constexpr int kNoticeTag = 32000;
constexpr std::size_t kNoticeBytes = 1024;

// Storage MPI may still write into after the wait that owned it was abandoned.
void keep_forever(std::shared_ptr<void> p) {
  static std::mutex mu;
  static auto* kept = new std::vector<std::shared_ptr<void>>();  // never freed, on purpose
  std::lock_guard lk(mu);
  kept->push_back(std::move(p));
}

int as_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error(fmt::format("mpi: {} of {} elements exceeds one MPI call's int count", what, n));
  return static_cast<int>(n);
}

}  // namespace

MpiGroup::MpiGroup(MPI_Comm parent, std::int64_t clock_offset_ns)
    : clock_offset_ns_(clock_offset_ns), notice_(kNoticeBytes, '\0') {
  RB_MPI_CHECK(MPI_Comm_dup(parent, &comm_));
  RB_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  RB_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  RB_MPI_CHECK(MPI_Comm_size(comm_, &size_));
  RB_MPI_CHECK(MPI_Irecv(notice_.data(), static_cast<int>(notice_.size()), MPI_CHAR, MPI_ANY_SOURCE, kNoticeTag, comm_,
                         &notice_req_));
}

MpiGroup::~MpiGroup() {
  std::lock_guard lk(mu_);
  // Destructors do not throw: failures here are ignored, the communicator is released regardless.
  if (notice_req_ != MPI_REQUEST_NULL) {
    MPI_Cancel(&notice_req_);
    MPI_Wait(&notice_req_, MPI_STATUS_IGNORE);
  }
  MPI_Comm_free(&comm_);
}

void MpiGroup::check_stop() {
  if (notice_req_ != MPI_REQUEST_NULL) {
    int arrived = 0;
    MPI_Status st;
    RB_MPI_CHECK(MPI_Test(&notice_req_, &arrived, &st));
    if (arrived) {
      notice_req_ = MPI_REQUEST_NULL;
      notice_.back() = '\0';
      aborted_ = true;
      throw PeerFailure(st.MPI_SOURCE, notice_.data());
    }
  }
  if (aborted_) throw Error("mpi: this rank's wait was aborted (watchdog or a failure on this rank)");
}

void MpiGroup::abandon(std::span<MPI_Request> reqs, std::span<const MpiRequestKind> kinds) {
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    switch (kinds[i]) {
      case MpiRequestKind::recv:
        // Either cancelled, or already matched and then it completes: the buffer is free after.
        MPI_Cancel(&reqs[i]);
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
        break;
      case MpiRequestKind::send:
        MPI_Request_free(&reqs[i]);
        left_behind_ = true;
        break;
      case MpiRequestKind::collective:  // may not be freed or cancelled; never completes
        left_behind_ = true;
        break;
    }
  }
}

void MpiGroup::wait(std::span<MPI_Request> reqs, std::span<const MpiRequestKind> kinds) {
  int polls = 0;
  while (true) {
    {
      std::lock_guard lk(mu_);
      int done = 0;
      RB_MPI_CHECK(MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, MPI_STATUSES_IGNORE));
      if (done) return;
      try {
        check_stop();
      } catch (...) {
        abandon(reqs, kinds);
        throw;
      }
    }
    poll_backoff(++polls, /*max_sleep_us=*/200);  // a neighbour's message is usually microseconds away
  }
}

void MpiGroup::collective(const std::function<int(MPI_Request*)>& post,
                          std::initializer_list<std::shared_ptr<void>> buffers, const char* call) {
  MPI_Request r = MPI_REQUEST_NULL;
  {
    std::lock_guard lk(mu_);
    const int rc = post(&r);
    RB_CHECK_API("MPI", rc == MPI_SUCCESS, call, mpi_error_text(rc));
  }
  const MpiRequestKind kind[] = {MpiRequestKind::collective};
  try {
    wait(std::span(&r, 1), kind);
  } catch (...) {
    for (const auto& b : buffers) keep_forever(b);
    throw;
  }
}

void MpiGroup::barrier() {
  collective([&](MPI_Request* r) { return MPI_Ibarrier(comm_, r); }, {}, "MPI_Ibarrier");
}

std::int64_t MpiGroup::reduce_i64(std::int64_t v, MPI_Op op) {
  auto buf = std::make_shared<std::array<std::int64_t, 2>>(std::array<std::int64_t, 2>{v, 0});
  collective([&](MPI_Request* r) { return MPI_Iallreduce(&(*buf)[0], &(*buf)[1], 1, MPI_INT64_T, op, comm_, r); },
             {buf}, "MPI_Iallreduce");
  return (*buf)[1];
}

std::int64_t MpiGroup::max(std::int64_t v) { return reduce_i64(v, MPI_MAX); }
std::int64_t MpiGroup::min(std::int64_t v) { return reduce_i64(v, MPI_MIN); }

void MpiGroup::sum(std::span<double> v) {
  auto buf = std::make_shared<std::vector<double>>(v.begin(), v.end());
  const int n = as_count(buf->size(), "sum");
  collective(
      [&](MPI_Request* r) { return MPI_Iallreduce(MPI_IN_PLACE, buf->data(), n, MPI_DOUBLE, MPI_SUM, comm_, r); },
      {buf}, "MPI_Iallreduce");
  std::copy(buf->begin(), buf->end(), v.begin());
}

std::vector<std::byte> MpiGroup::allgather(std::span<const std::byte> mine, std::vector<std::int64_t>& sizes) {
  auto mine_n = std::make_shared<std::int64_t>(static_cast<std::int64_t>(mine.size()));
  auto all_n = std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(size_));
  collective(
      [&](MPI_Request* r) {
        return MPI_Iallgather(mine_n.get(), 1, MPI_INT64_T, all_n->data(), 1, MPI_INT64_T, comm_, r);
      },
      {mine_n, all_n}, "MPI_Iallgather");
  sizes = *all_n;
  std::vector<int> counts(sizes.size()), displs(sizes.size());
  std::int64_t total = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    counts[i] = as_count(static_cast<std::size_t>(sizes[i]), "allgather part");
    displs[i] = as_count(static_cast<std::size_t>(total), "allgather offset");
    total += sizes[i];
  }
  auto send = std::make_shared<std::vector<std::byte>>(mine.begin(), mine.end());
  auto all = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(total));
  collective(
      [&](MPI_Request* r) {
        return MPI_Iallgatherv(send->data(), counts[static_cast<std::size_t>(rank_)], MPI_BYTE, all->data(),
                               counts.data(), displs.data(), MPI_BYTE, comm_, r);
      },
      {send, all}, "MPI_Iallgatherv");
  return std::move(*all);
}

void MpiGroup::notify_failure(const std::string& reason) {
  std::lock_guard lk(mu_);
  if (notified_) return;
  notified_ = true;
  aborted_ = true;
  auto text = std::make_shared<std::vector<char>>(kNoticeBytes, '\0');
  std::memcpy(text->data(), reason.data(), std::min(reason.size(), kNoticeBytes - 1));
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    MPI_Request r = MPI_REQUEST_NULL;
    // A peer that already left this configuration never receives it; the send is freed, not waited.
    if (MPI_Isend(text->data(), static_cast<int>(kNoticeBytes), MPI_CHAR, peer, kNoticeTag, comm_, &r) == MPI_SUCCESS)
      MPI_Request_free(&r);
  }
  keep_forever(text);
  left_behind_ = true;
}

}  // namespace rb::ring
