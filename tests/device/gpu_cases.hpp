// The configurations every gpu test runs, taken from the cuda backend's own rule
// (ring/executor/backend_support.hpp) instead of from every_variant(): since the strategies landed,
// that list held variants the backend refuses, and three gpu tests threw on their first ulysses case
// on a GPU while every CPU run skipped them (issue 50). Compiled without CUDA too, so a CPU test
// (tests/device/test_gpu_cases.cpp) holds each case to the rule and to the cudnn refusals: a new
// variant, phase or mask that the backend refuses drops out of these cases; one it takes joins them.
#pragma once

#include <string>
#include <vector>

#include "common/config.hpp"
#include "ring/cuda/cuda_options.hpp"

namespace rb::ring::test {

struct GpuCase {
  Config cfg;
  CudaRankMode mode = CudaRankMode::isolated;
  CudaLaunch launch = CudaLaunch::graph;

  std::string name() const;  // the config's label, the mode and the launch
};

// The gpu tests' shape at c ranks: S = 2 * c * 48 (every split divides it into odd chunks of 48 rows,
// under one 128-row tile), Hq = 4, Hkv = 2, bfloat16 on the cuda backend, D = 64 at odd c and 128 at
// even c (both head dimensions the kernels take).
Config gpu_config(int c, Split split, Variant variant, Kernel kernel);

// Whether the cuda backend runs cfg with its kernel: the backend's rule, and for the cudnn kernel the
// plan's SDPA pieces too (ring/plan/sdpa_pieces.hpp: sdpa_refusal). Throws nothing.
bool cuda_runs(const Config& cfg);

// The gpu tests' cases on `kernel`: every split × variant (each hybrid U, ulysses at U = c) × phase
// × dK/dV design where it matters × documents (none, and the corner documents of
// tests/ring/documents_fixture.hpp) × c in {1, 2, 3, 4, 8} × rank mode × launch (graph, then eager),
// keeping those cuda_runs() accepts.
std::vector<GpuCase> gpu_cases(Kernel kernel);

// The few single configurations the other gpu tests run, named here so that the CPU test holds them
// to the rule as well.
Config link_model_config();                  // transfers paced by --link-gbps
Config abort_config();                       // abort stops later passes
std::vector<GpuCase> transfer_span_cases();  // c = 4 zig-zag, every variant run
std::vector<Config> refused_configs();       // what the executor must refuse

}  // namespace rb::ring::test
