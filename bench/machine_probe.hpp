// A fixed piece of arithmetic and memory traffic, timed, to see the machine's own speed apart from
// ringbench's code: on a shared VM a neighbour or a frequency change can make a whole run 5-40%
// slower, which no statistic over one run's samples can tell from a regression. `run` times the
// probe before each round of every CPU configuration and after its last; `compare` calls a change
// NOISY when the probe moved with it by at least half as much and by twice the threshold
// (docs/compare.md). The probe is independent of the kernels, so a change to ringbench's
// arithmetic does not move it.
#pragma once

namespace rb::bench {

// Median of five timed runs of the fixed workload on every hardware thread at once (a few ms each
// on a current x86 core): float32 multiply-add chains over a 64 KiB array (core speed) and a copy
// of 8 MiB per thread (memory bandwidth).
double machine_probe_ms();

}  // namespace rb::bench
