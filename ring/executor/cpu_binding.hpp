// Where the CPU backend's compute threads run. Left to the OS, a ring of c ranks on a few cores
// settles, per executor, into one of a few placements and keeps it for the executor's life: on a
// 2-core machine a 2-rank pass took either 1.25 ms (the two compute threads on different cores) or
// 2.45 ms (on the same core), a coin toss made once per round (docs/performance.md, "CPU binding").
// Every sample of a round then shares one placement, so a round is one draw, not several, and an
// A/A pair of identical builds was called SLOWER +90% in CI. Binding each ring rank's compute thread
// to its own CPU, the way MPI launchers bind ranks, makes that choice once and the same in every
// round and every build. Comm threads stay free: they sleep until a piece arrives and go wherever
// a core is idle, which is the overlap the backend models.
#pragma once

#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace rb::ring {

enum class CpuBinding {
  ranks,  // ring rank r's compute thread on the (r mod N)-th of the process's N allowed CPUs
  none,   // the OS places every thread
};
std::string_view to_string(CpuBinding b);
// "ranks" or "none"; anything else is an InputError naming `field`.
CpuBinding parse_cpu_binding(std::string_view s, std::string_view field = "--cpu-bind");

// The CPUs this process may run on, ascending (sched_getaffinity); never empty: where the mask
// cannot be read, {0}.
std::vector<int> allowed_cpus();

// The CPU ring rank `rank` is bound to under CpuBinding::ranks. Rank order, not hosted order, so
// that each process of an MPI job (one rank each, every CPU allowed) takes a different CPU, and a
// launcher that already bound a process to one CPU keeps it there.
int cpu_for_rank(int rank, const std::vector<int>& allowed);

// Binds `t` to `cpu`; throws Error naming the CPU and the errno where the OS refuses.
void bind_thread(std::thread& t, int cpu);

}  // namespace rb::ring
