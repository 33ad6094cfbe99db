// The plan of one configuration (docs/design.md §5): each rank's segments and, per step, the K/V blocks it
// attends to, the segment pairs with their mask classes and unmasked pairs, and the bytes that must
// arrive before the step. Pure arithmetic: it scales to c = 1024 and S = 10M in milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/config.hpp"
#include "common/document_mask.hpp"
#include "common/kv_schedule.hpp"
#include "common/segment.hpp"

namespace rb::ring {

// Where part of a rank's own K and V sits in its block buffer (the buffer step 0 attends to): the
// segments of the piece and the rows its K and V start at.
struct BlockPiece {
  SegmentList segments;
  std::int64_t k_row = 0, v_row = 0;
};

struct PlannedPair {
  int q_seg = 0;   // index into this rank's attention rows (RankPlan::attention)
  int k_rank = 0;  // the schedule's member whose K/V block holds the keys: a rank, or under a head
                   // exchange a group (its rank of this rank's member holds the block)
  int k_seg = 0;   // index into that member's attention rows (gathered) or its lane piece's (rotating)
  int lane = 0;    // rotating: the lane whose piece holds the keys
  MaskClass mask = MaskClass::full;
  int doc = -1;               // with documents (docs/design.md §3c): the document both segments are cut to, so the
                              // pair is one within-document piece of them (Plan::documents clips them); -1: whole
  std::int64_t unmasked = 0;  // unmasked (query, key) pairs of one head
};

struct StepPlan {
  int step = 0;
  std::vector<int> sources;          // ranks whose blocks this step attends to, in key-row order
  std::int64_t recv_bytes = 0;       // bytes that must arrive on this rank before the step runs (its K/V;
                                     // in a backward also the partial dK/dV it adds)
  std::int64_t send_bytes = 0;       // bytes this rank sends so that a peer can run its step (a forward:
                                     // the peer's next step; a backward: the peer's step of this index)
  std::int64_t grad_recv_bytes = 0;  // backward: the dK/dV part of recv_bytes
  std::vector<PlannedPair> pairs;
  std::int64_t unmasked = 0;  // sum over pairs, one head
};

// One rank's backward (docs/design.md §3a): its steps, each on the block the backward's schedule
// brings (the forward's pairs of that block), and the dK/dV that arrive after the last step.
struct BackwardRankPlan {
  std::vector<StepPlan> steps;
  std::int64_t tail_recv_bytes = 0;  // dK/dV of the own block, home after the last step (follow's
                                     // last hop; the reduce-scatter's partials)
  std::int64_t tail_send_bytes = 0;
  std::int64_t recv_bytes = 0;  // over the steps and the tail
  std::int64_t send_bytes = 0;
};

struct RankPlan {
  int rank = 0;
  SegmentList segments;  // the rank's own shard: what it fills, and where its output and gradients land
  std::int64_t tokens = 0;
  // The rows its attention runs over (docs/design.md §3b): under a head exchange its group's tokens,
  // every member's shard in member order (Plan::exchange); else its shard. Steps, pairs, buffers and
  // kernels index these rows.
  SegmentList attention;
  std::int64_t attention_tokens = 0;
  std::vector<StepPlan> steps;
  std::int64_t unmasked = 0;    // over all steps, one head
  std::int64_t recv_bytes = 0;  // over all steps
  BackwardRankPlan backward;    // empty unless the configuration's phase has a backward
};

struct Plan {
  Config config;
  // K and V of the K/V heads a rank attends with (all Hkv, or the exchange's): 2 · kv_heads · D ·
  // element bytes.
  std::int64_t kv_bytes_per_token = 0;
  KvSchedule schedule;    // the variant's, over exchange.groups members of ranks[0].attention_tokens rows
  HeadExchange exchange;  // the variant's head exchange (none: degree 1, the groups are the ranks)
  // The backward's schedule and dK/dV of all KV heads on the wire per token (2·Hkv·D·its element
  // bytes), where the phase has a backward.
  std::optional<BackwardSchedule> backward;
  std::int64_t grad_bytes_per_token = 0;
  DocumentMask documents;  // the packed documents' mask rule (docs/design.md §3c); inactive without
  std::vector<RankPlan> ranks;

  // The attention rows of the schedule's member m (a rank, or a group under a head exchange).
  const SegmentList& member_rows(int m) const { return ranks.at(exchange.rank_of(m, 0)).attention; }
  // The keys lane l's piece of member `origin` holds (its rows sliced to the lane).
  SegmentList lane_segments(int origin, int lane) const;
  // How rank r's own K/V fill its block buffer, one piece per lane (inputs are filled from these on
  // every backend, so the layout has one home).
  std::vector<BlockPiece> block_pieces(int rank) const;

  // Unmasked (query, key) pairs times the query heads the rank attends with (Hq, or Hq/U under a
  // head exchange): the work of docs/design.md §3.
  std::int64_t work(int rank) const;
  std::int64_t total_work() const;
  // max_r work / mean_r work; 1.0 when all ranks are equal.
  double work_imbalance() const;
  // 4 * D * Hq * unmasked pairs over the whole pass: the forward's FLOPs.
  double flops() const;
  // The backward's: 2.5 times the forward's, the convention of FlashAttention's benchmarks
  // (docs/metrics.md), since it computes five products of the forward's size to the forward's two.
  double backward_flops() const { return kBackwardFlopsFactor * flops(); }
  static constexpr double kBackwardFlopsFactor = 2.5;
  // Bytes rank r receives in a forward (its steps' K/V and its head exchange's all-to-alls; it sends
  // as many), and in a backward (K/V, dK/dV and the exchange's; 0 without a backward).
  std::int64_t forward_recv_bytes(int rank) const;
  std::int64_t backward_recv_bytes(int rank) const;
  // Those summed over ranks.
  std::int64_t bytes_moved() const;
  std::int64_t backward_bytes_moved() const;
};

// The rules make_plan enforces (shape, the split's divisibility, the variant's schedule), without
// building the plan, whose steps grow as c². Throws InputError on bad input.
void validate_plan_inputs(const Config& cfg);

// Validates cfg (validate_plan_inputs) and builds its plan. Throws InputError on bad input.
Plan make_plan(const Config& cfg);

// Where a global position lives: its rank and its local row (rows in segment order).
struct RowLocation {
  int rank = -1;
  std::int64_t row = -1;
};
// One location per position; throws rb::Error for a position no rank holds.
std::vector<RowLocation> locate_rows(const Plan& plan, std::span<const std::int64_t> positions);

}  // namespace rb::ring
