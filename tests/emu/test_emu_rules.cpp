// The emulated device's rules, each shown to fire with its name and the call that broke it, and
// not to fire for the correct program: "capture" for cudaMalloc, cudaStreamSynchronize, a
// synchronous cudaMemcpy and cudaEventQuery during a capture (each also fails as CUDA fails it and
// invalidates the capture), for a fork not joined by cudaStreamEndCapture and for a wait on an
// event recorded before the capture began; "race" for two streams writing the same bytes with no
// event between them (or a copy reading what a launch writes), none with the event; "handle" for
// a destroyed stream, event or graph exec.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"
#include "emu_fixture.hpp"

namespace rb::emu {
namespace {

class EmuRules : public test::EmuTest {
 protected:
  void SetUp() override {
    EmuTest::SetUp();
    ASSERT_EQ(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaStreamCreateWithFlags(&t_, cudaStreamNonBlocking), cudaSuccess);
    ASSERT_EQ(cudaEventCreateWithFlags(&e_, cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&buf_, 64), cudaSuccess);
    ASSERT_EQ(cudaMemset(buf_, 0, 64), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  void TearDown() override {
    (void)cudaDeviceSynchronize();
    (void)cudaEventDestroy(e_);
    (void)cudaStreamDestroy(s_);
    (void)cudaStreamDestroy(t_);
    (void)cudaFree(buf_);
    (void)cudaGetLastError();
    set_schedule_seed(0);
  }

  // Ends the capture on s_ and returns its status; any graph it gave is destroyed.
  cudaError_t end_capture() {
    cudaGraph_t g = nullptr;
    const cudaError_t err = cudaStreamEndCapture(s_, &g);
    graph_ = g;
    if (g) (void)cudaGraphDestroy(g);
    return err;
  }

  cudaStream_t s_ = nullptr, t_ = nullptr;
  cudaEvent_t e_ = nullptr;
  void* buf_ = nullptr;
  cudaGraph_t graph_ = nullptr;  // the graph the last end_capture() gave, destroyed since
};

std::string rules_report() {
  std::string s;
  for (const Violation& v : violations()) s += v.text() + "\n";
  return s;
}

// The first violation of `rule` naming `call`, or nullptr.
const Violation* rules_find(const std::vector<Violation>& all, const std::string& rule, const std::string& call) {
  for (const Violation& v : all)
    if (v.rule == rule && v.call == call) return &v;
  return nullptr;
}

bool rules_any_of(const std::string& rule) {
  for (const Violation& v : violations())
    if (v.rule == rule) return true;
  return false;
}

TEST_F(EmuRules, ACleanCaptureBreaksNoRule) {
  // Allocation before the capture, a fork and a join through events, no synchronisation inside.
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "produce", {writes(buf_, 32)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(t_, e_, 0), cudaSuccess);
  ASSERT_EQ(launch(t_, "consume", {reads(buf_, 32)}, [] {}), cudaSuccess);
  cudaEvent_t join = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&join, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(join, t_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s_, join, 0), cudaSuccess);
  EXPECT_EQ(end_capture(), cudaSuccess);
  EXPECT_NE(graph_, nullptr);
  EXPECT_TRUE(violations().empty()) << rules_report();
  EXPECT_EQ(cudaEventDestroy(join), cudaSuccess);
}

TEST_F(EmuRules, CudaMallocDuringCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "before_malloc", {writes(buf_, 4)}, [] {}), cudaSuccess);
  void* p = nullptr;
  // CUDA: not permitted while this thread captures (cudaStreamCaptureModeThreadLocal).
  EXPECT_EQ(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported);
  const std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "capture", "cudaMalloc"), nullptr) << rules_report();
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph_, nullptr);
  if (p) (void)cudaFree(p);
}

TEST_F(EmuRules, StreamSynchronizeDuringCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "before_sync", {writes(buf_, 4)}, [] {}), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s_), cudaErrorStreamCaptureUnsupported);
  const std::vector<Violation> all = violations();
  const Violation* v = rules_find(all, "capture", "cudaStreamSynchronize");
  ASSERT_NE(v, nullptr) << rules_report();
  EXPECT_EQ(v->stream, stream_name(s_));
  EXPECT_EQ(v->text().rfind("capture: ", 0), 0u) << v->text();
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureInvalidated);
  EXPECT_EQ(graph_, nullptr);
}

