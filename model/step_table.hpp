// The ring simulator's input: per rank and per step, how long the compute takes and how long the
// receive that must precede it takes. Plain numbers, so model/ stays independent of ring/: bench/
// fills it from a ring::WorkMatrix (make_step_table), and a measured CPU or GPU timeline can fill it
// too (step_table_from_timeline), which is how the simulator is checked against a real run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "common/config.hpp"
#include "common/timeline.hpp"
#include "model/presets.hpp"

namespace rb::model {

struct StepTable {
  int ranks = 0;  // c
  int steps = 0;  // c for the ring, 1 for the all-gather
  Variant variant = Variant::ring;
  // Row-major [r * steps + j].
  // compute_s: attention (and merge) of step j on rank r.
  // transfer_s: the receive that must finish before step j on rank r. Ring: the block of step j,
  //   received from rank r-1 while step j-1 runs; entry j = 0 is unused (the rank's own block).
  //   All-gather: entry 0 is the whole gather into rank r.
  std::vector<double> compute_s;
  std::vector<double> transfer_s;

  StepTable() = default;
  StepTable(int c, int steps, Variant v);
  double compute(int r, int j) const { return compute_s[idx(r, j)]; }
  double transfer(int r, int j) const { return transfer_s[idx(r, j)]; }
  double& compute(int r, int j) { return compute_s[idx(r, j)]; }
  double& transfer(int r, int j) { return transfer_s[idx(r, j)]; }
  // Throws rb::Error when the sizes disagree, the ring has steps != ranks, the all-gather has more
  // than one step, or a time is negative or not finite.
  void check() const;

 private:
  std::size_t idx(int r, int j) const { return static_cast<std::size_t>(r) * steps + j; }
};

// From per-rank, per-step unmasked pairs (one head, one sequence) and received bytes, as
// ring::WorkMatrix holds them, for a micro-batch of b sequences: compute = 4 * D * heads * pairs * b
// / flops_per_s, transfer = bytes * b / link + latency (none for an empty receive).
StepTable make_step_table(int c, int steps, Variant v, std::span<const std::int64_t> unmasked,
                          std::span<const std::int64_t> recv_bytes, int head_dim, int heads,
                          double flops_per_s, const Link& link, int micro_batch = 1);

// From a recorded timeline (docs/design.md §6 intervals, executor conventions): compute of (r, j) is the
// summed length of r's compute intervals tagged with step j; transfer of (r, j) is the summed
// length of r's comm intervals tagged with step j (the executor tags a ring receive with the step
// it feeds, and the all-gather with step 0).
StepTable step_table_from_timeline(const Timeline& tl, int c, Variant v);

}  // namespace rb::model
