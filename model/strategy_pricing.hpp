// One strategy priced at one (S, c): its bytes per layer over each link, the transfers' time, the
// attention compute at the inputs' FLOP rate, and the ring simulator's pass (docs/model.md,
// "Strategies"; "Pricing a measured run"). The plan's numbers come in as plain tables
// (StrategyWork), so model/ stays independent of ring/: `ringbench model` fills them from a
// ring::WorkMatrix (bench/cli/model_report.cpp), the HTML report from a run's recorded plan
// (reports/html/report_pricing.cpp). Both then price a strategy with the same code.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/kv_schedule.hpp"
#include "model/model_inputs.hpp"
#include "model/ring_simulator.hpp"
#include "model/step_table.hpp"

namespace rb::model {

// What the plan of one strategy at (S, c) says, one tensor-parallel rank's heads, one sequence.
struct StrategyWork {
  int ranks = 0;                    // c
  int steps = 0;                    // the schedule's: c (or G under a hybrid) when blocks rotate, 1 gathered
  Variant variant = Variant::ring;  // its name in outputs
  KvSchedule schedule;              // forward
  HeadExchange exchange;            // degree 1: none
  // Row-major [r * steps + j] over all c ranks: unmasked (query, key) pairs of one head, and the K/V
  // bytes that must arrive before the step (not the all-to-alls'). Views: the caller keeps the tables.
  std::span<const std::int64_t> unmasked, recv_bytes;

  std::int64_t unmasked_at(int r, int j) const { return unmasked[static_cast<std::size_t>(r) * steps + j]; }
  std::int64_t recv_bytes_at(int r, int j) const { return recv_bytes[static_cast<std::size_t>(r) * steps + j]; }
};

// One strategy's price per device and layer (micro-batch b included).
struct StrategyPrice {
  double kv_bytes = 0;  // K/V into rank 0 over the schedule's steps (every rank receives as much)
  int kv_transfers = 0;
  double kv_transfer_s = 0;   // over ModelInputs::link
  double alltoall_bytes = 0;  // the head exchange's, in and out
  int alltoall_transfers = 0;
  std::string alltoall_link;  // the link the group sits on (ModelInputs::exchange_link); empty: none
  double alltoall_transfer_s = 0;
  double flops = 0;                      // the average device's attention FLOPs (within documents)
  double compute_s = 0;                  // flops at ModelInputs::attention_flops_per_s
  std::optional<Simulation> simulation;  // the pass, where asked for

  double bytes() const { return alltoall_bytes + kv_bytes; }
};

// Seconds per member and step at the inputs' efficiency * peak and over their link, one micro-batch.
// Under a head exchange one entry per member of the schedule (a group: its first rank's steps stand
// for it), and the all-to-alls over the link their group sits on.
StepTable strategy_step_table(const StrategyWork& w, const ModelInputs& in);

// The forward of one strategy at (S, c). `pairs_share`: the share of the whole sequence's unmasked
// pairs the run computes (1 without documents), which scales the closed-form compute as the
// comm/compute rows scale theirs. With `simulate`, the ring simulator's pass over
// strategy_step_table.
StrategyPrice price_strategy(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, double pairs_share,
                             bool simulate);

// The backward of the same strategy under the dK/dV design `dkv` (docs/model.md, "Pricing a
// measured run"): compute kBackwardFlopsFactor times the forward's, step by step; K/V as in the
// forward plus the gradients' bytes (reverse: dK/dV fused with K/V, each step's message doubled;
// follow: fp32 dK/dV one hop behind, each step's transfer plus the gradients' and a last hop home
// after the last step; gathered: a reduce-scatter of dK/dV after the step); a head exchange's dO
// in and dQ, dK, dV out. The bytes equal backward_comm_compute's closed forms for the ring and the
// all-gather. Always simulated.
StrategyPrice price_backward(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, Dkv dkv,
                             double pairs_share);

// The pass of a phase: the forward's, the backward's, or both one after the other.
struct PhasePrice {
  double bytes = 0, transfer_s = 0, flops = 0, compute_s = 0, pass_s = 0;
};
PhasePrice price_phase(const ModelInputs& in, std::int64_t seq, int cp, const StrategyWork& w, Phase phase, Dkv dkv,
                       double pairs_share);

}  // namespace rb::model
