// libcupti as NVTX's tool (NVTX_INJECTION64_PATH), so that a CUPTI activity trace sees the
// `ringbench` domain's ranges as markers. NVTX reads that variable once, at the process's first
// NVTX call, and libcupti only reads it, never sets it: whoever wants the ranges traced must name
// libcupti before anything calls NVTX. `ringbench` does (bench/cli/main.cpp, before a command that
// may trace runs), and so do the CUPTI tracer's gpu tests (tests/device/test_cupti_tracer.cpp),
// both through name_cupti_as_nvtx_tool(). Built only with CUPTI (RINGBENCH_HAVE_CUPTI).
#pragma once

#include <cstdint>
#include <string>

namespace rb::bench {

// libcupti 13.0.0, CUDA 13.0 GA's (cuptiGetVersion 130000; 13.0 Update 1's reports 130001), crashes
// when NVTX loads it as its tool (NVIDIA/NVTX#125: a segfault in its nvtxNameOsThreadA).
inline constexpr std::uint32_t kCuptiCrashingAsNvtxTool = 130000;

// Why libcupti cannot be named NVTX's tool, "" when it can: the build has no NVTX, libcupti's path
// is unknown, it is the crashing 13.0.0 (`cupti_version`, cuptiGetVersion's answer), or
// NVTX_INJECTION64_PATH (`current`, null when unset) already names another tool (Nsight Systems
// sets its own), which is left alone. Pure: the CPU tests hold each reason to it.
std::string cupti_nvtx_refusal(bool nvtx_enabled, std::uint32_t cupti_version, const std::string& cupti_path,
                               const char* current);

struct NvtxTool {
  bool named = false;  // NVTX_INJECTION64_PATH names this process's libcupti
  std::string why;     // when not, why (cupti_nvtx_refusal)
};

// Names this process's libcupti as NVTX's tool unless cupti_nvtx_refusal says no; call it before
// any NVTX call. For libcupti 13.0.0 it also writes one line to stderr saying that it skipped the
// injection and why, where `say` (an MPI job's other ranks stay quiet).
NvtxTool name_cupti_as_nvtx_tool(bool say = true);

}  // namespace rb::bench
