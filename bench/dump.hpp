// `run --dump DIR`: Q, K, V (as generated, before rounding) and O (as run) in global token order,
// as .npy files in DIR/<config id>/, for checking ringbench from outside.
#pragma once

#include <filesystem>

#include "ring/executor.hpp"

namespace rb::bench {

void dump_configuration(const std::filesystem::path& dir, const ring::Plan& plan, const ring::Executor& exec);

}  // namespace rb::bench
