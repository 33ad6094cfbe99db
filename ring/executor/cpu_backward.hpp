// The backward pass on the CPU backend (docs/design.md §3a): each rank's compute thread and comm
// threads, following the plan's BackwardSchedule, which the variant described once. The executor
// (executor_cpu.cpp) starts them after the forward of the same pass, or alone after an untimed one.
//
// Compute, per step j: wait for the step's K/V, add the step's dQ and compute its block's dK/dV
// (kernels/attention_block_bwd_ref.hpp, from the forward's final O and log-sum-exp), then fold in the
// peer's partial dK/dV of that block where the design brings one, so the sum travels on:
// - reverse: the message of step j (K/V for the next step, the partial of step j - 1) arrives in the
//   next fused buffer; the block gradients are added to its dK/dV part, which the next message sends;
// - follow: the partial of step j arrives in a trailing buffer after the peer's step j - 1; the
//   block gradients are added to it, and a trailing comm thread sends it on after the step;
// - gathered: one step writes dK/dV of every block, which the comm thread reduce-scatters home.
// Comm, per K/V lane: reverse sends message m during step m (after step m - 1 has added its
// gradients); follow moves K/V exactly as the forward does and a second thread per lane carries
// the partials; gathered gathers, then reduce-scatters. Timeline names: compute "attention_bwd",
// "grad_add"; comm "kv_dkv_recv" (reverse), "kv_recv" and "dkv_recv" (follow), "kv_allgather" and
// "dkv_reduce_scatter" (gathered).
#pragma once

#include "common/kv_schedule.hpp"
#include "ring/executor/cpu_rank.hpp"

namespace rb::ring {

// Comm threads a rank's backward runs under `b`: one per lane (reverse), two per lane (follow:
// K/V and the trailing partials), one (gathered: the gather, then the reduce-scatter).
int backward_comm_threads(const BackwardSchedule& b);

// Clears the counters of one rank before a backward.
template <typename T>
void reset_backward(CpuRank<T>& rk, const BackwardSchedule& b);

// Rank r's backward compute thread, and its comm thread `thread` (0 <= thread <
// backward_comm_threads). Each throws rb::Error on abort or a transport failure.
template <typename T>
void backward_compute(const CpuPass<T>& p, int r);
template <typename T>
void backward_comm(const CpuPass<T>& p, int r, int thread);

}  // namespace rb::ring
