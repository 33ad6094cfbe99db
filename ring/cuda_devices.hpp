// The devices of one process's CUDA backend as a set: peer access between them, and waiting for
// all of them. Host code over the CUDA runtime; built only with RINGBENCH_HAVE_CUDA.
#pragma once

#include <vector>

namespace rb::ring {

// Makes the current device `device` (kernel launches and stream operations go to it).
void use_device(int device);

// Every ordered pair that can reach the other directly (NVLink or PCIe P2P) gets peer access; a
// pair that cannot still copies with cudaMemcpyPeerAsync, staged through the host, only slower.
void enable_peer_access(const std::vector<int>& devices);

// cudaDeviceSynchronize on each device; leaves the last one current.
void synchronize_devices(const std::vector<int>& devices);

}  // namespace rb::ring
