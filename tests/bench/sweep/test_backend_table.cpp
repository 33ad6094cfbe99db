// The backend × transport table (bench/sweep/backend_table.hpp): a row for every pair, what each
// needs of the build, which are distributed, and the check that refuses a configuration with the
// same field, value and rule as before the table (the CLI tests and users' scripts read them).
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bench/sweep/backend.hpp"
#include "bench/sweep/backend_table.hpp"
#include "common/error.hpp"
#include "common/transport.hpp"
#include "ring/plan/plan.hpp"

namespace rb::bench {
namespace {

constexpr Backend kBackends[] = {Backend::cpu, Backend::cuda};
constexpr Transport kTransports[] = {Transport::local, Transport::mpi, Transport::nccl};

// An MPI job of `size` processes on one host, as check_backend sees it; nothing collective is run.
class FakeWorld final : public ring::World {
 public:
  explicit FakeWorld(int size) : size_(size), hosts_(size, "host"), zeros_(size, 0) {}
  int rank() const override { return 0; }
  int size() const override { return size_; }
  int ranks_on_this_host() const override { return size_; }
  const std::vector<std::string>& hosts() const override { return hosts_; }
  const std::vector<std::int64_t>& clock_offsets_ns() const override { return zeros_; }
  const std::vector<std::int64_t>& clock_rtt_ns() const override { return zeros_; }
  std::string library() const override { return "fake"; }
  std::vector<std::string> allgather_strings(const std::string& mine) override { return {mine}; }
  std::int64_t min(std::int64_t v) override { return v; }
  std::unique_ptr<ring::ProcessGroup> open_group() override { throw std::logic_error("no groups in this test"); }

