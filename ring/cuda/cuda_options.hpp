// How the CUDA backend measures a pass (docs/design.md §7): the virtual ranks one at a time or all
// at once, the pass replayed as a CUDA Graph or launched eagerly. Compiled in every build, CUDA or
// not, so that the command line and the sweep can name and check these choices anywhere; the
// executor that acts on them is ring/cuda/executor_cuda.hpp (CUDA builds only).
#pragma once

#include <string_view>

namespace rb::ring {

// isolated (default): each virtual rank's pass runs alone on the GPU (its steps, its copies on the
// copy engine, overlapped with its compute); the ring's step time is the maximum over ranks, and
// the pass time the sum of step times. concurrent: all virtual ranks run at once in one graph,
// with the ring's true dependencies (a block is forwarded only after it has arrived).
enum class CudaRankMode { isolated, concurrent };
// graph: replay the captured pass; eager: issue every launch, copy and event from the host each
// pass (the comparison docs/design.md §6 calls the eager-vs-graph difference).
enum class CudaLaunch { graph, eager };

// The names results.json records (timing.rank_mode, timing.launch) and the command line takes.
std::string_view to_string(CudaRankMode m);
std::string_view to_string(CudaLaunch l);

// A name back to its value; throws rb::InputError naming `where` (a flag, a profile path) and the
// accepted names otherwise, like the parsers of common/config.hpp.
CudaRankMode parse_cuda_rank_mode(std::string_view s, std::string_view where);
CudaLaunch parse_cuda_launch(std::string_view s, std::string_view where);

}  // namespace rb::ring