TEST_F(EmuRules, ASynchronousCopyDuringCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "before_copy", {writes(buf_, 4)}, [] {}), cudaSuccess);
  std::vector<std::uint8_t> host(64, 0);
  EXPECT_NE(cudaMemcpy(host.data(), buf_, 64, cudaMemcpyDeviceToHost), cudaSuccess);
  const std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "capture", "cudaMemcpy"), nullptr) << rules_report();
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureInvalidated);
}

TEST_F(EmuRules, AnEventQueryDuringCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "before_query", {writes(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e_, s_), cudaSuccess);
  // CUDA: cudaErrorCapturedEvent, an event last recorded in a capturing stream cannot be queried.
  EXPECT_NE(cudaEventQuery(e_), cudaSuccess);
  const std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "capture", "cudaEventQuery"), nullptr) << rules_report();
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureInvalidated);
}

TEST_F(EmuRules, AnUnjoinedForkAtEndCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "main_work", {writes(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(t_, e_, 0), cudaSuccess);
  ASSERT_EQ(launch(t_, "forked_work", {reads(buf_, 4)}, [] {}), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << rules_report();  // nothing wrong yet
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureUnjoined);
  EXPECT_EQ(graph_, nullptr);
  const std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "capture", "cudaStreamEndCapture"), nullptr) << rules_report();
  // Neither stream captures any more.
  for (cudaStream_t st : {s_, t_}) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    EXPECT_EQ(cudaStreamGetCaptureInfo(st, &status), cudaSuccess);
    EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  }
}

