// The MPI job. Clock offsets: rank 0 plays ping-pong with each rank in turn (kRounds rounds, each
// rank 0 time t0 -> peer time tp -> rank 0 time t1) and keeps the round with the shortest round
// trip; the peer's offset is tp - (t0 + t1) / 2, uncertain by at most half that round trip (the
// method of NTP and of Cristian's algorithm). On one host the offsets come out near zero, as they
// should: every process reads the same CLOCK_MONOTONIC.
#include "ring/transport/mpi_world.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>
#include <mpi.h>

#include "ring/transport/mpi_check.hpp"
#include "ring/transport/mpi_group.hpp"
#include "ring/transport/steady_clock.hpp"
#include "ring/transport/transport_mpi.hpp"

namespace rb::ring {
namespace {

constexpr int kRounds = 16;
constexpr int kClockTag = 31000;

class MpiWorld final : public World {
 public:
  MpiWorld(int* argc, char*** argv) {
    int provided = MPI_THREAD_SINGLE;
    RB_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided));
    RB_MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (provided < MPI_THREAD_SERIALIZED) {
      MPI_Finalize();
      throw Error(
          fmt::format("mpi: the library gives thread level {}, ringbench needs MPI_THREAD_SERIALIZED or more "
                      "(each rank's comm thread calls MPI)",
                      provided));
    }
    thread_level_ = provided == MPI_THREAD_MULTIPLE ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SERIALIZED";
    RB_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    RB_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    RB_MPI_CHECK(MPI_Get_library_version(version, &len));
    library_ = std::string(version, static_cast<std::size_t>(len));
    if (auto nl = library_.find_first_of("\n,"); nl != std::string::npos) library_.resize(nl);

    char name[MPI_MAX_PROCESSOR_NAME];
    RB_MPI_CHECK(MPI_Get_processor_name(name, &len));
    hosts_ = allgather_strings(std::string(name, static_cast<std::size_t>(len)));
    MPI_Comm local = MPI_COMM_NULL;
    RB_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local));
    RB_MPI_CHECK(MPI_Comm_size(local, &on_host_));
    RB_MPI_CHECK(MPI_Comm_free(&local));
    measure_clocks();
  }

  ~MpiWorld() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_this_host() const override { return on_host_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  const std::vector<std::int64_t>& clock_offsets_ns() const override { return offsets_; }
  const std::vector<std::int64_t>& clock_rtt_ns() const override { return rtts_; }
  std::string library() const override { return library_ + " (" + thread_level_ + ")"; }

  std::vector<std::string> allgather_strings(const std::string& mine) override {
    const std::int64_t n = static_cast<std::int64_t>(mine.size());
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(size_));
    RB_MPI_CHECK(MPI_Allgather(&n, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD));
    std::vector<int> counts(sizes.size()), displs(sizes.size());
    std::int64_t total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (total + sizes[i] > std::numeric_limits<int>::max()) throw Error("mpi: allgather_strings over 2 GiB");
      counts[i] = static_cast<int>(sizes[i]);
      displs[i] = static_cast<int>(total);
      total += sizes[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    RB_MPI_CHECK(MPI_Allgatherv(mine.data(), static_cast<int>(n), MPI_CHAR, all.data(), counts.data(), displs.data(),
                                MPI_CHAR, MPI_COMM_WORLD));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sizes.size(); ++i) out.push_back(all.substr(displs[i], counts[i]));
    return out;
  }

  std::int64_t min(std::int64_t v) override {
    std::int64_t out = 0;
    RB_MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    return out;
  }

  std::unique_ptr<ProcessGroup> open_group() override {
    return std::make_unique<MpiGroup>(MPI_COMM_WORLD, offsets_[static_cast<std::size_t>(rank_)]);
  }

 private:
  void measure_clocks() {
    offsets_.assign(static_cast<std::size_t>(size_), 0);
    rtts_.assign(static_cast<std::size_t>(size_), 0);
    for (int peer = 1; peer < size_; ++peer) {
      if (rank_ == 0) {
        std::int64_t best_rtt = std::numeric_limits<std::int64_t>::max(), best_offset = 0;
        for (int i = 0; i < kRounds; ++i) {
          const std::int64_t t0 = steady_ns();
          RB_MPI_CHECK(MPI_Send(&t0, 1, MPI_INT64_T, peer, kClockTag, MPI_COMM_WORLD));
          std::int64_t tp = 0;
          RB_MPI_CHECK(MPI_Recv(&tp, 1, MPI_INT64_T, peer, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          const std::int64_t t1 = steady_ns();
          if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            best_offset = tp - (t0 + (t1 - t0) / 2);
          }
        }
        offsets_[static_cast<std::size_t>(peer)] = best_offset;
        rtts_[static_cast<std::size_t>(peer)] = best_rtt;
      } else if (rank_ == peer) {
        for (int i = 0; i < kRounds; ++i) {
          std::int64_t t0 = 0;
          RB_MPI_CHECK(MPI_Recv(&t0, 1, MPI_INT64_T, 0, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          const std::int64_t tp = steady_ns();
          RB_MPI_CHECK(MPI_Send(&tp, 1, MPI_INT64_T, 0, kClockTag, MPI_COMM_WORLD));
        }
      }
    }
    RB_MPI_CHECK(MPI_Bcast(offsets_.data(), size_, MPI_INT64_T, 0, MPI_COMM_WORLD));
    RB_MPI_CHECK(MPI_Bcast(rtts_.data(), size_, MPI_INT64_T, 0, MPI_COMM_WORLD));
  }

  int rank_ = 0, size_ = 1, on_host_ = 1;
  std::string library_, thread_level_;
  std::vector<std::string> hosts_;
  std::vector<std::int64_t> offsets_, rtts_;
};

}  // namespace

std::unique_ptr<KvTransport> make_mpi_transport(ProcessGroup& group, double link_gbps) {
  auto* mpi = dynamic_cast<MpiGroup*>(&group);
  if (!mpi) throw Error("mpi transport: the process group is not an MPI one");
  return std::make_unique<MpiTransport>(*mpi, link_gbps);
}

std::unique_ptr<World> make_mpi_world(int* argc, char*** argv) { return std::make_unique<MpiWorld>(argc, argv); }

}  // namespace rb::ring
