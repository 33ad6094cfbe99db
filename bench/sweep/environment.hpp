// What a results file records about where it ran: tool version and git sha, command line, host,
// CPU, OS, and (for CUDA builds) devices and library versions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rb::bench {

nlohmann::json tool_info(const std::vector<std::string>& argv);
// The commit this build was made from (`git rev-parse --short=12 HEAD` at build time), "unknown" outside
// git. Defined in the build folder's git_sha.cpp, which cmake/write_git_sha.cmake writes.
const char* tool_git_sha();

// The process's whole command line as typed, which main records before parsing, so a results file
// says every flag it was run with. Empty until set.
void set_command_line(int argc, const char* const* argv);
const std::vector<std::string>& command_line();
nlohmann::json host_info();
// This machine's name (gethostname), "" where the OS gives none.
std::string this_hostname();

// MemAvailable of /proc/meminfo in bytes (0 where unknown).
std::int64_t available_memory_bytes();

}  // namespace rb::bench