TEST_F(EmuRules, AWaitOnAnEventRecordedBeforeTheCaptureBreaksTheCaptureRule) {
  ASSERT_EQ(launch(t_, "before_capture", {writes(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e_, t_), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  // CUDA: waiting, while capturing, on an event recorded outside the capture (without
  // cudaEventWaitExternal) is not permitted.
  EXPECT_NE(cudaStreamWaitEvent(s_, e_, 0), cudaSuccess);
  (void)cudaGetLastError();
  const std::vector<Violation> all = violations();
  const Violation* v = rules_find(all, "capture", "cudaStreamWaitEvent");
  ASSERT_NE(v, nullptr) << rules_report();
  EXPECT_EQ(v->stream, stream_name(s_));
  EXPECT_EQ(end_capture(), cudaErrorStreamCaptureInvalidated);
}

TEST_F(EmuRules, TwoStreamsWritingTheSameBytesWithoutAnEventRace) {
  for (std::uint64_t seed : {0ull, 1ull, 2ull, 3ull}) {
    set_schedule_seed(seed);
    clear_violations();
    ASSERT_EQ(launch(s_, "writer_s", {writes(buf_, 16)}, [] {}), cudaSuccess);
    ASSERT_EQ(launch(t_, "writer_t", {writes(static_cast<std::uint8_t*>(buf_) + 8, 16)}, [] {}), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<Violation> all = violations();
    const Violation* v = rules_find(all, "race", "writer_t");
    if (!v) v = rules_find(all, "race", "writer_s");
    ASSERT_NE(v, nullptr) << "seed " << seed << "\n" << rules_report();
    EXPECT_TRUE(v->stream == stream_name(s_) || v->stream == stream_name(t_)) << v->stream;
    EXPECT_EQ(v->text().rfind("race: ", 0), 0u) << v->text();
  }
  // A read against a write races too.
  clear_violations();
  ASSERT_EQ(launch(s_, "writer", {writes(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(launch(t_, "reader", {reads(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rules_any_of("race")) << rules_report();
}

TEST_F(EmuRules, ACopyOnAnotherStreamRacesWithTheLaunchThatWritesItsSource) {
  std::vector<std::uint8_t> host(16, 0);
  ASSERT_EQ(launch(s_, "fills_source", {writes(buf_, 16)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host.data(), buf_, 16, cudaMemcpyDeviceToHost, t_), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(rules_any_of("race")) << rules_report();

  // Ordered through an event, the same copy does not race.
  clear_violations();
  ASSERT_EQ(launch(s_, "fills_source", {writes(buf_, 16)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e_, s_), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(t_, e_, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(host.data(), buf_, 16, cudaMemcpyDeviceToHost, t_), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << rules_report();
}

TEST_F(EmuRules, TheSameProgramWithAnEventDoesNotRace) {
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    set_schedule_seed(seed);
    ASSERT_EQ(launch(s_, "writer_s", {writes(buf_, 16)}, [] {}), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e_, s_), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(t_, e_, 0), cudaSuccess);
    ASSERT_EQ(launch(t_, "writer_t", {writes(static_cast<std::uint8_t*>(buf_) + 8, 16)}, [] {}), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // Two readers of the same bytes, or two writers of different bytes, never race.
  ASSERT_EQ(launch(s_, "reader_s", {reads(buf_, 16)}, [] {}), cudaSuccess);
  ASSERT_EQ(launch(t_, "reader_t", {reads(buf_, 16)}, [] {}), cudaSuccess);
  ASSERT_EQ(launch(s_, "writer_low", {writes(static_cast<std::uint8_t*>(buf_) + 32, 8)}, [] {}), cudaSuccess);
  ASSERT_EQ(launch(t_, "writer_high", {writes(static_cast<std::uint8_t*>(buf_) + 40, 8)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << rules_report();
}

TEST_F(EmuRules, ADestroyedStreamBreaksTheHandleRule) {
  cudaStream_t gone = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&gone, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(launch(gone, "while_alive", {writes(buf_, 4)}, [] {}), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(gone), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(gone), cudaSuccess);
  EXPECT_TRUE(violations().empty()) << rules_report();

  (void)launch(gone, "on_destroyed_stream", {writes(buf_, 4)}, [] {});
  (void)cudaGetLastError();
  std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "handle", "on_destroyed_stream"), nullptr) << rules_report();

  clear_violations();
  EXPECT_NE(cudaStreamSynchronize(gone), cudaSuccess);
  (void)cudaGetLastError();
  all = violations();
  EXPECT_NE(rules_find(all, "handle", "cudaStreamSynchronize"), nullptr) << rules_report();
}

TEST_F(EmuRules, ADestroyedEventOrGraphExecBreaksTheHandleRule) {
  cudaEvent_t gone = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&gone, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(gone), cudaSuccess);
  EXPECT_NE(cudaEventRecord(gone, s_), cudaSuccess);
  (void)cudaGetLastError();
  std::vector<Violation> all = violations();
  EXPECT_NE(rules_find(all, "handle", "cudaEventRecord"), nullptr) << rules_report();

  ASSERT_EQ(cudaStreamBeginCapture(s_, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s_, "captured", {writes(buf_, 4)}, [] {}), cudaSuccess);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s_, &g), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);
  clear_violations();
  EXPECT_NE(cudaGraphLaunch(exec, s_), cudaSuccess);
  (void)cudaGetLastError();
  all = violations();
  EXPECT_NE(rules_find(all, "handle", "cudaGraphLaunch"), nullptr) << rules_report();
}

// A kernel whose twin throws (an index outside its buffers) is a faulting kernel: the wait that
// runs it reports the launch failure, every later call fails as in a lost context, and the rule
// names the kernel; clear_violations() (a test's fresh start) recovers.
TEST_F(EmuRules, AKernelThatThrowsBreaksTheKernelRuleAndLosesTheContext) {
  ASSERT_EQ(launch(s_, "faulting_kernel", {writes(buf_, 8)}, [] { throw std::out_of_range("row 9 of 8"); }),
            cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s_), cudaErrorLaunchFailure);
  const auto all = violations();
  const Violation* v = rules_find(all, "kernel", "faulting_kernel");
  ASSERT_NE(v, nullptr) << rules_report();
  EXPECT_NE(v->detail.find("row 9 of 8"), std::string::npos) << v->text();
  EXPECT_EQ(launch(s_, "after", {writes(buf_, 8)}, [] {}), cudaErrorLaunchFailure);
  EXPECT_EQ(cudaGetLastError(), cudaErrorLaunchFailure);
  clear_violations();
  (void)cudaGetLastError();
  EXPECT_EQ(launch(s_, "after", {writes(buf_, 8)}, [] {}), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s_), cudaSuccess);
}

}  // namespace
}  // namespace rb::emu
