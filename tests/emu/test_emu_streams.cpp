// Streams and events on the emulated device, held to CUDA's semantics under every schedule seed:
// one stream's ops (launches, copies, memsets) run in issue order; ops run only when the host waits
// for them; cudaStreamWaitEvent orders two non-blocking streams (on the record made before the
// wait, not a later one; a wait on a never-recorded event is a no-op) and without it some seed runs
// the second stream's op first and a "race" is reported; host synchronisation orders too;
// cudaEventQuery/cudaEventSynchronize; cudaEventElapsedTime around a 2 ms op (cudaErrorNotReady
// before the host waits), and cudaErrorInvalidResourceHandle for events without timing or never
// recorded; the legacy stream orders against blocking streams and not against cudaStreamNonBlocking
// ones; cudaGetLastError returns the last error, then clears it (cudaPeekAtLastError does not).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"
#include "emu_fixture.hpp"

namespace rb::emu {
namespace {

using namespace std::chrono_literals;

class EmuStreams : public test::EmuTest {};

cudaStream_t streams_make(unsigned flags) {
  cudaStream_t s = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, flags), cudaSuccess);
  return s;
}

cudaEvent_t streams_event(unsigned flags) {
  cudaEvent_t e = nullptr;
  EXPECT_EQ(cudaEventCreateWithFlags(&e, flags), cudaSuccess);
  return e;
}

int* streams_alloc_ints(std::size_t n) {
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, n * sizeof(int)), cudaSuccess);
  return static_cast<int*>(p);
}

std::size_t streams_count(const std::string& rule) {
  const std::vector<Violation> all = violations();
  return static_cast<std::size_t>(std::count_if(all.begin(), all.end(),
                                                [&](const Violation& v) { return v.rule == rule; }));
}

std::string streams_report() {
  std::string s;
  for (const Violation& v : violations()) s += v.text() + "\n";
  return s;
}

// Enqueues an op on `s` that writes `d[0]` (so ops on the same int conflict) and logs `tag`.
void streams_logged_write(cudaStream_t s, const std::string& name, int* d, std::vector<int>& log, int tag) {
  ASSERT_EQ(launch(s, name, {writes(d, sizeof(int))},
                   [d, &log, tag] {
                     d[0] = tag;
                     log.push_back(tag);
                   }),
            cudaSuccess);
}

