// Tool and host description for results.json.
#include "bench/sweep/environment.hpp"

#include <fstream>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#include "bench/sweep/gpu_state.hpp"
#ifdef RINGBENCH_HAVE_CUDA
#include "kernels/device_kind.hpp"
#endif
#include "ring/library_versions.hpp"

#ifndef RINGBENCH_BUILD_TYPE
#define RINGBENCH_BUILD_TYPE "unknown"
#endif

namespace rb::bench {

namespace {

std::vector<std::string>& typed() {
  static std::vector<std::string> argv;
  return argv;
}

// Quotes a word for a POSIX shell when it needs it, so the recorded line can be pasted back.
std::string shell_word(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:@%+") ==
                        std::string::npos)
    return a;
  std::string q(1, '\'');
  for (char c : a) {
    if (c == '\'')
      q.append("'\\''");
    else
      q.push_back(c);
  }
  q.push_back('\'');
  return q;
}

}  // namespace

void set_command_line(int argc, const char* const* argv) {
  typed().assign(argv, argv + argc);
  if (!typed().empty()) typed()[0] = "ringbench";  // the binary's path says nothing about the run
}

const std::vector<std::string>& command_line() { return typed(); }

nlohmann::json tool_info(const std::vector<std::string>& argv) {
  std::string cmd;
  for (const auto& a : argv) {
    if (!cmd.empty()) cmd.push_back(' ');
    cmd.append(shell_word(a));
  }
  nlohmann::json tool{{"name", "ringbench"}, {"version", RINGBENCH_VERSION},       {"git_sha", tool_git_sha()},
                      {"command_line", cmd}, {"build_type", RINGBENCH_BUILD_TYPE}, {"cuda_build", false}};
#ifdef RINGBENCH_HAVE_CUDA
  tool["cuda_build"] = true;
  // What the cuda backend ran on (2.14.0): the GPU, or ringbench-emu's emulated device, whose
  // timings are the host's and which compare, accept and fleet refuse.
  tool["device"] = std::string(kernels::device_kind());
#endif
  return tool;
}

std::int64_t available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string key; in >> key;) {
    std::int64_t kb = 0;
    in >> kb;
    if (key == "MemAvailable:") return kb * 1024;
    in.ignore(256, '\n');
  }
  return 0;
}

std::string this_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return {};
  return name;
}

nlohmann::json host_info() {
  nlohmann::json h;
  h["hostname"] = this_hostname();
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
  h["gpus"] = gpu_descriptions();  // the CUDA runtime's view, with NVML's where it loads
  // The libraries a run's figures depend on, as this process loaded them (cudnn 2.1.0; cuda, nccl
  // and mpi 2.5.0); the fleet view compares them across nodes.
  nlohmann::json libraries = nlohmann::json::object();
  for (const auto& [name, versions] : ring::library_versions()) libraries[name] = versions;
  h["libraries"] = libraries;
  return h;
}

}  // namespace rb::bench
