// Ending a configuration early: abort() reaches inside one rank's long step (the attention kernel
// polls it per tile), the process-wide cancellation reaches the reference and a pass not yet
// started, and the CPU backend refuses more threads than its cap instead of starting them.
#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "common/cancellation.hpp"
#include "kernels/attention_block_ref.hpp"
#include "ring/check/reference.hpp"
#include "ring/executor/executor.hpp"

namespace rb::ring {
namespace {

using namespace std::chrono_literals;

// Threads of this process now (Linux).
int thread_count() {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

Config one_rank(std::int64_t seq, int d) {
  Config c;
  c.seq = seq;
  c.cp = 1;
  c.split = Split::contiguous;
  c.heads = 1;
  c.kv_heads = 1;
  c.head_dim = d;
  c.dtype = DType::float32;
  return c;
}

TEST(ExecutorCancel, AbortEndsOneRanksLongStepInsideIt) {
  // One rank, one step over 65536 causal keys: about 5e11 flops, a minute or more on a CPU core,
  // which used to run to its end after abort() because the executor looked only between steps.
  auto exec = make_cpu_executor(make_plan(one_rank(65536, 64)));
  auto pass = std::async(std::launch::async, [&] { return exec->run_pass(false); });
  ASSERT_EQ(pass.wait_for(300ms), std::future_status::timeout) << "the pass was expected to take far longer";
  const auto aborted = std::chrono::steady_clock::now();
  exec->abort();
  ASSERT_EQ(pass.wait_for(30s), std::future_status::ready) << "the pass ran on after abort()";
  EXPECT_LT(std::chrono::steady_clock::now() - aborted, 30s);
  EXPECT_THROW(pass.get(), Error);
}

TEST(ExecutorCancel, NoPassStartsOnceCancelledOrAborted) {
  const Plan plan = make_plan(one_rank(64, 8));
  auto exec = make_cpu_executor(plan);
  request_cancellation("timeout: the configuration ran longer than 1 s");
  EXPECT_THROW((void)exec->run_pass(false), Error);
  clear_cancellation();
  auto fresh = make_cpu_executor(plan);
  (void)fresh->run_pass(false);  // the flag cleared, a pass runs
  fresh->abort();                // an abort that lands between passes (or before the first) holds
  EXPECT_THROW((void)fresh->run_pass(false), Error);
}

TEST(ExecutorCancel, TheReferenceStopsWhenCancelled) {
  const Config cfg = one_rank(256, 8);
  std::vector<std::int64_t> pos(256);
  for (std::int64_t i = 0; i < 256; ++i) pos[static_cast<std::size_t>(i)] = i;
  request_cancellation("interrupted by SIGTERM");
  try {
    (void)reference_rows(cfg, pos, 4);  // from worker threads too, without terminating
    FAIL() << "the reference ran on";
  } catch (const Cancelled& e) {
    EXPECT_STREQ(e.what(), "interrupted by SIGTERM");  // the reason, as the record will give it
  }
  clear_cancellation();
  EXPECT_EQ(reference_rows(cfg, pos, 4).size(), 256u * 8u);
}

TEST(ExecutorCancel, TheAttentionKernelPollsItsFlag) {
  std::vector<float> q(64 * 8, 0.5f), k(q), v(q), o(q.size()), lse(64);
  const kernels::BlockPair pair{Segment{0, 1, 64}, 0, Segment{0, 1, 64}, 0, MaskClass::partial};
  kernels::ref::AttentionBlockParams<float> p;
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.o = o.data();
  p.lse = lse.data();
  p.sq = p.sk = 64;
  p.d = 8;
  p.pairs = std::span(&pair, 1);
  std::atomic<bool> stop{false};
  p.cancel = &stop;
  EXPECT_NO_THROW(kernels::ref::attention_block(p));
  stop = true;
  EXPECT_THROW(kernels::ref::attention_block(p), Cancelled);
}

TEST(ExecutorCancel, ThreadsPerRankAndTheCap) {
  KvSchedule ring;
  ring.lanes.resize(1);
  KvSchedule both;
  both.lanes.resize(2);
  KvSchedule gathered;
  gathered.gathered = true;
  gathered.lanes.resize(1);
  EXPECT_EQ(cpu_executor_threads(ring, 8), 16);
  EXPECT_EQ(cpu_executor_threads(both, 8), 24);
  EXPECT_EQ(cpu_executor_threads(gathered, 8), 16);
  // 700 ranks of ring-bidirectional need 2100 threads: refused before any starts.
  Config c = one_rank(1400, 1);
  c.cp = 700;
  c.variant = Variant::ring_bidirectional;
  const Plan plan = make_plan(c);
  const int before = thread_count();
  try {
    (void)make_cpu_executor(plan);
    FAIL() << "2100 threads were started";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("700 ranks need 2100 threads; at most 2048 per process"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(thread_count(), before);
}

}  // namespace
}  // namespace rb::ring
