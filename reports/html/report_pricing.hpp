// The analytic model's price of a measured run (docs/report.md, "Which strategy here"; docs/model.md,
// "Pricing a measured run"): the run's configuration as its record holds it (S, c, variant, its
// all-to-all group, split, documents, mask, heads, K/V heads, D, dtype, phase and dK/dV design, and
// the plan's per-rank, per-step pairs and bytes) priced by model::price_phase (model/
// strategy_pricing.hpp) over a link and at a FLOP rate taken from the results: the paced link or the
// copies' measured bandwidth, and a c = 1 run's measured attention rate or the machine probe's.
// Internal to reports/html.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/presets.hpp"
#include "reports/html/report_runs.hpp"

namespace rb::reports {

// Where a figure the model takes came from, in words for the page, and its value.
struct PricedFigure {
  std::optional<double> value;  // link: bytes/s per direction; peak: FLOP/s of one rank
  std::string brief;            // "12.3 GB/s, copies measured": the figure and its origin in a few words
  std::string detail;           // the figure and how it was reached, with its numbers (a table's tooltip)
  std::string source;           // what it is and where it is read, without numbers (the section's note);
                                // or why there is none
  bool measured = false;        // read from a measurement of this sweep (not a configured figure)
};

// The link of the runs of one table: their paced link (config.link_gbps, one figure for all) where
// set, else the median over the runs of the bandwidth their copies measured
// (metrics.comm_bandwidth_gbyte_per_s).
PricedFigure table_link(const std::vector<const RunView*>& runs);

// The attention FLOP rate of one rank for the runs of one table at c ranks: the median forward rate
// (attention FLOPs / forward median) of the c = 1 runs among `c1_runs` (the same shape: heads, D,
// mask, dtype, backend, documents), those at `seq` where there are any, else at the S nearest it;
// without them, on the cpu backend, the machine probe's (version 2: kMachineProbeFlopsPerThread per
// thread over the median probe time of the table's runs), a lower bound as its time includes a copy.
// Either is scaled by CPUs / c where the ranks shared fewer CPUs than c.
PricedFigure table_peak(const std::vector<const RunView*>& runs, const std::vector<const RunView*>& c1_runs,
                        std::int64_t seq, int cp);

// The forward attention rate a run measured, FLOP/s: its plan's forward FLOPs over its forward median
// (the whole median under phase fwd, timing.phase_ms.fwd under fwd+bwd); none under phase bwd.
std::optional<double> measured_forward_rate(const RunView& r);

// The model's price of one run's pass at that link and rate, or why there is none.
struct RunPrice {
  std::optional<double> pass_ms, compute_ms, transfer_ms, bytes;
  std::string why_not;
};
RunPrice price_run(const RunView& r, const model::Link& link, double flops_per_s);

}  // namespace rb::reports
