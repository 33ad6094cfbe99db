// The correctness reference (docs/design.md §3): full attention over the whole sequence in float64, on the
// inputs rounded as the run stores them, for all rows of small shapes or a documented sample.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "ring/plan/plan.hpp"

namespace rb::ring {

// Rows of full attention at `positions`, (n, Hq, D), computed on up to `threads` threads. Throws
// rb::Cancelled soon after the running configuration is cancelled (common/cancellation.hpp).
std::vector<double> reference_rows(const Config& cfg, std::span<const std::int64_t> positions, int threads);

// Which rows a run is checked on. All of them up to `full_limit` tokens; above that, `sample` rows:
// the first and last position, the first and last position of every segment of every rank (where
// the split's boundaries are), and the rest drawn uniformly with a generator seeded by the run seed.
struct CheckRows {
  std::vector<std::int64_t> positions;  // sorted, distinct
  bool all_rows = false;
};
CheckRows check_rows(const Plan& plan, std::int64_t full_limit = 8192, std::int64_t sample = 512);

struct Correctness {
  std::int64_t rows_checked = 0;
  bool all_rows = false;
  double max_abs_err = 0;
  double rel_l2_err = 0;
  std::int64_t over_tolerance = 0;  // elements with |out - ref| > tolerance
  double tolerance = 0;
  std::string tolerance_basis;  // why this tolerance
  bool passed() const { return over_tolerance == 0; }
};

// The absolute tolerance of one output element for the run's arithmetic, with its reason.
std::pair<double, std::string> tolerance_for(const Config& cfg);

Correctness compare_to_reference(std::span<const double> out, std::span<const double> ref, const Config& cfg,
                                 const CheckRows& rows);
// The same against a stated tolerance (the gradients' own, ring/check/reference_backward.hpp).
Correctness compare_within(std::span<const double> out, std::span<const double> ref, double tolerance,
                           std::string tolerance_basis, const CheckRows& rows);

}  // namespace rb::ring
