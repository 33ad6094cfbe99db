// The devices of one process's CUDA backend (see cuda_devices.hpp).
#include "ring/cuda/cuda_devices.hpp"

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.hpp"

namespace rb::ring {

void use_device(int device) { RB_CUDA_CHECK(cudaSetDevice(device)); }

bool cuda_device_available() { return cuda_device_count() > 0; }

int cuda_device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

std::int64_t cuda_free_memory_bytes(int device) {
  use_device(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  RB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<std::int64_t>(free_bytes);
}

void enable_peer_access(const std::vector<int>& devices) {
  for (int a : devices)
    for (int b : devices) {
      if (a == b) continue;
      int can = 0;
      RB_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can) continue;
      use_device(a);
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled)
        (void)cudaGetLastError();  // not an error: an earlier executor of this process enabled it
      else
        RB_CUDA_CHECK(e);
    }
}

std::vector<CudaDeviceInfo> cuda_device_infos() {
  std::vector<CudaDeviceInfo> out;
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: nothing to describe
    return out;
  }
  int driver = 0, runtime = 0;
  RB_CUDA_CHECK(cudaDriverGetVersion(&driver));
  RB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  for (int d = 0; d < n; ++d) {
    CudaDeviceInfo info;
    info.ordinal = d;
    cudaDeviceProp prop{};
    RB_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
    info.name = prop.name;
    info.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
    const auto* u = reinterpret_cast<const unsigned char*>(prop.uuid.bytes);
    std::string hex;
    for (int i = 0; i < 16; ++i) {
      static constexpr char kDigits[] = "0123456789abcdef";
      if (i == 4 || i == 6 || i == 8 || i == 10) hex.push_back('-');
      hex.push_back(kDigits[u[i] >> 4]);
      hex.push_back(kDigits[u[i] & 0xf]);
    }
    info.uuid = "GPU-" + hex;
    char bus[64] = {};
    RB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, d));
    info.pci_bus_id = bus;
    auto attr = [d](cudaDeviceAttr a) {
      int v = 0;
      RB_CUDA_CHECK(cudaDeviceGetAttribute(&v, a, d));
      return v;
    };
    info.compute_capability_major = attr(cudaDevAttrComputeCapabilityMajor);
    info.compute_capability_minor = attr(cudaDevAttrComputeCapabilityMinor);
    info.sm_count = attr(cudaDevAttrMultiProcessorCount);
    info.sm_clock_mhz = attr(cudaDevAttrClockRate) / 1000;  // kHz
    info.memory_clock_mhz = attr(cudaDevAttrMemoryClockRate) / 1000;
    info.ecc = attr(cudaDevAttrEccEnabled) != 0;
    info.driver_version = driver;
    info.runtime_version = runtime;
    out.push_back(std::move(info));
  }
  return out;
}

void synchronize_devices(const std::vector<int>& devices) {
  for (int d : devices) {
    use_device(d);
    RB_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace rb::ring
