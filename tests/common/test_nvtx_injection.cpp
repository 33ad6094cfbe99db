// NVTX reads NVTX_INJECTION64_PATH once, at a process's first NVTX call. A sweep makes NVTX calls
// (the configuration's range, thread and stream names) long before its first CUPTI-traced pass, so
// the tool must be named before any of them: main does that (nvtx::attach_injection). Each case
// runs in a child process of its own, as a fresh ringbench process would, with a stand-in tool
// that notes whether NVTX loaded it.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "common/nvtx.hpp"

namespace rb::nvtx {
namespace {

// Whether NVTX loaded the stand-in tool in this process.
bool tool_loaded() {
  void* h = dlopen(RINGBENCH_FAKE_NVTX_TOOL, RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return false;
  const auto* flag = static_cast<const int*>(dlsym(h, "rb_fake_nvtx_tool_loaded"));
  const bool loaded = flag != nullptr && *flag == 1;
  dlclose(h);
  return loaded;
}

// What a sweep does first: names its threads and opens a configuration's round range.
void a_sweeps_first_nvtx_calls() {
  name_current_thread("sweep");
  ScopedRange config(std::string(kRangeConfig) + " S=1024 c=2 zigzag ring round 1");
  ScopedRange replay(kRangeReplay, 0);
}

class NvtxInjection : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(NvtxInjection, AToolNamedBeforeTheFirstCallIsLoaded) {
  EXPECT_EXIT(
      {
        ::unsetenv("NVTX_INJECTION64_PATH");
        const bool named = attach_injection(RINGBENCH_FAKE_NVTX_TOOL);
        a_sweeps_first_nvtx_calls();
        std::_Exit(named && tool_loaded() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// The order the tracer used to rely on: the variable set once the sweep's ranges had begun. NVTX
// has read it by then, so the tool never loads and CUPTI would see no NVTX range.
TEST_F(NvtxInjection, AToolNamedAfterTheFirstCallIsNeverLoaded) {
  EXPECT_EXIT(
      {
        ::unsetenv("NVTX_INJECTION64_PATH");
        a_sweeps_first_nvtx_calls();
        const bool named = attach_injection(RINGBENCH_FAKE_NVTX_TOOL);
        a_sweeps_first_nvtx_calls();
        std::_Exit(named && !tool_loaded() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// Nsight Systems names its own tool; ringbench leaves it.
TEST_F(NvtxInjection, AToolAlreadyNamedIsLeftAlone) {
  EXPECT_EXIT(
      {
        ::setenv("NVTX_INJECTION64_PATH", "/opt/nsight/libToolsInjection64.so", 1);
        const bool named = attach_injection(RINGBENCH_FAKE_NVTX_TOOL);
        const std::string now = std::getenv("NVTX_INJECTION64_PATH");
        std::_Exit(!named && now == "/opt/nsight/libToolsInjection64.so" ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_FALSE(attach_injection(""));
}

}  // namespace
}  // namespace rb::nvtx
