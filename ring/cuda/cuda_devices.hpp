// The devices of one process's CUDA backend: how many there are and their free memory, what each
// is, peer access between them, and waiting for all of them. Host code over the CUDA runtime; built only with
// RINGBENCH_HAVE_CUDA.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rb::ring {

// Makes the current device `device` (kernel launches and stream operations go to it).
void use_device(int device);

// CUDA devices visible to this process (0 when none or no driver).
int cuda_device_count();

// True when the CUDA runtime finds at least one device (false, not an error, when it finds none).
bool cuda_device_available();

// Free memory on `device` now (cudaMemGetInfo), to skip what cannot fit before allocating it.
std::int64_t cuda_free_memory_bytes(int device = 0);

// Every ordered pair that can reach the other directly (NVLink or PCIe P2P) gets peer access; a
// pair that cannot still copies with cudaMemcpyPeerAsync, staged through the host, only slower.
void enable_peer_access(const std::vector<int>& devices);

// cudaDeviceSynchronize on each device; leaves the last one current.
void synchronize_devices(const std::vector<int>& devices);

// What the runtime says about one visible device, for results.json's host.gpus.
struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name, uuid, pci_bus_id;  // uuid as nvidia-smi prints it: GPU-xxxxxxxx-...
  int compute_capability_major = 0, compute_capability_minor = 0;
  int sm_count = 0;
  int sm_clock_mhz = 0;      // cudaDevAttrClockRate: the clock the runtime reports (not boost under load)
  int memory_clock_mhz = 0;  // cudaDevAttrMemoryClockRate
  std::int64_t memory_bytes = 0;
  bool ecc = false;
  int driver_version = 0, runtime_version = 0;  // as 13000 for 13.0
};

// Every visible device; empty (never an error) where there is no driver or no device.
std::vector<CudaDeviceInfo> cuda_device_infos();

}  // namespace rb::ring
