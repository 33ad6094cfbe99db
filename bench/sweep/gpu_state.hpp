// The GPUs' state as NVML reports it, for the environment record and each CUDA configuration's
// start and end: temperature, power draw and limit, SM clock, the active clock-event (throttle)
// reasons, MIG mode. NVML is loaded at run time (libnvidia-ml.so.1, the driver's, or the file
// named by RINGBENCH_NVML_LIBRARY): never a build dependency, and where it is absent every query
// answers with the reason instead of a state.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/results/record_gpu_state.hpp"

namespace rb::bench {

// The clock-event reasons NVML reports as bits, by name (nvml.h's nvmlClocksEventReason*).
std::vector<std::string> clock_event_reason_names(unsigned long long bits);
// Of those, the ones that mean heat or power held the clock down (thermal or power throttling),
// which acceptance refuses; idle, application clocks and sync boost do not count.
bool thermal_or_power_limited(unsigned long long bits);

// One device's state by PCI bus id ("0000:19:00.0"): temperature, power draw and limit, SM clock,
// clock-event reasons, MIG mode; a field NVML refused is nullopt (null in the record). Or only why, when NVML or the
// device cannot be reached. pci_bus_id is left for the caller to name.
reports::RecordGpuDevice nvml_device_record(const std::string& pci_bus_id);
// Which board a device is: NVML's serial number and board part number, nullopt where NVML (or the
// board: consumer GPUs have no serial) gives none.
struct GpuBoard {
  std::optional<std::string> serial, board;
};
GpuBoard nvml_board(const std::string& pci_bus_id);

// The same as the record writes it.
nlohmann::json nvml_device_state(const std::string& pci_bus_id);

// The state of every GPU the runtime sees (host.gpus' order), each with its pci_bus_id; none
// without GPUs.
std::vector<reports::RecordGpuDevice> gpu_states();

// host.gpus: what the CUDA runtime says about each device (name, uuid, pci_bus_id, sm_count,
// clocks, ECC, driver and runtime versions) with NVML's MIG mode, power limit, serial and board
// where present.
// An empty array in a build without CUDA or on a machine without GPUs.
nlohmann::json gpu_descriptions();

}  // namespace rb::bench
