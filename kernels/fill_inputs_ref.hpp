// Deterministic inputs from (seed, tensor, global position, head, dim), exactly as docs/design.md §3 states,
// so every rank builds its own shard and a reference rebuilds the whole sequence. CPU twin of the
// device fill kernel.
#pragma once

#include <cstdint>

#include "common/config.hpp"
#include "common/segment.hpp"

namespace rb::kernels::ref {

// d_o: the output gradient a backward pass starts from, with Hq heads like Q (docs/design.md §3a).
enum class Tensor : std::uint64_t { q = 0, k = 1, v = 2, d_o = 3 };

constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The value in [-1, 1) of element (p, h, d) of tensor t with H heads of dimension D.
constexpr double input_value(std::uint64_t seed, Tensor t, std::int64_t H, std::int64_t D, std::int64_t p,
                             std::int64_t h, std::int64_t d) {
  const std::uint64_t i = static_cast<std::uint64_t>((p * H + h) * D + d);
  const std::uint64_t u = splitmix64(seed ^ (static_cast<std::uint64_t>(t) << 60) ^ i);
  return static_cast<double>(u >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

// Rounds x to the nearest value of `as` (round to nearest even), returned as double.
double round_to(double x, DType as);

struct FillParams {
  std::uint64_t seed = 1;
  Tensor tensor = Tensor::q;
  int heads = 1;                    // H of this tensor
  int head_dim = 1;                 // D
  DType round_as = DType::float64;  // precision the run stores; the reference uses the same rounded values
};

// Fills out, laid out (rows, H, D) with rows in the order of segs' positions.
template <typename T>
void fill_inputs(T* out, const SegmentList& segs, const FillParams& p);

}  // namespace rb::kernels::ref
