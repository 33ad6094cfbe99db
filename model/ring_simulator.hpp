// The ring simulator: replays a step table with the executor's synchronisation (docs/design.md §5, ring/
// executor_cpu.cpp) to predict the pass time, exposed communication, overlap and idle time per rank.
//
// What it assumes, matching the executor:
// - Each rank has one compute lane and one comm lane. Compute of step j starts when step j-1 is done
//   and the block of step j has arrived.
// - Rotating schedules (the ring: one lane forward): comm iteration j (j = 0..c-2) sends each lane's
//   piece rank r holds for step j to the lane's receiver (ring: r+1) and receives each lane's piece
//   of step j+1 from its sender (ring: r-1) into the other of two buffers. It cannot start before its
//   own previous iteration ended, nor (j >= 2) before step j-1's compute released that buffer. The
//   copies start when r and every sender are ready; the iteration ends (and step j+1 may start) when
//   r's copies are done and every receiver has finished copying r's pieces (a rendezvous, as the
//   local transport and a grouped NCCL send/recv both do). The lanes' copies run at once, one link
//   per direction; the step table's transfer time is their joint time (model/step_table.hpp).
// - All-gather: every rank starts gathering at time 0 and computes its one step when its own gather is
//   done; nothing overlaps the gather.
// - Times are exact inputs: no launch overhead, no contention between ranks, no jitter. Merges are
//   part of the compute of a step.
// - A head exchange (docs/design.md §3b): the ranks are the schedule's members (the groups); the
//   all-to-all of Q, K, V comes before every rank's first step and that of O after its last, both
//   exposed comm (StepTable::exchange_in_s, exchange_out_s).
// Cost: O(c * steps) time and O(c) memory (unless the per-step intervals are kept), so c = 1024
// takes milliseconds.
#pragma once

#include <optional>
#include <vector>

#include "common/timeline.hpp"
#include "model/step_table.hpp"

namespace rb::model {

struct RankSimulation {
  double compute_s = 0;                    // |U(compute)|
  double comm_s = 0;                       // |U(comm)|: the copies, not the waits for a peer
  double overlap_s = 0;                    // |U(comm) ∩ U(compute)|
  double exposed_comm_s = 0;               // comm_s - overlap_s
  std::optional<double> overlap_fraction;  // overlap_s / comm_s; empty when there is no comm
  double finish_s = 0;                     // end of the rank's last step (and of its all-to-all of O)
  double idle_s = 0;                       // pass_s - compute_s: waiting for K/V, or for the slowest rank
};

// What both simulators (this one and op_simulator.hpp) report of a pass.
struct PassTotals {
  int ranks = 0;
  double pass_s = 0;               // the last rank's last step ends
  double pass_without_comm_s = 0;  // every transfer at zero: the compute critical path
  double exposed_comm_max_s = 0;
  double exposed_comm_mean_s = 0;
  std::optional<double> overlap_fraction;  // sum over ranks of overlap / sum of comm; empty without comm
  double idle_max_s = 0;
  double idle_mean_s = 0;
  std::vector<RankSimulation> per_rank;

  // From per_rank's compute, comm, overlap and pass_s: each rank's exposed comm, overlap fraction
  // and idle time, and the totals over ranks.
  void total();
};

struct Simulation : PassTotals {
  Variant variant = Variant::ring;  // its name in outputs
  bool gathered = false;            // the schedule gathered every block before one step
  int steps = 0;
  double exchange_in_s = 0, exchange_out_s = 0;  // a head exchange's all-to-alls, as the table gave them
  // Row-major [r * steps + j], filled only with SimOptions::keep_steps. Compute of step j; comm is
  // the copy that feeds step j (begin == end when there is none, e.g. ring step 0).
  std::vector<double> compute_begin_s, compute_end_s, comm_begin_s, comm_end_s;
};

struct SimOptions {
  // Keep every (rank, step) interval in Simulation::compute_begin_s etc. (needed by to_timeline);
  // off, the simulator keeps O(c) state and the per-rank totals only.
  bool keep_steps = false;
};

// Throws rb::Error when the table fails StepTable::check().
Simulation simulate(const StepTable& table, SimOptions options = {});

// The simulated pass (kept steps required, else rb::Error) as docs/design.md §6 intervals, with the
// executor's lanes and names ("compute" / "attention", "comm" / "kv_recv" or "kv_allgather"), so it
// can be drawn beside a measured trace.
Timeline to_timeline(const Simulation& sim);

}  // namespace rb::model
