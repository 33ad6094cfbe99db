// libcupti as NVTX's tool (see cupti_nvtx_tool.hpp).
#include "bench/measure/cupti_nvtx_tool.hpp"

#include <cstdio>
#include <cstdlib>

#include <cupti_version.h>
#include <fmt/format.h>

#include "bench/measure/cupti_tracer.hpp"
#include "common/console.hpp"
#include "common/nvtx.hpp"

namespace rb::bench {

std::string cupti_nvtx_refusal(bool nvtx_enabled, std::uint32_t cupti_version, const std::string& cupti_path,
                               const char* current) {
  if (!nvtx_enabled) return "this build has no NVTX";
  if (cupti_version == kCuptiCrashingAsNvtxTool)
    return "libcupti 13.0.0 (CUDA 13.0 GA) crashes as NVTX's tool (NVIDIA/NVTX#125)";
  if (cupti_path.empty()) return "the path of the libcupti this process loaded is unknown";
  if (current != nullptr && cupti_path != current)
    return fmt::format("NVTX_INJECTION64_PATH already names another tool ({}), left alone", current);
  return "";
}

NvtxTool name_cupti_as_nvtx_tool(bool say) {
  std::uint32_t version = 0;
  if (cuptiGetVersion(&version) != CUPTI_SUCCESS) version = 0;
  const std::string path = cupti_library_path();
  NvtxTool tool;
  tool.why = cupti_nvtx_refusal(nvtx::enabled(), version, path, std::getenv("NVTX_INJECTION64_PATH"));
  if (tool.why.empty()) {
    tool.named = nvtx::attach_injection(path);
    if (!tool.named) tool.why = "NVTX_INJECTION64_PATH could not be set";
  } else if (say && version == kCuptiCrashingAsNvtxTool) {
    print_quietly(stderr, fmt::format("ringbench: NVTX not injected into CUPTI, so a CUPTI pass shows no NVTX "
                                      "ranges: {}\n",
                                      tool.why));
  }
  return tool;
}

}  // namespace rb::bench
