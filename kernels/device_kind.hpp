// What the CUDA backend runs on in this binary: "gpu" (the device kernels, cuDNN and libcudart) or
// "emulated" (the emulated device of emu/: ringbench-emu and the `emulated` tests). Defined by the
// device library the binary links (kernels/device_kind_gpu.cpp or emu/runtime/device_kind.cpp), so
// one set of objects reports either; results, console and report label emulated timings with it.
#pragma once

#include <string_view>

namespace rb::kernels {

std::string_view device_kind();

// Throws rb::InputError (exit 2) naming a malformed setting of the device's environment: the
// emulated device's RINGBENCH_EMU_DEVICES (1 to 8) and RINGBENCH_EMU_SEED (an integer >= 0); a GPU
// has none. The command line calls it before any command runs.
void check_device_environment();

inline bool device_is_emulated() { return device_kind() == "emulated"; }

}  // namespace rb::kernels
