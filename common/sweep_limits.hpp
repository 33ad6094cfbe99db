// The bounds every sweep's values keep, wherever they come from (profiles, `run` flags, `model`),
// and so the bounds a reader holds a results file to: a count no writer writes is a crafted file,
// refused before anything is sized by it (a report drew one bar per rank of `config.cp`).
#pragma once

#include <cstdint>

namespace rb {

inline constexpr std::int64_t kMaxSeq = std::int64_t{1} << 40;
inline constexpr int kMaxCp = 1 << 20;
// Repeats, warm-up passes and rounds of one configuration: the bound of the profile fields and of
// run's --rounds (bench/sweep/profile.cpp, bench/cli/run_command.cpp).
inline constexpr std::int64_t kMaxPassCount = 1000000;

}  // namespace rb
