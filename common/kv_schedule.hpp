// How K/V reach every rank, as plain data: the variant in ring/ describes its schedule once
// (ring/plan/variant_scheme.hpp), and the executors, the work matrix, the model and the simulator all
// read it instead of asking which variant runs (docs/design.md §1).
#pragma once

#include <cstdint>
#include <vector>

namespace rb {

// One piece of every rank's K/V block that travels round the ring on its own: local rows
// [row_begin, row_end) of the block (rows in segment order), passed one rank in `direction` each step.
struct KvLane {
  std::int64_t row_begin = 0, row_end = 0;
  int direction = 1;  // +1: received from rank r-1 and forwarded to r+1; -1: the reverse
};

// How K/V reach every rank, as the variant describes it once (ring/plan/variant_scheme.hpp); the
// executors, the work matrix and the model read it instead of asking which variant runs. Either
// one gather before a single step over every block, or c steps over lanes that rotate.
//
// A step buffer of a rotating schedule holds every lane's piece, lane l's K rows at
// [2l·lane_rows, (2l+1)·lane_rows) and its V rows right after, so that one attention launch with V
// at K + lane_rows rows reads every lane; with one lane that is the block [K (rows) | V (rows)].
struct KvSchedule {
  bool gathered = false;
  // Rotating: the pieces that travel. Gathered: one lane of the whole block, which only lays out
  // the rank's own block (K then V) that the gather sends.
  std::vector<KvLane> lanes;
  std::int64_t lane_rows = 0;  // rows reserved per lane: its largest piece
  int steps = 1;

  // The rank whose piece lane l holds on rank r at step j: (r - direction·j) mod c.
  int origin(int r, int lane, int j, int c) const;
  // Where lane l's pieces come from and go to, from rank r, at every step.
  int sender(int r, int lane, int c) const { return origin(r, lane, 1, c); }
  int receiver(int r, int lane, int c) const { return origin(r, lane, -1, c); }
  // Whether step j's comm moves anything: the gather (at step 0, when there is a peer), or the
  // pieces step j+1 attends to (never after the last step).
  bool moves(int j, int c) const { return gathered ? j == 0 && c > 1 : j + 1 < steps; }
  std::int64_t k_row(int lane) const { return 2 * lane * lane_rows; }
  std::int64_t v_row(int lane) const { return k_row(lane) + lane_rows; }
  // Rows of K and V together in one step buffer, and the key rows a kernel may index in it.
  std::int64_t buffer_rows() const { return 2 * static_cast<std::int64_t>(lanes.size()) * lane_rows; }
  std::int64_t key_rows() const { return buffer_rows() - lane_rows; }
};

}  // namespace rb
