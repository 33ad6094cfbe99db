// The emulator's tests start from a quiet device: issue order, nothing queued, no violation and no
// last error left by the test before; and leave issue order behind them.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"

namespace rb::emu::test {

class EmuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_schedule_seed(0);
    (void)cudaDeviceSynchronize();
    clear_violations();
    (void)cudaGetLastError();
  }
  void TearDown() override { set_schedule_seed(0); }
};

}  // namespace rb::emu::test
