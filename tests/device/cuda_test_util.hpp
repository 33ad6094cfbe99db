// Shared by the gpu tests: skip cleanly where no CUDA device is present, and move bf16 data.
#pragma once

#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "kernels/device_kind.hpp"

namespace rb::test {

// GTEST_SKIP() in the calling test when cudaGetDeviceCount fails or finds no device.
#define RB_SKIP_WITHOUT_GPU()                                                                      \
  do {                                                                                             \
    int rb_n_ = 0;                                                                                 \
    const cudaError_t rb_e_ = cudaGetDeviceCount(&rb_n_);                                          \
    if (rb_e_ != cudaSuccess || rb_n_ == 0) {                                                      \
      cudaGetLastError(); /* clear the sticky-free error so later calls start clean */             \
      GTEST_SKIP() << "no CUDA device (" << cudaGetErrorName(rb_e_) << ", count " << rb_n_ << ")"; \
    }                                                                                              \
  } while (0)

// GTEST_SKIP() where the test measures what only a GPU has (a kernel's speed, the SM clock) and
// this binary runs on the emulated device (docs/emulated-device.md: what the emulator cannot show).
#define RB_SKIP_ON_EMULATED_DEVICE(what)                                                            \
  do {                                                                                              \
    if (::rb::kernels::device_is_emulated())                                                        \
      GTEST_SKIP() << "the emulated device cannot show " << (what) << " (docs/emulated-device.md)"; \
  } while (0)

inline std::vector<__nv_bfloat16> to_bf16(const std::vector<double>& x) {
  std::vector<__nv_bfloat16> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = __double2bfloat16(x[i]);
  return out;
}

}  // namespace rb::test