TEST_F(EmuStreams, OpsOnOneStreamRunInIssueOrder) {
  int* d = streams_alloc_ints(4);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    set_schedule_seed(seed);
    std::vector<int> log;
    for (int i = 0; i < 6; ++i) streams_logged_write(s, "op" + std::to_string(i), d, log, i);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(log, (std::vector<int>{0, 1, 2, 3, 4, 5})) << "seed " << seed;
    int last = -1;
    ASSERT_EQ(cudaMemcpy(&last, d, sizeof last, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(last, 5) << "seed " << seed;
  }
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, OpsRunOnlyWhenTheHostWaitsForThem) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  const Counters before = counters();
  bool ran = false;
  ASSERT_EQ(launch(s, "deferred", {writes(d, sizeof(int))}, [&ran] { ran = true; }), cudaSuccess);
  EXPECT_FALSE(ran) << "the op ran when it was enqueued";
  EXPECT_EQ(counters().ops_enqueued - before.ops_enqueued, 1);
  EXPECT_EQ(counters().ops_run, before.ops_run);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(ran) << "cudaStreamSynchronize returned before the op ran";
  EXPECT_EQ(counters().ops_run - before.ops_run, 1);

  // cudaDeviceSynchronize waits for every stream.
  cudaStream_t t = streams_make(cudaStreamNonBlocking);
  bool on_s = false, on_t = false;
  ASSERT_EQ(launch(s, "on_s", {writes(d, sizeof(int))}, [&on_s] { on_s = true; }), cudaSuccess);
  ASSERT_EQ(launch(t, "on_t", {}, [&on_t] { on_t = true; }), cudaSuccess);
  EXPECT_FALSE(on_s || on_t);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_TRUE(on_s && on_t);

  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(t), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, CopiesAndMemsetsAreOrderedWithLaunchesOnTheirStream) {
  // memset, then a launch that reads and rewrites what it set, then a copy back, all on one stream:
  // the copy sees the launch's value under every seed.
  int* d = streams_alloc_ints(4);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  for (std::uint64_t seed = 0; seed <= 8; ++seed) {
    set_schedule_seed(seed);
    std::vector<int> host(4, -1);
    ASSERT_EQ(cudaMemsetAsync(d, 0, 4 * sizeof(int), s), cudaSuccess);
    ASSERT_EQ(launch(s, "add_41", {reads(d, 4 * sizeof(int)), writes(d, 4 * sizeof(int))},
                     [d] {
                       for (int i = 0; i < 4; ++i) d[i] += 41 + i;
                     }),
              cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(host.data(), d, 4 * sizeof(int), cudaMemcpyDeviceToHost, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(host, (std::vector<int>{41, 42, 43, 44})) << "seed " << seed;
  }
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, AWaitOnAnEventOrdersTwoNonBlockingStreams) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s1 = streams_make(cudaStreamNonBlocking);
  cudaStream_t s2 = streams_make(cudaStreamNonBlocking);
  cudaEvent_t e = streams_event(cudaEventDisableTiming);
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    set_schedule_seed(seed);
    std::vector<int> log;
    streams_logged_write(s1, "first", d, log, 1);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    streams_logged_write(s2, "second", d, log, 2);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(log, (std::vector<int>{1, 2})) << "seed " << seed;
  }
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, WithoutAWaitSomeSeedRunsTheSecondStreamFirstAndARaceIsReported) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s1 = streams_make(cudaStreamNonBlocking);
  cudaStream_t s2 = streams_make(cudaStreamNonBlocking);
  int reversed = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    set_schedule_seed(seed);
    clear_violations();
    std::vector<int> log;
    streams_logged_write(s1, "first", d, log, 1);
    streams_logged_write(s2, "second", d, log, 2);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(log.size(), 2u) << "seed " << seed;
    if (log.front() == 2) ++reversed;
    // The rule follows happens-before, not the order a seed happened to pick.
    EXPECT_GE(streams_count("race"), 1u) << "seed " << seed << ": no race reported\n" << streams_report();
  }
  EXPECT_GT(reversed, 0) << "no seed in 1..32 ran the second stream's op first";
  EXPECT_LT(reversed, 32) << "every seed ran the second stream's op first";
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, AWaitFollowsTheRecordMadeBeforeItNotALaterOne) {
  // CUDA: cudaStreamWaitEvent waits for the event's most recent record at the time of the call; a
  // record after it does not move the wait. So `after` (behind the second record) is unordered
  // against `waiter`, and some seed runs `waiter` before it.
  int* d = streams_alloc_ints(2);
  cudaStream_t s1 = streams_make(cudaStreamNonBlocking);
  cudaStream_t s2 = streams_make(cudaStreamNonBlocking);
  cudaEvent_t e = streams_event(cudaEventDisableTiming);
  int waiter_before_after = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    set_schedule_seed(seed);
    std::vector<int> log;
    ASSERT_EQ(launch(s1, "before", {writes(d, sizeof(int))}, [&log] { log.push_back(1); }), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(cudaStreamWaitEvent(s2, e, 0), cudaSuccess);
    ASSERT_EQ(launch(s1, "after", {writes(d + 1, sizeof(int))}, [&log] { log.push_back(3); }), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(e, s1), cudaSuccess);
    ASSERT_EQ(launch(s2, "waiter", {reads(d, sizeof(int))}, [&log] { log.push_back(2); }), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(log.size(), 3u);
    const auto at = [&log](int tag) { return std::find(log.begin(), log.end(), tag) - log.begin(); };
    EXPECT_LT(at(1), at(2)) << "seed " << seed << ": the waiter ran before the recorded op";
    if (at(2) < at(3)) ++waiter_before_after;
  }
  EXPECT_GT(waiter_before_after, 0) << "the wait followed the later record in every seed";
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, AWaitOnANeverRecordedEventIsANoOp) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  cudaEvent_t e = streams_event(cudaEventDisableTiming);
  ASSERT_EQ(cudaStreamWaitEvent(s, e, 0), cudaSuccess);
  bool ran = false;
  ASSERT_EQ(launch(s, "after_noop_wait", {writes(d, sizeof(int))}, [&ran] { ran = true; }), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_TRUE(ran);
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, HostSynchronisationOrdersStreams) {
  // Once the host has waited for s1, an op enqueued later on s2 comes after s1's op: no race.
  int* d = streams_alloc_ints(1);
  cudaStream_t s1 = streams_make(cudaStreamNonBlocking);
  cudaStream_t s2 = streams_make(cudaStreamNonBlocking);
  std::vector<int> log;
  streams_logged_write(s1, "before_sync", d, log, 1);
  ASSERT_EQ(cudaStreamSynchronize(s1), cudaSuccess);
  streams_logged_write(s2, "after_sync", d, log, 2);
  ASSERT_EQ(cudaStreamSynchronize(s2), cudaSuccess);
  EXPECT_EQ(log, (std::vector<int>{1, 2}));
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaStreamDestroy(s1), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s2), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, EventQueryAndSynchronizeSeeTheRecordedWork) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  cudaEvent_t e = streams_event(cudaEventDisableTiming);
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);        // CUDA: a never-recorded event is complete
  EXPECT_EQ(cudaEventSynchronize(e), cudaSuccess);  // and waiting for it returns at once

  // cudaEventQuery answers cudaErrorNotReady or cudaSuccess; once cudaSuccess, the work is done.
  bool ran = false;
  ASSERT_EQ(launch(s, "queried", {writes(d, sizeof(int))}, [&ran] { ran = true; }), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  cudaError_t q = cudaErrorNotReady;
  for (int i = 0; i < 1000 && q == cudaErrorNotReady; ++i) {
    q = cudaEventQuery(e);
    if (q == cudaErrorNotReady) std::this_thread::sleep_for(1ms);
  }
  (void)cudaGetLastError();  // cudaErrorNotReady is not an error to keep
  ASSERT_EQ(q, cudaSuccess) << "the event never completed";
  EXPECT_TRUE(ran) << "cudaEventQuery said complete before the recorded op ran";

  // cudaEventSynchronize returns after the work recorded before the event, and the event is then
  // complete.
  bool second = false;
  ASSERT_EQ(launch(s, "synchronized", {writes(d, sizeof(int))}, [&second] { second = true; }), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(e), cudaSuccess);
  EXPECT_TRUE(second);
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);

  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, ElapsedTimeCoversAnOpThatSleeps) {
  int* d = streams_alloc_ints(1);
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  cudaEvent_t start = streams_event(cudaEventDefault);
  cudaEvent_t stop = streams_event(cudaEventDefault);
  ASSERT_EQ(cudaEventRecord(start, s), cudaSuccess);
  ASSERT_EQ(launch(s, "sleeps_2ms", {writes(d, sizeof(int))}, [] { std::this_thread::sleep_for(2ms); }), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(stop, s), cudaSuccess);
  float ms = -1;
  // Nothing has waited for the op: the events are recorded but not complete (CUDA: cudaErrorNotReady).
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaErrorNotReady);
  (void)cudaGetLastError();
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GE(ms, 2.0f);
  EXPECT_LT(ms, 60000.0f);  // loose: the machine is loaded
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, ElapsedTimeNeedsTimingEventsThatWereRecorded) {
  cudaStream_t s = streams_make(cudaStreamNonBlocking);
  cudaEvent_t a = streams_event(cudaEventDisableTiming);
  cudaEvent_t b = streams_event(cudaEventDisableTiming);
  cudaEvent_t timed = streams_event(cudaEventDefault);
  cudaEvent_t unrecorded = streams_event(cudaEventDefault);
  ASSERT_EQ(cudaEventRecord(a, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(timed, s), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(b, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  float ms = 0;
  EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventElapsedTime(&ms, timed, b), cudaErrorInvalidResourceHandle);  // one without timing
  (void)cudaGetLastError();
  EXPECT_EQ(cudaEventElapsedTime(&ms, timed, unrecorded), cudaErrorInvalidResourceHandle);  // never recorded
  (void)cudaGetLastError();
  EXPECT_EQ(cudaEventElapsedTime(&ms, timed, timed), cudaSuccess);
  EXPECT_EQ(ms, 0.0f);
  for (cudaEvent_t e : {a, b, timed, unrecorded}) EXPECT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
}

TEST_F(EmuStreams, TheLegacyStreamOrdersAgainstABlockingStream) {
  int* d = streams_alloc_ints(1);
  cudaStream_t blocking = nullptr;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);  // a blocking stream, as cudaStreamDefault gives
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    set_schedule_seed(seed);
    std::vector<int> log;
    streams_logged_write(blocking, "on_blocking", d, log, 1);
    streams_logged_write(nullptr, "on_legacy", d, log, 2);           // waits for the blocking stream's work
    streams_logged_write(blocking, "on_blocking_after", d, log, 3);  // waits for the legacy stream's work
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(log, (std::vector<int>{1, 2, 3})) << "seed " << seed;
  }
  EXPECT_TRUE(violations().empty()) << streams_report();
  EXPECT_EQ(cudaStreamDestroy(blocking), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, TheLegacyStreamDoesNotOrderAgainstANonBlockingStream) {
  int* d = streams_alloc_ints(1);
  cudaStream_t nb = streams_make(cudaStreamNonBlocking);
  int legacy_first = 0;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    set_schedule_seed(seed);
    clear_violations();
    std::vector<int> log;
    streams_logged_write(nb, "on_non_blocking", d, log, 1);
    streams_logged_write(nullptr, "on_legacy", d, log, 2);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(log.size(), 2u);
    if (log.front() == 2) ++legacy_first;
    EXPECT_GE(streams_count("race"), 1u) << "seed " << seed << ": no race reported\n" << streams_report();
  }
  EXPECT_GT(legacy_first, 0) << "no seed in 1..32 ran the legacy stream's op first";
  EXPECT_EQ(cudaStreamDestroy(nb), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
}

TEST_F(EmuStreams, GetLastErrorReturnsTheLastErrorThenClearsIt) {
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  int on_the_host = 0;
  EXPECT_EQ(cudaFree(&on_the_host), cudaErrorInvalidValue);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidValue);  // peeking leaves it
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  // A later successful call does not clear it; a later failure replaces it.
  EXPECT_EQ(cudaFree(&on_the_host), cudaErrorInvalidValue);
  int n = 0;
  EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(cudaSetDevice(n), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(cudaFree(&on_the_host), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetDeviceCount(&n), cudaSuccess);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
}

}  // namespace
}  // namespace rb::emu
