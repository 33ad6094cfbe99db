// The program simulator: a pass as every rank's ops (the step program of ring/program/, docs/
// program.md, as plain numbers: bench/sweep/program_costs.hpp translates it, so model/ stays
// independent of ring/), each op costed in seconds, scheduled with the rules the executors keep.
// The ring simulator (ring_simulator.hpp) is its closed form for a forward: over the same program
// both give the same pass where a step's merge is counted in its attention (the closed form lets a
// transfer wait for the whole step; tests/bench/sweep/test_program_costs.cpp); this one also schedules the
// backward, the three dK/dV designs, the head exchange's all-to-alls and packed documents, because
// it reads what the program says waits for what instead of a recurrence written per schedule.
//
// The rules, which are the interpreters':
// - An op starts when its lane is free (the ops of one lane run in the program's order) and the
//   ops of its rank it waits for (SimOp::deps, the program's derived dependencies) have ended.
// - A transfer meets its peers' transfers: every rank lists its transfers in the same order on the
//   same lanes (ring/program/program.hpp), so the k-th transfer of lane l on rank r meets the k-th
//   of lane l on each peer. An exchange copies once it and its sender are ready (the sender's data
//   is there) and ends, freeing its lane, when its own copy is done and its receiver has copied
//   what it sent (a rendezvous, as the local transport and grouped NCCL send/recv both do). A
//   collective (gather, reduce-scatter, all-to-all) copies once every member is ready and ends when
//   its own copy is done.
// - Times are exact inputs: no launch overhead, no contention between lanes or ranks.
// Cost: O(ops) time and memory, plus a sweep over the ranks per round of transfers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/timeline.hpp"
#include "model/ring_simulator.hpp"

namespace rb::model {

struct SimOp {
  int lane = 0;           // 0: compute; 1..: a comm lane
  double seconds = 0;     // its own work: the kernel, or the copy once its peers are ready
  std::vector<int> deps;  // earlier ops of the same rank it waits for
  // A transfer: an exchange receives from `from` and sends to `to` (either may be -1: none); a
  // collective meets every rank of `group` (this rank among them). Neither: an op of its own rank.
  int from = -1, to = -1;
  std::vector<int> group;
  // How the timeline names it (the executors' names; kind other: a marked, empty step).
  IntervalKind kind = IntervalKind::compute;
  std::string name;
  int step = -1;
  int phase = 0;           // 0: the forward, 1: the backward
  std::int64_t bytes = 0;  // what a transfer moved, for the timeline (its time is `seconds`)

  bool meets() const { return from >= 0 || to >= 0 || !group.empty(); }
};

struct RankOps {
  int lanes = 1;
  std::vector<SimOp> ops;  // the program's reference order
};

struct OpSimOptions {
  bool keep_timeline = false;  // fill OpSimulation::timeline, every op's interval
};

// The pass (PassTotals: per rank, compute is |U(compute ops)|, comm |U(copies)|, not the waits for
// a peer, finish the end of its last op) and, with keep_timeline, each op with a name as an interval
// (lane "compute" or "comm", as the executors record them; a transfer from its copy's start to its
// end).
struct OpSimulation : PassTotals {
  Timeline timeline;
};

// Throws rb::Error for ops that break the rules above: a lane out of range, a dependency that is
// not an earlier op, a negative or non-finite time, a peer out of range, transfers that do not
// pair up (the k-th transfers of a lane on two ranks that do not name each other), or a schedule
// in which every rank waits on another.
OpSimulation simulate_ops(std::span<const RankOps> ranks, OpSimOptions options = {});

}  // namespace rb::model
