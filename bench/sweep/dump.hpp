// `run --dump DIR`: Q, K, V (as generated, before rounding) and O (as run) in global token order,
// as .npy files in DIR/<config id>/, for checking ringbench from outside.
#pragma once

#include <filesystem>

#include "ring/executor/executor.hpp"

namespace rb::bench {

// Q, K, V (float64, regenerated from the seed) and O (the run's dtype) under dir/<config id>/.
// With a distributed executor every process calls it (reading O is collective); only the one with
// write_files writes.
void dump_configuration(const std::filesystem::path& dir, const ring::Plan& plan, const ring::Executor& exec,
                        bool write_files = true);

}  // namespace rb::bench
