// Tool and host description for results.json.
#include "bench/environment.hpp"

#include <fstream>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#ifndef RINGBENCH_GIT_SHA
#define RINGBENCH_GIT_SHA "unknown"
#endif

namespace rb::bench {

nlohmann::json tool_info(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return {{"name", "ringbench"},
          {"version", RINGBENCH_VERSION},
          {"git_sha", RINGBENCH_GIT_SHA},
          {"command_line", cmd},
#ifdef RINGBENCH_HAVE_CUDA
          {"cuda_build", true}
#else
          {"cuda_build", false}
#endif
  };
}

nlohmann::json host_info() {
  nlohmann::json h;
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  h["hostname"] = name;
  utsname u{};
  if (::uname(&u) == 0) h["os"] = std::string(u.sysname) + " " + u.release + " " + u.machine;
  h["cpu_threads"] = std::thread::hardware_concurrency();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) h["cpu_model"] = line.substr(colon + 2);
      break;
    }
  }
  h["gpus"] = nlohmann::json::array();  // filled by the CUDA backend when it runs
  return h;
}

}  // namespace rb::bench
