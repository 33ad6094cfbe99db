// A fixed piece of arithmetic and memory traffic, timed, to see the machine's own speed apart from
// ringbench's code: on a shared VM a neighbour or a frequency change can make a whole run 5-40%
// slower, which no statistic over one run's samples can tell from a regression. `run` times the
// probe before each round of every CPU configuration and after its last; `compare` calls a change
// NOISY when the probe moved with it by at least a third as much and by twice the threshold, or
// when the change is within how far the cores differed in speed (docs/compare.md). The probe is
// independent of the kernels, so a change to ringbench's arithmetic does not move it.
#pragma once

namespace rb::bench {

// Results carry it as timing.machine_probe_version; compare uses the probe only between equal
// versions. 1: latency-bound multiply-add chains and a copy, ~2 ms (results before 0.3.0).
// 2: an attention-shaped block over 1 MiB of K and V, vectorised, and a copy, ~5 ms.
inline constexpr int kMachineProbeVersion = 2;

struct MachineProbe {
  // Median of five timed runs of the fixed workload on every hardware thread at once (about 5 ms
  // each on a current x86 core): a 64-query float32 attention block over 4096 keys with K and V of
  // 1 MiB each (throughput-bound arithmetic, data in L2/L3) and a copy of 4 MiB per thread
  // (memory bandwidth).
  double ms = 0;
  // Median over the runs of (slowest - fastest) / fastest of the threads' own times: how far the
  // cores differed in speed. On a VM whose host slows one vCPU, a single-threaded configuration's
  // time depends on which vCPU it ran on, and its samples turn bimodal (40 or 58 ms).
  double core_spread = 0;
};

// Not thread-safe: one caller at a time.
MachineProbe machine_probe();

}  // namespace rb::bench
