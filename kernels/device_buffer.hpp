// An owning, move-only device allocation, so executors, tests and benchmarks never leak or
// double-free device memory when something throws halfway through setup.
#pragma once

#include <cstddef>
#include <span>
#include <utility>

#include <cuda_runtime_api.h>

#include "kernels/cuda_check.hpp"

namespace rb::kernels {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    if (n > 0) RB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T)));
  }
  // Allocates and copies host data in (synchronous: setup only, never inside a capture).
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) {
    if (!host.empty()) RB_CUDA_CHECK(cudaMemcpy(p_, host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }

  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }

 private:
  void release() noexcept {
    if (p_) cudaFree(p_);  // no throw from a destructor; a failing free means the context is gone
    p_ = nullptr;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

}  // namespace rb::kernels
