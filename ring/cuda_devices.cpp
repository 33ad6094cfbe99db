// The devices of one process's CUDA backend (see cuda_devices.hpp).
#include "ring/cuda_devices.hpp"

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.hpp"

namespace rb::ring {

void use_device(int device) { RB_CUDA_CHECK(cudaSetDevice(device)); }

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

void synchronize_devices(const std::vector<int>& devices) {
  for (int d : devices) {
    use_device(d);
    RB_CUDA_CHECK(cudaDeviceSynchronize());
  }
}

}  // namespace rb::ring
