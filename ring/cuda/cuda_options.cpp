// Names and parsing of the CUDA backend's measurement choices.
#include "ring/cuda/cuda_options.hpp"

#include <string>

#include <fmt/format.h>

#include "common/error.hpp"

namespace rb::ring {

std::string_view to_string(CudaRankMode m) { return m == CudaRankMode::isolated ? "isolated" : "concurrent"; }
std::string_view to_string(CudaLaunch l) { return l == CudaLaunch::graph ? "graph" : "eager"; }

CudaRankMode parse_cuda_rank_mode(std::string_view s, std::string_view where) {
  for (const auto m : {CudaRankMode::isolated, CudaRankMode::concurrent})
    if (to_string(m) == s) return m;
  throw InputError(std::string(where), fmt::format("'{}'", s), "rank mode must be one of: isolated, concurrent");
}

CudaLaunch parse_cuda_launch(std::string_view s, std::string_view where) {
  for (const auto l : {CudaLaunch::graph, CudaLaunch::eager})
    if (to_string(l) == s) return l;
  throw InputError(std::string(where), fmt::format("'{}'", s), "launch must be one of: graph, eager");
}

}  // namespace rb::ring
