// The run stage of a sweep: one round of one configuration on this process, with every process of
// an MPI job running the same round in step and leaving it with the same verdict; and the float64
// reference that the first round's check compares against, kept while consecutive configurations
// share it. A failure is a verdict, not an exception: the sweep records it and goes on, unless the
// error was device-fatal or a signal arrived (SweepStop).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/sweep/configuration_rounds.hpp"
#include "bench/sweep/distributed.hpp"
#include "common/config.hpp"
#include "ring/check/reference.hpp"
#include "ring/transport/process_group.hpp"

namespace rb::bench {

// Full-attention reference rows, kept while consecutive configurations share inputs and rows.
class ReferenceCache {
 public:
  // Threads per process: the host's cores shared by this host's processes of the job.
  ReferenceCache();
  // With a group, each process computes a slice of the rows and the slices are summed: every
  // process ends with all of them, for 1/c of the work each.
  const std::vector<double>& rows(const Config& cfg, const ring::CheckRows& check, ring::ProcessGroup* group);

 private:
  int threads_;
  std::string key_;
  std::vector<std::int64_t> positions_;
  std::vector<double> value_;
};

// Runs round `round` (0-based, the next one) of `rounds`; a distributed configuration opens a
// process group for it, and every process must call this in step. A round that `gate` cut
// (RoundCut) comes back with `cut` set and its reason as the failure.
RoundResult execute_round(ConfigurationRounds& rounds, int round, ReferenceCache& references,
                          const SampleGate& gate = {});

// Why the rest of a sweep is not run: the first device-fatal error or signal. Empty while it goes on.
struct SweepStop {
  std::string reason;
  bool fatal = false;  // a fatal error stopped it
  int signal = 0;      // this signal stopped it
  bool stopped() const { return !reason.empty(); }
  // Takes the first reason to stop from a round of `cfg`; later ones change nothing.
  void note(const RoundResult& result, const Config& cfg);
};

}  // namespace rb::bench
