// The ring simulator's input: per rank and per step, how long the compute takes and how long the
// receive that must precede it takes. Plain numbers, so model/ stays independent of ring/: bench/
// fills it from a ring::WorkMatrix (make_step_table), and a measured CPU or GPU timeline can fill it
// too (step_table_from_timeline), which is how the simulator is checked against a real run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/config.hpp"
#include "common/kv_schedule.hpp"
#include "common/timeline.hpp"
#include "model/presets.hpp"

namespace rb::model {

struct StepTable {
  int ranks = 0;                    // c
  int steps = 0;                    // the schedule's: c when blocks rotate, 1 when they are gathered
  Variant variant = Variant::ring;  // its name in outputs
  KvSchedule schedule;              // who sends to whom, which the simulator follows
  // Row-major [r * steps + j].
  // compute_s: attention (and merge) of step j on rank r.
  // transfer_s: the receive that must finish before step j on rank r. Rotating: every lane's piece
  //   of step j, received from the lanes' senders while step j-1 runs; entry j = 0 is unused (the
  //   rank's own block). Gathered: entry 0 is the whole gather into rank r.
  std::vector<double> compute_s;
  std::vector<double> transfer_s;
  // A head exchange's all-to-alls (docs/design.md §3b), the same on every rank: Q, K, V in before the
  // first step and O out after the last. No compute of the pass overlaps them. The ranks are then
  // the schedule's members (the groups), each standing for its group's ranks, which run the same
  // steps on other heads.
  double exchange_in_s = 0, exchange_out_s = 0;

  StepTable() = default;
  StepTable(int c, int steps, Variant v, KvSchedule schedule);
  double compute(int r, int j) const { return compute_s[idx(r, j)]; }
  double transfer(int r, int j) const { return transfer_s[idx(r, j)]; }
  double& compute(int r, int j) { return compute_s[idx(r, j)]; }
  double& transfer(int r, int j) { return transfer_s[idx(r, j)]; }
  // Throws rb::Error when the sizes disagree, a rotating schedule has steps != ranks or no lane, a
  // gathered one more than one step, or a time is negative or not finite.
  void check() const;

 private:
  std::size_t idx(int r, int j) const { return static_cast<std::size_t>(r) * steps + j; }
};

// From per-rank, per-step unmasked pairs (one head, one sequence) and received bytes, as
// ring::WorkMatrix holds them, for a micro-batch of b sequences: compute = 4 * D * heads * pairs * b
// / flops_per_s, transfer = bytes * b / link + latency (none for an empty receive). Lanes of a
// rotating schedule whose pieces come from different ranks arrive over different links at once
// (ring-bidirectional: from r-1 and r+1), so a step's bytes are split evenly over its lanes and
// the busiest link sets the time.
StepTable make_step_table(int c, int steps, Variant v, const KvSchedule& schedule,
                          std::span<const std::int64_t> unmasked, std::span<const std::int64_t> recv_bytes,
                          int head_dim, int heads, double flops_per_s, const Link& link, int micro_batch = 1);

// From a recorded timeline (docs/design.md §6 intervals, executor conventions): compute of (r, j) is the
// summed length of r's compute intervals tagged with step j; transfer of (r, j) is the length of
// the union of r's comm intervals tagged with step j (the executor tags a receive with the step it
// feeds, and the all-gather with step 0; lanes that receive at once overlap).
StepTable step_table_from_timeline(const Timeline& tl, int c, Variant v, const KvSchedule& schedule);

// The same under a head exchange (docs/design.md §3b): one entry per member of the schedule (a group
// of `exchange.degree` ranks), each the slowest of its group's ranks at that step, and the
// all-to-alls' times (qkv_alltoall, o_alltoall: the slowest rank's) before and after.
StepTable step_table_from_timeline(const Timeline& tl, const HeadExchange& exchange, Variant v,
                                   const KvSchedule& schedule);

}  // namespace rb::model
