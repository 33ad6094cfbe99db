// Compiling a rank's step program from the plan (docs/design.md §4): the forward (forward.cpp), the
// backward of the plan's dK/dV design (one file per design: backward_reverse.cpp, backward_follow.cpp,
// backward_gathered.cpp), the head exchange wrapped around both (head_exchange.cpp), then an
// injected fault as a rewrite of ops (fault.cpp) and the dependencies from the buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "ring/executor/injected_fault.hpp"
#include "ring/plan/plan.hpp"
#include "ring/program/program.hpp"

namespace rb::ring {

// What every compiler of one rank reads: the plan, the rank, its K/V schedule's members (the ranks,
// or the groups of a head exchange) and the layout of its blocks, in elements.
struct CompileContext {
  const Plan& plan;
  int rank = 0;
  int members = 1;        // the K/V schedule's
  int member = 0;         // this rank's
  std::int64_t rows = 0;  // attention rows
  std::int64_t row = 0;   // one K or V row: kv_heads · D
  std::int64_t q = 0;     // Q, O, dO, dQ: rows · q_heads · D
  std::int64_t lse = 0;   // LSE, Δ: rows · q_heads
  std::int64_t lane_rows = 0;
  int lanes = 1;
  std::int64_t piece = 0;     // one lane's [K | V] (or [dK | dV]) run
  std::int64_t v_offset = 0;  // from a block's K rows to its V rows
  std::int64_t block = 0;     // the own block: every lane's piece
  std::int64_t half = 0;      // one member's K, or V: rows · row

  CompileContext(const Plan& plan, int rank);
  // The ring rank of member m of this rank's K/V schedule (this rank's place in member m's group).
  int peer(int m) const;
  // Where lane l's piece starts in a block.
  std::int64_t piece_at(int l) const { return l * piece; }
};

// Rank r's whole program: the forward, and the backward where the plan has one. `fault` rewrites
// the ops it acts on (none: the pass as planned).
RankProgram compile_program(const Plan& plan, int r, InjectedFault fault = InjectedFault::none);

// Only the buffers rank r's program declares (the memory estimate's; no ops are made).
RankProgram program_buffers(const Plan& plan, int r);

// The op kinds a configuration's programs hold, known from its variant, phase and dK/dV design
// before any plan (what an interpreter must run to take it: check_backend_supports asks this).
std::vector<OpKind> program_op_kinds(const Config& cfg);

// The lanes (compute and comm) of every rank's program under `plan`'s schedules, known before any
// program is compiled (the thread count and its estimate).
int program_lanes(const KvSchedule& forward, const BackwardSchedule* backward);

}  // namespace rb::ring
