// What `ringbench model` computes, apart from its flags and its printing: for each (S, c) the
// activation memory, traffic against compute for both variants, work per rank for each split, and
// the ring simulation, plus the series the HTML report plots. This is where ring/ (the work matrix)
// meets model/ (the formulas and the simulator), so other commands can ask for the same predictions.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/documents.hpp"
#include "model/model_inputs.hpp"
#include "model/step_table.hpp"
#include "model/strategy_pricing.hpp"
#include "ring/plan/work_matrix.hpp"

namespace rb::bench {

struct ModelRequest {
  model::ModelInputs inputs;
  std::vector<std::int64_t> seqs{131072};
  std::vector<int> cps{1, 2, 4, 8, 16, 32};
  std::vector<Split> splits{Split::contiguous, Split::zigzag, Split::striped};
  std::vector<Variant> variants{Variant::ring, Variant::allgather};
  // The hybrid's all-to-all groups U to compare (docs/model.md, "Strategies"); ulysses' is c.
  std::vector<int> ulysses_degrees{2, 4, 8};
  bool simulate = true;
  // With a backward, each point also gives the backward's traffic against its compute per design
  // (model/comm_compute.hpp, backward_comm_compute).
  Phase phase = Phase::fwd;
  // Packed documents (docs/design.md §3c), drawn for each S with `seed`; the work, the compute and the
  // simulation then count only within documents, and doc-zigzag pads each document to 2c (as
  // TransformerEngine and Megatron do) rather than refusing it.
  DocumentSpec documents;
  std::uint64_t seed = 1;
  // Host memory the model may use (0: no limit). Its per-rank, per-step tables grow as c², so a
  // c beyond what fits is refused before anything is built.
  std::int64_t memory_limit_bytes = 0;
};

// The model's peak host memory for one (S, c) point, from its c x c tables: measured at 48 bytes
// per cell with the simulation and 18 without (c = 2048), rounded up.
std::int64_t model_point_bytes(int cp, bool simulate);

// The work matrix of one tensor-parallel rank's share at (S, c): Hq/t query heads, its K/V heads,
// the K/V dtype, the hybrid's all-to-all group `degree`, and the documents drawn for S with `seed`
// (doc-zigzag padding them). Throws InputError when S does not divide as the split needs, the head
// exchange refuses the heads, or the documents do not fill S.
ring::WorkMatrix model_work_matrix(const model::ModelInputs& in, std::int64_t seq, int cp, Split split, Variant variant,
                                   int degree = 1, const DocumentSpec& documents = {}, std::uint64_t seed = 1);

// The share of a whole sequence's unmasked pairs that lie within the request's documents: 1 without them.
double within_documents_share(const ModelRequest& req, std::int64_t seq, bool causal);

// The work matrix's tables as the model prices them (model/strategy_pricing.hpp).
model::StrategyWork strategy_work(const ring::WorkMatrix& wm);

// Seconds per rank and step at the inputs' efficiency * peak and over their link, one micro-batch:
// model::strategy_step_table of the matrix (under a head exchange one entry per member of the
// schedule, a group, and the all-to-alls over the link their group sits on).
model::StepTable model_step_table(const ring::WorkMatrix& wm, const model::ModelInputs& in);

// Validates the request (InputError naming the flag, the value and the rule) and computes it. The
// JSON layout is documented in docs/model.md ("schema": "ringbench.model").
nlohmann::json model_report(const ModelRequest& req);

}  // namespace rb::bench
