// The step program: the one description of a pass, per rank (docs/design.md §4). It is compiled once
// from the plan (ring/program/compile.hpp) and run by the executors, which interpret it; the memory
// estimate, the thread count and `run --list --explain` read it too.
//
// A program declares the rank's buffers (each with its role, rows and width) and lists its ops in a
// reference order: the order one thread could run them in. Every op names the runs of buffers it
// reads and writes, its lane (0: the compute thread or stream; 1..: a comm lane), its part (forward
// or backward), its step and its timeline name. Dependencies are derived from the runs
// (derive_dependencies): an op waits for the last earlier op that wrote what it reads or writes, and
// for the earlier readers of what it writes, on any lane; an op already follows every earlier op of
// its own lane. So an ordering rule is never written by hand, and one the executors keep is one the
// buffers need. Peers and tags say which message an exchange is; every rank lists its exchanges in
// the same order on the same lanes, so they pair up.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/timeline.hpp"
#include "kernels/block_pair.hpp"

namespace rb::ring {

// The buffers a rank may hold. Forward: Q, the own K/V block, two step buffers or the gathered K
// and V, O and LSE (partial and accumulated); a head exchange's shard tensors and staging. Backward:
// dO, dQ, Δ, the own block's dK/dV, one step's block gradients, two buffers the design carries dK/dV
// in (fused [K | V | dK | dV] or trailing), the gathered dK and dV; a head exchange's shard gradients.
enum class Buf : std::uint8_t {
  q,
  own,
  kv_step0,
  kv_step1,
  all_k,
  all_v,
  o_part,
  o_acc,
  lse_part,
  lse_acc,
  q_shard,
  k_shard,
  v_shard,
  o_shard,
  stage_send,
  stage_recv,
  d_o,
  dq,
  delta,
  d_own,
  dkv_scratch,
  dkv_step0,
  dkv_step1,
  all_dk,
  all_dv,
  d_o_shard,
  dq_shard,
  dk_shard,
  dv_shard,
};
inline constexpr int kBufCount = static_cast<int>(Buf::dv_shard) + 1;

// What a buffer holds, for people and for the CUDA backend's element types: inputs and K/V in the
// input dtype (bfloat16 on a GPU), accumulators (O, LSE, the gradients) in fp32.
enum class BufRole : std::uint8_t { q, kv, o_lse, d_o, dq, dkv, shard, staging };
struct BufInfo {
  std::string_view name;
  BufRole role;
  bool accumulator;  // fp32 on the cuda backend
};
const BufInfo& buf_info(Buf b);
std::string_view to_string(BufRole r);

// A declared buffer: rows × width elements (width: heads · D, or heads for LSE and Δ).
struct BufferDecl {
  Buf buf = Buf::q;
  std::int64_t rows = 0, width = 0;
  std::int64_t elements() const { return rows * width; }
};

// `len` elements of a buffer from element `at`.
struct Run {
  Buf buf = Buf::q;
  std::int64_t at = 0, len = 0;
};

enum class Part : std::uint8_t { forward, backward };

// A head exchange's four all-to-alls (docs/design.md §3b).
enum class HeadMove : std::uint8_t { forward_in, forward_out, backward_in, backward_out };

enum class OpKind : std::uint8_t {
  exchange,        // runs {send, recv}: send to `to`, receive from `from`, one message `tag`
  gather,          // runs {send K, all K, send V, all V}: every member's block gathered
  reduce_scatter,  // runs {all dK, all dV, own dK/dV, staging}: each block's partials summed at its owner
  all_to_all,      // `move`: a head exchange's all-to-all; runs: what it writes, `reads`: what it reads
  attend,          // runs {Q, K, V, O, LSE}: one step's attention (`first`: into the accumulators)
  merge,           // runs {O acc, LSE acc, O part, LSE part}: a partial folded into the accumulators
  delta,           // runs {O, dO, Δ, dQ}: Δ = rowsum(dO ∘ O), dQ cleared
  attend_bwd,      // runs {Q, K, V, dO, LSE, Δ, dQ, dK, dV, cleared...}: dQ += and the block's dK/dV,
                   // into runs cleared first
  fold,            // runs {dst, src}...: dst (+)= src per pair (`add` bit i: pair i adds)
  mark,            // nothing to do: a step with no unmasked pair, marked in the timeline
  fail,            // an injected fault: the op throws
  hang,            // an injected fault: the op waits until the executor aborts
};
std::string_view to_string(OpKind k);

struct Op {
  OpKind kind = OpKind::mark;
  Part part = Part::forward;
  int lane = 0;  // 0: compute; 1..: comm lane
  int step = -1;
  const char* name = nullptr;       // the timeline's name; nullptr: not recorded
  std::vector<Run> runs;            // by kind, above
  std::vector<Run> reads;           // all_to_all: what it reads
  int to = -1, from = -1, tag = 0;  // exchange: the peers (ring ranks) and the message
  // reduce_scatter: per round the peer sent to, the peer received from, the round's first tag and
  // where the slice sent starts in the gathered gradients; `at`: where the own slice starts.
  struct Round {
    int to = -1, from = -1, tag = 0;
    std::int64_t at = 0;
  };
  std::vector<Round> rounds;
  std::int64_t at = 0;
  HeadMove move = HeadMove::forward_in;
  bool first = false;                     // attend: writes the accumulators (else the partials)
  bool skip = false;                      // attend_bwd: no unmasked pair (the outputs are cleared, no kernel runs)
  std::uint32_t add = 0;                  // fold
  std::int64_t sk = 0;                    // attend, attend_bwd: key rows the pairs may index
  std::vector<kernels::BlockPair> pairs;  // attend, attend_bwd
  std::vector<int> deps;                  // ops of other lanes this op waits for (derive_dependencies)
};

struct RankProgram {
  int rank = 0;
  int lanes = 1;  // the compute lane and the comm lanes
  std::vector<BufferDecl> buffers;
  std::vector<Op> ops;  // the reference order

  const BufferDecl* find(Buf b) const;
  std::int64_t elements(Buf b) const;  // 0 when not declared
  std::int64_t total_elements() const;
  int add(Op op);  // appends, returns its index
};

// How a timeline records `op` (the executors' and the simulator's intervals): a transfer is comm, a
// marked or skipped step other, the rest compute.
IntervalKind timeline_kind(const Op& op);

// What `op` reads and writes, from its runs (fold: each dst is read too where it adds).
struct Access {
  Run run;
  bool write = false;
};
std::vector<Access> accesses(const Op& op);

// Fills every op's deps from the accesses, dropping those its own lane already orders; keeps deps
// an op holds already (the compilers' explicit ones). Throws rb::Error for an op whose run lies
// outside a declared buffer.
void derive_dependencies(RankProgram& p);

}  // namespace rb::ring
