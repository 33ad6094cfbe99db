// The baseline build of an A/B run (`ringbench ab BASE_BIN`), as the driver learns it before either
// build starts: its version and commit from `BASE_BIN --version`, which must print `ringbench
// VERSION` and, since A/B runs exist, a `git: SHA` line.
#pragma once

#include <optional>
#include <string>

namespace rb::bench {

struct Build {
  std::string version, git_sha;
};

// How long `BASE_BIN --version` may take, and how long it may linger once it closed its output (a
// ringbench exits as it closes it; one that stays alive must not hang the driver).
inline constexpr int kVersionSeconds = 60;
inline constexpr int kVersionExitSeconds = 3;

// BASE_BIN's version and commit. Throws InputError naming BASE_BIN for a path that is no executable
// file, a binary that is not ringbench, one that predates A/B runs (no `git:` line), one whose
// --version does not finish (and exit) within the deadlines above, and names that are not plain.
// std::nullopt when SIGINT or SIGTERM (interrupt.hpp) arrived meanwhile: the probe was ended.
std::optional<Build> probe_base(const std::string& bin);

}  // namespace rb::bench
