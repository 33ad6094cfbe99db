// Whether libcupti may be named NVTX's tool (bench/measure/cupti_nvtx_tool.hpp), on the CPU: each
// reason not to, the crashing libcupti 13.0.0 among them, and the real call leaving a tool that is
// already named alone. Nothing here calls NVTX, so naming a tool would change nothing in this process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "bench/measure/cupti_nvtx_tool.hpp"
#include "bench/measure/cupti_tracer.hpp"

namespace rb::bench {
namespace {

TEST(CuptiNvtxTool, EachReasonNotToNameLibcupti) {
  const std::string lib = "/usr/local/cuda/lib64/libcupti.so.13";
  EXPECT_EQ(cupti_nvtx_refusal(true, 130001, lib, nullptr), "");
  EXPECT_EQ(cupti_nvtx_refusal(true, 24, lib, nullptr), "");          // CUDA 12.6's API version
  EXPECT_EQ(cupti_nvtx_refusal(true, 130001, lib, lib.c_str()), "");  // already named: nothing to change
  const std::string crash = cupti_nvtx_refusal(true, 130000, lib, nullptr);
  EXPECT_NE(crash.find("13.0.0"), std::string::npos) << crash;
  EXPECT_NE(crash.find("NVIDIA/NVTX#125"), std::string::npos) << crash;
  EXPECT_NE(cupti_nvtx_refusal(false, 130001, lib, nullptr).find("no NVTX"), std::string::npos);
  EXPECT_NE(cupti_nvtx_refusal(true, 130001, "", nullptr).find("unknown"), std::string::npos);
  const std::string other = cupti_nvtx_refusal(true, 130001, lib, "/opt/nsys/libToolsInjection64.so");
  EXPECT_NE(other.find("/opt/nsys/libToolsInjection64.so"), std::string::npos) << other;
}

TEST(CuptiNvtxTool, AToolAlreadyNamedIsLeftAlone) {
  ASSERT_EQ(::setenv("NVTX_INJECTION64_PATH", "/opt/nsys/libToolsInjection64.so", 1), 0);
  const NvtxTool tool = name_cupti_as_nvtx_tool(false);
  EXPECT_FALSE(tool.named);
  EXPECT_FALSE(tool.why.empty());
  EXPECT_STREQ(std::getenv("NVTX_INJECTION64_PATH"), "/opt/nsys/libToolsInjection64.so");
  ::unsetenv("NVTX_INJECTION64_PATH");
  EXPECT_NE(cupti_library_path().find("cupti"), std::string::npos) << cupti_library_path();
}

}  // namespace
}  // namespace rb::bench
