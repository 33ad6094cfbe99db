// The float64 reference of the backward (docs/design.md §3a): the gradients of full attention over the
// whole sequence for the loss Σ O∘dO, with dO generated like Q (tensor index 3), on the inputs
// rounded as the run stores them; and their derived tolerances.
//
// dQ at a row needs that row's attention over every key; dK and dV at a key row need every query's
// final log-sum-exp and Δ = rowsum(dO∘O), so they cost a forward over all S rows however few key
// rows are checked. Up to the full-check limit every row of all three is checked; above it, the
// sampled rows of dQ always, and those of dK and dV while that forward stays within
// kKeyGradientCheckWork multiply-adds (S²·Hq·D, halved when causal); beyond it they are recorded
// as not checked, with the reason, never as passed.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "ring/check/reference.hpp"

namespace rb::ring {

struct ReferenceGradients {
  std::vector<double> dq;  // (nq, Hq, D) at the query positions asked for
  std::vector<double> dk;  // (nk, Hkv, D) at the key positions asked for; empty when not asked
  std::vector<double> dv;  // (nk, Hkv, D)
};

// Gradients at `q_positions` (dQ) and `kv_positions` (dK, dV), both sorted and distinct, on up to
// `threads` threads. Throws rb::Cancelled soon after the configuration is cancelled.
ReferenceGradients reference_gradients(const Config& cfg, std::span<const std::int64_t> q_positions,
                                       std::span<const std::int64_t> kv_positions, int threads);

// The multiply-adds of the all-rows forward that dK and dV need above the full-check limit; 2^41
// is S = 32k with Hq = 16 and D = 128 under a causal mask, minutes on the 16 cores of a GPU node.
inline constexpr double kKeyGradientCheckWork = 2199023255552.0;  // 2^41
// Why dK and dV are not checked for `rows`, or nullopt when they are.
std::optional<std::string> key_gradients_unchecked(const Config& cfg, const CheckRows& rows);

// The gradients of a backward against the reference: each tensor on the check's rows (dK and dV on
// the same positions as key rows), with the gradients' tolerance; dK and dV unchecked, with the
// reason, where key_gradients_unchecked says so.
struct GradientCorrectness {
  Correctness dq, dk, dv;
  std::optional<std::string> dkv_unchecked;
  bool passed() const { return dq.passed() && (dkv_unchecked || (dk.passed() && dv.passed())); }
};

// The absolute tolerance of one gradient element (dQ, dK or dV) for the run's arithmetic and the
// dK/dV the ring carries (cfg.dkv), with its reason.
std::pair<double, std::string> gradient_tolerance_for(const Config& cfg);

}  // namespace rb::ring
