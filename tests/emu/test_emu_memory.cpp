// The emulated device's memory: a fresh cudaMalloc allocation reads as the 0xFF poison until
// something writes it; cudaMemcpy (H2D, D2H, D2D, async) and cudaMemset[Async] move and set bytes;
// cudaMemGetInfo's free memory shrinks by an allocation and grows back when it is freed; freeing a
// pointer cudaMalloc never gave, or freeing twice, is an error (and the second free a
// "use-after-free"); a launch that reads freed memory is a "use-after-free", one that reaches a
// byte past an allocation's end is "bounds"; freed addresses are not handed out again; and
// set_device_count sets what cudaGetDeviceCount and cudaSetDevice accept.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"
#include "emu_fixture.hpp"

namespace rb::emu {
namespace {

class EmuMemory : public test::EmuTest {};

// The violations of one rule since the last clear.
std::vector<Violation> memory_violations_of(const std::string& rule) {
  std::vector<Violation> out;
  for (const Violation& v : violations())
    if (v.rule == rule) out.push_back(v);
  return out;
}

bool memory_saw(const std::string& rule, const std::string& call) {
  for (const Violation& v : violations())
    if (v.rule == rule && v.call == call) return true;
  return false;
}

std::string memory_all_violations() {
  std::string s;
  for (const Violation& v : violations()) s += v.text() + "\n";
  return s;
}

std::vector<std::uint8_t> memory_read_back(const void* dev, std::size_t bytes) {
  std::vector<std::uint8_t> host(bytes, 0);
  EXPECT_EQ(cudaMemcpy(host.data(), dev, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  return host;
}

TEST_F(EmuMemory, AFreshAllocationReadsAsPoison) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 256), cudaSuccess);
  ASSERT_NE(p, nullptr);
  const std::vector<std::uint8_t> host = memory_read_back(p, 256);
  for (std::size_t i = 0; i < host.size(); ++i) ASSERT_EQ(host[i], 0xFF) << "byte " << i;
  float f = 0;
  std::memcpy(&f, host.data(), sizeof f);
  EXPECT_TRUE(std::isnan(f));  // the poison is a NaN in fp32 (and in bf16)
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();
}

TEST_F(EmuMemory, CopiesRoundTrip) {
  constexpr std::size_t n = 1000;
  std::vector<std::uint8_t> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<std::uint8_t>(i * 7 + 3);
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  ASSERT_EQ(cudaMalloc(&a, n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(a, in.data(), n, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(memory_read_back(a, n), in);
  ASSERT_EQ(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice), cudaSuccess);
  EXPECT_EQ(memory_read_back(b, n), in);

  // The async copies on a stream of their own, waited for by the stream.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  std::vector<std::uint8_t> out(n, 0);
  ASSERT_EQ(cudaMemcpyAsync(c, in.data(), n, cudaMemcpyHostToDevice, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), c, n, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(out, in);
  // A part of one buffer into the middle of another: only those bytes change.
  ASSERT_EQ(cudaMemcpyAsync(static_cast<std::uint8_t*>(b) + 100, static_cast<std::uint8_t*>(c) + 10, 50,
                            cudaMemcpyDeviceToDevice, s),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  const std::vector<std::uint8_t> partial = memory_read_back(b, n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(partial[i], (i >= 100 && i < 150) ? in[i - 90] : in[i]) << "byte " << i;

  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(a), cudaSuccess);
  EXPECT_EQ(cudaFree(b), cudaSuccess);
  EXPECT_EQ(cudaFree(c), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();
}

TEST_F(EmuMemory, MemsetSetsEveryByteItCovers) {
  constexpr std::size_t n = 64;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, n), cudaSuccess);
  ASSERT_EQ(cudaMemset(p, 0x5A, n), cudaSuccess);
  for (std::uint8_t b : memory_read_back(p, n)) ASSERT_EQ(b, 0x5A);

  // The value is an int of which only the low byte counts.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(static_cast<std::uint8_t*>(p) + 16, 0x111, 32, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  const std::vector<std::uint8_t> host = memory_read_back(p, n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(host[i], (i >= 16 && i < 48) ? 0x11 : 0x5A) << "byte " << i;

  // cudaMemset to zero, on part of a poisoned allocation: the rest stays poison.
  void* q = nullptr;
  ASSERT_EQ(cudaMalloc(&q, n), cudaSuccess);
  ASSERT_EQ(cudaMemset(q, 0, 8), cudaSuccess);
  const std::vector<std::uint8_t> qh = memory_read_back(q, n);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(qh[i], i < 8 ? 0x00 : 0xFF) << "byte " << i;

  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_EQ(cudaFree(q), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();
}

TEST_F(EmuMemory, FreeMemoryShrinksByAnAllocation) {
  constexpr std::size_t bytes = std::size_t{1} << 20;
  std::size_t free0 = 0, total0 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free0, &total0), cudaSuccess);
  EXPECT_GT(total0, 0u);
  EXPECT_LE(free0, total0);
  const std::int64_t live0 = counters().live_bytes;

  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, bytes), cudaSuccess);
  std::size_t free1 = 0, total1 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free1, &total1), cudaSuccess);
  EXPECT_EQ(total1, total0);
  ASSERT_LE(free1, free0);
  EXPECT_GE(free0 - free1, bytes) << "free memory did not shrink by the allocation";
  EXPECT_EQ(counters().live_bytes - live0, static_cast<std::int64_t>(bytes));

  ASSERT_EQ(cudaFree(p), cudaSuccess);
  std::size_t free2 = 0, total2 = 0;
  ASSERT_EQ(cudaMemGetInfo(&free2, &total2), cudaSuccess);
  EXPECT_GE(free2, free1 + bytes) << "cudaFree did not give the memory back";
  EXPECT_EQ(counters().live_bytes, live0);
}

