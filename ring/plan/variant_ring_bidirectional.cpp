// ring-bidirectional (as TokenRing does): each rank's block is cut by tokens into two halves; the
// first halves move one rank forward each step and the second halves one rank back, so at step j
// rank r attends to the first half of rank (r - j)'s block and the second half of rank (r + j)'s.
// After c steps every rank has seen every half; the LSE merge makes the order irrelevant.
// Traffic per rank is the ring's, (S - tokens_r) · kv_bytes_per_token received, but each step
// moves half a block on each direction of the links to r+1 and r-1: on full-duplex links a step's
// transfer takes half the ring's time.
#include "ring/plan/variant_ring_bidirectional.hpp"

#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

Variant VariantRingBidirectional::kind() const { return Variant::ring_bidirectional; }

KvSchedule VariantRingBidirectional::schedule(int c, std::int64_t rows) const {
  // Equal halves keep every lane's piece one contiguous [K | V] run of the step buffer.
  if (rows % 2 != 0)
    throw InputError("seq", std::to_string(rows * c),
                     fmt::format("ring-bidirectional cuts each rank's {} rows in two equal halves: S / c must be even",
                                 rows));
  const std::int64_t half = rows / 2;
  KvSchedule s;
  s.lanes = {KvLane{0, half, +1}, KvLane{half, rows, -1}};
  s.lane_rows = half;
  s.steps = c;
  return s;
}

BackwardSchedule VariantRingBidirectional::backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const {
  return rotating_backward(schedule(c, rows), dkv, dtype);
}

}  // namespace rb::ring
