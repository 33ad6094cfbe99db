// The executor runs a plan on a backend (docs/design.md §5): it owns the ranks' buffers, runs passes, and
// hands back the output and what the timeline recorded. One interface for every backend, so the
// sweep runner does not care where the arithmetic ran.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "common/error.hpp"
#include "common/timeline.hpp"
#include "ring/executor/cpu_binding.hpp"
#include "ring/executor/executor_bytes.hpp"  // what each backend's executor allocates, for callers sizing one
#include "ring/executor/injected_fault.hpp"
#include "ring/plan/plan.hpp"
#include "ring/transport/kv_transport.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::ring {

enum class GradTensor { dq, dk, dv };

struct PassRecord {
  std::int64_t wall_ns = 0;  // the pass, start to last rank done
  // Its parts (docs/design.md §3a): the forward up to the last rank's last forward step, and the rest.
  // A forward-only pass has fwd_ns = wall_ns, a backward-only one bwd_ns = wall_ns.
  std::int64_t fwd_ns = 0, bwd_ns = 0;
  Timeline timeline;  // filled when recording was asked for; times relative to the pass start
  // The SM clock over the pass (cuda: ring/cuda/sample_clock.hpp; the slowest device's, or process's);
  // nullopt where no clock is read (the CPU backend) or the reading was unusable.
  std::optional<double> sm_clock_mhz;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual const Plan& plan() const = 0;
  // Runs one full pass (all steps, transfers and merges on every rank).
  virtual PassRecord run_pass(bool record) = 0;
  // Output rows at global positions, as (n, Hq, D) in double.
  virtual std::vector<double> output_rows(std::span<const std::int64_t> positions) const = 0;
  // After a pass with a backward: gradient rows at global positions, dQ as (n, Hq, D), dK and dV as
  // (n, Hkv, D), in double. Throws rb::Error where the executor ran no backward.
  virtual std::vector<double> gradient_rows(GradTensor /*which*/, std::span<const std::int64_t> /*positions*/) const {
    throw Error("this executor ran no backward");
  }
  // Makes a running or later pass throw instead of finishing; safe to call from another thread
  // (the sweep's watchdog, a signal). The executor cannot run again afterwards.
  virtual void abort() = 0;
  // The clock sm_clock_mhz is held against: the lowest the runtime reports over the devices in
  // use (cudaDevAttrClockRate). nullopt where no per-sample clock is read.
  virtual std::optional<double> nominal_sm_clock_mhz() const { return std::nullopt; }
  // The devices the ranks' passes ran on at once, which the per-GPU rate divides the pass's FLOPs
  // by: c wherever each rank had a device (or a CPU thread) to itself; fewer where ranks shared
  // devices at once (common/gpus_at_work.hpp).
  virtual int gpus_at_work() const { return plan().config.cp; }
  // What runs each ring rank, by rank (size c): a GPU's UUID, or "cpu N" for a compute thread bound
  // to CPU N ("cpu" where the OS places it); empty for a rank another process hosts. A per-rank
  // figure names its GPU by it (results' `placement`, ringbench fleet).
  virtual std::vector<std::string> rank_devices() const { return {}; }
  // Bytes of the rank buffers this process allocated (the CPU backend's; -1 where not counted), for
  // holding the memory estimate (ring/executor/executor_bytes.hpp) to what was made.
  virtual std::int64_t buffer_bytes() const { return -1; }
};

struct CpuOptions {
  InjectedFault fault = InjectedFault::none;
  CpuBinding binding = CpuBinding::ranks;  // ring/executor/cpu_binding.hpp says why
};

// The CPU backend with the local transport: a thread per lane of each rank's step program.
std::unique_ptr<Executor> make_cpu_executor(const Plan& plan, const CpuOptions& opts = {});

// The CPU backend on a distributed transport: this process hosts ring rank group.rank() (the group
// has c processes) and `transport` carries its K/V. run_pass and output_rows are collective: every
// process of the group calls them, in the same order, and gets the whole ring's timeline and rows.
std::unique_ptr<Executor> make_cpu_executor(const Plan& plan, const CpuOptions& opts, ProcessGroup& group,
                                            std::unique_ptr<KvTransport> transport);

// Threads the CPU backend starts for `hosted` ranks of schedule `sch` (and `backward`, where the
// phase has one): a thread per lane of each rank's step program (ring/program/compile.hpp's
// program_lanes): a compute thread and a comm thread per K/V lane (one to gather), or what its
// backward design needs where that is more. Each rank's threads are what it measures, so they are
// not pooled; past kMaxCpuExecutorThreads in one process the executor refuses to start (the sweep
// skips such a configuration first, bench/sweep/memory_budget.hpp).
std::int64_t cpu_executor_threads(const KvSchedule& sch, std::int64_t hosted,
                                  const BackwardSchedule* backward = nullptr);
inline constexpr std::int64_t kMaxCpuExecutorThreads = 2048;

}  // namespace rb::ring