TEST_F(EmuMemory, FreeingAPointerNeverAllocatedIsAnError) {
  int on_the_host = 0;
  EXPECT_EQ(cudaFree(&on_the_host), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaFree(nullptr), cudaSuccess);  // CUDA: freeing nullptr does nothing
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(EmuMemory, FreeingTwiceIsAnErrorAndAUseAfterFree) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 128), cudaSuccess);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();
  EXPECT_EQ(cudaFree(p), cudaErrorInvalidValue);
  EXPECT_TRUE(memory_saw("use-after-free", "cudaFree")) << memory_all_violations();
}

TEST_F(EmuMemory, ALaunchReadingFreedMemoryIsAUseAfterFree) {
  constexpr std::size_t n = 64;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, n), cudaSuccess);
  // The same launch on live memory is clean.
  (void)launch(nullptr, "read_live", {reads(p, n)}, [] {});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();

  ASSERT_EQ(cudaFree(p), cudaSuccess);
  // The work itself touches nothing: only the declared access is judged.
  (void)launch(nullptr, "read_freed", {reads(p, n)}, [] {});
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  const std::vector<Violation> uaf = memory_violations_of("use-after-free");
  ASSERT_FALSE(uaf.empty()) << memory_all_violations();
  EXPECT_EQ(uaf.front().call, "read_freed");
  EXPECT_EQ(uaf.front().stream, stream_name(nullptr));
  EXPECT_EQ(uaf.front().text().rfind("use-after-free: ", 0), 0u) << uaf.front().text();
}

TEST_F(EmuMemory, ACopyFromFreedMemoryFailsAndIsAUseAfterFree) {
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  ASSERT_EQ(cudaFree(p), cudaSuccess);
  std::vector<std::uint8_t> host(64, 0);
  EXPECT_NE(cudaMemcpy(host.data(), p, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  (void)cudaGetLastError();
  EXPECT_TRUE(memory_saw("use-after-free", "cudaMemcpy")) << memory_all_violations();
}

TEST_F(EmuMemory, AnAccessOneBytePastTheEndIsOutOfBounds) {
  constexpr std::size_t n = 100;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, n), cudaSuccess);
  auto* bytes = static_cast<std::uint8_t*>(p);

  (void)launch(nullptr, "exactly_inside", {reads(p, n), writes(bytes + n - 1, 1)}, [] {});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << memory_all_violations();

  (void)launch(nullptr, "read_one_past", {reads(p, n + 1)}, [] {});
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  std::vector<Violation> oob = memory_violations_of("bounds");
  ASSERT_FALSE(oob.empty()) << memory_all_violations();
  EXPECT_EQ(oob.front().call, "read_one_past");
  EXPECT_EQ(oob.front().stream, stream_name(nullptr));

  clear_violations();
  (void)launch(nullptr, "write_at_end", {writes(bytes + n, 1)}, [] {});
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  oob = memory_violations_of("bounds");
  ASSERT_FALSE(oob.empty()) << memory_all_violations();
  EXPECT_EQ(oob.front().call, "write_at_end");

  // Host memory is outside every allocation.
  clear_violations();
  int on_the_host = 0;
  (void)launch(nullptr, "read_host", {reads(&on_the_host, sizeof on_the_host)}, [] {});
  (void)cudaDeviceSynchronize();
  (void)cudaGetLastError();
  EXPECT_TRUE(memory_saw("bounds", "read_host")) << memory_all_violations();

  // A synchronous copy one byte too long.
  clear_violations();
  std::vector<std::uint8_t> host(n + 1, 0);
  EXPECT_NE(cudaMemcpy(host.data(), p, n + 1, cudaMemcpyDeviceToHost), cudaSuccess);
  (void)cudaGetLastError();
  EXPECT_TRUE(memory_saw("bounds", "cudaMemcpy")) << memory_all_violations();

  EXPECT_EQ(cudaFree(p), cudaSuccess);
}

TEST_F(EmuMemory, FreedAddressesAreNotHandedOutAgain) {
  std::vector<void*> freed;
  for (int i = 0; i < 8; ++i) {
    void* p = nullptr;
    ASSERT_EQ(cudaMalloc(&p, 4096), cudaSuccess);
    for (void* f : freed) ASSERT_NE(p, f) << "a freed allocation's address came back";
    ASSERT_EQ(cudaFree(p), cudaSuccess);
    freed.push_back(p);
  }
  EXPECT_TRUE(violations().empty()) << memory_all_violations();
}

TEST_F(EmuMemory, DeviceCountIsWhatWasSet) {
  int before = 0;
  ASSERT_EQ(cudaGetDeviceCount(&before), cudaSuccess);
  EXPECT_GE(before, 1);
  set_device_count(3);
  int n = 0;
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, 3);
  EXPECT_EQ(cudaSetDevice(2), cudaSuccess);
  int current = -1;
  EXPECT_EQ(cudaGetDevice(&current), cudaSuccess);
  EXPECT_EQ(current, 2);
  EXPECT_EQ(cudaSetDevice(3), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
  int sms = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
  EXPECT_GT(sms, 0);
  int major = 0;
  EXPECT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
  EXPECT_GT(major, 0);
  set_device_count(before);
  ASSERT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(n, before);
}

}  // namespace
}  // namespace rb::emu
