// What a sweep is run with, beside the sweep itself (bench/sweep/profile.hpp): where its outputs
// go, how its rounds are spread and checked, the CUDA backend's measurement choices, the stopping
// and throttling rules, and the faults the failure tests inject. `ringbench run` fills it from its
// flags (bench/cli/run_command.cpp), `ringbench accept` with the defaults.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench/sweep/round_pacing.hpp"
#include "bench/sweep/stopping_rule.hpp"
#include "bench/sweep/throttle_filter.hpp"
#include "common/config.hpp"
#include "ring/cuda/cuda_options.hpp"
#include "ring/executor/cpu_binding.hpp"

namespace rb::bench {

// `--inject-fault KIND@N`: make configuration N (0-based, in sweep order) fail on purpose. Kinds:
// throw (an error inside the pass), hang (a rank never receives; the watchdog ends it), corrupt
// (the output is perturbed, so the correctness check fails), fatal (a device-fatal error that stops
// the sweep), throttle (configuration N reads a per-sample SM clock, at a nominal 1000 MHz, and
// the hit rounds' samples read 500 MHz: the throttle filter's path on any backend), and
// slow:PCT (every pass of configuration N takes PCT% longer in real time: a planted regression for
// the nightly gate's tests). N may be a list (`slow:15@0,3,6`), and `KIND@N/R` limits it to round R
// (1-based). For the tests of docs/failures.md and docs/compare.md. A fault that cannot act where it
// is aimed is refused before the sweep runs (bench/sweep/fault_reach.hpp).
// wrong_block: every backward step of a rotating variant reads its first step's K/V (diffusers #14265).
enum class FaultKind { none, throw_in_pass, hang, corrupt, fatal, throttle, slow, wrong_block };

struct FaultSpec {
  FaultKind kind = FaultKind::none;
  std::vector<int> configs;  // the configurations it aims at
  int round = -1;            // 0-based; -1: every round (corrupt acts in the first, where the check is)
  double slow_pct = 0;       // slow: how much longer every pass takes
  std::string text;          // as --inject-fault gave it, for the line that refuses it
  bool aims_at(int config) const;
  bool hits(int config, int r) const { return aims_at(config) && (round < 0 || round == r); }
};
FaultSpec parse_fault(const std::string& s);
// The name --inject-fault spells a kind with ("throw", ...); "" for none.
std::string_view to_string(FaultKind k);

// How much a sweep prints on stderr (bench/sweep/progress.hpp): --quiet only failures (and run's
// summary line), normal the table of one row per configuration, --verbose also a line per round.
enum class ConsoleMode { quiet, normal, verbose };

struct RunOptions {
  std::filesystem::path out_dir = "results";
  std::optional<std::filesystem::path> dump_dir;  // --dump: Q, K, V, O as .npy per configuration
  std::vector<std::string> only_ids;              // --only: run just these configurations (by config id)
  bool skip_invalid = false;             // record configurations that break a rule as skipped instead of exiting 2
  std::int64_t full_check_limit = 8192;  // check every row up to this S
  std::int64_t check_sample = 512;       // rows checked above it
  std::vector<std::string> argv;         // recorded in results.json
  double timeout_s = 0;                  // per configuration; 0: none
  std::int64_t memory_limit_bytes = 0;   // skip configurations estimated above this; 0: 90% of MemAvailable
  FaultSpec fault;
  int rounds = 3;  // fresh executors per configuration; the repeats are spread over them
  // Round-robin: round 1 of every configuration, then round 2, ... (asv's interleaved rounds), so a
  // burst on a shared machine hits a round of several configurations, not every round of one.
  // --no-interleave runs each configuration's rounds back to back (one at a time, e.g. under nsys).
  bool interleave = true;
  // c = 1's splits and variants are one computation, run once, the others recorded as its aliases
  // (bench/sweep/c1_alias.hpp); --c1-all runs each of them.
  bool c1_aliases = true;
  bool trace = false;  // --trace: out_dir/traces/<config id>.json, Chrome trace of the median pass
  // CUDA backend (docs/design.md §7): virtual ranks measured one at a time (isolated) or all at once
  // (concurrent); the pass replayed as a CUDA Graph or launched eagerly; L2 flushed before samples.
  ring::CudaRankMode rank_mode = ring::CudaRankMode::isolated;
  ring::CudaLaunch launch = ring::CudaLaunch::graph;
  bool l2_flush = false;
  // CPU backend: each ring rank's compute thread bound to a CPU (ring/executor/cpu_binding.hpp says
  // why); --cpu-bind none leaves every thread to the OS.
  ring::CpuBinding cpu_binding = ring::CpuBinding::ranks;
  int devices = 1;  // cuda, local transport: devices the virtual ranks are dealt over (0: all visible)
  // docs/design.md §7 step 4: after the timed passes, one more pass of each CUDA configuration traced with
  // CUPTI (the record's `cupti`). --no-cupti clears it so that Nsight Systems can hold CUPTI.
  bool cupti = true;
  // --max-noise, --min-samples, --max-time: stop sampling a configuration once its samples are
  // steady enough (bench/sweep/stopping_rule.hpp); min_rounds is taken from `rounds`. Off by default.
  StoppingRule stopping;
  // --throttle-threshold, --throttle-recovery: samples whose SM clock fell under the threshold are
  // dropped from the statistics (bench/sweep/throttle_filter.hpp). cuda only: the CPU reads no clock.
  ThrottleRule throttle;
  bool primary = true;                        // writes outputs (traces, dumps); false on MPI ranks other than 0
  ConsoleMode console = ConsoleMode::normal;  // --quiet, --verbose
  // The sweep's kernel as asked (run_sweep sets it from the spec); each configuration's
  // Config::kernel is what was chosen for it (auto: the record says why).
  Kernel kernel_requested = Kernel::ringbench;
  // An A/B run (`ringbench ab`): the inherited socket its driver paces the turns over
  // (round_pacing.hpp), -1 for none; what a turn is; and how this build is paired, recorded in
  // results.json.
  int pace_fd = -1;
  PaceUnit pace_unit = PaceUnit::pass;
  std::optional<Pairing> pairing;
};

}  // namespace rb::bench
