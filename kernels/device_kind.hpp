// What the CUDA backend runs on in this binary: "gpu" (the device kernels, cuDNN and libcudart) or
// "emulated" (the emulated device of emu/: ringbench-emu and the `emulated` tests). Defined by the
// device library the binary links (kernels/device_kind_gpu.cpp or emu/runtime/device_kind.cpp), so
// one set of objects reports either; results, console and report label emulated timings with it.
#pragma once

#include <string_view>

namespace rb::kernels {

std::string_view device_kind();

inline bool device_is_emulated() { return device_kind() == "emulated"; }

}  // namespace rb::kernels
