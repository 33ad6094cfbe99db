// Stream capture and graphs on the emulated device, held to CUDA 13's semantics: a capture on a
// non-blocking stream that forks to a second stream through an event and joins back ends in a
// graph; nothing runs during capture (nor at cudaGraphLaunch, before the host waits); instantiate +
// launch twice runs the ops twice in dependency order and leaves what the eager run leaves;
// cudaStreamGetCaptureInfo reports the status and the frontier (with edge data), and
// cudaGraphNodeGetDependencies walks back from it; events recorded with cudaEventRecordExternal
// record at every replay; captured memsets and copies run at each replay, on any stream; the legacy
// stream cannot capture; launches of one graph exec on one stream are ordered.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "emu/runtime/emu_device.hpp"
#include "emu_fixture.hpp"

namespace rb::emu {
namespace {

using namespace std::chrono_literals;

class EmuCapture : public test::EmuTest {};

std::string capture_report() {
  std::string s;
  for (const Violation& v : violations()) s += v.text() + "\n";
  return s;
}

struct CaptureInfo {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  std::vector<cudaGraphNode_t> deps;
  const cudaGraphEdgeData* edges = nullptr;
  const cudaGraphNode_t* deps_ptr = nullptr;
};

CaptureInfo capture_info_of(cudaStream_t s) {
  CaptureInfo info;
  std::size_t n = 0;
  EXPECT_EQ(cudaStreamGetCaptureInfo(s, &info.status, nullptr, nullptr, &info.deps_ptr, &info.edges, &n), cudaSuccess);
  if (n > 0 && info.deps_ptr) info.deps.assign(info.deps_ptr, info.deps_ptr + n);
  EXPECT_EQ(info.deps.size(), n);
  return info;
}

// The node the last call on a capturing stream added (its frontier must be that one node).
cudaGraphNode_t capture_last_node(cudaStream_t s) {
  const CaptureInfo info = capture_info_of(s);
  EXPECT_EQ(info.deps.size(), 1u);
  return info.deps.empty() ? nullptr : info.deps.front();
}

std::vector<cudaGraphNode_t> capture_node_deps(cudaGraphNode_t node) {
  std::size_t n = 0;
  EXPECT_EQ(cudaGraphNodeGetDependencies(node, nullptr, nullptr, &n), cudaSuccess);
  std::vector<cudaGraphNode_t> deps(n);
  std::vector<cudaGraphEdgeData> edges(n);
  if (n > 0) {
    EXPECT_EQ(cudaGraphNodeGetDependencies(node, deps.data(), edges.data(), &n), cudaSuccess);
    EXPECT_EQ(n, deps.size());
    for (const cudaGraphEdgeData& e : edges) {  // a plain stream-order edge carries no data
      EXPECT_EQ(e.type, cudaGraphDependencyTypeDefault);
      EXPECT_EQ(e.from_port, 0);
      EXPECT_EQ(e.to_port, 0);
    }
  }
  return deps;
}

// The streams, events and buffer one diamond program uses: A on main; fork; B on side, C on main;
// join; D on main. d[0..3] are A's, B's, C's and D's outputs.
struct Diamond {
  cudaStream_t main = nullptr, side = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  int* d = nullptr;
  std::vector<std::string> log;
  // The nodes each op became, when enqueued under capture.
  cudaGraphNode_t a = nullptr, b = nullptr, c = nullptr, dn = nullptr;
};

void capture_diamond_setup(Diamond& p) {
  ASSERT_EQ(cudaStreamCreateWithFlags(&p.main, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&p.side, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&p.fork, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&p.join, cudaEventDisableTiming), cudaSuccess);
  void* m = nullptr;
  ASSERT_EQ(cudaMalloc(&m, 4 * sizeof(int)), cudaSuccess);
  p.d = static_cast<int*>(m);
  ASSERT_EQ(cudaMemset(p.d, 0, 4 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

void capture_diamond_teardown(Diamond& p) {
  EXPECT_EQ(cudaEventDestroy(p.fork), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(p.join), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(p.main), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(p.side), cudaSuccess);
  EXPECT_EQ(cudaFree(p.d), cudaSuccess);
}

// Enqueues the diamond on p's streams (eagerly, or into the capture main is in). With
// `capturing`, notes each op's node.
void capture_enqueue_diamond(Diamond& p, bool capturing) {
  int* d = p.d;
  auto& log = p.log;
  const std::size_t i = sizeof(int);
  ASSERT_EQ(launch(p.main, "A", {reads(d, i), writes(d, i)},
                   [d, &log] {
                     d[0] += 1;
                     log.push_back("A");
                   }),
            cudaSuccess);
  if (capturing) p.a = capture_last_node(p.main);
  ASSERT_EQ(cudaEventRecord(p.fork, p.main), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(p.side, p.fork, 0), cudaSuccess);
  ASSERT_EQ(launch(p.side, "B", {reads(d, i), writes(d + 1, i)},
                   [d, &log] {
                     d[1] = d[0] * 10;
                     log.push_back("B");
                   }),
            cudaSuccess);
  if (capturing) p.b = capture_last_node(p.side);
  ASSERT_EQ(launch(p.main, "C", {reads(d, i), writes(d + 2, i)},
                   [d, &log] {
                     d[2] = d[0] + 7;
                     log.push_back("C");
                   }),
            cudaSuccess);
  if (capturing) p.c = capture_last_node(p.main);
  ASSERT_EQ(cudaEventRecord(p.join, p.side), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(p.main, p.join, 0), cudaSuccess);
  ASSERT_EQ(launch(p.main, "D", {reads(d + 1, 2 * i), reads(d + 3, i), writes(d + 3, i)},
                   [d, &log] {
                     d[3] += d[1] + d[2];
                     log.push_back("D");
                   }),
            cudaSuccess);
  if (capturing) p.dn = capture_last_node(p.main);
}

// Each run of the diamond in `log` (four entries a run) went A, then B and C in either order, then D.
void capture_expect_diamond_order(const std::vector<std::string>& log, std::size_t runs, std::uint64_t seed) {
  ASSERT_EQ(log.size(), 4 * runs) << "seed " << seed;
  for (std::size_t r = 0; r < runs; ++r) {
    const auto* run = &log[4 * r];
    EXPECT_EQ(run[0], "A") << "seed " << seed << ", run " << r;
    EXPECT_TRUE((run[1] == "B" && run[2] == "C") || (run[1] == "C" && run[2] == "B")) << "seed " << seed;
    EXPECT_EQ(run[3], "D") << "seed " << seed << ", run " << r;
  }
}

std::vector<int> capture_read_ints(const int* d, std::size_t n) {
  std::vector<int> out(n, 0);
  EXPECT_EQ(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

TEST_F(EmuCapture, AForkAndJoinCaptureBecomesAGraphAndNothingRunsDuringIt) {
  Diamond p;
  capture_diamond_setup(p);
  const Counters before = counters();
  ASSERT_EQ(cudaStreamBeginCapture(p.main, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  capture_enqueue_diamond(p, true);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(p.main, &graph), cudaSuccess);
  ASSERT_NE(graph, nullptr);
  EXPECT_TRUE(p.log.empty()) << "an op ran during capture";
  EXPECT_EQ(counters().ops_run, before.ops_run);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_NE(exec, nullptr);
  ASSERT_EQ(cudaGraphUpload(exec, p.main), cudaSuccess);
  EXPECT_TRUE(p.log.empty()) << "an op ran at instantiate or upload";
  // The captured ops never touched memory: the buffer is as the memset left it.
  EXPECT_EQ(capture_read_ints(p.d, 4), (std::vector<int>{0, 0, 0, 0}));

  ASSERT_EQ(cudaGraphLaunch(exec, p.main), cudaSuccess);
  EXPECT_TRUE(p.log.empty()) << "the graph ran before the host waited for it";
  ASSERT_EQ(cudaStreamSynchronize(p.main), cudaSuccess);
  capture_expect_diamond_order(p.log, 1, 0);
  EXPECT_EQ(counters().graph_launches - before.graph_launches, 1);

  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  capture_diamond_teardown(p);
}

TEST_F(EmuCapture, LaunchingTwiceRunsTheOpsTwiceInDependencyOrderUnderEverySeed) {
  Diamond p;
  capture_diamond_setup(p);
  ASSERT_EQ(cudaStreamBeginCapture(p.main, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  capture_enqueue_diamond(p, true);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(p.main, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    set_schedule_seed(seed);
    p.log.clear();
    ASSERT_EQ(cudaMemset(p.d, 0, 4 * sizeof(int)), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, p.main), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, p.main), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(p.main), cudaSuccess);
    capture_expect_diamond_order(p.log, 2, seed);
    // Run 1: 1, 10, 8, 18; run 2: 2, 20, 9, 18 + 29.
    EXPECT_EQ(capture_read_ints(p.d, 4), (std::vector<int>{2, 20, 9, 47})) << "seed " << seed;
  }
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  capture_diamond_teardown(p);
}

TEST_F(EmuCapture, AGraphLeavesWhatTheEagerRunLeaves) {
  Diamond eager;
  capture_diamond_setup(eager);
  capture_enqueue_diamond(eager, false);
  capture_enqueue_diamond(eager, false);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  capture_expect_diamond_order(eager.log, 2, 0);

  Diamond graphed;
  capture_diamond_setup(graphed);
  ASSERT_EQ(cudaStreamBeginCapture(graphed.main, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  capture_enqueue_diamond(graphed, true);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(graphed.main, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, graphed.main), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, graphed.main), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(graphed.main), cudaSuccess);

  EXPECT_EQ(capture_read_ints(graphed.d, 4), capture_read_ints(eager.d, 4));
  EXPECT_EQ(capture_read_ints(eager.d, 4), (std::vector<int>{2, 20, 9, 47}));
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  capture_diamond_teardown(eager);
  capture_diamond_teardown(graphed);
}

TEST_F(EmuCapture, CapturedMemsetsAndCopiesRunAtEachReplayNotAtCapture) {
  cudaStream_t s = nullptr, other = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  void* m = nullptr;
  ASSERT_EQ(cudaMalloc(&m, 2 * sizeof(int)), cudaSuccess);
  int* d = static_cast<int*>(m);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 0, sizeof(int), s), cudaSuccess);
  ASSERT_EQ(launch(s, "increment", {reads(d, sizeof(int)), writes(d, sizeof(int))}, [d] { d[0] += 1; }), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(d + 1, d, sizeof(int), cudaMemcpyDeviceToDevice, s), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  // Captured, not run: the allocation is still all poison.
  for (int v : capture_read_ints(d, 2)) EXPECT_EQ(static_cast<unsigned>(v), 0xFFFFFFFFu);

  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  for (int replay = 0; replay < 2; ++replay) {  // the memset runs again each time: 1, not 2
    ASSERT_EQ(cudaGraphLaunch(exec, replay == 0 ? s : other), cudaSuccess);  // any stream may launch it
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(capture_read_ints(d, 2), (std::vector<int>{1, 1})) << "replay " << replay;
  }
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(other), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

TEST_F(EmuCapture, TheLegacyStreamCannotCapture) {
  EXPECT_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeThreadLocal), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaGetLastError(), cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
  EXPECT_EQ(cudaStreamGetCaptureInfo(nullptr, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
}

TEST_F(EmuCapture, CaptureInfoReportsTheStatusAndTheFrontier) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  void* m = nullptr;
  ASSERT_EQ(cudaMalloc(&m, 16), cudaSuccess);

  EXPECT_EQ(capture_info_of(s).status, cudaStreamCaptureStatusNone);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  CaptureInfo info = capture_info_of(s);
  EXPECT_EQ(info.status, cudaStreamCaptureStatusActive);
  EXPECT_TRUE(info.deps.empty()) << "a capture starts with no dependencies";

  ASSERT_EQ(launch(s, "first", {writes(m, 16)}, [] {}), cudaSuccess);
  info = capture_info_of(s);
  EXPECT_EQ(info.status, cudaStreamCaptureStatusActive);
  ASSERT_EQ(info.deps.size(), 1u);
  EXPECT_NE(info.deps.front(), nullptr);
  EXPECT_NE(info.edges, nullptr) << "no edge data for a frontier of one node";
  if (info.edges) {
    EXPECT_EQ(info.edges[0].type, cudaGraphDependencyTypeDefault);
  }
  const cudaGraphNode_t first = info.deps.front();

  ASSERT_EQ(launch(s, "second", {reads(m, 16)}, [] {}), cudaSuccess);
  info = capture_info_of(s);
  ASSERT_EQ(info.deps.size(), 1u);
  EXPECT_NE(info.edges, nullptr);
  const cudaGraphNode_t second = info.deps.front();
  EXPECT_NE(second, first) << "the frontier did not move to the new node";

  // Walking back: second depends on first, first on nothing.
  EXPECT_EQ(capture_node_deps(second), (std::vector<cudaGraphNode_t>{first}));
  EXPECT_TRUE(capture_node_deps(first).empty());

  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  EXPECT_EQ(capture_info_of(s).status, cudaStreamCaptureStatusNone);
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

TEST_F(EmuCapture, NodeDependenciesWalkBackThroughAForkAndAJoin) {
  Diamond p;
  capture_diamond_setup(p);
  ASSERT_EQ(cudaStreamBeginCapture(p.main, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  capture_enqueue_diamond(p, true);
  ASSERT_TRUE(p.a && p.b && p.c && p.dn);
  EXPECT_EQ(std::set<cudaGraphNode_t>({p.a, p.b, p.c, p.dn}).size(), 4u) << "two ops share a node";
  // The side stream joined the capture at the wait on the fork event.
  EXPECT_EQ(capture_info_of(p.side).status, cudaStreamCaptureStatusActive);

  const std::vector<cudaGraphNode_t> d_deps = capture_node_deps(p.dn);
  EXPECT_EQ(std::set<cudaGraphNode_t>(d_deps.begin(), d_deps.end()), (std::set<cudaGraphNode_t>{p.b, p.c}));
  EXPECT_EQ(d_deps.size(), 2u);
  EXPECT_EQ(capture_node_deps(p.b), (std::vector<cudaGraphNode_t>{p.a}));
  EXPECT_EQ(capture_node_deps(p.c), (std::vector<cudaGraphNode_t>{p.a}));
  EXPECT_TRUE(capture_node_deps(p.a).empty());

  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(p.main, &graph), cudaSuccess);
  EXPECT_EQ(capture_info_of(p.side).status, cudaStreamCaptureStatusNone);
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  capture_diamond_teardown(p);
}

TEST_F(EmuCapture, ExternalEventRecordsHappenAtEveryReplay) {
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t start = nullptr, stop = nullptr;
  ASSERT_EQ(cudaEventCreateWithFlags(&start, cudaEventDefault), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, cudaEventDefault), cudaSuccess);
  void* m = nullptr;
  ASSERT_EQ(cudaMalloc(&m, 4), cudaSuccess);
  int runs = 0;

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(cudaEventRecordWithFlags(start, s, cudaEventRecordExternal), cudaSuccess);
  const cudaGraphNode_t record_node = capture_last_node(s);  // an external record is a node
  ASSERT_EQ(launch(s, "sleeps_2ms", {writes(m, 4)},
                   [&runs] {
                     std::this_thread::sleep_for(2ms);
                     ++runs;
                   }),
            cudaSuccess);
  EXPECT_EQ(capture_node_deps(capture_last_node(s)), (std::vector<cudaGraphNode_t>{record_node}));
  ASSERT_EQ(cudaEventRecordWithFlags(stop, s, cudaEventRecordExternal), cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);

  for (int replay = 1; replay <= 2; ++replay) {
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(runs, replay);
    EXPECT_EQ(cudaEventQuery(stop), cudaSuccess);
    float ms = -1;
    ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess) << "replay " << replay;
    EXPECT_GE(ms, 2.0f) << "replay " << replay;
    EXPECT_LT(ms, 60000.0f);
  }
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(start), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(stop), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

TEST_F(EmuCapture, LaunchesOfOneGraphOnOneStreamAreOrdered) {
  // A graph of two ops, A then B, launched three times with an eager op between the second and
  // the third: the stream runs them in that order, never one launch's A before the previous B.
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  void* m = nullptr;
  ASSERT_EQ(cudaMalloc(&m, 2 * sizeof(int)), cudaSuccess);
  int* d = static_cast<int*>(m);
  std::vector<std::string> log;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(s, "A", {writes(d, sizeof(int))}, [&log] { log.push_back("A"); }), cudaSuccess);
  ASSERT_EQ(launch(s, "B", {reads(d, sizeof(int)), writes(d + 1, sizeof(int))}, [&log] { log.push_back("B"); }),
            cudaSuccess);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  const Counters before = counters();
  for (std::uint64_t seed = 1; seed <= 16; ++seed) {
    set_schedule_seed(seed);
    log.clear();
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(launch(s, "E", {writes(d, 2 * sizeof(int))}, [&log] { log.push_back("E"); }), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    EXPECT_EQ(log, (std::vector<std::string>{"A", "B", "A", "B", "E", "A", "B"})) << "seed " << seed;
  }
  EXPECT_EQ(counters().graph_launches - before.graph_launches, 48);
  EXPECT_TRUE(violations().empty()) << capture_report();
  EXPECT_EQ(cudaGraphExecDestroy(exec), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(s), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

}  // namespace
}  // namespace rb::emu
