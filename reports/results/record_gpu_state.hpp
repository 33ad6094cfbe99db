// What a CUDA run's record says about its GPUs (docs/formats.md, `gpu_state` and `sm_clock`): NVML's
// view of each device before and after the configuration (1.1.0), and the SM clock of every timed
// sample with those under the threshold dropped (1.2.0). bench/sweep/gpu_state.hpp and
// throttle_filter.hpp make them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rb::reports {

// One device as NVML reported it; a field NVML refused is nullopt. When NVML or the device could
// not be reached, `unavailable` says why and nothing else was read.
struct RecordGpuDevice {
  std::optional<std::string> pci_bus_id;
  std::optional<std::string> unavailable;
  std::optional<std::int64_t> temperature_c, sm_clock_mhz;
  std::optional<double> power_w, power_limit_w;
  std::optional<std::vector<std::string>> clock_event_reasons;
  std::optional<bool> thermal_or_power_limited;  // heat or power held the clock down
  std::optional<std::string> mig_mode;
};

// Every GPU the runtime sees, at the configuration's start and end; nullopt: not read (yet).
struct RecordGpuState {
  std::optional<std::vector<RecordGpuDevice>> start, end;
};

// The SM clock read beside each timed sample. samples_mhz and dropped are as the file has them: a
// reader pairs them with samples_ms by index and ignores what has no sample.
struct RecordSmClock {
  std::string method;
  std::optional<double> nominal_mhz, threshold_mhz;  // threshold nullopt: nothing is dropped
  std::optional<double> threshold_pct, recovery_ms;
  std::vector<double> samples_ms;
  std::vector<std::optional<double>> samples_mhz;  // nullopt: that sample's clock could not be read
  std::vector<std::int64_t> dropped;               // indices into samples_ms
  std::optional<std::int64_t> dropped_count, taken;
};

}  // namespace rb::reports