 private:
  int size_;
  std::vector<std::string> hosts_;
  std::vector<std::int64_t> zeros_;
};

Config config(Backend b, Transport t, int cp = 2) {
  Config c;
  c.seq = 256;
  c.cp = cp;
  c.heads = 2;
  c.kv_heads = 1;
  c.backend = b;
  c.transport = t;
  c.dtype = b == Backend::cuda ? DType::bfloat16 : DType::float32;
  c.head_dim = 64;
  return c;
}

TEST(BackendTable, EveryPairHasItsRowInEnumOrder) {
  ASSERT_EQ(backend_table().size(), std::size(kBackends) * std::size(kTransports));
  std::size_t i = 0;
  for (const Backend b : kBackends)
    for (const Transport t : kTransports) {
      const BackendTransport& row = pair_of(b, t);
      EXPECT_EQ(row.backend, b);
      EXPECT_EQ(row.transport, t);
      EXPECT_EQ(&row, &backend_table()[i++]);
    }
  EXPECT_THROW(pair_of(Backend::cpu, static_cast<Transport>(3)), Error);
  EXPECT_THROW(pair_of(static_cast<Backend>(2), Transport::local), Error);
}

// What each pair needed before the table, written out here by hand: the transport's parts (mpi,
// and nccl for the NCCL transport), the backend's (cuda), whether it runs at all, and whether it
// puts a rank in each process of an MPI job.
TEST(BackendTable, NeedsRunsAndDistributedAreTodays) {
  struct Row {
    Backend backend;
    Transport transport;
    bool mpi, nccl, cuda, runs, on_device, distributed;
  };
  const Row expected[] = {
      {Backend::cpu, Transport::local, false, false, false, true, false, false},
      {Backend::cpu, Transport::mpi, true, false, false, true, false, true},
      {Backend::cpu, Transport::nccl, true, true, false, false, false, true},
      {Backend::cuda, Transport::local, false, false, true, true, true, false},
      {Backend::cuda, Transport::mpi, true, false, true, false, false, true},
      {Backend::cuda, Transport::nccl, true, true, true, true, true, true},
  };
  for (const Row& e : expected) {
    const BackendTransport& row = pair_of(e.backend, e.transport);
    SCOPED_TRACE(std::string(to_string(e.backend)) + "/" + std::string(to_string(e.transport)));
    EXPECT_EQ(row.needs.mpi, e.mpi);
    EXPECT_EQ(row.needs.nccl, e.nccl);
    EXPECT_EQ(row.needs.cuda, e.cuda);
    EXPECT_EQ(row.make != nullptr, e.runs);
    EXPECT_EQ(row.refusal.empty(), e.runs);
    EXPECT_EQ(row.device_bytes != nullptr, e.on_device);
    EXPECT_EQ(row.distributed(), e.distributed);
    EXPECT_EQ(is_distributed(e.transport), e.distributed);
  }
}

TEST(BackendTable, TheTransportSaysWhereTheRanksLive) {
  Config local = config(Backend::cpu, Transport::local, 8);
  EXPECT_EQ(hosted_ranks(local), 8);
  EXPECT_EQ(processes(local), 1);
  for (const Transport t : {Transport::mpi, Transport::nccl}) {
    const Config distributed = config(Backend::cpu, t, 8);
    EXPECT_EQ(hosted_ranks(distributed), 1);
    EXPECT_EQ(processes(distributed), 8);
  }
}

// What this build was configured with, read here on its own to hold the table's one reading to it.
#ifdef RINGBENCH_HAVE_MPI
constexpr bool kConfiguredMpi = true;
#else
constexpr bool kConfiguredMpi = false;
#endif
#ifdef RINGBENCH_HAVE_NCCL_TRANSPORT
constexpr bool kConfiguredNccl = true;
#else
constexpr bool kConfiguredNccl = false;
#endif
#ifdef RINGBENCH_HAVE_CUDA
constexpr bool kConfiguredCuda = true;
#else
constexpr bool kConfiguredCuda = false;
#endif

TEST(BackendTable, EveryPartOfThisBuildHasItsEntryPoints) {
  const Build& b = this_build();
  EXPECT_EQ(b.parts().mpi, kConfiguredMpi);
  EXPECT_EQ(b.parts().nccl, kConfiguredNccl);
  EXPECT_EQ(b.parts().cuda, kConfiguredCuda);
  EXPECT_EQ(b.parts().cuda, b.make_cuda_executor != nullptr);
  EXPECT_EQ(b.parts().cuda, b.cuda_device_available != nullptr);
  EXPECT_EQ(b.parts().cuda, b.cuda_device_count != nullptr);
  EXPECT_EQ(b.parts().cuda, b.cuda_free_memory_bytes != nullptr);
  EXPECT_EQ(b.parts().mpi, b.make_mpi_transport != nullptr);
  EXPECT_EQ(b.parts().nccl, b.make_nccl_executor != nullptr);
  // The NCCL transport is built only with CUDA and MPI.
  EXPECT_TRUE(!b.parts().nccl || (b.parts().cuda && b.parts().mpi));
}

struct Refusal {
  std::string where, value, rule;
};

std::optional<Refusal> refusal_of(const Config& cfg, const ring::World* world) {
  try {
    check_backend(cfg, world);
  } catch (const InputError& e) {
    return Refusal{e.where(), e.value(), e.rule()};
  }
  return std::nullopt;
}

// Today's texts, copied from the code before the table.
const Refusal kNoMpi{"transport", "", "this build has no MPI (it was not found when ringbench was configured)"};
const Refusal kNoNccl{"transport", "", "this build has no NCCL transport (it needs CUDA, NCCL and MPI found)"};
const Refusal kNoCuda{"backend", "cuda", "this build has no CUDA backend (nvcc was not found when it was configured)"};
const Refusal kNoDevice{"backend", "cuda", "no CUDA device is available on this machine"};

// The refusal of each pair and job, in the order the checks ran before the table: the transport's
// build parts, the job, the pair, cp, then the backend's build part and device. Where the answer
// depends on this build or machine, each possible build has its own expectation.
TEST(BackendTable, EachPairAndJobIsRefusedAsBefore) {
  const Build& build = this_build();
  const bool device = build.parts().cuda && build.cuda_device_available();
  const FakeWorld two(2);
  auto with_value = [](Refusal r, const std::string& value) {
    r.value = value;
    return r;
  };
  struct Case {
    const char* name;
    Config cfg;
    const ring::World* world;
    std::optional<Refusal> expected;
  };
  const std::optional<Refusal> cuda_local = !build.parts().cuda ? std::optional(kNoCuda)
                                            : device            ? std::nullopt
                                                                : std::optional(kNoDevice);
  std::optional<Refusal> cuda_nccl = !build.parts().mpi    ? with_value(kNoMpi, "nccl")
                                     : !build.parts().nccl ? with_value(kNoNccl, "nccl")
                                     : device              ? std::nullopt
                                                           : std::optional(kNoDevice);
  const Case cases[] = {
      {"cpu local", config(Backend::cpu, Transport::local), nullptr, std::nullopt},
      {"cpu local under a launcher", config(Backend::cpu, Transport::local), &two,
       Refusal{"transport", "local",
               "launched as 2 MPI processes, the local transport would run 2 copies of one sweep: use --transport "
               "mpi (cpu backend) or nccl (cuda backend)"}},
      {"cpu mpi without a launcher", config(Backend::cpu, Transport::mpi), nullptr,
       build.parts().mpi ? Refusal{"transport", "mpi",
                                   "runs one rank per process: launch with `mpirun -np 2 ringbench run ...` (or srun)"}
                         : with_value(kNoMpi, "mpi")},
      {"cpu mpi", config(Backend::cpu, Transport::mpi), &two,
       build.parts().mpi ? std::nullopt : std::optional(with_value(kNoMpi, "mpi"))},
      {"cpu mpi, cp not the processes", config(Backend::cpu, Transport::mpi, 4), &two,
       build.parts().mpi ? Refusal{"cp", "4",
                                   "with the mpi transport each rank is a process: cp must equal the 2 MPI processes "
                                   "launched"}
                         : with_value(kNoMpi, "mpi")},
      {"cuda mpi", config(Backend::cuda, Transport::mpi), &two,
       build.parts().mpi
           ? Refusal{"transport", "mpi", "the mpi transport carries the cpu backend; the cuda backend uses nccl"}
           : with_value(kNoMpi, "mpi")},
      {"cpu nccl", config(Backend::cpu, Transport::nccl), &two,
       !build.parts().mpi ? with_value(kNoMpi, "nccl")
       : !build.parts().nccl
           ? with_value(kNoNccl, "nccl")
           : Refusal{"transport", "nccl", "the nccl transport carries the cuda backend; the cpu backend uses mpi"}},
      {"cuda local", config(Backend::cuda, Transport::local), nullptr, cuda_local},
      {"cuda nccl", config(Backend::cuda, Transport::nccl), &two, cuda_nccl},
      // The backend's own rule comes after every check of the build and job.
      {"cpu bfloat16",
       [&] {
         Config c = config(Backend::cpu, Transport::local);
         c.dtype = DType::bfloat16;
         return c;
       }(),
       nullptr,
       Refusal{"dtype", "bfloat16", "the cpu backend runs float64 or float32; bfloat16 needs the cuda backend"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto got = refusal_of(c.cfg, c.world);
    ASSERT_EQ(got.has_value(), c.expected.has_value()) << (got ? got->rule : "no refusal");
    if (!got) continue;
    EXPECT_EQ(got->where, c.expected->where);
    EXPECT_EQ(got->value, c.expected->value);
    EXPECT_EQ(got->rule, c.expected->rule);
  }
}

TEST(BackendTable, ThePairsThatNeverRunMakeNoExecutor) {
  const RunOptions opts;
  for (const auto& [b, t] : {std::pair{Backend::cuda, Transport::mpi}, std::pair{Backend::cpu, Transport::nccl}})
    EXPECT_THROW(make_executor(ring::make_plan(config(b, t)), opts, ring::CpuOptions{}), InputError);
}

TEST(BackendTable, TheCpuBackendMakesItsExecutorAndUsesNoDevice) {
  const RunOptions opts;
  const ring::Plan plan = ring::make_plan(config(Backend::cpu, Transport::local));
  const auto exec = make_executor(plan, opts, ring::CpuOptions{});
  ASSERT_NE(exec, nullptr);
  EXPECT_EQ(exec->plan().config.cp, 2);
  EXPECT_FALSE(device_memory(plan, 1).has_value());
  if (!this_build().parts().cuda) {
    EXPECT_EQ(local_cuda_devices(opts), 1);
  }
}

}  // namespace
}  // namespace rb::bench
