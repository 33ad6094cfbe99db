// A run's timed samples and how they were taken, as its record holds them (docs/formats.md,
// `timing`): the statistics of the kept samples, the samples in the order of their rounds, the
// round layout, the stopping rule, and what the clock and the machine were.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rb::reports {

// The arithmetic of one hardware thread's share of the machine probe, version 2
// (bench/sweep/machine_probe.cpp, which asserts it): a 64-query float32 attention block over 4096
// keys at D = 64, 4·D·pairs = 4·64·(64·4096) FLOPs, timed with a 4 MiB copy on every thread at once.
inline constexpr int kMachineProbeFlopsVersion = 2;
inline constexpr double kMachineProbeFlopsPerThread = 4.0 * 64 * (64.0 * 4096);

// --max-noise: the rule that ended sampling.
struct RecordStopping {
  double max_noise_pct = 0;
  std::int64_t min_samples = 0;
  double max_time_s = 0;
};

// samples_ms holds the rounds in order, round k having round_counts[k] samples (1.2.0), or before
// that count / rounds plus one for k < count % rounds.
struct RecordTiming {
  bool present = false;  // false: the run has no timing (skipped, failed before a sample, or every one throttled)
  std::optional<std::int64_t> count;
  std::optional<double> min_ms, median_ms, mean_ms, p90_ms, p99_ms, max_ms, stdev_ms, noise_pct;
  std::vector<double> samples_ms;
  std::optional<std::int64_t> warmup, rounds;
  std::vector<std::int64_t> round_counts;
  std::optional<std::int64_t> rounds_planned;  // null while a --max-noise configuration is still sampling
  std::optional<std::string> stopped_by;       // null while sampling goes on
  std::optional<RecordStopping> stopping;      // --max-noise only
  std::optional<bool> interleaved;
  std::string clock;
  // cuda only: how the ranks ran and were launched, the L2 state, the GPUs the virtual ranks were dealt over.
  std::optional<std::string> rank_mode, launch, l2;
  std::optional<std::string> cpu_binding;  // cpu backend (2.4.0): "ranks" or "none"
  std::optional<std::int64_t> devices;
  // cpu only, all three with the version: the machine probe around the rounds.
  std::optional<int> machine_probe_version;
  std::vector<double> machine_probe_ms, machine_probe_core_spread;
  // A phase with a backward (2.10.0): each kept sample's parts, in samples_ms' order (fwd empty under
  // phase bwd), and their medians: `phase_ms` in the file.
  std::vector<double> fwd_samples_ms, bwd_samples_ms;
  std::optional<double> fwd_median_ms, bwd_median_ms;

  // The samples of each round, in order; one group (all samples) when the rounds cannot be told apart.
  std::vector<std::vector<double>> rounds_of_samples() const;
  // The same layout over another list of one value per kept sample (a phase's parts); one group
  // when it is not one value per sample.
  std::vector<std::vector<double>> rounds_of(const std::vector<double>& per_sample) const;
};

}  // namespace rb::reports
