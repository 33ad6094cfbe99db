// How a configuration of a sweep ended, as results.json's `status` says it: measured and correct
// (ok), measured wrong or not at all for a fault (failed), or never run for a stated reason
// (skipped). The writer and every reader share these three words through this one type.
#pragma once

#include <optional>
#include <string_view>

namespace rb {

enum class RunStatus { ok, failed, skipped };

constexpr std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::ok: return "ok";
    case RunStatus::skipped: return "skipped";
    case RunStatus::failed: return "failed";
  }
  return "failed";
}

// The status a results file names, or nullopt for any other text.
constexpr std::optional<RunStatus> parse_run_status(std::string_view s) {
  for (const RunStatus v : {RunStatus::ok, RunStatus::failed, RunStatus::skipped})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

}  // namespace rb
