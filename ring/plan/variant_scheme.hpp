// How K/V reach every rank (docs/design.md §1). Each variant is one small class in its own file, with
// its traffic formula beside it, that describes its schedule once (ring/plan/plan.hpp's KvSchedule):
// whether blocks are gathered or rotate, and in which pieces and directions. Everything else (the
// steps of the plan, the executors, the work matrix, the model) reads that schedule.
#pragma once

#include <memory>
#include <vector>

#include "ring/plan/plan.hpp"

namespace rb::ring {

class VariantScheme {
 public:
  virtual ~VariantScheme() = default;
  virtual Variant kind() const = 0;
  // The schedule for c ranks of `rows` rows each.
  virtual KvSchedule schedule(int c, std::int64_t rows) const = 0;
  // The backward's schedule for the same ranks (docs/design.md §3a): how K/V reach its steps and
  // how dK/dV return home, under the design `dkv` (rotating variants; the gathered one has one) and
  // the run's dtype (which sets the bytes of dK/dV on the wire).
  virtual BackwardSchedule backward(int c, std::int64_t rows, Dkv dkv, DType dtype) const = 0;
  // How the heads are exchanged around the attention (docs/design.md §3b) for cfg's ranks of
  // `shard_rows` tokens each; then schedule() and backward() take the exchange's groups as c and
  // its attention rows (degree · shard_rows) as rows. None (degree 1) unless the variant exchanges
  // heads. Throws InputError naming the rule cfg breaks.
  virtual HeadExchange head_exchange(const Config& cfg, std::int64_t shard_rows) const;
  // Whether head_exchange() ever gives an exchange (degree > 1 where cfg allows one): the variant
  // moves heads by all-to-all, whatever its size (its row of common/scheme_table.hpp).
  bool exchanges_heads() const { return rb::exchanges_heads(kind()); }
};

// Rotating variants' backward, one rule for every lane (docs/design.md §3a): `reverse` turns each
// lane round and starts it where the forward's last step left it, dK/dV riding in the K/V message in
// the run's dtype; `follow` keeps the forward's lanes and sends dK/dV behind them in fp32 (float64
// on a float64 run).
BackwardSchedule rotating_backward(const KvSchedule& forward, Dkv dkv, DType dtype);

// The variant's object; the one place that maps a Variant to its class.
std::unique_ptr<VariantScheme> make_variant_scheme(Variant kind);

// What every rank's steps under one schedule read, found once for all of them: the key segments of
// each (origin, lane), their tokens and, under documents, the document indexes of those keys and of
// each member's rows. Finding them again for every (rank, step) made plans and work matrices
// O(c^2 x documents) (issue 51); with them a step costs its active segments and its pieces.
class StepKeys {
 public:
  // Keeps pointers into `segs`, which must outlive it.
  StepKeys(const KvSchedule& schedule, const std::vector<SegmentList>& segs, const DocumentMask& documents);
  StepKeys(const StepKeys&) = delete;
  StepKeys& operator=(const StepKeys&) = delete;
  // The keys of member `origin`'s block on lane `lane` (gathered: its whole rows, lane 0).
  const SegmentList& keys(int origin, int lane) const { return *keys_[at(origin, lane)]; }
  std::int64_t tokens(int origin, int lane) const { return tokens_[at(origin, lane)]; }
  const DocumentMask::SpanIndex& key_index(int origin, int lane) const { return *key_index_[at(origin, lane)]; }
  const DocumentMask::SpanIndex& row_index(int member) const { return row_index_.at(static_cast<std::size_t>(member)); }

 private:
  std::size_t at(int origin, int lane) const { return static_cast<std::size_t>(origin) * lanes_ + lane; }
  std::size_t lanes_ = 1;
  std::vector<SegmentList> owned_;        // lane pieces that are not a member's whole rows
  std::vector<const SegmentList*> keys_;  // [origin * lanes + lane]
  std::vector<std::int64_t> tokens_;
  // Under documents (else empty, and the pointers null): each member's rows' index, the owned
  // pieces' own, and per (origin, lane) the one its keys read.
  std::vector<DocumentMask::SpanIndex> row_index_, owned_index_;
  std::vector<const DocumentMask::SpanIndex*> key_index_;
};

// The steps of rank r under `schedule`: at each step the pieces it attends to (their origins in
// key-row order), the segment pairs against them, and the bytes that arrive before the step and
// leave during it.
// Under documents (docs/design.md §3c) each segment pair is its within-document pieces.
// `keys`, when given, is StepKeys(schedule, segs, documents), shared by every rank's call.
std::vector<StepPlan> schedule_steps(const KvSchedule& schedule, int r, const std::vector<SegmentList>& segs,
                                     bool causal, std::int64_t kv_bytes_per_token, const DocumentMask& documents = {},
                                     const StepKeys* keys = nullptr);

// Rank r's backward under `schedule` (docs/design.md §3a): each step's pairs against the block its
// K/V schedule brings, and the bytes of K/V and of dK/dV (grad_bytes_per_token) each step and the
// tail receive and send.
BackwardRankPlan backward_steps(const BackwardSchedule& schedule, int r, const std::vector<SegmentList>& segs,
                                bool causal, std::int64_t kv_bytes_per_token, std::int64_t grad_bytes_per_token,
                                const DocumentMask& documents = {}, const StepKeys* keys = nullptr);

// Pairs of the query segments `queries` with the key segments `keys` of rank `src`, tagged `lane`:
// every segment pair, or under documents their within-document pieces (DocumentMask::pairs).
std::vector<PlannedPair> pairs_against(const SegmentList& queries, int src, const SegmentList& keys, bool causal,
                                       int lane = 0, const DocumentMask& documents = {});

}  // namespace rb::ring
