// The clean close of a non-blocking NCCL communicator (ring/cuda/nccl_teardown.hpp), driven by a scripted
// communicator on the CPU: finalize, wait until its asynchronous state settles, and only then
// destroy; anything else aborts instead, and nothing waits forever.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "ring/cuda/nccl_teardown.hpp"

namespace rb::ring {
namespace {

// What a non-blocking communicator answers, call by call, and what was asked of it.
struct ScriptedComm {
  ncclResult_t on_finalize = ncclInProgress;
  std::deque<ncclResult_t> states;  // successive ncclCommGetAsyncError states; the last repeats
  ncclResult_t on_query = ncclSuccess;
  ncclResult_t on_destroy = ncclSuccess;
  std::vector<std::string> calls;

  ncclResult_t finalize() {
    calls.push_back("finalize");
    return on_finalize;
  }
  ncclResult_t async_error(ncclResult_t* state) {
    calls.push_back("query");
    *state = states.front();
    if (states.size() > 1) states.pop_front();
    return on_query;
  }
  ncclResult_t destroy() {
    // NCCL's rule: destroy only once the finalize has settled with success.
    EXPECT_EQ(states.front(), ncclSuccess) << "destroyed while the finalize was still in progress";
    calls.push_back("destroy");
    return on_destroy;
  }
  ncclResult_t abort() {
    calls.push_back("abort");
    return ncclSuccess;
  }
  const char* error_string(ncclResult_t r) { return r == ncclRemoteError ? "remote process exited" : "error"; }
};

constexpr auto kLimit = std::chrono::seconds(5);

TEST(NcclTeardown, FinalizesWaitsForItToSettleThenDestroys) {
  ScriptedComm comm;
  comm.states = {ncclInProgress, ncclInProgress, ncclInProgress, ncclSuccess};
  const NcclTeardown t = close_nccl_cleanly(comm, kLimit);
  EXPECT_TRUE(t.clean) << t.failure;
  const std::vector<std::string> expected{"finalize", "query", "query", "query", "query", "destroy"};
  EXPECT_EQ(comm.calls, expected);
}

TEST(NcclTeardown, AFinalizeThatAnswersAtOnceIsStillChecked) {
  ScriptedComm comm;
  comm.on_finalize = ncclSuccess;
  comm.states = {ncclSuccess};
  EXPECT_TRUE(close_nccl_cleanly(comm, kLimit).clean);
  EXPECT_EQ(comm.calls, (std::vector<std::string>{"finalize", "query", "destroy"}));
}

TEST(NcclTeardown, AFailedFinalizeAbortsAndNeverDestroys) {
  ScriptedComm refused;
  refused.on_finalize = ncclInvalidUsage;
  refused.states = {ncclSuccess};
  NcclTeardown t = close_nccl_cleanly(refused, kLimit);
  EXPECT_FALSE(t.clean);
  EXPECT_EQ(refused.calls, (std::vector<std::string>{"finalize", "abort"}));

  ScriptedComm peer_died;
  peer_died.states = {ncclInProgress, ncclRemoteError};
  t = close_nccl_cleanly(peer_died, kLimit);
  EXPECT_FALSE(t.clean);
  EXPECT_NE(t.failure.find("remote process exited"), std::string::npos) << t.failure;
  EXPECT_EQ(peer_died.calls.back(), "abort");

  ScriptedComm query_failed;
  query_failed.on_query = ncclInternalError;
  EXPECT_FALSE(close_nccl_cleanly(query_failed, kLimit).clean);
  EXPECT_EQ(query_failed.calls.back(), "abort");
}

TEST(NcclTeardown, AFinalizeThatNeverSettlesIsAbortedAtTheLimit) {
  ScriptedComm stuck;
  stuck.states = {ncclInProgress};
  const auto t0 = std::chrono::steady_clock::now();
  const NcclTeardown t = close_nccl_cleanly(stuck, std::chrono::milliseconds(50));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  EXPECT_FALSE(t.clean);
  EXPECT_EQ(stuck.calls.back(), "abort");
  EXPECT_EQ(std::count(stuck.calls.begin(), stuck.calls.end(), "destroy"), 0);
}

TEST(NcclTeardown, ADestroyThatFailsIsReported) {
  ScriptedComm comm;
  comm.states = {ncclSuccess};
  comm.on_destroy = ncclInProgress;
  const NcclTeardown t = close_nccl_cleanly(comm, kLimit);
  EXPECT_FALSE(t.clean);
  EXPECT_NE(t.failure.find("ncclCommDestroy"), std::string::npos);
  EXPECT_EQ(comm.calls.back(), "destroy");  // the handle is gone: nothing left to abort
}

}  // namespace
}  // namespace rb::ring
