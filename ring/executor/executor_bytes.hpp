// What each executor allocates for a plan, estimated before it is made so that the sweep skips what
// cannot fit (bench/sweep/memory_budget.hpp). One home for every backend's estimate, compiled in
// every build: the estimates are arithmetic on the plan and need no CUDA, so a build without it
// still sizes, and the tests check, the CUDA backend's. Each counts the buffer set of
// ring/executor/rank_buffers.hpp: per rank Q, the own K/V block, two step buffers or the gathered K/V, the
// partial and accumulated O and LSE; with a backward, its buffers too (ring/executor/backward_buffers.hpp).
#pragma once

#include <cstdint>

#include "ring/plan/plan.hpp"

namespace rb::ring {

// Bytes the CPU backend allocates for a plan: every rank's buffers, as its step program declares
// them (ring/program/compile.hpp's program_buffers), in the plan's dtype.
std::int64_t cpu_executor_bytes(const Plan& plan);

// Device bytes the CUDA backend allocates on its fullest device for a plan whose ranks are dealt
// over `devices` devices (bfloat16 Q and K/V, float O and LSE).
std::int64_t cuda_executor_bytes(const Plan& plan, int devices = 1);

// Device bytes the CUDA executor over nccl allocates for ONE rank (what each process needs on its
// GPU). NCCL's own buffers are not included.
std::int64_t nccl_executor_bytes(const Plan& plan);

}  // namespace rb::ring
